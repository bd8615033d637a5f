#!/usr/bin/env bash
# One scenario under each way of sharing the GPU that minitf models, each run
# with solo baselines, and one markdown table of the results
# (docs/EXPERIMENTS.md, "Harvesting idle GPU time"):
#
#   bench/experiments/policy_compare.sh SCENARIO [SECONDS]
#
# The policies (rows):
#   threads, default priorities   jobs as threads of one process, every GPU
#                                 stream at the default priority
#   threads, opportunistic low    jobs as threads, guarantee jobs' streams
#                                 high, opportunistic jobs' low
#   processes, time-sliced        each job a process; SimGPU time-slices the
#                                 processes (share=timeslice)
#   processes, priority           each job a process; one line of kernels by
#                                 stream priority across processes
#                                 (share=priority, guarantee high,
#                                 opportunistic low)
#   processes, MPS                each job a process; SimGPU runs them side
#                                 by side on its SMs as MPS clients
#                                 (share=mps, no active-thread cap)
#   processes, opportunistic defers
#                                 time-sliced (or MPS) processes; the
#                                 opportunistic jobs' kernels wait to join
#                                 the GPU while a guarantee job has work
#                                 there (--defer-opportunistic: AntMan's GPU
#                                 operator manager)
#   processes, MPS, opportunistic BELOW_NORMAL (and defers)
#                                 MPS clients, the opportunistic jobs at
#                                 priority level BELOW_NORMAL
#                                 (--opportunistic-below-normal:
#                                 CUDA_MPS_CLIENT_PRIORITY=1), with and
#                                 without deferring
#   processes, coordinator antman / tgs
#                                 time-sliced processes under the local
#                                 coordinator's closed loop
#   threads / processes, coordinator antman on SM partitions
#                                 the same closed loop, its perfControl a
#                                 share of the SMs (--pacing sms: each job's
#                                 streams in a green context; processes as
#                                 MPS clients) instead of idle time
# The columns, from each run's summary.json: each job's steady steps/s
# against its solo rate (guarantee, then opportunistic), the GPU time the
# guarantee jobs leave idle when alone, and the opportunistic jobs' harvest
# (their GPU share as a fraction of that idle time). With several jobs of a
# role, their figures are listed in scenario order, separated by "/".
#
# SECONDS (default 20) is the length of each run (--seconds); each job's solo
# baseline lasts BASELINE_SECONDS (default 10). Environment: MINITF
# (build/bin/minitf), PYTHON (python3, to read summary.json), KEEP_DIR (keep
# every run's outputs there instead of a temporary directory, removed at the
# end). The table goes to stdout, progress to stderr.
set -euo pipefail

usage() {
  echo "usage: $0 SCENARIO.json [SECONDS]" >&2
  exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
scenario=$1
seconds=${2:-20}
baseline_seconds=${BASELINE_SECONDS:-10}
minitf=${MINITF:-build/bin/minitf}
python=${PYTHON:-python3}

if [ ! -x "$minitf" ]; then
  echo "$0: $minitf is missing or not executable: build it first" \
       "(cmake --build build --target minitf_cli)" >&2
  exit 1
fi
if [ ! -f "$scenario" ]; then
  echo "$0: scenario '$scenario' is not a file" >&2
  exit 1
fi
case $scenario in
  *.json) ;;
  *) echo "$0: scenario '$scenario' must be a .json scenario" >&2; exit 1 ;;
esac
if ! command -v "$python" > /dev/null; then
  echo "$0: $python not found (it reads summary.json; set PYTHON)" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/policy_compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=${KEEP_DIR:-$tmp/runs}
mkdir -p "$out"

# The scenario with every job's stream_priority by its role (guarantee high,
# opportunistic low), whatever the file gives; its graph and feed files
# made absolute, since the copy is read from another directory.
by_role=$tmp/$(basename "$scenario")
"$python" - "$scenario" "$by_role" << 'EOF'
import json, os, sys
source, target = sys.argv[1], sys.argv[2]
base = os.path.dirname(os.path.abspath(source))
with open(source) as f:
    scenario = json.load(f)
