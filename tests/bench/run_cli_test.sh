#!/bin/sh
# `minitf run` as a user runs it, on graphs TensorFlow wrote
# (tests/fixtures/tf/): exit statuses, what it prints, the .npy files it
# writes, and its errors.
#
#   run_cli_test.sh MINITF FIXTURES CASE
#
# CASE is one of:
#   frozen      a frozen MLP from its .pbtxt on the GPU: the fetch printed
#               with its dtype and shape, written as probs_0.npy
#   train       100 training steps of a linear model: the steps' times and
#               the fetched variables; on the GPU, the steps' busy time
#   profile     --profile: after the steps, a table per op type and device
#               of the measured steps (warm-up steps left out), on the CPU
#               and on the GPU, and the OpenBLAS kernels of the host's
#               products; none without --profile
#   layout      --layout-optimizer: an NCHW convolution on the GPU runs
#               Transposes with the layout pass and none without it, to the
#               same values; a bad value, or on with --optimize off, exits 2
#               saying why
#   missing_op  a graph using ops minitf lacks: exit 1, every one named
#   bad_args    a bad --steps, --timeout or --feed: exit 2 with the usage
#   bounds      hostile inputs end at once, saying why: a never-ending while
#               loop under --timeout, and under Ctrl-C (the step in flight is
#               cancelled, exit 130), a graph or feed that is not a regular
#               file, --out over a file, a node name with control characters
#   runaway     a while loop that doubles a tensor, under `ulimit -d` 1 GiB:
#               RESOURCE_EXHAUSTED naming the node, on the CPU and on SimGPU
#               (its device memory spilling to the host), never the OOM
#               killer. Skipped under AddressSanitizer, whose shadow memory
#               does not fit the ulimit.
#   runaway_cgroup  the same loop in a 3 GiB memory cgroup, on the CPU and
#               on SimGPU: RESOURCE_EXHAUSTED within 30 s (skipped where no
#               memory cgroup can be made).
#
# The GPU parts run on whatever GPU the machine has (SimGPU where there is
# no CUDA device). Where the session has none (MINITF_GPU_PLATFORM=CUDA on a
# machine without a CUDA device) they say so and exit 77, which ctest counts
# as skipped (SKIP_RETURN_CODE), not passed.
set -u
minitf=$1
fixtures=$2
case_name=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

fail() {
  echo "FAIL: $*"
  echo "--- minitf's output:"
  cat "$dir/log" 2>/dev/null
  exit 1
}

# After a --device GPU run that failed: skips when the machine has no GPU.
skip_without_gpu() {
  if grep -q "the session has no GPU" "$dir/log"; then
    echo "skipped: no GPU on this machine: $(cat "$dir/log")"
    exit 77
  fi
}

