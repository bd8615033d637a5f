#!/bin/sh
# `minitf colocate` as a user runs it: exit statuses, interruption by a
# signal, and what the output directory holds afterwards.
#
#   colocate_cli_test.sh MINITF CASE
#
# CASE is one of:
#   job_failures  every job fails: exit 1, the failures listed on stderr
#   interrupt     SIGINT mid-run: exit 130, summary.json marked interrupted
#                 with the steps run, an earlier run's outputs gone
#   interrupt_twice  a second SIGTERM while the jobs finish their step:
#                 exit 143 at once, summary.json still says "running"
#   interrupt_step  SIGINT during a job's first, long step: the step is
#                 cancelled, not waited for; the job is said to have
#                 completed no step; exit 130
#   no_plots      --no-plots: the closing line names no *.png
#   warnings      what the scenario asks for but will not get is said
#   coordinator   --coordinator tgs: the jobs are steered by a coordinator
#                 (it finds both, measures the guarantee job alone, then
#                 resumes the other); coordinator.csv logs it, the
#                 progress lines show the perfControl it set, summary.json
#                 names the policy; an unknown policy is exit 2
#                 before the run
#   processes     --processes: each job a `minitf job` process (its log and
#                 files in out/jobs), the usual outputs (trace.json with
#                 both jobs), the shared SimGPU's memory all free after
#   processes_kill_job  a job process killed with SIGKILL mid-run: the
#                 other runs to its end, the summary names the dead job and
#                 the signal, exit 1, no device memory held after
#   processes_interrupt  SIGINT mid-run with --processes: each job process
#                 is stopped and keeps its steps; exit 130, no job failed
#   processes_below_normal  --opportunistic-below-normal on MPS: the
#                 opportunistic job's process has CUDA_MPS_CLIENT_PRIORITY=1
#                 in its environment, the guarantee job's none (not even
#                 the one colocate was given); summary.json says so
#   processes_coordinator  --processes --coordinator antman: the progress
#                 lines show the perfControl each job process says it holds
#   processes_kill_coordinator  the coordinator process killed with
#                 SIGKILL: the jobs go on to their end, the summary says
#                 when the coordinator ended
set -u
minitf=$1
case_name=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out

fail() {
  echo "FAIL: $*"
  echo "--- minitf's output:"
  cat "$dir/log" 2>/dev/null
  exit 1
}

# wait_for PATTERN FILE WHY: waits (at most 60 s) until FILE holds a line
# matching PATTERN; fails saying WHY otherwise.
wait_for() {
  i=0
  while ! grep -q "$1" "$2" 2>/dev/null; do
    i=$((i + 1))
    [ $i -le 600 ] || fail "$3"
    sleep 0.1
  done
}

# Waits until summary.json says the run has begun.
wait_running() {
  wait_for '"status": "running"' "$out/summary.json" "the run never wrote its running summary"
}

# Waits (at most 60 s) until job a has written its status file: it does so
# after initialising its variables, so its first step, seconds long on
# slow.json, is under way.
wait_job_a_stepping() {
  i=0
  while [ ! -e "$out/jobs/a.status.json" ]; do
    i=$((i + 1))
    [ $i -le 600 ] || fail "the job never started"
    sleep 0.1
  done
}

# Small MLP jobs, quick to set up.
cat > "$dir/mlp.json" <<'JSON'
{"name": "mlp", "device": {"platform": "SimGPU", "simgpu": "memory=1GiB,mode=timing"}, "duration_s": 60,
 "jobs": [{"name": "a", "model": "mlp", "batch_size": 64},
          {"name": "b", "model": "mlp", "batch_size": 64, "role": "guarantee"}]}
JSON
# Each job's input batch alone is larger than its memory limit.
cat > "$dir/oom.json" <<'JSON'
{"name": "oom", "device": {"platform": "SimGPU", "simgpu": "memory=1GiB,mode=timing"}, "duration_s": 2,
 "jobs": [{"name": "a", "model": "mlp", "batch_size": 16384, "memory_limit": "2MiB"},
          {"name": "b", "model": "mlp", "batch_size": 16384, "memory_limit": "2MiB"}]}
