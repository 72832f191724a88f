#!/usr/bin/env bash
# Build the ReLU Lab desktop app with PyInstaller (one folder, no console window)
# and check that the result runs: --version, one headless render and a start of
# the window, all offscreen.
#
#   packaging/build.sh
#
# It installs the project (not editable, so the package data the wheel carries is
# what gets collected) and PyInstaller into a separate virtual environment,
# build/pyinstaller-venv, made with $PYTHON (default python3). Set
# RELULAB_BUILD_VENV to use another environment.
#
# Output: dist/ReLULab/ (Linux, Windows), dist/ReLU Lab.app (macOS).
# Exit status: 0 built and checked; 1 the build or a check failed;
# 77 it could not run here (no venv, or PyInstaller or a dependency could not be
# installed), so CI can tell "cannot build" from "broken build".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${RELULAB_BUILD_VENV:-$ROOT/build/pyinstaller-venv}
WORK=$ROOT/build/pyinstaller
DIST=$ROOT/dist

say() { echo "build.sh: $*" >&2; }
cannot() { say "cannot build here: $*"; exit 77; }
fail() { say "FAILED: $*"; exit 1; }
SECONDS=0

# 1. A separate environment with the installed project and PyInstaller.
if [ ! -e "$VENV/bin/python" ] && [ ! -e "$VENV/Scripts/python.exe" ]; then
  base=${PYTHON:-python3}
  command -v "$base" >/dev/null 2>&1 || base=python  # Windows installs only "python"
  "$base" -m venv "$VENV" || cannot "could not make a virtual environment at $VENV with $base"
fi
PY=$VENV/bin/python
[ -e "$PY" ] || PY=$VENV/Scripts/python.exe
"$PY" -m pip install -q --disable-pip-version-check 'pyinstaller>=6.10' \
  || cannot "could not install PyInstaller"
"$PY" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$ROOT" \
  && "$PY" -m pip install -q --disable-pip-version-check "$ROOT" \
  || cannot "could not install the project and its dependencies"
say "environment ready (${SECONDS}s)"

# 2. Build. Run from the work folder so that the source tree is not on sys.path
#    (python -m puts the current folder first): the spec must see the installed package.
mkdir -p "$WORK"
(cd "$WORK" && "$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
   --distpath "$DIST" --workpath "$WORK" "$ROOT/packaging/relulab.spec") \
  || fail "PyInstaller"
say "built in ${SECONDS}s"

# 3. Check the bundle runs, offscreen, with no display and no settings of the user's.
case "$(uname -s)" in
  Darwin) EXE="$DIST/ReLU Lab.app/Contents/MacOS/relulab" ;;
  MINGW*|MSYS*|CYGWIN*) EXE="$DIST/ReLULab/relulab.exe" ;;
  *) EXE="$DIST/ReLULab/relulab" ;;
esac
[ -x "$EXE" ] || fail "no executable at $EXE"
CHECK=$ROOT/build/check
rm -rf "$CHECK" && mkdir -p "$CHECK"
export QT_QPA_PLATFORM=offscreen
export XDG_CONFIG_HOME=$CHECK/config XDG_DATA_HOME=$CHECK/data XDG_CACHE_HOME=$CHECK/cache

expected="relulab $("$PY" -c 'import relulab; print(relulab.__version__)')"
got=$(cd "$CHECK" && "$EXE" --version) || fail "$EXE --version exited with $?"
[ "$got" = "$expected" ] || fail "--version printed '$got', expected '$expected'"
say "ok: --version prints '$got'"

