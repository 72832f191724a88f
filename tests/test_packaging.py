"""Packaging: icons, desktop entry, AppStream metainfo, the wheel and the frozen-build files.

The wheel test builds the wheel from this tree without build isolation, installs
it with no dependencies into a fresh virtual environment (no download: the running
interpreter's site-packages are made visible to it by a .pth file) and runs the
installed ``relulab`` command there, outside the source tree.
"""

from __future__ import annotations

import ast
import configparser
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

import relulab

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
LINUX = PACKAGING / "linux"
ICONS = ROOT / "relulab" / "resources" / "icons"
HICOLOR = ICONS / "hicolor"
SCREENSHOTS = ROOT / "resources" / "screenshots"
APP_ID = relulab.APP_ID
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Apple's PNG-based icns types and the pixel size each holds.
ICNS_TYPES = {b"ic07": 128, b"ic08": 256, b"ic09": 512, b"ic10": 1024,
              b"ic11": 32, b"ic12": 64, b"ic13": 256, b"ic14": 512}


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (the first one, always)."""
    assert data[:8] == PNG_SIGNATURE, "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def gui_script_name() -> str:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (name,) = pyproject["project"]["gui-scripts"]
    return name


def read_desktop_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return dict(parser["Desktop Entry"])


# -- icons ---------------------------------------------------------------------

@pytest.mark.parametrize("size", PNG_SIZES)
def test_icon_png_exists_in_every_size(size):
    path = HICOLOR / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
    assert png_size(path.read_bytes()) == (size, size)


def test_scalable_icon_is_the_master_svg():
    scalable = HICOLOR / "scalable" / "apps" / f"{APP_ID}.svg"
    assert scalable.read_bytes() == (ROOT / "resources" / "icon.svg").read_bytes()


def test_ico_holds_every_windows_size_as_png():
    data = (ICONS / f"{APP_ID}.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)  # 1 = icon
    sizes = set()
    for i in range(count):
        width, height, _, _, _, _, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * i: 22 + 16 * i])
        image = data[offset: offset + length]
        assert len(image) == length
        size = width or 256  # 0 stands for 256
        assert (height or 256) == size
        assert png_size(image) == (size, size)
        sizes.add(size)
    assert sizes == {16, 24, 32, 48, 64, 128, 256}


def test_icns_holds_every_macos_size():
    data = (ICONS / f"{APP_ID}.icns").read_bytes()
    assert data[:4] == b"icns"
    assert struct.unpack(">I", data[4:8])[0] == len(data)
    found = {}
    at = 8
    while at < len(data):
        kind, length = data[at: at + 4], struct.unpack(">I", data[at + 4: at + 8])[0]
        assert length >= 8 and at + length <= len(data)
        if kind in ICNS_TYPES:
            found[kind] = png_size(data[at + 8: at + length])
        at += length
    assert found == {kind: (size, size) for kind, size in ICNS_TYPES.items()}


def test_master_svg_renders_with_qt():
    pytest.importorskip("PySide6")
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(ROOT / "resources" / "icon.svg"))
    assert renderer.isValid()
    assert renderer.viewBox().width() == renderer.viewBox().height()


@pytest.mark.parametrize("size", [16, 64, 256])
def test_committed_icons_are_drawn_from_the_current_svg(qapp, size):
    """Catches an edited SVG whose icons were not regenerated (make_icons.py)."""
    sys.path.insert(0, str(PACKAGING))
    try:
        from make_icons import render_png
    finally:
        sys.path.remove(str(PACKAGING))
    from PySide6.QtGui import QImage

    fresh = QImage.fromData(render_png(ROOT / "resources" / "icon.svg", size))
    committed = QImage(str(HICOLOR / f"{size}x{size}" / "apps" / f"{APP_ID}.png"))
    fresh = fresh.convertToFormat(QImage.Format.Format_RGBA8888)
    committed = committed.convertToFormat(QImage.Format.Format_RGBA8888)
    a = bytes(fresh.constBits())
    b = bytes(committed.constBits())
    assert len(a) == len(b) == size * size * 4
    # Anti-aliasing may differ a little between Qt versions; a changed drawing does not.
    mean_difference = sum(abs(x - y) for x, y in zip(a, b)) / len(a)
    assert mean_difference < 2.0


def test_window_icon_comes_from_package_data(qapp):
    from relulab.app import ensure_application, window_icon

    icon = window_icon()
    assert sorted(s.width() for s in icon.availableSizes()) == list(PNG_SIZES)
    qapp.setWindowIcon(type(icon)())  # no icon yet: ensure_application sets it
    app = ensure_application()
    assert sorted(s.width() for s in app.windowIcon().availableSizes()) == list(PNG_SIZES)
    assert app.desktopFileName() == APP_ID


# -- desktop entry and AppStream metainfo ----------------------------------------

def test_desktop_entry_names_the_app_its_command_and_its_icon():
    entry = read_desktop_entry(DESKTOP)
    assert entry["Type"] == "Application"
    assert entry["Name"] == relulab.APP_NAME
    assert entry["Exec"].split()[0] == gui_script_name()
    assert entry["Icon"] == APP_ID
    assert (HICOLOR / "256x256" / "apps" / f"{entry['Icon']}.png").is_file()
    assert (HICOLOR / "scalable" / "apps" / f"{entry['Icon']}.svg").is_file()
    assert entry["Terminal"] == "false"
    assert "Education" in entry["Categories"].split(";")


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate is not installed (Debian: desktop-file-utils)")
def test_desktop_entry_validates():
    result = subprocess.run(["desktop-file-validate", str(DESKTOP)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout.lower()


def test_metainfo_matches_the_app():
    root = ElementTree.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("name") == relulab.APP_NAME
    launchable = root.find("launchable")
    assert launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    assert root.findtext("icon") == APP_ID
    assert root.findtext("provides/binary") == gui_script_name()
    assert root.findtext("project_license") == "MIT"
    # The newest release comes first and is the version being packaged.
    assert root.find("releases/release").get("version") == relulab.__version__


def test_metainfo_screenshots_are_real_files_of_the_stated_size():
    root = ElementTree.parse(METAINFO).getroot()
    screenshots = root.findall("screenshots/screenshot")
    assert screenshots and screenshots[0].get("type") == "default"
    for shot in screenshots:
        assert shot.findtext("caption")
        image = shot.find("image")
        url = image.text.strip()
        assert url.startswith("https://")
        # The URL points at the file in this repository: .../resources/screenshots/NAME.png
        name = url.rsplit("/resources/screenshots/", 1)[1]
        size = png_size((SCREENSHOTS / name).read_bytes())
        assert size == (int(image.get("width")), int(image.get("height")))


def test_readme_screenshot_exists():
    assert "resources/screenshots/main-window.png" in (ROOT / "README.md").read_text()
    assert png_size((SCREENSHOTS / "main-window.png").read_bytes()) == (1280, 800)


@pytest.mark.skipif(shutil.which("appstreamcli") is None,
                    reason="appstreamcli is not installed (Debian: appstream)")
def test_metainfo_validates():
    result = subprocess.run(["appstreamcli", "validate", "--no-net", str(METAINFO)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script")
def test_install_desktop_entry_adds_and_removes_the_menu_entry(tmp_path):
    # The folder PyInstaller makes on Linux, as far as the script sees it.
    bundle = tmp_path / "Re LU Lab"  # a space, as a user's folder may have
    (bundle / "share").mkdir(parents=True)
    shutil.copytree(ICONS, bundle / "_internal" / "relulab" / "resources" / "icons")
    for f in (DESKTOP, METAINFO):
        shutil.copy(f, bundle / "share")
    shutil.copy(LINUX / "install-desktop-entry.sh", bundle)
    exe = bundle / "relulab"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    data = tmp_path / "data"
    env = os.environ | {"XDG_DATA_HOME": str(data)}

    subprocess.run(["sh", str(bundle / "install-desktop-entry.sh")], env=env, check=True,
                   capture_output=True)
    installed = data / "applications" / DESKTOP.name
    entry = read_desktop_entry(installed)
    assert entry["Exec"] == f'"{exe}" %f'
    assert entry["Icon"] == APP_ID
    for size in PNG_SIZES:
        assert (data / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png").is_file()
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    assert (data / "metainfo" / METAINFO.name).is_file()
    if shutil.which("desktop-file-validate"):
        result = subprocess.run(["desktop-file-validate", str(installed)],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stdout

    subprocess.run(["sh", str(bundle / "install-desktop-entry.sh"), "--uninstall"], env=env,
                   check=True, capture_output=True)
    assert not installed.exists()
    assert not list((data / "icons").rglob(f"{APP_ID}.*"))


# -- PyInstaller spec and build script -----------------------------------------------

def test_pyinstaller_spec_uses_the_app_id_and_the_generated_icons():
    source = (PACKAGING / "relulab.spec").read_text()
    tree = ast.parse(source)  # a spec is Python
    calls = {node.func.id: node for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert {"Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE"} <= calls.keys()
    keywords = {k.arg: k.value for k in calls["BUNDLE"].keywords}
    assert ast.unparse(keywords["bundle_identifier"]) == "relulab.APP_ID"
    plist = {ast.literal_eval(k): ast.unparse(v) for k, v in
             zip(keywords["info_plist"].keys, keywords["info_plist"].values)}
    assert plist["NSHighResolutionCapable"] == "True"
    assert plist["CFBundleShortVersionString"] == "VERSION"
    exe = {k.arg: k.value for k in calls["EXE"].keywords}
    assert ast.unparse(exe["exclude_binaries"]) == "True"  # one-folder build
    assert ast.unparse(exe["console"]) == "console"
    # The launcher is valid Python and runs relulab.app.main.
    launcher = (PACKAGING / "launcher.py").read_text()
    assert "from relulab.app import main" in launcher
    ast.parse(launcher)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_build_script_is_valid_bash():
    subprocess.run(["bash", "-n", str(PACKAGING / "build.sh")], check=True)


# -- the wheel, installed in a fresh virtual environment ------------------------------

def _run(args, cwd, **kwargs):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env |= {"QT_QPA_PLATFORM": "offscreen", "PYTHONNOUSERSITE": "1",
            "XDG_CONFIG_HOME": str(cwd / "config"), "XDG_DATA_HOME": str(cwd / "data"),
            "XDG_CACHE_HOME": str(cwd / "cache")}
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, **kwargs)


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory):
    """(wheel path, the fresh venv's python, its bin folder, a scratch folder)."""
    if importlib.util.find_spec("hatchling") is None:
        pytest.skip("hatchling is not installed (pip install -e '.[test]' brings it)")
    tmp = tmp_path_factory.mktemp("wheel")
    result = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                   "--no-build-isolation", "--no-index", "-w", tmp / "dist", ROOT], cwd=tmp)
    assert result.returncode == 0, result.stderr
    (wheel,) = (tmp / "dist").glob("relulab-*.whl")

    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / ("python.exe" if os.name == "nt" else "python")
    result = _run([sys.executable, "-m", "pip", "--python", python, "install", "-q",
                   "--no-deps", "--no-index", wheel], cwd=tmp)
    assert result.returncode == 0, result.stderr
    # The dependencies (numpy, PySide6, …) come from this interpreter's site-packages,
    # after the venv's own, so relulab itself is the one from the wheel.
    purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                   cwd=tmp).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(purelib) / "_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    return wheel, python, bin_dir, tmp


