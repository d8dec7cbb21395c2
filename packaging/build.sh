#!/usr/bin/env bash
# Build the one-folder desktop bundle: dist/gpu-advisor/gpu-advisor (+ its _internal/ folder).
#
#   packaging/build.sh              bundle with PyTorch (benchmarks and --self-test work)
#   packaging/build.sh --no-torch   planner, reports and telemetry only (much smaller)
#
# PYTHON selects the interpreter (default: .venv/bin/python). PyInstaller is installed into it when
# missing. The build uses a clean, non-editable copy of the package (build/pyinstaller/site):
# PyInstaller does not follow the editable install's mapping of resources/ to gpu_advisor.resources.
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
WITH_TORCH=1
for arg in "$@"; do
    case "$arg" in
        --no-torch) WITH_TORCH=0 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
    esac
done

if ! "$PYTHON" -c "import PyInstaller" 2>/dev/null; then
    echo "build.sh: installing PyInstaller into $("$PYTHON" -c 'import sys; print(sys.prefix)')"
    "$PYTHON" -m pip install --quiet "pyinstaller>=6.5"
fi
if [ "$WITH_TORCH" = 1 ] && ! "$PYTHON" -c "import torch" 2>/dev/null; then
    echo "build.sh: torch is not installed in $PYTHON; install it (see README) or build with --no-torch" >&2
    exit 1
fi

WORK=build/pyinstaller
rm -rf "$WORK" dist/gpu-advisor
mkdir -p "$WORK/site"
had_egg_info=$([ -d gpu_advisor.egg-info ] && echo 1 || echo 0)
"$PYTHON" -m pip install --quiet --no-deps --no-build-isolation --target "$WORK/site" .
[ "$had_egg_info" = 1 ] || rm -rf gpu_advisor.egg-info  # left in the source tree by the wheel build
# The wheel holds only the packages pyproject.toml lists; copy the whole source tree over it so that
# every subpackage (and every resource) in the working tree is bundled.
cp -R gpu_advisor/. "$WORK/site/gpu_advisor/"
mkdir -p "$WORK/site/gpu_advisor/resources"
cp -R resources/. "$WORK/site/gpu_advisor/resources/"
find "$WORK/site" -name __pycache__ -prune -exec rm -rf {} +

start=$(date +%s)
GPU_ADVISOR_SITE="$WORK/site" GPU_ADVISOR_BUNDLE_TORCH="$WITH_TORCH" \
    "$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath "$WORK/work" packaging/gpu-advisor.spec
end=$(date +%s)

size=$(du -sh dist/gpu-advisor | cut -f1)
echo "build.sh: dist/gpu-advisor built in $((end - start)) s, $size (torch: $([ "$WITH_TORCH" = 1 ] && echo yes || echo no))"
echo "build.sh: check it with packaging/smoke.sh"
