"""Take the screenshots of the real app: the README's, the gallery's and the metainfo's.

    xvfb-run -a -s "-screen 0 1366x800x24" python packaging/screenshots.py [GROUP ...]

One run, one real main window (as ``relulab`` builds it, fresh settings so nothing of
the user's shows, no mock), writes into resources/screenshots/:

readme
    main-window.png (the window as it opens, on the first panel) and <panel>.png for
    every other panel, 1280×800, light theme, zoom 1 (the README and the AppStream
    metainfo show them); and the README's pictures of particular states:
    playground-classes, -diagram, -hidden-space, -random-labels, -replay,
    -high-contrast and converter-slice.
sizes
    1366x768/<panel>.png and 1280x720/<panel>.png: every panel in the window a
    1366 × 768 laptop and a 1280 × 720 projector give it (the available screen less a
    window frame, ``default_size``, as the layout tests build it), light theme, zoom 1.
lecture
    lecture/scene-NN.png: every scene of the built-in lecture as it opens, in the
    lecture layout of the 1280 × 720 window at zoom 1.6.
themes
    themes/<theme>-<panel>.png: Training and Playground in the light, dark and high
    contrast themes, 1280×800, zoom 1.

Name groups to take only those (all four without). The training panels train a fixed
number of steps from their fixed seeds, in the same chunks every run, so the pictures
do not depend on the machine's speed. The PNGs are written with the most compression.
About 1–2 minutes on two shared cores, 5.5 MB; docs/screenshots.md shows every picture.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "resources" / "screenshots"
README_SIZE = (1280, 800)
#: The screens of the ``sizes`` group: a laptop and a projector.
SCREENS = {"1366x768": (1366, 768), "1280x720": (1280, 720)}
LECTURE_SCREEN = (1280, 720)
LECTURE_ZOOM = 1.6
THEME_PANELS = ("training", "playground")
GROUPS = ("readme", "playground", "questions", "sizes", "lecture", "themes")
#: Panels that train: (steps, chunk) from their seeds before the picture, so it shows
#: learning, not step 0; the chunks make the curves' points.
TRAIN_STEPS = {"training": (3000, 100), "playground": (600, 20)}


def settle(app, ms: int) -> None:
    """Let the window lay out, plots draw and start-up timers run for ms milliseconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    app.processEvents()


def idle(app, panel, ms: int = 300) -> None:
    """Wait for the panel's work (regions, conversions) to be on screen, then paint."""
    panel.wait_until_idle(120)
    driver = getattr(panel, "driver", None)
    if driver is not None:
        driver.draw_all()
    settle(app, ms)


def train(app, panel, steps: int, chunk: int) -> None:
    """Train ``steps`` steps in chunks of ``chunk``, each shown, as Play would, but the
    same steps on every machine."""
    panel.driver.pause()
    for _ in range(steps // chunk):
        panel.driver.step(chunk)
        if panel.name == "training":
            panel._redraw()
        else:
            panel.redraw(points=False)
        panel.driver.draw_all()
        app.processEvents()
    idle(app, panel)


def save(window, path: Path, size: tuple[int, int]) -> None:
    image = window.grab().toImage()
    if (image.width(), image.height()) != size:
        raise SystemExit(f"{path.name}: window is {image.width()}×{image.height()}, not "
                         f"{size[0]}×{size[1]}: run under xvfb-run with a larger screen")
    path.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(path), "PNG", 0):  # 0: the smallest file, still lossless
        raise SystemExit(f"could not write {path}")
    print(path.relative_to(ROOT), flush=True)


def fresh_window(app, size, theme: str = "light", zoom: float = 1.0, panel: str | None = None):
    """A new main window as a first launch builds it, at ``size``; the panels fresh."""
    from PySide6.QtCore import QSize

    from relulab.app import build_main_window

    window = build_main_window(panel=panel, theme=theme, zoom=zoom)
    window.resize(QSize(*size))
    window.show()
    settle(app, 800)
    window.resize(QSize(*size))  # after fit_to_screen, which only ever shrinks it
    settle(app, 300)
    return window


def close(app, window) -> None:
    """Close the window and forget what closing it remembered (its size, its panel),
    so that the next window opens as on a first launch."""
    from relulab.ui import settings

    window.session.mark_clean()
    window.close()
    window.deleteLater()
    settle(app, 100)
    settings._store().clear()


