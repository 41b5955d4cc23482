#!/usr/bin/env bash
# Everything only a machine with an NVIDIA GPU can prove, in one command that fits a short lease:
# environment, compile, cpu⇄cuda parity, compute-sanitizer (memcheck, racecheck, synccheck),
# kernel resources, benchmarks against PyTorch/cuDNN, the gpu-marked tests. Results go to $OUT
# (else bench/gpu-check/): summary.md is rewritten after every step. Details and options:
# scripts/gpu_check.py (--rehearsal runs the plumbing without a GPU; --budget seconds; --ops).
# No pip install: the checkout goes on PYTHONPATH, the machine's CuPy and torch are used.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec "${PYTHON:-python3}" scripts/gpu_check.py "$@"