JSON
# Steps that take seconds each: SimGPU computes a wide CNN on the host.
cat > "$dir/slow.json" <<'JSON'
{"name": "slow", "device": {"platform": "SimGPU", "simgpu": "memory=4GiB,mode=compute"}, "duration_s": 60,
 "jobs": [{"name": "a", "model": "cnn", "batch_size": 64,
           "model_params": {"image_size": 32, "channels": 128}}]}
JSON

case $case_name in
job_failures)
  TF_GPU_VMEM=false "$minitf" colocate "$dir/oom.json" --out "$out" --no-plots --no-trace \
    > "$dir/log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, want 1"
  grep -q "2 of 2 jobs failed" "$dir/log" || fail "the failures are not counted"
  grep -q "job 'a': .*OOM" "$dir/log" || fail "job a's failure is not listed"
  grep -q "job 'b': .*OOM" "$dir/log" || fail "job b's failure is not listed"
  grep -q '"status": "complete"' "$out/summary.json" || fail "summary.json is not complete"
  ;;
interrupt)
  mkdir -p "$out"
  printf '{"status": "complete", "jobs": [{"steps_file": "old.steps.csv"}]}\n' \
    > "$out/summary.json"
  echo "time_s,step" > "$out/old.steps.csv"
  echo "a table of another run" > "$out/table.txt"
  "$minitf" colocate "$dir/mlp.json" --out "$out" --no-plots > "$dir/log" 2>&1 &
  pid=$!
  wait_running
  [ ! -e "$out/old.steps.csv" ] || fail "the earlier run's steps file survived"
  [ ! -e "$out/table.txt" ] || fail "the earlier run's table survived"
  sleep 1
  kill -INT $pid
  wait $pid
  rc=$?
  [ $rc -eq 130 ] || fail "exit status $rc, want 130"
  grep -q '"status": "interrupted"' "$out/summary.json" || fail "summary.json not marked"
  grep -q '"interrupted_by": "SIGINT"' "$out/summary.json" || fail "no interrupted_by"
  grep -q "interrupted by SIGINT" "$out/table.txt" || fail "table.txt not marked"
  for f in a.steps.csv b.steps.csv device_timeline.csv throughput.csv actions.csv \
           trace.json; do
    [ -s "$out/$f" ] || fail "$f was not written"
  done
  grep -q "interrupted by SIGINT" "$dir/log" || fail "stderr does not say it was interrupted"
  ;;
interrupt_twice)
  "$minitf" colocate "$dir/slow.json" --out "$out" --no-plots --no-trace > "$dir/log" 2>&1 &
  pid=$!
  wait_running
  wait_job_a_stepping
  # Two different signals back to back: both are delivered (two of one kind
  # may merge into one), and the run cannot end gracefully between them.
  # Whichever is handled second sets the exit status.
  kill -TERM $pid
  kill -INT $pid
  wait $pid
  rc=$?
  [ $rc -eq 143 ] || [ $rc -eq 130 ] || fail "exit status $rc, want 143 or 130"
  grep -q '"status": "running"' "$out/summary.json" ||
    fail "summary.json of a run killed at once must not look finished"
  ;;
interrupt_step)
  "$minitf" colocate "$dir/slow.json" --out "$out" --no-plots --no-trace > "$dir/log" 2>&1 &
  pid=$!
  wait_running
  wait_job_a_stepping
  kill -INT $pid
  wait $pid
  rc=$?
  [ $rc -eq 130 ] || fail "exit status $rc, want 130"
  grep -q "job 'a' completed no step" "$dir/log" ||
    fail "the first step was waited for instead of cancelled, or the job's 0 steps not said"
  grep -q '"status": "interrupted"' "$out/summary.json" || fail "summary.json not marked"
  ;;
no_plots)
  "$minitf" colocate "$dir/mlp.json" --seconds 0.5 --out "$out" --no-plots > "$dir/log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc, want 0"
  grep -q "^wrote " "$dir/log" || fail "no closing line"
  if grep "^wrote " "$dir/log" | grep -q png; then fail "--no-plots still claims plots"; fi
  ;;
