#!/bin/sh
# `minitf job` as a cluster runs it: one job as its own process, started
# with the environment HAMi's device plugin gives a container and AntMan's
# config and status files (docs/DEPLOY.md), stopped by SIGTERM.
#
#   job_cli_test.sh MINITF CASE
#
# CASE is one of:
#   hami       the job pod's environment of docs/DEPLOY.md: the memory limit
#              and compute share it names are the job's config, in force
#              in every step; exit 0, summary.json complete; then AntMan's
#              layout, GPU_CONFIG_FILE and GPU_STATUS_FILE
#   sigterm    SIGTERM while the job runs (it has no end of its own): the
#              step in flight is cancelled, the steps done are written,
#              exit 143, summary.json interrupted by SIGTERM
#   scenario   one job picked from a scenario with --job; a scenario of two
#              jobs without --job, and an unknown --job, are exit 2
#   bad_env    a malformed CUDA_DEVICE_MEMORY_LIMIT_0, an SM limit over 100
#              and NVIDIA_VISIBLE_DEVICES=none: exit 2, naming the variable;
#              a bad model_params, exit 2 naming the field; more memory than
#              the GPU has: exit 1, summary.json failed with the error
#
#   planted_links  links a tenant plants in the shared directory: at the
#              old fixed temporary names of the config and the statistics
#              (the job runs, nothing is written through them); as its
#              registration or its summary (refused, exit 1, naming the
#              file); never is the linked file outside written
#
# The jobs run on SimGPU whatever the machine has.
set -u
minitf=$1
case_name=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out
state=$dir/antman  # the hostPath directory of the AntMan layout