# A NumPy file whose every byte of data is FILL (octal, 000 by default):
# npy_file PATH DESCR SHAPE BYTES [FILL] (DESCR as '<f4', SHAPE as '32, 3'
# within the tuple's parentheses).
npy_file() {
  header="{'descr': '$2', 'fortran_order': False, 'shape': ($3), }"
  # The magic, version, length and header take a multiple of 64 bytes.
  length=$(( (${#header} + 1 + 10 + 63) / 64 * 64 - 10 ))
  {
    printf '\223NUMPY\001\000'
    printf "\\$(printf %o $((length % 256)))\\$(printf %o $((length / 256)))"
    printf "%-$((length - 1))s\n" "$header"
    head -c "$4" /dev/zero | tr '\000' "\\${5:-000}"
  } > "$1"
}

case $case_name in
frozen)
  "$minitf" run "$fixtures/mlp_frozen/graph.pbtxt" --device GPU \
    --feed "x:0=$fixtures/mlp_frozen/x.npy" --fetch probs:0 --fetch out/logits:0 \
    --out "$dir" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 0 ] || skip_without_gpu
  [ $status -eq 0 ] || fail "exit status $status, expected 0"
  grep -q "^probs:0 float \[4,5\] = " "$dir/log" || fail "probs:0 not printed"
  grep -q "on GPU" "$dir/log" || fail "the device is not said"
  [ -f "$dir/probs_0.npy" ] || fail "probs_0.npy not written"
  [ -f "$dir/out_logits_0.npy" ] || fail "out_logits_0.npy not written"
  grep -q "'shape': (4, 5)" "$dir/probs_0.npy" || fail "probs_0.npy has not shape (4, 5)"
  ;;
train)
  "$minitf" run "$fixtures/linear_gd/graph.pb" --init init --target train --steps 100 \
    --feed "x:0=$fixtures/linear_gd/x.npy" --feed "y:0=$fixtures/linear_gd/y.npy" \
    --fetch w/read:0 --fetch loss:0 --out "$dir" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 0 ] || fail "exit status $status, expected 0"
  grep -q "^steps: 100 in " "$dir/log" || fail "the steps' times are not reported"
  # Warm-up steps run first and are left out of the figures.
  "$minitf" run "$fixtures/linear_gd/graph.pb" --init init --target train --steps 4 --warmup 3 \
    --tf32 off --feed "x:0=$fixtures/linear_gd/x.npy" --feed "y:0=$fixtures/linear_gd/y.npy" \
    > "$dir/warm.log" 2>&1 || fail "--warmup 3: exit status $?"
  grep -q "^steps: 4 in [0-9.]* s (after 3 warm-up steps); per step" "$dir/warm.log" ||
    fail "--warmup: $(grep '^steps' "$dir/warm.log")"
  grep -q "^w/read:0 float \[3,1\] = " "$dir/log" || fail "w/read:0 not printed"
  [ -f "$dir/w_read_0.npy" ] || fail "w_read_0.npy not written"
  # On the GPU the steps' device time is reported too.
  "$minitf" run "$fixtures/linear_gd/graph.pb" --init init --target train --steps 3 \
    --feed "x:0=$fixtures/linear_gd/x.npy" --feed "y:0=$fixtures/linear_gd/y.npy" \
    --device GPU > "$dir/log" 2>&1
  status=$?
  [ $status -eq 0 ] || skip_without_gpu
  [ $status -eq 0 ] || fail "exit status $status on the GPU, expected 0"
  grep -q "^GPU busy per step (kernel time on the compute streams; on SimGPU, modeled): median " \
    "$dir/log" || fail "the GPU's busy time is not reported"
  # Every step runs kernels on the GPU, so the median is not zero (on CUDA
  # as on SimGPU).
  ! grep -q "^GPU busy per step.*median 0.000 ms" "$dir/log" ||
    fail "the GPU's busy time is zero: $(grep '^GPU busy' "$dir/log")"
  ;;