coordinator)
  # Calibration takes 6 s (3 s to settle, a 3 s window alone), 9 s when a
  # loaded machine leaves too few status points in the window and it is
  # extended once.
  "$minitf" colocate "$dir/mlp.json" --seconds 12 --coordinator tgs --out "$out" --no-plots \
    --no-trace > "$dir/log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc, want 0"
  csv=$out/coordinator.csv
  [ "$(head -1 "$csv")" = "time_s,job,setting,old,new,reason" ] || fail "no coordinator.csv"
  grep -q '^[0-9.]*,b,found,,guarantee' "$csv" || fail "the guarantee job was not found"
  grep -q '^[0-9.]*,a,perfControl,[0-9]*,0,calibrating' "$csv" || fail "no calibration"
  grep -q '^[0-9.]*,a,perfControl,0,[0-9]*,calibrated: b alone at' "$csv" || fail "not resumed"
  # The progress line printed at 5 s, in the calibration, shows the
  # perfControl the coordinator gave job a, not the scenario's.
  grep -q '^\[ *5\.[0-9]/12\.0 s\]  a [0-9.]* steps/s (perf 0)' "$dir/log" ||
    fail "the progress line at 5 s does not show a's perfControl 0"
  grep -q '"policy": "tgs"' "$out/summary.json" || fail "summary.json does not name the policy"
  "$minitf" colocate "$dir/mlp.json" --coordinator fifo --out "$out" > "$dir/log" 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "an unknown policy: exit status $rc, want 2"
  grep -q "coordinator policy wants antman or tgs, got 'fifo'" "$dir/log" || fail "not said"
  ;;
processes)
  "$minitf" colocate "$dir/mlp.json" --processes --seconds 4 --baseline --baseline-seconds 1 \
    --out "$out" --no-plots > "$dir/log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc, want 0"
  grep -q '"processes": true' "$out/summary.json" || fail "summary.json: not processes"
  grep -q '"device_bytes_after_jobs": 0' "$out/summary.json" ||
    fail "summary.json: device memory still held after the jobs"
  for job in a b; do
    [ -s "$out/jobs/$job.log" ] || fail "no log of job $job's process"
    grep -q '"status": "complete"' "$out/jobs/$job.summary.json" ||
      fail "job $job's process did not complete"
    [ "$(wc -l < "$out/$job.steps.csv")" -gt 2 ] || fail "job $job ran no steps"
    grep -q "job $job (" "$out/trace.json" || fail "trace.json has no track of job $job"
  done
  grep -q '"vs_solo": 0[.]' "$out/summary.json" || fail "no slowdown against the baselines"
  ;;
processes_kill_job)
  "$minitf" colocate "$dir/mlp.json" --processes --seconds 10 --out "$out" --no-plots \
    --no-trace > "$dir/log" 2>&1 &
  pid=$!
  wait_for '"stepCount": *[1-9]' "$out/jobs/a.status.json" "job a never stepped"
  victim=$(sed 's/.*"pid": *\([0-9]*\).*/\1/' "$out/jobs/a.job.json")
  kill -KILL "$victim" || fail "cannot kill job a's process $victim"
  killed_at=$(date +%s)
  wait $pid
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, want 1"
  grep -q "a: its process (pid $victim) was killed by SIGKILL" "$dir/log" ||
    fail "the dead job is not named on stderr"
  grep -q '"failure": "its process (pid [0-9]*) was killed by SIGKILL' "$out/summary.json" ||
    fail "summary.json does not name the signal"
  grep -q '"device_bytes_after_jobs": 0' "$out/summary.json" ||
    fail "the dead job's device memory is still held"
  # b ran on after a died: up to the end, well past the kill.
  [ "$(date +%s)" -ge $((killed_at + 2)) ] || fail "the run ended with job a"
  last=$(tail -1 "$out/b.steps.csv" | cut -d, -f1)
  awk -v t="$last" 'BEGIN { exit !(t > 9) }' || fail "job b stopped at $last s, not at the end"
  ;;