def panel_shots(app, window, folder: Path, size, names, first_as: str | None = None) -> None:
    """Every panel in ``names``: shown, trained if it trains, pictured."""
    for name in names:
        panel = window.show_panel(name)
        idle(app, panel, 800)
        if name in TRAIN_STEPS:
            train(app, panel, *TRAIN_STEPS[name])
        target = first_as if (first_as and name == names[0]) else name
        save(window, folder / f"{target}.png", size)


def control(panel, name: str):
    from PySide6.QtWidgets import QWidget

    widget = panel.findChild(QWidget, name)
    if widget is None:
        raise SystemExit(f"{panel.name}: no control {name}")
    return widget


def choose(app, panel, name: str, data) -> None:
    """Pick the entry whose data is ``data`` in the combo box ``name``, as a click would."""
    combo = control(panel, name)
    index = combo.findData(data)
    if index < 0:
        raise SystemExit(f"{name}: no entry {data!r}")
    combo.setCurrentIndex(index)
    idle(app, panel, 100)


def set_value(app, panel, name: str, value) -> None:
    widget = control(panel, name)
    if hasattr(widget, "setChecked") and isinstance(value, bool):
        widget.setChecked(value)
    else:
        widget.setValue(value)
        widget.editingFinished.emit()
    idle(app, panel, 100)


def readme_states(app, window) -> None:
    """The README's pictures of particular states, 1280×800."""
    from relulab.io.scenes import builtin_lecture_path

    pg = window.show_panel("playground")
    idle(app, pg)
    # three spiral arms, a 2-16-16-3 ReLU network, trained: regions and the boundary
    choose(app, pg, "playground-dataset", "spirals")
    pg.set_classes(3)
    pg.set_hidden((16, 16))
    train(app, pg, 1500, 50)
    save(window, OUT / "playground-classes.png", README_SIZE)
    # each neuron's map drawn on its dot in the diagram
    set_value(app, pg, "playground-thumbnails", True)
    save(window, OUT / "playground-diagram.png", README_SIZE)
    set_value(app, pg, "playground-thumbnails", False)
    # XOR's four points in the hidden layer of a 2-2-1 network
    pg.set_classes(2)
    choose(app, pg, "playground-dataset", "xor_corners")
    pg.set_hidden((2,))
    pg.side_tabs.setCurrentWidget(pg.hidden_view)
    train(app, pg, 1500, 50)
    save(window, OUT / "playground-hidden-space.png", README_SIZE)
    pg.side_tabs.setCurrentIndex(0)
    # random labels: train accuracy climbs, test stays near chance
    choose(app, pg, "playground-dataset", "circles")
    set_value(app, pg, "playground-test-fraction", 0.3)
    pg.set_hidden((16, 16))
    pg.set_random_labels(True)
    train(app, pg, 1500, 50)
    save(window, OUT / "playground-random-labels.png", README_SIZE)
    pg.set_random_labels(False)
    # replay: the same start at another rate, the run before dotted
    set_value(app, pg, "playground-learning-rate", 0.03)
    train(app, pg, 600, 20)
    set_value(app, pg, "playground-learning-rate", 0.003)
    pg.replay()
    train(app, pg, 600, 20)
    save(window, OUT / "playground-replay.png", README_SIZE)
    # the digits classifier on the plane through a 0, a 1 and a 7 (lecture scene 10)
    window.open_scene(builtin_lecture_path().parent / "10-digits-slice.relulab.json")
    idle(app, window.current_panel(), 1500)
    save(window, OUT / "converter-slice.png", README_SIZE)


def playground_lessons(app) -> None:
    """TensorFlow Playground's lessons here: the circles linear in x₁², x₂² (the map in
    feature space), a weight penalty, and a typed regression."""
    window = fresh_window(app, README_SIZE, panel="playground")
    pg = window.current_panel()
    idle(app, pg)
    choose(app, pg, "playground-dataset", "circles")
    pg.set_features(("x1^2", "x2^2"))
    pg.set_hidden(())
    train(app, pg, 600, 20)
    set_value(app, pg, "playground-feature-space", True)
    save(window, OUT / "playground-features.png", README_SIZE)
    set_value(app, pg, "playground-feature-space", False)
    pg.set_features(("x1", "x2"))
    # L2 on the spirals: the weights' lines thin out, the penalty shows in the loss
    choose(app, pg, "playground-dataset", "spirals")
    pg.set_hidden((16, 16))
    choose(app, pg, "playground-regularization", "l2")
    choose(app, pg, "playground-regularization-rate", 0.01)
    train(app, pg, 1500, 50)
    save(window, OUT / "playground-regularization.png", README_SIZE)
    choose(app, pg, "playground-regularization", "none")
    # a typed f(x₁, x₂), fitted by MSE, drawn as a colour map with its exact pieces
    choose(app, pg, "playground-dataset", "regress_formula")
    pg.set_hidden((8, 8))
    train(app, pg, 900, 30)
    save(window, OUT / "playground-regression.png", README_SIZE)
    close(app, window)