profile)
  feeds="--feed x:0=$fixtures/linear_gd/x.npy --feed y:0=$fixtures/linear_gd/y.npy"
  # shellcheck disable=SC2086
  "$minitf" run "$fixtures/linear_gd/graph.pb" --init init --target train --steps 5 --warmup 2 \
    $feeds --profile > "$dir/log" 2>&1 || fail "exit status $?, expected 0"
  grep -q "^profile of 5 steps: [0-9.]* ms of op time per step in [0-9.]* ms of wall time" \
    "$dir/log" || fail "no profile of the 5 measured steps"
  grep -q "^op  *device  *nodes  *ms/step  *us/node  *%  *cdf %$" "$dir/log" ||
    fail "no table header"
  # The linear model's step runs two MatMuls (forward and the weights'
  # gradient: the input's, which only a gradient tuple waits for, is
  # optimized away, as TensorFlow's Grappler does) and two
  # ApplyGradientDescents.
  grep -q "^MatMul  *CPU:0  *2.0 " "$dir/log" || fail "MatMul's row: $(grep MatMul "$dir/log")"
  grep -q "^ApplyGradientDescent  *CPU:0  *2.0 " "$dir/log" || fail "no ApplyGradientDescent row"
  grep "CPU:0" "$dir/log" | tail -1 | grep -q " 100.0$" ||
    fail "the last row's cumulative share is not 100 %"
  # The kernel family of the host's products, the one forced when forced.
  grep -Eq "^host matrix products: float: oneDNN [0-9]+\.[0-9]+\.[0-9]+, up to (avx512|avx2); double: OpenBLAS, [A-Za-z0-9]* kernels$" \
    "$dir/log" || fail "no line naming the products' libraries: $(grep '^host matrix' "$dir/log")"
  grep -Eq "^host loops: (baseline|avx2|avx512) \(the processor has (baseline|avx2|avx512)\)$" \
    "$dir/log" || fail "no line naming the host loops' width"
  grep -Eq "^host convolutions: oneDNN [0-9]+\.[0-9]+\.[0-9]+, up to (avx512; Winograd for 3x3 stride 1|avx2)$" "$dir/log" ||
    fail "no line naming oneDNN: $(grep '^host convolutions' "$dir/log")"
  # MINITF_VLOG=1 prints the verbose lines (the GPU device's creation among
  # them) though the program's own threshold is warn.
  # shellcheck disable=SC2086
  MINITF_VLOG=1 "$minitf" run "$fixtures/linear_gd/graph.pb" --init init --target train \
    --steps 1 --device GPU $feeds > "$dir/vlog.log" 2>&1 || fail "with MINITF_VLOG=1: exit status $?"
  grep -q "Created .*GPU:0 on " "$dir/vlog.log" ||
    fail "MINITF_VLOG=1 printed no verbose line: $(head -c 300 "$dir/vlog.log")"
  # shellcheck disable=SC2086
  OPENBLAS_CORETYPE=Prescott MINITF_MAX_CPU_ISA=baseline "$minitf" run \
    "$fixtures/linear_gd/graph.pb" --init init \
    --target train --steps 1 $feeds --profile > "$dir/forced.log" 2>&1 ||
    fail "with OPENBLAS_CORETYPE=Prescott: exit status $?"
  grep -q "^host matrix products: OpenBLAS, Prescott kernels (MINITF_MAX_CPU_ISA caps at the baseline)$" \
    "$dir/forced.log" ||
    fail "forced kernels: $(grep '^host matrix' "$dir/forced.log")"
  grep -q "^host loops: baseline " "$dir/forced.log" ||
    fail "forced loops: $(grep '^host loops' "$dir/forced.log")"
  # oneDNN has no SSE2 kernels: at the baseline, im2col convolves.
  grep -q "^host convolutions: im2col and OpenBLAS (MINITF_MAX_CPU_ISA caps at the baseline)$" \
    "$dir/forced.log" || fail "forced convolutions: $(grep '^host conv' "$dir/forced.log")"
  # shellcheck disable=SC2086
  "$minitf" run "$fixtures/linear_gd/graph.pb" --init init --target train --steps 2 $feeds \
    > "$dir/plain.log" 2>&1 || fail "without --profile: exit status $?"
  grep -q "^host matrix products" "$dir/plain.log" && fail "the kernels' line without --profile"
  grep -q "^profile of" "$dir/plain.log" && fail "a profile without --profile"
  # shellcheck disable=SC2086
  "$minitf" run "$fixtures/linear_gd/graph.pb" --init init --target train --steps 3 $feeds \
    --device GPU --profile > "$dir/log" 2>&1
  status=$?
  [ $status -eq 0 ] || skip_without_gpu
  [ $status -eq 0 ] || fail "exit status $status on the GPU, expected 0"
  grep -q "^profile of 3 steps: " "$dir/log" || fail "no profile on the GPU"
  grep -q "^MatMul  *GPU:0  *2.0 " "$dir/log" || fail "no MatMul row on the GPU"
  ;;
layout)
  # An NCHW convolution and its Relu on the GPU: the layout pass runs them
  # in NHWC, with Transposes at the chain's ends, and gives the same values;
  # --layout-optimizer off leaves them NCHW, without a Transpose.
  # (Its node names are not runaway's, whose graph runaway_cgroup reads
  # from this file by the names of its first and last nodes.)
  graph="$dir/nchw.pbtxt"
  # The filter's 54 values, each its own; the image is 0.747 everywhere (bytes 0x3f).
  values=$(awk 'BEGIN { for (i = 0; i < 54; ++i) printf "float_val: %.2f ", (i % 11) * 0.1 - 0.4 }')
  cat > "$graph" <<GRAPH
node { name: "image" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 1 } dim { size: 3 } dim { size: 4 } dim { size: 4 } } } } }
node { name: "f" op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT
    tensor_shape { dim { size: 3 } dim { size: 3 } dim { size: 3 } dim { size: 2 } }
    $values } } } }
node { name: "conv" op: "Conv2D" input: "image" input: "f"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "padding" value { s: "SAME" } }
  attr { key: "data_format" value { s: "NCHW" } } }