@pytest.mark.slow
def test_wheel_carries_the_icons_and_the_entry_point(installed_wheel):
    wheel = installed_wheel[0]
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        scripts = z.read(entry_points).decode()
    for size in PNG_SIZES:
        assert f"relulab/resources/icons/hicolor/{size}x{size}/apps/{APP_ID}.png" in names
    assert f"relulab/resources/icons/{APP_ID}.ico" in names
    assert f"relulab/resources/icons/{APP_ID}.icns" in names
    assert "[gui_scripts]" in scripts
    assert "relulab = relulab.app:main" in scripts


@pytest.mark.slow
def test_installed_command_prints_its_version(installed_wheel):
    _, python, bin_dir, tmp = installed_wheel
    where = _run([python, "-c", "import relulab; print(relulab.__file__)"], cwd=tmp)
    assert Path(where.stdout.strip()).is_relative_to(python.parents[1]), where.stdout
    if os.name == "nt":  # a gui-script has no console there: run the module
        assert (bin_dir / "relulab.exe").is_file()
        result = _run([python, "-m", "relulab", "--version"], cwd=tmp)
    else:
        result = _run([bin_dir / gui_script_name(), "--version"], cwd=tmp)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"relulab {relulab.__version__}"


@pytest.mark.slow
def test_installed_app_finds_its_icon(installed_wheel):
    _, python, _, tmp = installed_wheel
    code = ("from relulab.app import ensure_application\n"
            "app = ensure_application()\n"
            "print(sorted(s.width() for s in app.windowIcon().availableSizes()))\n")
    result = _run([python, "-c", code], cwd=tmp)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(list(PNG_SIZES))


@pytest.mark.slow
def test_installed_command_renders_headless(installed_wheel):
    _, python, bin_dir, tmp = installed_wheel
    out = tmp / "render.png"
    command = ([python, "-m", "relulab"] if os.name == "nt" else [bin_dir / gui_script_name()])
    result = _run([*command, "render", "-o", out], cwd=tmp)
    assert result.returncode == 0, result.stderr
    width, height = png_size(out.read_bytes())
    assert width > 0 and height > 0


def test_the_gallery_shows_every_screenshot_and_the_readme_links_it():
    """docs/screenshots.md: each picture the script writes, each once, each a real file."""
    import re

    gallery = ROOT / "docs" / "screenshots.md"
    shown = re.findall(r"!\[[^\]]+\]\(\.\./(resources/screenshots/[^)]+)\)", gallery.read_text())
    assert len(shown) == len(set(shown))
    assert all((ROOT / p).is_file() for p in shown), [p for p in shown if not (ROOT / p).is_file()]
    on_disk = {p.relative_to(ROOT).as_posix() for p in SCREENSHOTS.rglob("*.png")}
    assert set(shown) == on_disk
    assert "](docs/screenshots.md)" in (ROOT / "README.md").read_text()