for job in scenario.get("jobs", []):
    job["stream_priority"] = "high" if job.get("role") == "guarantee" else "low"
    graph = job.get("graph")
    if isinstance(graph, dict):
        if isinstance(graph.get("file"), str):
            graph["file"] = os.path.join(base, graph["file"])
        for tensor, feed in graph.get("feeds", {}).items():
            if isinstance(feed, str):
                graph["feeds"][tensor] = os.path.join(base, feed)
with open(target, "w") as f:
    json.dump(scenario, f, indent=1)
EOF

# One row of the table from a run's summary.json.
row() {
  "$python" - "$1" "$2" << 'EOF'
import json, sys
label, path = sys.argv[1], sys.argv[2]
try:
    with open(path) as f:
        s = json.load(f)
except (OSError, ValueError) as e:
    print(f"| {label} | no summary ({e.__class__.__name__}) | | | |")
    sys.exit(0)
jobs = s.get("jobs", [])
def figures(role, key, scale, fmt):
    values = [j.get(key, 0) for j in jobs if j.get("role") == role]
    return "/".join(fmt.format(scale * v) if v > 0 else "-" for v in values) or "-"
idle = s.get("guarantee_solo_idle", -1)
cells = [
    figures("guarantee", "vs_solo", 1, "{:.2f}"),
    figures("opportunistic", "vs_solo", 1, "{:.2f}"),
    f"{100 * idle:.0f} %" if idle >= 0 else "-",
    figures("opportunistic", "harvest", 100, "{:.0f} %"),
]
failed = [j["name"] for j in jobs if j.get("failure")]
status = s.get("status", "?")
if failed or status != "complete":
    label += f" ({status}" + (", failed: " + ", ".join(failed) if failed else "") + ")"
print(f"| {label} | " + " | ".join(cells) + " |")
EOF
}

rows=()
run() {
  local label=$1 name=$2 file=$3
  shift 3
  echo "== $label: $minitf colocate $file $*" >&2
  local rc=0
  "$minitf" colocate "$file" --seconds "$seconds" --baseline \
    --baseline-seconds "$baseline_seconds" --no-trace --no-plots --out "$out/$name" "$@" \
    > "$out/$name.log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    echo "   exit status $rc:" >&2
    # The command's own errors, else the end of its output.
    grep -m 5 '^minitf colocate:' "$out/$name.log" >&2 || tail -n 5 "$out/$name.log" >&2
  fi
  rows+=("$(row "$label" "$out/$name/summary.json")")
}

run "threads, default priorities" threads_default "$scenario" --stream-priority default
run "threads, opportunistic low" threads_low "$by_role"
run "processes, time-sliced" processes_timeslice "$by_role" --processes --simgpu share=timeslice
run "processes, priority (share=priority)" processes_priority "$by_role" --processes \
  --simgpu share=priority
run "processes, MPS (share=mps)" processes_mps "$by_role" --processes --simgpu share=mps
run "processes, opportunistic defers (time-sliced)" processes_defer "$by_role" --processes \
  --simgpu share=timeslice --defer-opportunistic
run "processes, opportunistic defers (MPS)" processes_defer_mps "$by_role" --processes \
  --simgpu share=mps --defer-opportunistic
run "processes, MPS, opportunistic BELOW_NORMAL" processes_mps_below_normal "$by_role" \
  --processes --simgpu share=mps --opportunistic-below-normal
run "processes, MPS, opportunistic BELOW_NORMAL and defers" processes_mps_below_normal_defer \
  "$by_role" --processes --simgpu share=mps --opportunistic-below-normal --defer-opportunistic
run "processes, coordinator antman" processes_antman "$by_role" --processes \
  --simgpu share=timeslice --coordinator antman
run "processes, coordinator tgs" processes_tgs "$by_role" --processes \
  --simgpu share=timeslice --coordinator tgs
run "threads, coordinator antman, SM partitions" threads_antman_sms "$by_role" \
  --coordinator antman --pacing sms
run "processes, coordinator antman, SM partitions (MPS)" processes_antman_sms "$by_role" \
  --processes --simgpu share=mps --coordinator antman --pacing sms

echo "| policy | guarantee vs solo | opportunistic vs solo | guarantee solo idle | opportunistic harvest |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
