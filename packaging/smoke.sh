#!/usr/bin/env bash
# Smoke-test the built bundle headless: the CLI, the PDF report, and the app's --self-test.
# Fails (exit 1) on a non-zero exit code, a Python traceback or a Qt warning in any step.
#
#   packaging/smoke.sh [BUNDLE_EXECUTABLE]      default: dist/gpu-advisor/gpu-advisor
#
# The --self-test runs a short PyTorch workload, so it runs when the bundle contains torch; a bundle
# built with --no-torch is checked with the CLI steps only (SMOKE_SELF_TEST=1 forces the self-test).
set -euo pipefail

cd "$(dirname "$0")/.."
APP=${1:-dist/gpu-advisor/gpu-advisor}
if [ ! -x "$APP" ]; then
    echo "smoke.sh: $APP not found; build it with packaging/build.sh" >&2
    exit 1
fi
BUNDLE_DIR=$(dirname "$APP")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export QT_QPA_PLATFORM=offscreen
export GPU_ADVISOR_CONFIG_DIR="$TMP/config"  # no user settings or GPUs leak in
unset DISPLAY WAYLAND_DISPLAY

# Lines that mean something went wrong even when the exit code is 0.
BAD='Traceback \(most recent call last\)|^qt\.|^Q[A-Za-z]+::|QWARN|Fatal Python error|Segmentation fault'

step() {
    local name=$1 limit=$2
    shift 2
    local start=$SECONDS
    if ! timeout "$limit" "$@" >"$TMP/out" 2>&1; then
        cat "$TMP/out"
        echo "smoke.sh: FAILED ($name): exit code non-zero or timed out after ${limit}s" >&2
        exit 1
    fi
    if grep -En "$BAD" "$TMP/out" >"$TMP/bad"; then
        cat "$TMP/out"
        echo "smoke.sh: FAILED ($name): error output:" >&2
        cat "$TMP/bad" >&2
        exit 1
    fi
    echo "smoke.sh: ok   $name ($((SECONDS - start)) s)"
}

check_pdf() {
    if [ "$(head -c 5 "$1")" != "%PDF-" ] || [ "$(wc -c <"$1")" -lt 20000 ]; then
        echo "smoke.sh: FAILED: $1 is not a complete PDF" >&2
        exit 1
    fi
}

step "--help" 60 "$APP" --help
step "catalog (packaged gpus.json)" 60 "$APP" catalog
step "plan with PDF, Markdown and saved plan" 120 \
    "$APP" plan --model llama-3-8b --users 8 --pdf "$TMP/plan.pdf" --markdown "$TMP/plan.md" --save "$TMP/plan.json"
check_pdf "$TMP/plan.pdf"
step "report from the saved plan (Letter)" 120 "$APP" report "$TMP/plan.json" --pdf "$TMP/report.pdf" --page-size Letter
check_pdf "$TMP/report.pdf"

if [ -d "$BUNDLE_DIR/_internal/torch" ] || [ "${SMOKE_SELF_TEST:-0}" = 1 ]; then
    step "--self-test (window, plan, CPU workload, telemetry)" 300 "$APP" --self-test
else
    echo "smoke.sh: skip --self-test: this bundle was built without torch (--no-torch)"
fi
echo "smoke.sh: all checks passed for $APP"