node { name: "y" op: "Relu" input: "conv" attr { key: "T" value { type: DT_FLOAT } } }
GRAPH
  npy_file "$dir/x.npy" "<f4" "1, 3, 4, 4" $((3 * 4 * 4 * 4)) 077
  for layout in on off; do
    "$minitf" run "$graph" --device GPU --target y --steps 1 --fetch y:0 --profile \
      --layout-optimizer $layout --feed "image:0=$dir/x.npy" > "$dir/log" 2>&1
    status=$?
    [ $status -eq 0 ] || skip_without_gpu
    [ $status -eq 0 ] || fail "--layout-optimizer $layout: exit status $status, expected 0"
    grep -q "^Conv2D  *GPU:0 " "$dir/log" || fail "--layout-optimizer $layout: no Conv2D on the GPU"
    grep "^y:0 " "$dir/log" > "$dir/y_$layout" || fail "--layout-optimizer $layout: no y:0"
    if [ $layout = on ]; then
      grep -q "^Transpose  *GPU:0 " "$dir/log" || fail "the layout pass made no Transpose"
    else
      grep -q "^Transpose " "$dir/log" && fail "a Transpose with --layout-optimizer off"
    fi
  done
  cmp -s "$dir/y_on" "$dir/y_off" || fail "y differs: $(cat "$dir/y_on") vs $(cat "$dir/y_off")"
  "$minitf" run "$graph" --target y --layout-optimizer sideways > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--layout-optimizer sideways: exit status $status, expected 2"
  grep -q "layout-optimizer wants on or off, got 'sideways'" "$dir/log" ||
    fail "--layout-optimizer sideways: no reason given"
  "$minitf" run "$graph" --target y --optimize off --layout-optimizer on > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--optimize off --layout-optimizer on: exit status $status"
  grep -q "layout-optimizer on wants --optimize on" "$dir/log" ||
    fail "--optimize off --layout-optimizer on: no reason given"
  ;;
missing_op)
  cat > "$dir/g.pbtxt" <<'GRAPH'
node { name: "a" op: "NotAnOp" }
node { name: "b" op: "AlsoNotAnOp" }
node { name: "c" op: "NoOp" }
GRAPH
  "$minitf" run "$dir/g.pbtxt" --target c > "$dir/log" 2>&1
  status=$?
  [ $status -eq 1 ] || fail "exit status $status, expected 1"
  grep -q "'AlsoNotAnOp' (node b), 'NotAnOp' (node a)" "$dir/log" || fail "the missing ops are not named"
  ;;
bad_args)
  "$minitf" run "$fixtures/linear_gd/graph.pb" --target train --steps many > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--steps many: exit status $status, expected 2"
  grep -q "steps wants a whole number" "$dir/log" || fail "--steps many: no reason given"
  "$minitf" run "$fixtures/linear_gd/graph.pb" --feed x.npy --target train > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--feed x.npy: exit status $status, expected 2"
  grep -q "feed wants NAME=FILE.npy" "$dir/log" || fail "--feed x.npy: no reason given"
  "$minitf" run "$dir/none.pb" --target train > "$dir/log" 2>&1
  status=$?
  [ $status -eq 1 ] || fail "missing graph: exit status $status, expected 1"
  grep -q "none.pb" "$dir/log" || fail "the missing graph file is not named"
  "$minitf" run "$fixtures/linear_gd/graph.pb" --target train --steps 2147483648 > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--steps 2^31: exit status $status, expected 2"
  grep -q "from 0 to 2147483647" "$dir/log" || fail "--steps 2^31: the bound is not said"
  "$minitf" run "$fixtures/linear_gd/graph.pb" --target train --warmup -1 > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--warmup -1: exit status $status, expected 2"
  grep -q "warmup wants a whole number" "$dir/log" || fail "--warmup -1: no reason given"
  "$minitf" run "$fixtures/linear_gd/graph.pb" --target train --steps 2147483647 --warmup 1 \
    > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--steps 2^31-1 --warmup 1: exit status $status, expected 2"
  grep -q "make more than 2147483647 steps" "$dir/log" || fail "the sum's bound is not said"
  "$minitf" run "$fixtures/linear_gd/graph.pb" --target train --tf32 maybe > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--tf32 maybe: exit status $status, expected 2"
  grep -q "tf32 wants on or off, got 'maybe'" "$dir/log" || fail "--tf32 maybe: no reason given"
  "$minitf" run "$fixtures/linear_gd/graph.pb" --target train --timeout 0 > "$dir/log" 2>&1
  status=$?
  [ $status -eq 2 ] || fail "--timeout 0: exit status $status, expected 2"
  grep -q "timeout wants a number of seconds" "$dir/log" || fail "--timeout 0: no reason given"
  ;;
