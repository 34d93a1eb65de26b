#!/usr/bin/env bash
# Sets up if needed, then runs the main job on the emulated npu: the device,
# then a small CNN (FRACTAL_Z weights, NC1HWC0 activations) and a small
# GPT-style transformer trained for a few steps with AdamW and AMP, each
# loss printed beside CPU's float32 run, with step time, the native share of
# launches and the format casts made. Arguments go to both training scripts
# (examples/train_cnn.py, examples/train_gpt.py): --steps N, --amp
# float16|bfloat16|off. Exits non-zero if a loss leaves its tolerance.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NPU=emu
# Ops without a native kernel yet are listed in the report instead of warned about.
export NPU_EMU_FALLBACK="${NPU_EMU_FALLBACK:-allow}"
.venv/bin/python examples/demo.py
status=0
.venv/bin/python examples/train_cnn.py --compare "$@" || status=$?
.venv/bin/python examples/train_gpt.py --compare "$@" || status=$?
exit "$status"