fail() {
  echo "FAIL: $*"
  echo "--- minitf's output:"
  cat "$dir/log" 2>/dev/null
  echo "--- summary.json:"
  cat "$out"/*.summary.json 2>/dev/null
  exit 1
}

export MINITF_GPU_PLATFORM=SimGPU
export MINITF_SIMGPU=memory=16GiB,mode=timing
mkdir -p "$state"
cat > "$dir/job.json" <<'JSON'
{"name": "bert-small", "model": "mlp", "batch_size": 64, "role": "opportunistic"}
JSON

case $case_name in
hami)
  # Exactly the environment docs/DEPLOY.md's opportunistic job pod receives
  # under HAMi (no AntMan files: the job keeps its own in --out).
  env NVIDIA_VISIBLE_DEVICES=GPU-8f3b5c2e-1d4a-4b7e-9c61-2a5d7e9f0b13 \
      CUDA_DEVICE_MEMORY_LIMIT_0=4096m CUDA_DEVICE_SM_LIMIT=30 \
      CUDA_DEVICE_MEMORY_SHARED_CACHE=/usr/local/vgpu/GPU-8f3b5c2e-1d4a-4b7e-9c61-2a5d7e9f0b13.cache \
      CUDA_DISABLE_CONTROL=true \
      "$minitf" job "$dir/job.json" --seconds 2 --out "$out" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 0 ] || fail "exit status $status, expected 0"
  config=$out/bert-small.config.json
  grep -q '"maxDeviceMem": 4294967296' "$config" ||
    fail "the config file does not hold CUDA_DEVICE_MEMORY_LIMIT_0"
  grep -q '"perfControl": 30' "$config" || fail "the config file does not hold CUDA_DEVICE_SM_LIMIT"
  [ -s "$out/bert-small.status.json" ] || fail "no statistics file"
  grep -q '"status": "complete"' "$out/bert-small.summary.json" || fail "summary not complete"
  steps=$(tail -n +2 "$out/bert-small.steps.csv" | wc -l)
  [ "$steps" -ge 1 ] || fail "no step recorded"
  # time_s,step,step_ms,device_bytes,host_bytes,limit_bytes,perf_control,gpu_share
  bad=$(tail -n +2 "$out/bert-small.steps.csv" |
        awk -F, '$6 != 4294967296 || $7 != 30' | wc -l)
  [ "$bad" -eq 0 ] || fail "$bad steps ran under other limits than the environment's"
  # AntMan's layout: the files named by GPU_CONFIG_FILE and GPU_STATUS_FILE.
  env GPU_CONFIG_FILE="$state/bert-small.config.json" \
      GPU_STATUS_FILE="$state/bert-small.status.json" CUDA_DEVICE_MEMORY_LIMIT_0=2g \
      "$minitf" job "$dir/job.json" --seconds 1 --out "$out" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 0 ] || fail "AntMan's layout: exit status $status, expected 0"
  grep -q '"maxDeviceMem": 2147483648' "$state/bert-small.config.json" ||
    fail "AntMan's layout: the config file is not GPU_CONFIG_FILE's"
  [ -s "$state/bert-small.status.json" ] || fail "AntMan's layout: no GPU_STATUS_FILE"
  ;;
sigterm)
  GPU_CONFIG_FILE="$state/a.config.json" GPU_STATUS_FILE="$state/a.status.json" \
    "$minitf" job "$dir/job.json" --out "$out" > "$dir/log" 2>&1 &
  pid=$!
  i=0
  # The statistics file is written after the first step.
  while [ ! -s "$state/a.status.json" ]; do
    i=$((i + 1))
    [ $i -le 600 ] || { kill -KILL $pid; fail "the job never stepped"; }
    sleep 0.1
  done
  sleep 0.5
  kill -TERM $pid
  wait $pid
  status=$?
  [ $status -eq 143 ] || fail "exit status $status, expected 143"
  grep -q '"status": "interrupted"' "$out/bert-small.summary.json" || fail "not interrupted"
  grep -q '"stopped_by": "SIGTERM"' "$out/bert-small.summary.json" || fail "no signal said"
  steps=$(tail -n +2 "$out/bert-small.steps.csv" | wc -l)
  [ "$steps" -ge 1 ] || fail "the steps done were not written"
  grep -q "\"steps\": $steps," "$out/bert-small.summary.json" ||
    fail "summary.json's steps differ from the steps file's $steps"
  ;;
planted_links)
  mkdir -p "$dir/outside"
  victim=$dir/outside/victim
  echo precious > "$victim"
  antman() {
    GPU_CONFIG_FILE="$state/bert-small.config.json" GPU_STATUS_FILE="$state/bert-small.status.json" \
      "$minitf" job "$dir/job.json" --seconds 1 --out "$out" > "$dir/log" 2>&1
  }
  ln -s "$victim" "$state/bert-small.config.json.tmp"
  ln -s "$victim" "$state/bert-small.status.json.tmp"
  antman
  status=$?
  [ $status -eq 0 ] || fail "links at the temporary names: exit status $status, expected 0"
  [ -s "$state/bert-small.status.json" ] || fail "no statistics file"
  [ "$(cat "$victim")" = precious ] || fail "the file behind a temporary name's link was written"
  rm -f "$state"/*
  ln -s "$victim" "$state/bert-small.job.json"
  antman
  status=$?
  [ $status -eq 1 ] || fail "a linked registration: exit status $status, expected 1"
  grep -q "bert-small.job.json' is a symbolic link" "$dir/log" || fail "the link is not named"
  [ "$(cat "$victim")" = precious ] || fail "the registration was written through the link"
  rm -f "$state"/* "$out"/*
  ln -s "$victim" "$out/bert-small.summary.json"
  antman
  status=$?
  [ $status -eq 1 ] || fail "a linked summary: exit status $status, expected 1"
  grep -q "bert-small.summary.json' is a symbolic link" "$dir/log" || fail "the link is not named"
  [ "$(cat "$victim")" = precious ] || fail "the summary was written through the link"
  ;;
scenario)
  cat > "$dir/two.json" <<'JSON'
{"name": "two", "device": {"platform": "SimGPU", "simgpu": "memory=1GiB,mode=timing"},
 "duration_s": 60,
 "jobs": [{"name": "a", "model": "mlp", "batch_size": 32},
          {"name": "b", "model": "mlp", "batch_size": 64, "role": "guarantee"}]}
JSON
  "$minitf" job "$dir/two.json" --job b --seconds 1 --out "$out" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 0 ] || fail "--job b: exit status $status, expected 0"
  grep -q '"role": "guarantee"' "$out/b.summary.json" || fail "--job b did not run job b"
  "$minitf" job "$dir/two.json" --seconds 1 --out "$out" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "no --job: exit status $status, expected 2"
  grep -q "wants --job NAME; its jobs: a, b" "$dir/log" || fail "no --job: not said"
  "$minitf" job "$dir/two.json" --job c --seconds 1 --out "$out" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--job c: exit status $status, expected 2"
  grep -q "has no job 'c'" "$dir/log" || fail "--job c: not said"
  ;;
bad_env)
  CUDA_DEVICE_MEMORY_LIMIT_0=lots "$minitf" job "$dir/job.json" --seconds 1 --out "$out" \
    > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "a bad memory limit: exit status $status, expected 2"
  grep -q "CUDA_DEVICE_MEMORY_LIMIT_0='lots'" "$dir/log" || fail "the bad limit is not named"
  CUDA_DEVICE_SM_LIMIT=150 "$minitf" job "$dir/job.json" --seconds 1 --out "$out" \
    > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "an SM limit of 150: exit status $status, expected 2"
  grep -q "CUDA_DEVICE_SM_LIMIT='150'" "$dir/log" || fail "the bad SM limit is not named"
  NVIDIA_VISIBLE_DEVICES=none "$minitf" job "$dir/job.json" --seconds 1 --out "$out" \
    > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "no visible GPU: exit status $status, expected 2"
  grep -q "NVIDIA_VISIBLE_DEVICES='none'" "$dir/log" || fail "no visible GPU: not said"
  # More device memory than the GPU has: the set-up fails.
  CUDA_DEVICE_MEMORY_LIMIT_0=64g "$minitf" job "$dir/job.json" --seconds 1 --out "$out" \
    > "$dir/log" 2>&1
  status=$?
  [ $status -eq 1 ] || fail "more memory than the GPU has: exit status $status, expected 1"
  grep -q '"status": "failed"' "$out/bert-small.summary.json" || fail "summary not failed"
  grep -q '"error": .*exceeds the device' "$out/bert-small.summary.json" ||
    fail "summary gives no error"
  # A model its builder refuses is the job file's fault, named.
  cat > "$dir/bad_model.json" <<'JSON'
{"name": "bert-small", "model": "mlp", "batch_size": 64, "model_params": {"hidden": -5}}
JSON
  "$minitf" job "$dir/bad_model.json" --seconds 1 --out "$out" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "a bad model_params: exit status $status, expected 2"
  grep -q "': model_params.hidden must be" "$dir/log" || fail "the bad field is not named"
  ;;
*)
  echo "unknown case $case_name"
  exit 2
  ;;
esac
echo "PASS: $case_name"