def question_pages(app) -> None:
    """Each page of the Questions panel at 1366×768, its run finished (default settings),
    and in the lecture layout on a 1280×720 projector at zoom 1.6."""
    from PySide6.QtCore import QSize

    from relulab.model.lessons.questions import PAGES
    from relulab.ui.main_window import default_size

    for screen, zoom, lecture, prefix in ((SCREENS["1366x768"], 1.0, False, ""),
                                          (LECTURE_SCREEN, LECTURE_ZOOM, True, "lecture-")):
        size = default_size(QSize(*screen)).toTuple()
        window = fresh_window(app, size, zoom=zoom, panel="questions")
        window.set_lecture_layout(lecture)
        panel = window.current_panel()
        for page in PAGES:
            panel.show_page(page)
            idle(app, panel, 1000)
            save(window, OUT / "questions" / f"{prefix}{page}.png", size)
        close(app, window)


def high_contrast_classes(app) -> None:
    window = fresh_window(app, README_SIZE, theme="high-contrast", panel="playground")
    pg = window.current_panel()
    idle(app, pg)
    choose(app, pg, "playground-dataset", "gaussians")
    pg.set_classes(6)
    set_value(app, pg, "playground-thumbnails", True)
    train(app, pg, 900, 30)
    save(window, OUT / "playground-high-contrast.png", README_SIZE)
    close(app, window)


def take(app, group: str) -> None:
    from PySide6.QtCore import QSize

    from relulab.ui.main_window import default_size
    from relulab.ui.panels import PANEL_NAMES

    if group == "readme":
        window = fresh_window(app, README_SIZE)
        panel_shots(app, window, OUT, README_SIZE, list(PANEL_NAMES), first_as="main-window")
        readme_states(app, window)
        close(app, window)
        high_contrast_classes(app)
    elif group == "playground":
        playground_lessons(app)
    elif group == "questions":
        question_pages(app)
    elif group == "sizes":
        for folder, screen in SCREENS.items():
            size = default_size(QSize(*screen)).toTuple()
            window = fresh_window(app, size)
            panel_shots(app, window, OUT / folder, size, list(PANEL_NAMES))
            close(app, window)
    elif group == "lecture":
        size = default_size(QSize(*LECTURE_SCREEN)).toTuple()
        window = fresh_window(app, size, zoom=LECTURE_ZOOM)
        if not window.lecture.start_builtin():
            raise SystemExit("the built-in lecture did not start")
        for i in range(len(window.lecture.playlist.scenes)):
            window.lecture.go(i)
            idle(app, window.current_panel(), 1000)
            save(window, OUT / "lecture" / f"scene-{i + 1:02d}.png", size)
        window.lecture.end()
        close(app, window)
    elif group == "themes":
        from relulab.ui.theme import THEMES

        for theme in THEMES:
            window = fresh_window(app, README_SIZE, theme=theme)
            for name in THEME_PANELS:
                panel = window.show_panel(name)
                idle(app, panel, 800)
                train(app, panel, *TRAIN_STEPS[name])
                save(window, OUT / "themes" / f"{theme}-{name}.png",
                     README_SIZE)
            close(app, window)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("groups", nargs="*", metavar="GROUP",
                        help=f"take only these ({', '.join(GROUPS)}; default: all)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.groups) - set(GROUPS))
    if unknown:
        parser.error(f"unknown group {', '.join(unknown)} (known: {', '.join(GROUPS)})")
    sys.path.insert(0, str(ROOT))
    # Fresh settings and data: nothing from the user's own configuration in the pictures.
    home = tempfile.mkdtemp(prefix="relulab-shots-")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, "config")
    os.environ["XDG_DATA_HOME"] = os.path.join(home, "data")
    os.environ["RELULAB_DATA_DIR"] = os.path.join(home, "relulab")

    from relulab.app import ensure_application

    app = ensure_application()
    started = time.perf_counter()
    for group in args.groups or GROUPS:
        take(app, group)
    print(f"{time.perf_counter() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
