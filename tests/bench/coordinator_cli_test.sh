#!/bin/sh
# `minitf coordinator` over `minitf job` processes, in AntMan's hostPath
# layout as a cluster node has it (docs/DEPLOY.md): a directory per job,
# DIR/<job>/ with job.json, status.json and config.json; or (CASE
# side_by_side) the files of every job side by side in DIR.
#
#   coordinator_cli_test.sh MINITF CASE
#
# CASE is one of:
#   closed_loop  a guarantee and an opportunistic job: the coordinator finds
#                both, gives each its memory, measures the guarantee job
#                alone (the opportunistic one suspended, then resumed) and
#                logs every decision; both jobs stop cleanly on SIGTERM
#   kill_job     the opportunistic job is killed with SIGKILL: it is lost
#                (its process is gone), and the guarantee job goes on
#   restart      the coordinator is killed with SIGKILL: the jobs keep their
#                settings and go on; a new coordinator finds them with their
#                settings from disk and continues the log
#   side_by_side closed_loop's start with <job>.job.json, <job>.status.json
#                and <job>.config.json in DIR itself
#
# The jobs run on SimGPU (each process its own, so they do not contend
# for one simulated device here).
set -u
minitf=$1
case_name=$2
dir=$(mktemp -d)
state=$dir/antman
mkdir -p "$state"
pids=""
cleanup() {
  for p in $pids; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  for f in "$dir"/*.log "$state/coordinator.csv"; do
    echo "--- $f:"
    cat "$f" 2>/dev/null
  done
  exit 1
}

export MINITF_GPU_PLATFORM=SimGPU
export MINITF_SIMGPU=memory=16GiB,mode=timing

# job_file JOB KIND: where job JOB's file KIND (job, status, config) is.
job_file() {
  if [ "$case_name" = side_by_side ]; then
    echo "$state/$1.$2.json"
  else
    echo "$state/$1/$2.json"
  fi
}

start_job() {  # name role
  printf '{"name": "%s", "model": "mlp", "batch_size": 64, "role": "%s"}\n' "$1" "$2" \
    > "$dir/$1.json"
  [ "$case_name" = side_by_side ] || mkdir "$state/$1"
  GPU_CONFIG_FILE=$(job_file "$1" config) GPU_STATUS_FILE=$(job_file "$1" status) \
    "$minitf" job "$dir/$1.json" --out "$dir/out" > "$dir/$1.log" 2>&1 &
  pids="$pids $!"
}

# Waits (at most 60 s) until `pattern` is in the coordinator's log.
wait_log() {
  i=0
  while ! grep -q "$1" "$state/coordinator.csv" 2>/dev/null; do
    i=$((i + 1))
    [ $i -le 600 ] || fail "never logged: $1"
    sleep 0.1
  done
}

start_coordinator() {
  "$minitf" coordinator "$state" --gpu-memory 16GiB --interval 0.2 > "$dir/coordinator.log" 2>&1 &
  coordinator=$!
  pids="$pids $coordinator"
}

start_job g guarantee
start_job o opportunistic
g=$(echo $pids | cut -d' ' -f1)
o=$(echo $pids | cut -d' ' -f2)
start_coordinator
wait_log '^[0-9.]*,g,found,,guarantee'
wait_log '^[0-9.]*,o,found,,opportunistic'

case $case_name in
closed_loop | side_by_side)
  wait_log '^[0-9.]*,o,maxDeviceMem,'
  wait_log '^[0-9.]*,o,perfControl,[0-9]*,0,calibrating'
  wait_log '^[0-9.]*,o,perfControl,0,[0-9]*,calibrated: g alone at'
  grep -q '"perfControl": 100' "$(job_file g config)" || fail "the guarantee job is restricted"
  if [ "$case_name" = closed_loop ]; then
    [ -z "$(find "$state" -maxdepth 1 -name '*.json')" ] || fail "files outside the jobs' directories"
  fi
  kill -TERM $coordinator
  wait $coordinator
  status=$?
  [ $status -eq 143 ] || fail "coordinator: exit status $status, expected 143"
  for p in $g $o; do
    kill -TERM $p
    wait $p
    status=$?
    [ $status -eq 143 ] || fail "a job: exit status $status, expected 143"
  done
  grep -q '"status": "interrupted"' "$dir/out/o.summary.json" || fail "o's summary"
  [ ! -e "$(job_file o job)" ] || fail "o's registration is left behind"
  ;;
kill_job)
  wait_log '^[0-9.]*,o,maxDeviceMem,'
  kill -KILL $o
  wait_log "^[0-9.]*,o,lost,opportunistic,,process $o is gone"
  steps_before=$(grep -o '"stepCount": *[0-9]*' "$(job_file g status)")
  sleep 2
  steps_after=$(grep -o '"stepCount": *[0-9]*' "$(job_file g status)")
  [ "$steps_before" != "$steps_after" ] || fail "the guarantee job stopped with the other"
  kill -TERM $g
  wait $g
  status=$?
  [ $status -eq 143 ] || fail "the guarantee job: exit status $status, expected 143"
  ;;
restart)
  wait_log '^[0-9.]*,o,perfControl,'
  kill -KILL $coordinator
  wait $coordinator 2>/dev/null
  config=$(cat "$(job_file o config)")
  sleep 1.5
  [ "$(cat "$(job_file o config)")" = "$config" ] || fail "a config changed with no coordinator"
  rows=$(wc -l < "$state/coordinator.csv")
  start_coordinator
  i=0
  while [ "$(grep -c ',g,found,,guarantee' "$state/coordinator.csv")" -lt 2 ]; do
    i=$((i + 1))
    [ $i -le 600 ] || fail "the new coordinator did not find the jobs"
    sleep 0.1
  done
  [ "$(head -1 "$state/coordinator.csv")" = "time_s,job,setting,old,new,reason" ] ||
    fail "the log's header"
  [ "$(grep -c '^time_s' "$state/coordinator.csv")" -eq 1 ] || fail "the log restarted"
  [ "$(wc -l < "$state/coordinator.csv")" -gt "$rows" ] || fail "the log was not continued"
  ;;
*)
  echo "unknown case $case_name"
  exit 2
  ;;
esac
echo "PASS: $case_name"
