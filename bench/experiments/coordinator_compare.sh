#!/usr/bin/env bash
# The local coordinator in the loop against the open-loop timeline and no
# control: each scenario runs four ways (its timeline; --coordinator antman;
# --coordinator tgs; --no-timeline), each with a solo baseline, and the
# script prints each run's jobs against solo (docs/EXPERIMENTS.md).
#
#   bench/experiments/coordinator_compare.sh [OUT_DIR] [SECONDS] [SCENARIO...]
#
# PROCESSES=1 runs every job (and the coordinator) as a process of its own
# (`minitf colocate --processes`), sharing one SimGPU across processes.
#
# Default scenarios: antman_compute, antman_memory, tensorflow/resnet50_bert.
set -euo pipefail
out=${1:-runs/coordinator_compare}
seconds=${2:-60}
shift $(( $# > 2 ? 2 : $# ))
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(antman_compute antman_memory tensorflow/resnet50_bert)
fi
extra=()
if [ "${PROCESSES:-0}" = 1 ]; then extra=(--processes); fi
for scenario in "${scenarios[@]}"; do
  name=$(basename "$scenario")
  for mode in timeline antman tgs none; do
    case $mode in
      timeline) flags=() ;;
      none) flags=(--no-timeline) ;;
      *) flags=(--coordinator "$mode") ;;
    esac
    dir=$out/$name/$mode
    build/bin/minitf colocate "bench/scenarios/$scenario.json" --seconds "$seconds" \
      --baseline --baseline-seconds 10 --no-trace --no-plots --out "$dir" "${flags[@]}" "${extra[@]}" \
      > /dev/null || echo "(exit status $?)"
    echo "== $name, $mode"
    sed -n '/^job /,/^$/p' "$dir/table.txt"
  done
done