processes_interrupt)
  "$minitf" colocate "$dir/mlp.json" --processes --out "$out" --no-plots --no-trace \
    > "$dir/log" 2>&1 &
  pid=$!
  # A step of each in its steps file (the variables' initialisation counts
  # in the statistics' stepCount, not there).
  for job in a b; do
    wait_for '^[0-9.]*,1,' "$out/jobs/$job.steps.csv" "job $job never stepped"
  done
  kill -INT $pid
  wait $pid
  rc=$?
  [ $rc -eq 130 ] || fail "exit status $rc, want 130"
  grep -q '"status": "interrupted"' "$out/summary.json" || fail "summary.json not interrupted"
  grep -q 'jobs failed' "$dir/log" && fail "an interrupted job counted as failed"
  for job in a b; do
    grep -q '"status": "interrupted"' "$out/jobs/$job.summary.json" ||
      fail "job $job's process was not interrupted"
    [ "$(wc -l < "$out/$job.steps.csv")" -gt 1 ] || fail "job $job's steps were lost"
  done
  ;;
processes_below_normal)
  CUDA_MPS_CLIENT_PRIORITY=1 "$minitf" colocate "$dir/mlp.json" --processes --seconds 4 \
    --simgpu share=mps --opportunistic-below-normal --out "$out" --no-plots --no-trace \
    > "$dir/log" 2>&1 &
  pid=$!
  for job in a b; do
    wait_for '^[0-9.]*,1,' "$out/jobs/$job.steps.csv" "job $job never stepped"
  done
  a_pid=$(sed 's/.*"pid": *\([0-9]*\).*/\1/' "$out/jobs/a.job.json")
  b_pid=$(sed 's/.*"pid": *\([0-9]*\).*/\1/' "$out/jobs/b.job.json")
  tr '\0' '\n' < "/proc/$a_pid/environ" | grep -qx 'CUDA_MPS_CLIENT_PRIORITY=1' ||
    fail "the opportunistic job's process is not a BELOW_NORMAL MPS client"
  tr '\0' '\n' < "/proc/$b_pid/environ" | grep -q '^CUDA_MPS_CLIENT_PRIORITY=' &&
    fail "the guarantee job's process has an MPS client priority"
  wait $pid
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc, want 0"
  grep -q '"below_normal_opportunistic": true' "$out/summary.json" ||
    fail "summary.json does not say the opportunistic jobs were BELOW_NORMAL"
  ;;
processes_coordinator)
  # As `coordinator`, each job and the coordinator a process of its own:
  # the job processes say which perfControl they hold.
  "$minitf" colocate "$dir/mlp.json" --processes --coordinator antman --seconds 7 \
    --out "$out" --no-plots --no-trace > "$dir/log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc, want 0"
  grep -q '^[0-9.]*,a,perfControl,[0-9]*,0,calibrating' "$out/coordinator.csv" ||
    fail "no calibration"
  grep -q '^\[ *5\.[0-9]/7\.0 s\]  a [0-9.]* steps/s (perf 0)' "$dir/log" ||
    fail "the progress line at 5 s does not show a's perfControl 0"
  ;;
processes_kill_coordinator)
  "$minitf" colocate "$dir/mlp.json" --processes --coordinator antman --seconds 10 \
    --out "$out" --no-plots --no-trace > "$dir/log" 2>&1 &
  pid=$!
  wait_for ',b,found,' "$out/jobs/coordinator.csv" "the coordinator never found job b"
  pkill -KILL -f "coordinator $out/jobs" || fail "no coordinator process"
  wait $pid
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc, want 0"
  grep -q '"ended": "was killed by SIGKILL at' "$out/summary.json" ||
    fail "summary.json does not say the coordinator was killed"
  for job in a b; do
    last=$(tail -1 "$out/$job.steps.csv" | cut -d, -f1)
    awk -v t="$last" 'BEGIN { exit !(t > 9) }' || fail "job $job stopped at $last s"
  done
  ;;
warnings)
  cat > "$dir/cut.json" <<'JSON'
{"name": "cut", "device": {"platform": "SimGPU", "simgpu": "memory=1GiB,mode=timing"}, "duration_s": 1,
 "jobs": [{"name": "a", "model": "mlp", "batch_size": 64, "duration_s": 5}]}
JSON
  "$minitf" colocate "$dir/cut.json" --out "$out" --no-plots --no-trace > "$dir/log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc, want 0"
  head -n 1 "$dir/log" | grep -q "warning: .*jobs\[0\]" ||
    fail "the cut job is not warned about before the run"
  ;;
*)
  echo "unknown case '$case_name'"
  exit 2
  ;;
esac
echo "PASS: $case_name"