bounds)
  # while (true) {}: a loop whose condition is always true.
  cat > "$dir/loop.pbtxt" <<'GRAPH'
node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
node { name: "enter" op: "Enter" input: "i" attr { key: "T" value { type: DT_INT32 } } attr { key: "frame_name" value { s: "loop" } } }
node { name: "merge" op: "Merge" input: "enter" input: "next" attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
node { name: "t" op: "Const" input: "^merge" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: true } } } }
node { name: "cond" op: "LoopCond" input: "t" }
node { name: "switch" op: "Switch" input: "merge" input: "cond" attr { key: "T" value { type: DT_INT32 } } }
node { name: "body" op: "Identity" input: "switch:1" attr { key: "T" value { type: DT_INT32 } } }
node { name: "next" op: "NextIteration" input: "body" attr { key: "T" value { type: DT_INT32 } } }
node { name: "exit" op: "Exit" input: "switch" attr { key: "T" value { type: DT_INT32 } } }
GRAPH
  "$minitf" run "$dir/loop.pbtxt" --fetch exit:0 --timeout 0.5 > "$dir/log" 2>&1
  status=$?
  [ $status -eq 1 ] || fail "never-ending loop: exit status $status, expected 1"
  grep -q "DEADLINE_EXCEEDED: fetch" "$dir/log" || fail "never-ending loop: no deadline said"
  "$minitf" run "$dir/loop.pbtxt" --fetch exit:0 > "$dir/log" 2>&1 &
  pid=$!
  sleep 1
  kill -INT $pid
  wait $pid
  status=$?
  [ $status -eq 130 ] || fail "Ctrl-C in a never-ending loop: exit status $status, expected 130"
  grep -q "stopped by SIGINT after 0 of 1 steps: CANCELLED: fetch" "$dir/log" ||
    fail "Ctrl-C in a never-ending loop: the cancelled step is not said"
  "$minitf" run /dev/zero --target train > "$dir/log" 2>&1
  status=$?
  [ $status -eq 1 ] || fail "/dev/zero: exit status $status, expected 1"
  grep -q "'/dev/zero' is a character device" "$dir/log" || fail "/dev/zero: not said"
  mkfifo "$dir/fifo.npy"
  "$minitf" run "$fixtures/linear_gd/graph.pb" --target train \
    --feed "x:0=$dir/fifo.npy" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 1 ] || fail "a FIFO feed: exit status $status, expected 1"
  grep -q "is a FIFO" "$dir/log" || fail "a FIFO feed: not said"
  echo "a file" > "$dir/file"
  "$minitf" run "$fixtures/linear_gd/graph.pb" --init init --out "$dir/file" > "$dir/log" 2>&1
  status=$?
  [ $status -eq 1 ] || fail "--out over a file: exit status $status, expected 1"
  grep -q "is a file, not a directory" "$dir/log" || fail "--out over a file: not said"
  # A node name holding an escape sequence is printed escaped.
  printf 'node { name: "a\\033[31mred" op: "NotAnOp" }\n' > "$dir/escape.pbtxt"
  "$minitf" run "$dir/escape.pbtxt" --target a > "$dir/log" 2>&1
  grep -q 'node a\\x1b\[31mred' "$dir/log" || fail "the escape character is not escaped"
  ! grep -q "$(printf '\033')" "$dir/log" || fail "a raw escape character reached the terminal"
  ;;
runaway)
  if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "skipped: AddressSanitizer's shadow memory does not fit a 1 GiB ulimit"
    exit 77
  fi
  # x = ones([1024]); while (true) x = concat([x, x], 0)
  cat > "$dir/double.pbtxt" <<'GRAPH'
