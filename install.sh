#!/usr/bin/env bash
# Sets up GPU Advisor in ./.venv on a fresh machine.
#   ./install.sh          the app and its runtime dependencies
#   ./install.sh --dev    the same plus the test tools
# torch: machines with an NVIDIA driver (nvidia-smi answers) get PyPI's default build, which is the CUDA
# build on Linux; machines without one get the CPU-only build. Override with TORCH_SPEC, e.g.
#   TORCH_SPEC="torch==2.13.0" ./install.sh
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
TORCH_VERSION=${TORCH_VERSION:-2.13.0}
extras=""
[ "${1:-}" = "--dev" ] && extras="[dev]"

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)

if [ -n "${TORCH_SPEC:-}" ]; then
  "${PIP[@]}" "$TORCH_SPEC"
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "NVIDIA GPU found: installing the CUDA build of torch==$TORCH_VERSION"
  "${PIP[@]}" "torch==$TORCH_VERSION"
else
  echo "No NVIDIA GPU found: installing the CPU build of torch==$TORCH_VERSION"
  # PyTorch's CPU index first; where it cannot be reached, a local or mirrored CPU wheel (pip's
  # find-links) satisfies the same pin.
  "${PIP[@]}" --timeout 15 --retries 0 "torch==$TORCH_VERSION" \
      --index-url https://download.pytorch.org/whl/cpu 2>/dev/null \
    || "${PIP[@]}" "torch==$TORCH_VERSION+cpu" 2>/dev/null \
    || "${PIP[@]}" "torch==$TORCH_VERSION"
fi
"${PIP[@]}" -e ".$extras"
echo "Installed into $VENV. Run: $VENV/bin/gpu-advisor (GUI) or $VENV/bin/gpu-advisor --help (CLI)"
