#!/usr/bin/env bash
# Runs minitf and PyTorch on the ResNet-50 and BERT-base training steps on one
# GPU, TF32 off then on, and prints one table of both step times, their
# throughput and the ratio minitf / PyTorch (docs/BENCHMARKS.md, "Side by
# side with PyTorch on a GPU"). Needs a CUDA device and PyTorch (with
# torchvision); no network: inputs and weights are random.
#
#   bench/gpu_compare/run.sh                       # 20 steps after 5 warm-up
#   STEPS=50 MODELS=bert TF32=on bench/gpu_compare/run.sh
#   OPTIMIZE=on,off bench/gpu_compare/run.sh       # minitf with its passes and without
#   MODELS=resnet50_nchw OPTIMIZE=on,nolayout bench/gpu_compare/run.sh  # the layout pass
#   bench/gpu_compare/run.sh --only torch          # extra arguments go to compare.py
#
# What it does: compare.py writes each fixture's feeds as .npy files
# (tests/fixtures/tf/{resnet50,bert}_train/manifest.json) into WORK_DIR, then
# for each model and TF32 setting runs, each in a process of its own, the
# side that goes first alternating:
#   - minitf: `$MINITF run GRAPH --device GPU --init init --target train
#     --steps WARMUP+STEPS --feed ...` with MINITF_GPU_PLATFORM=CUDA;
#   - PyTorch: torch_peer.py, the same model built with torch.nn/torchvision;
# with NVIDIA_TF32_OVERRIDE=0 in both environments for TF32 off. The table
# goes to stdout, every figure to WORK_DIR/results.json.
#
# Environment: STEPS (20), WARMUP (5), MODELS (resnet50,bert; resnet50_nchw too), TF32 (off,on),
# OPTIMIZE (on; on,off adds minitf without its graph passes, nolayout
# without the layout pass), TIMEOUT (600,
# seconds per run), MINITF (build/bin/minitf), PYTHON (python3, one with
# PyTorch), WORK_DIR (build/gpu_compare).
#
# From the build packed by ../shared/gpu/pack.sh: .gpu/check.sh unpacks it
# and sets LD_LIBRARY_PATH; or point MINITF at the unpacked minitf
# (/tmp/gpuw/src/build/bin/minitf) and this script finds the pack's
# libraries beside it and the machine's CUDA libraries, as check.sh does.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MINITF="${MINITF:-$REPO/build/bin/minitf}"
PYTHON="${PYTHON:-python3}"

if [[ ! -x "$MINITF" && -f "$REPO/.gpu/pack.tar.xz" ]]; then
  echo "gpu_compare: no $MINITF: run it through .gpu/check.sh, or set MINITF to the" \
       "minitf check.sh unpacked (/tmp/gpuw/src/build/bin/minitf)" >&2
fi

# A build unpacked from .gpu/: libminitf.so is in build/, the Debian libraries
# in lib/ beside src/, libstdc++ in lib-fallback/ for an older system.
missing() { ldd "$MINITF" 2>/dev/null | grep 'not found' || true; }  # no grep -q: pipefail
if [[ -x "$MINITF" && -n "$(missing)" ]]; then
  build="$(cd "$(dirname "$MINITF")/.." && pwd)"
  pack="$(cd "$build/../.." && pwd)"
  libdir() { find /usr/local /usr/lib /opt -name "$1" 2>/dev/null | head -n1 | xargs -r dirname; }
  LD_LIBRARY_PATH="$build:$pack/lib:$(libdir libcublas.so.13):$(libdir libcudnn.so.9):$(libdir libcudart.so.13):${LD_LIBRARY_PATH:-}"
  export LD_LIBRARY_PATH
  if [[ -n "$(missing)" && -d "$pack/lib-fallback" ]]; then
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$pack/lib-fallback"
  fi
fi

exec "$PYTHON" "$REPO/bench/gpu_compare/compare.py" --minitf "$MINITF" \
  --steps "${STEPS:-20}" --warmup "${WARMUP:-5}" --models "${MODELS:-resnet50,bert}" \
  --tf32 "${TF32:-off,on}" --optimize "${OPTIMIZE:-on}" --timeout "${TIMEOUT:-600}" \
  --work "${WORK_DIR:-$REPO/build/gpu_compare}" "$@"