node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1024 } } float_val: 1 } } } }
node { name: "enter" op: "Enter" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "frame_name" value { s: "loop" } } }
node { name: "merge" op: "Merge" input: "enter" input: "next" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
node { name: "t" op: "Const" input: "^merge" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: true } } } }
node { name: "cond" op: "LoopCond" input: "t" }
node { name: "switch" op: "Switch" input: "merge" input: "cond" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "pivot" op: "Identity" input: "switch:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "axis" op: "Const" input: "^pivot" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
node { name: "doubled" op: "ConcatV2" input: "pivot" input: "pivot" input: "axis" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } attr { key: "Tidx" value { type: DT_INT32 } } }
node { name: "next" op: "NextIteration" input: "doubled" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "exit" op: "Exit" input: "switch" attr { key: "T" value { type: DT_FLOAT } } }
GRAPH
  # OPENBLAS_NUM_THREADS=1: OpenBLAS (the pthread build, which minitf calls
  # on one thread) starts a thread per core when it loads, each reserving a
  # buffer (128 MiB with AVX-512 kernels), so on a machine of 16 cores it
  # alone would want 2 GiB of the limit (README.md, Dependencies).
  for device in CPU GPU; do
    (ulimit -d 1048576 &&
      OPENBLAS_NUM_THREADS=1 MINITF_GPU_PLATFORM=SimGPU MINITF_SIMGPU=memory=256MiB \
        "$minitf" run "$dir/double.pbtxt" --fetch exit:0 --device $device) > "$dir/log" 2>&1
    status=$?
    [ $status -eq 1 ] || fail "on $device: exit status $status, expected 1"
    grep -q "RESOURCE_EXHAUSTED: fetch: Node '.*' (op '.*').*OOM when allocating" "$dir/log" ||
      fail "on $device: the exhausted memory is not said, with the node"
  done
  ;;
runaway_cgroup)
  # The same loop in a memory cgroup of 3 GiB (a container's limit), on the
  # CPU and on SimGPU (whose device memory is host memory): the allocators
  # stop within the cgroup's limit, less a margin, so the run ends with
  # RESOURCE_EXHAUSTED naming the node within 30 s, never with the OOM
  # killer. Needs a memory cgroup this process may make (root, cgroup v1 or
  # v2); skipped otherwise.
  if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "skipped: AddressSanitizer's shadow memory does not fit a 3 GiB cgroup"
    exit 77
  fi
  v2=$(sed -n 's/^0:://p' /proc/self/cgroup)
  v1=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
  if [ -n "$v1" ] && [ -d "/sys/fs/cgroup/memory$v1" ]; then
    cgroup="/sys/fs/cgroup/memory$v1/minitf_runaway_$$"
    limit_file=memory.limit_in_bytes
  elif [ -f "/sys/fs/cgroup$v2/memory.max" ] || [ -f "/sys/fs/cgroup$v2/cgroup.controllers" ]; then
    cgroup="/sys/fs/cgroup$v2/minitf_runaway_$$"
    limit_file=memory.max
  else
    echo "skipped: no memory cgroup to make a child of"
    exit 77
  fi
  if ! mkdir "$cgroup" 2>/dev/null || ! echo 3221225472 > "$cgroup/$limit_file" 2>/dev/null; then
    rmdir "$cgroup" 2>/dev/null
    echo "skipped: cannot make a memory cgroup at $cgroup (not root?)"
    exit 77
  fi
  trap 'rmdir "$cgroup" 2>/dev/null; rm -rf "$dir"' EXIT
  sed -n '/^node { name: "x"/,/^node { name: "exit"/p' "$0" > "$dir/double.pbtxt"
  for device in CPU GPU; do
    start=$(date +%s)
    # shellcheck disable=SC2016
    MINITF_GPU_PLATFORM=SimGPU timeout 60 sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' \
      sh "$cgroup" "$minitf" run "$dir/double.pbtxt" --fetch exit:0 --device $device \
      > "$dir/log" 2>&1
    status=$?
    took=$(( $(date +%s) - start ))
    [ $status -eq 1 ] || fail "on $device in a 3 GiB cgroup: exit status $status, expected 1"
    grep -q "RESOURCE_EXHAUSTED: fetch: Node '.*' (op '.*').*OOM when allocating" "$dir/log" ||
      fail "on $device in a 3 GiB cgroup: the exhausted memory is not said, with the node"
    [ $took -le 30 ] || fail "on $device in a 3 GiB cgroup: $took s, more than 30"
  done
  ;;
*)
  echo "unknown case $case_name"
  exit 2
  ;;
esac
echo "PASS: $case_name"
