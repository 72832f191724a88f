#!/bin/sh
# Add the ReLU Lab folder built by PyInstaller to the current user's application
# menu: a desktop entry, the icons and the AppStream metadata, under
# ${XDG_DATA_HOME:-~/.local/share}. No root needed; run it again after moving the
# folder. "./install-desktop-entry.sh --uninstall" removes them again.
set -eu

id=io.github.relulab.ReLULab
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
exe=$here/relulab
icons=$here/_internal/relulab/resources/icons/hicolor

installed_icons() {
  for dir in "$icons"/*/apps; do
    size=$(basename "$(dirname "$dir")")
    for f in "$dir"/$id.*; do echo "$size/apps/$(basename "$f")"; done
  done
}

refresh() {
  # Menus pick the changes up by themselves; these only make it quicker.
  command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" || true
  command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
}

if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$data/applications/$id.desktop" "$data/metainfo/$id.metainfo.xml"
  for icon in $(installed_icons); do rm -f "$data/icons/hicolor/$icon"; done
  refresh
  echo "ReLU Lab removed from the application menu."
  exit 0
fi

[ -x "$exe" ] || { echo "install-desktop-entry.sh: no executable at $exe" >&2; exit 1; }
case $exe in
  *[\"\`\$\\]*) echo "install-desktop-entry.sh: move the folder to a path without \" \` \$ or \\ first" >&2; exit 1 ;;
esac

mkdir -p "$data/applications" "$data/metainfo"
# The entry names the executable by its absolute path, quoted for spaces.
sed "s|^Exec=.*|Exec=\"$exe\" %f|" "$here/share/$id.desktop" > "$data/applications/$id.desktop"
cp "$here/share/$id.metainfo.xml" "$data/metainfo/"
for icon in $(installed_icons); do
  mkdir -p "$data/icons/hicolor/$(dirname "$icon")"
  cp "$icons/$icon" "$data/icons/hicolor/$icon"
done
refresh
echo "ReLU Lab added to the application menu ($data/applications/$id.desktop)."
