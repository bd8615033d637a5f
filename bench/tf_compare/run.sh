#!/usr/bin/env bash
# Runs minitf and TensorFlow on the same small graphs, interleaved, and prints
# one table of both figures and their ratio (docs/BENCHMARKS.md, "Side by
# side with TensorFlow"). Not part of `make test`: it downloads TensorFlow.
#
#   bench/tf_compare/run.sh                 # 5 rounds, 0.3 s per benchmark
#   ROUNDS=9 MIN_TIME=0.5 bench/tf_compare/run.sh
#
# What it does:
#   1. tools/venv-tf: a virtual environment with tensorflow-cpu==$TF_VERSION
#      from PyPI (made once; gitignored).
#   2. build/tf_compare/tf_bench: bench/tf_compare/tf_bench.cc compiled
#      against the wheel's C++ headers and libtensorflow_cc.so.2 /
#      libtensorflow_framework.so.2, with Debian's Google Benchmark. It is a
#      separate binary from minitf's: the wheel brings its own Abseil,
#      protobuf and Eigen.
#   3. build/bin/bench_tf_peer: minitf's half (bench/bench_tf_peer.cc), built
#      by minitf's own CMake build.
#   4. ROUNDS rounds; in each, every group of benchmarks runs once in each
#      binary, back to back, the binary that goes first alternating from one
#      round to the next. Results (Google Benchmark JSON) go to
#      build/tf_compare/results/, and compare.py prints medians over rounds
#      and the ratio minitf / TensorFlow.
#
# Environment: TF_VERSION (2.21.0), ROUNDS (5), MIN_TIME (0.3, seconds per
# benchmark), BUILD_DIR (build), PYTHON (python3, to make the venv).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TF_VERSION="${TF_VERSION:-2.21.0}"
ROUNDS="${ROUNDS:-5}"
MIN_TIME="${MIN_TIME:-0.3}"
BUILD_DIR="${BUILD_DIR:-$REPO/build}"
VENV="$REPO/tools/venv-tf"
OUT_DIR="$BUILD_DIR/tf_compare"
RESULTS="$OUT_DIR/results"

# --- 1. TensorFlow -----------------------------------------------------------
if [[ ! -x "$VENV/bin/python" ]]; then
  "${PYTHON:-python3}" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -m pip show tensorflow-cpu 2>/dev/null | grep -qx "Version: $TF_VERSION"; then
  "$VENV/bin/python" -m pip install --quiet "tensorflow-cpu==$TF_VERSION"
fi
export TF_CPP_MIN_LOG_LEVEL=2
TF_DIR="$("$VENV/bin/python" -c 'import os, tensorflow as tf; print(os.path.dirname(tf.__file__))')"
read -r -a TF_CFLAGS <<<"$("$VENV/bin/python" -c 'import tensorflow as tf; print(" ".join(tf.sysconfig.get_compile_flags()))')"
read -r -a TF_LDFLAGS <<<"$("$VENV/bin/python" -c 'import tensorflow as tf; print(" ".join(tf.sysconfig.get_link_flags()))')"

# --- 2. TensorFlow's benchmark ---------------------------------------------------
mkdir -p "$OUT_DIR"
TF_BENCH="$OUT_DIR/tf_bench"
if [[ ! -x "$TF_BENCH" || "$REPO/bench/tf_compare/tf_bench.cc" -nt "$TF_BENCH" ]]; then
  echo "building $TF_BENCH"
  # get_link_flags names only libtensorflow_framework; the C++ session and
  # ops API lives in libtensorflow_cc.
  g++ -O2 -g "${TF_CFLAGS[@]}" -Wno-deprecated-declarations \
      "$REPO/bench/tf_compare/tf_bench.cc" -o "$TF_BENCH" \
      "${TF_LDFLAGS[@]}" -l:libtensorflow_cc.so.2 -Wl,-rpath,"$TF_DIR" \
      -lbenchmark -lpthread
fi

# --- 3. minitf's benchmark -------------------------------------------------------
if [[ ! -f "$BUILD_DIR/build.ninja" && ! -f "$BUILD_DIR/Makefile" ]]; then
  cmake -S "$REPO" -B "$BUILD_DIR" -G Ninja
fi
cmake --build "$BUILD_DIR" -j2 --target bench_tf_peer
MINITF_BENCH="$BUILD_DIR/bin/bench_tf_peer"

# --- 4. Interleaved runs ---------------------------------------------------------
# Each group: name, TensorFlow's filter, minitf's filter. A group's benchmarks
# run in one process, so a slope's two sizes come from the same process.
GROUPS_=(
  "chain|^BM_SessionNoOpChain/|^BM_(Session|Executor)NoOpChain/"
  "fanout|^BM_SessionFanOutIn/|^BM_(Session|Executor)FanOutIn/"
  "noop|^BM_SessionRunNoOp|^BM_SessionRunNoOp"
  "add|^BM_SessionRunAdd|^BM_SessionRunAdd"
  "callable|^BM_RunCallableAdd|^BM_RunCallableAdd"
  "sum|^BM_SessionRunSum/|^BM_SessionRunSum/"
)
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
run_one() {  # binary filter json_out
  # A filter that matches nothing (minitf without callables) is not an error:
  # that row then says "pending".
  "$1" --benchmark_filter="$2" --benchmark_min_time="$MIN_TIME" \
       --benchmark_format=json --benchmark_out="$3" >/dev/null 2>"$3.stderr" || true
  [[ -s "$3" ]] || rm -f "$3"
}
for ((round = 1; round <= ROUNDS; ++round)); do
  echo "round $round of $ROUNDS"
  for group in "${GROUPS_[@]}"; do
    IFS='|' read -r name tf_filter minitf_filter <<<"$group"
    sides=(tf minitf)
    ((round % 2 == 0)) && sides=(minitf tf)
    for side in "${sides[@]}"; do
      if [[ $side == tf ]]; then
        run_one "$TF_BENCH" "$tf_filter" "$RESULTS/$round.$name.tf.json"
      else
        run_one "$MINITF_BENCH" "$minitf_filter" "$RESULTS/$round.$name.minitf.json"
      fi
    done
  done
done

"$VENV/bin/python" "$REPO/bench/tf_compare/compare.py" "$RESULTS" --tf-version "$TF_VERSION"
