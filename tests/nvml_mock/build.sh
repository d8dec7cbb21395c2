#!/usr/bin/env bash
# Build the mock NVML library: bash tests/nvml_mock/build.sh OUTDIR  ->  OUTDIR/libnvidia-ml.so.1
# Needs a C compiler (`cc`, or CC=...) and nothing else. Use it with
#   LD_LIBRARY_PATH=OUTDIR MOCK_NVML_SCENARIO=scenario.json <program using nvidia-ml-py>
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
out="$1"
mkdir -p "$out"
# Build next to the target and rename, so a reader never loads a half-written library.
tmp="$out/.libnvidia-ml.so.1.$$"
trap 'rm -f "$tmp"' EXIT
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Wno-format-truncation -fPIC -shared \
  -fvisibility=hidden -Wl,-soname,libnvidia-ml.so.1 \
  -o "$tmp" "$here/mock_nvml.c" "$here/scenario.c" "$here/json.c" "$here/unsupported.c" -lpthread
mv -f "$tmp" "$out/libnvidia-ml.so.1"
trap - EXIT
