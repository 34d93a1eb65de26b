#!/usr/bin/env bash
# Sets up if needed, then runs the main job: a short program on the emulated
# npu that shows the device, computes, copies back and checks against CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
NPU=emu exec .venv/bin/python examples/demo.py "$@"
