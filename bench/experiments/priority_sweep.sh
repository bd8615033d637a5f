#!/usr/bin/env bash
# How much stream priorities protect a guaranteed job, and how that depends on
# SimGPU's preemption delay: antman_compute (the opportunistic job at
# perfControl 100, 20, 10, 0 and 50) with its time axis scaled to SECONDS, once
# per preempt_us value and once with every stream at the default priority.
# Prints each run's steps/s per phase against solo (docs/EXPERIMENTS.md).
#
#   bench/experiments/priority_sweep.sh [OUT_DIR] [SECONDS]
set -euo pipefail
out=${1:-runs/priority_sweep}
seconds=${2:-50}
run() {
  local name=$1
  shift
  build/bin/minitf colocate bench/scenarios/antman_compute.json --seconds "$seconds" \
    --baseline --baseline-seconds 8 --no-trace --no-plots --out "$out/$name" "$@" > /dev/null
  echo "== $name ($*)"
  sed -n '/per phase/,$p' "$out/$name/table.txt"
}
for p in 0 25 100 400; do
  run "preempt_$p" --simgpu "preempt_us=$p"
done
run no_priorities --stream-priority default
