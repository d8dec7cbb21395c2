#!/usr/bin/env bash
# Add the built bundle to the desktop's application menu (per user, no root needed):
# the .desktop entry, the icon in every size, and the AppStream metainfo.
#
#   packaging/install-desktop.sh [BUNDLE_DIR]    default: dist/gpu-advisor
#   packaging/install-desktop.sh --uninstall
#
# XDG_DATA_HOME (default ~/.local/share) decides where the files go. The bundle itself stays where it
# is; the menu entry runs it by its absolute path.
set -euo pipefail

cd "$(dirname "$0")/.."
DATA=${XDG_DATA_HOME:-$HOME/.local/share}
SIZES="16 24 32 48 64 128 256"

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$DATA/applications/gpu-advisor.desktop" "$DATA/metainfo/io.github.gpu_advisor.metainfo.xml" \
        "$DATA/icons/hicolor/scalable/apps/gpu-advisor.svg"
    for s in $SIZES; do rm -f "$DATA/icons/hicolor/${s}x${s}/apps/gpu-advisor.png"; done
    echo "install-desktop.sh: removed the menu entry"
    exit 0
fi

BUNDLE=$(cd "${1:-dist/gpu-advisor}" && pwd)
if [ ! -x "$BUNDLE/gpu-advisor" ]; then
    echo "install-desktop.sh: $BUNDLE/gpu-advisor not found; build it with packaging/build.sh" >&2
    exit 1
fi

mkdir -p "$DATA/applications" "$DATA/metainfo" "$DATA/icons/hicolor/scalable/apps"
sed -e "s|^Exec=gpu-advisor$|Exec=\"$BUNDLE/gpu-advisor\"|" -e "s|^TryExec=gpu-advisor$|TryExec=$BUNDLE/gpu-advisor|" \
    packaging/gpu-advisor.desktop >"$DATA/applications/gpu-advisor.desktop"
cp packaging/io.github.gpu_advisor.metainfo.xml "$DATA/metainfo/"
cp resources/gpu-advisor.svg "$DATA/icons/hicolor/scalable/apps/gpu-advisor.svg"
for s in $SIZES; do
    mkdir -p "$DATA/icons/hicolor/${s}x${s}/apps"
    cp "resources/icons/${s}x${s}.png" "$DATA/icons/hicolor/${s}x${s}/apps/gpu-advisor.png"
done
command -v update-desktop-database >/dev/null && update-desktop-database -q "$DATA/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$DATA/icons/hicolor" || true
echo "install-desktop.sh: GPU Advisor is in the application menu (runs $BUNDLE/gpu-advisor)"
