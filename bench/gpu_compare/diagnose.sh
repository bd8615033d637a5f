#!/usr/bin/env bash
# What the next GPU run should find out, beyond ../shared/gpu/check.sh's
# stages; run by check.sh as its EXTRA_CMD, in build/ of the unpacked copy:
#   EXTRA_CMD='bash ../bench/gpu_compare/diagnose.sh' BUDGET=500 bash .gpu/check.sh
# 1. The machine's CPU and limits, and conv_net_test with oneDNN off under
#    each OpenBLAS kernel family and on one CPU (it failed on the H200
#    machine's CPU by ~1e-3 and passes on every family here).
# 2. `minitf run --profile` on CUDA (ResNet-50's training step, TF32 off),
#    and cuDNN's algorithm choices with TF32 off and on (MINITF_VLOG=1: per
#    shape and direction the algorithm, measured or heuristic, its measured
#    time, and cuDNN's whole ranking with each candidate's time, workspace
#    and math), the slowest first: where ResNet-50's device time goes, and
#    whether faster algorithms were left out (workspace, math).
# 3. ResNet-50's step with cuDNN computing in NHWC and in NCHW
#    (MINITF_CUDNN_COMPUTE_FORMAT), TF32 off and on.
# 4. compute-sanitizer's memcheck over CUDA test binaries (SANITIZE_TESTS,
#    SANITIZE_SECONDS each, 15 by default).
set -u
F=../tests/fixtures/tf; W=${DIAGNOSE_WORK_DIR:-/tmp/gpuw}; mkdir -p "$W"
echo "=== lscpu"; lscpu | grep -E 'Model name|^CPU\(s\)|Flags' | cut -c1-2000
echo "=== ulimits"; ulimit -a | grep -E 'stack|data|processes|virtual'
echo "=== conv_net_test, oneDNN off, OpenBLAS as it chooses and forced"
for core in "" SkylakeX Haswell Prescott; do
  r=$(NVIDIA_TF32_OVERRIDE=0 OPENBLAS_VERBOSE=2 OPENBLAS_CORETYPE=$core TF_ENABLE_ONEDNN_OPTS=0 \
      timeout 30 tests/conv_net_test 2>&1)
  echo "core='$core': $(echo "$r" | grep -E '^Core' | head -1)" \
       "$(echo "$r" | grep -E 'PASSED|FAILED  \]' | head -2 | paste -sd' ')"
  [ -z "$core" ] && echo "$r" | grep -E 'element [0-9]+:' | head -4
done
for t in conv_ops_test cpu_gemm_test; do
  r=$(TF_ENABLE_ONEDNN_OPTS=0 timeout 30 tests/$t 2>&1)
  echo "$t oneDNN off: $(echo "$r" | grep -E 'PASSED|FAILED  \]' | head -3 | paste -sd' ')"
done
r=$(TF_ENABLE_ONEDNN_OPTS=0 taskset -c 0 timeout 30 tests/conv_net_test 2>&1)
echo "conv_net_test oneDNN off on one CPU: $(echo "$r" | grep -E 'PASSED|FAILED  \]' | head -2 | paste -sd' ')"
python3 - "$W" <<'PY'
import sys
import numpy as np
r = np.random.default_rng(0)
np.save(sys.argv[1] + '/images.npy', r.standard_normal((32, 224, 224, 3), dtype=np.float32))
np.save(sys.argv[1] + '/labels.npy', r.integers(0, 1000, 32).astype(np.int32))
PY
fd="--feed images:0=$W/images.npy --feed labels:0=$W/labels.npy"
echo "=== minitf run --profile on CUDA (ResNet-50 training step, TF32 off)"
NVIDIA_TF32_OVERRIDE=0 MINITF_VLOG=1 timeout 90 bin/minitf run $F/resnet50_train/graph.pb \
  --device GPU --init init --target train --steps 4 --warmup 2 --profile $fd \
  > "$W/profile.log" 2> "$W/vlog.log"
echo "rc=$?"; head -n 45 "$W/profile.log"
# The same choices with TF32 on (tensor-core algorithms ranked too).
MINITF_VLOG=1 timeout 60 bin/minitf run $F/resnet50_train/graph.pb --device GPU --init init \
  --target train --steps 1 $fd > /dev/null 2> "$W/vlog_tf32.log"
for mode in off on; do
log="$W/vlog.log"
[ $mode = on ] && log="$W/vlog_tf32.log"
echo "=== cuDNN's choices (TF32 $mode), the slowest 40 by measured time, with cuDNN's rankings"
grep -o 'cuDNN .* convolution in .*' "$log" | sort -u > "$W/cudnn_$mode.txt"
python3 - "$W/cudnn_$mode.txt" <<'PY'
import collections, re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.search(r"cuDNN (\S+) convolution in \S+, (.*): algorithm (\d+) of (\d+) \((\w+), "
                  r"([-\d.e]+) ms\)", line)
    if m:
        rows.append((float(m.group(6)), m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)))
total = collections.defaultdict(float)
for t, direction, *_ in rows:
    total[direction] += max(t, 0)
print(f"{len(rows)} plans; measured ms per direction, each shape once:",
      {k: round(v, 2) for k, v in total.items()})
for r in sorted(rows, reverse=True)[:40]:
    print(f"{r[0]:8.3f} ms {r[1]:16s} algo {r[3]}/{r[4]} {r[5]:9s} {r[2]}")
PY
cut -c1-500 "$W/cudnn_$mode.txt" | head -n 60  # each plan's shape and cuDNN's ranking
done
echo "=== ResNet-50's step with cuDNN in each layout (MINITF_CUDNN_COMPUTE_FORMAT), TF32 off and on"
for tf32 in off on; do
  for format in nhwc nchw; do
    r=$(MINITF_CUDNN_COMPUTE_FORMAT=$format timeout 60 bin/minitf run $F/resnet50_train/graph.pb \
          --device GPU --init init --target train --steps 10 --warmup 3 --tf32 $tf32 $fd 2>&1)
    echo "tf32=$tf32 $format: $(echo "$r" | grep -E '^steps|busy' | paste -sd' ' | cut -c1-300)"
  done
done
echo "=== compute-sanitizer memcheck"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n1)
for t in ${SANITIZE_TESTS:-conv_pool_cuda_test fused_contraction_cuda_test training_ops_cuda_test \
         array_ops_cuda_test index_ops_cuda_test}; do
  s0=$SECONDS
  r=$(NVIDIA_TF32_OVERRIDE=0 timeout ${SANITIZE_SECONDS:-15} "$CS" --tool memcheck --error-exitcode 9 \
      tests/$t 2>&1)
  rc=$?
  echo "$t rc=$rc $((SECONDS - s0))s: $(echo "$r" | grep -E 'ERROR SUMMARY|PASSED|FAILED  \]' | paste -sd' ')"
  echo "$r" | grep -E '^=========' | grep -v 'ERROR SUMMARY' | head -n 30
done