# A check runs once the command it needs is part of the installed project.
has() { "$PY" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$1') is None)" 2>/dev/null; }

if has relulab.commands.render; then
  # Every panel drawn headless by the bundle: its modules, SciPy, pyqtgraph and Qt's
  # offscreen platform must all have been collected.
  for panel in $("$PY" -c 'from relulab.ui.panels import PANEL_NAMES; print(*PANEL_NAMES)'); do
    png=$CHECK/render-$panel.png
    (cd "$CHECK" && "$EXE" render --panel "$panel" -o "$png" > /dev/null) || fail "render --panel $panel exited with $?"
    [ -s "$png" ] || fail "render --panel $panel wrote no $png"
    [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
      || fail "$png is not a PNG"
    say "ok: render --panel $panel wrote $(wc -c < "$png") bytes of PNG"
  done
else
  say "skipped the render check: this version has no 'relulab render' command yet"
fi

if has relulab.commands.convert; then
  # Exact region enumeration runs SciPy's HiGHS linear programs: a classic thing for a
  # frozen build to lose. A small 2-D network, made by the installed project.
  (cd "$CHECK" && "$PY" -c 'from relulab.io.networks import save_network
from relulab.model.networks.mlp import MLP
save_network(MLP.random([2, 4, 4, 1], seed=0), "deep.json")') || fail "could not write a test network"
  # a cache of its own: the renders above may have compiled the engine already
  export XDG_CACHE_HOME=$CHECK/convert-cache
  (cd "$CHECK" && "$EXE" convert deep.json shallow.json --report > convert.log) \
    || fail "convert exited with $?"
  [ -s "$CHECK/shallow.json" ] || fail "convert wrote no shallow.json"
  say "ok: convert turned a 2-4-4-1 network into a shallow one"

  # The compiled region engine: compiled by the first run (seconds), then loaded from
  # the user's cache folder by every later one, whatever folder it is started from.
  engine() { sed -n 's/^compiled region engine: //p' "$1"; }
  first=$(engine "$CHECK/convert.log")
  case "$first" in
    compiled*) ;;
    *) fail "the first convert did not compile the region engine ('$first'): a stale cache in $XDG_CACHE_HOME?" ;;
  esac
  mkdir -p "$CHECK/elsewhere"
  (cd "$CHECK/elsewhere" && "$EXE" convert ../deep.json shallow.json --report > convert.log) \
    || fail "the second convert exited with $?"
  second=$(engine "$CHECK/elsewhere/convert.log")
  case "$second" in
    "loaded from the disk cache in "*) ;;
    *) fail "a second run did not load the region engine from the disk cache ('$second'): every start would compile it again" ;;
  esac
  seconds=${second##* in }
  seconds=${seconds% s}
  awk -v s="$seconds" 'BEGIN { exit !(s < 2.0) }' \
    || fail "loading the region engine from the disk cache took $seconds s (more than 2 s)"
  say "ok: the region engine, $first on the first run, is $second on the next"

  # The window compiles the engine in a separate process, the app's own executable
  # started with RELULAB_COMPILE_TARGET (relulab.model.core._compile_apart): it must fill
  # the same cache the app then loads from.
  export XDG_CACHE_HOME=$CHECK/apart-cache
  RELULAB_COMPILE_TARGET=regions-2d "$EXE" > "$CHECK/apart.log" 2>&1 \
    || fail "the app as its own compiler exited with $? ($(tail -n 1 "$CHECK/apart.log"))"
  (cd "$CHECK" && "$EXE" convert deep.json shallow.json --report > apart-convert.log) \
    || fail "the convert after the separate compilation exited with $?"
  apart=$(engine "$CHECK/apart-convert.log")
  case "$apart" in
    "loaded from the disk cache in "*) ;;
    *) fail "after the app compiled the engine as a separate process, a convert did not load it from the disk cache ('$apart')" ;;
  esac
  say "ok: the app compiled the region engine as a separate process; the next run $apart"
else
  say "skipped the convert check: this version has no 'relulab convert' command yet"
fi

# The window with every panel: it must still be running after a few seconds
# (timeout's 124) and have printed no traceback.
if command -v timeout >/dev/null 2>&1; then
  status=0
  (cd "$CHECK" && timeout 20 "$EXE" > "$CHECK/window.log" 2>&1) || status=$?
  if [ "$status" != 124 ] || grep -q Traceback "$CHECK/window.log"; then
    cat "$CHECK/window.log" >&2
    fail "the window did not keep running (exit status $status)"
  fi
  say "ok: the window starts and keeps running"
fi

size=$(du -sh "$DIST/ReLULab" | cut -f1)
say "done in ${SECONDS}s: $DIST/ReLULab ($size)"
