"""The QApplication and the main window, made the same way by the app, scripts and tests.

``relulab.app`` (the entry point) uses these; so do ``relulab render``, the
automation tables and the tests. The window is built without entering the event loop.
"""

from __future__ import annotations

import logging
import sys

import relulab


def limit_blas_threads() -> None:
    """Run BLAS on one thread.

    The app's matrices are small (hundreds of rows, tens of columns), where a second
    BLAS thread costs more in hand-over than it saves, and on a busy machine it competes
    with the GUI thread: a least-squares refit that takes 0.2 ms alone takes 100 ms with
    two threads under load, and a drag misses its frame. With workers computing beside
    the GUI thread, every BLAS thread they start spins against the others: a training
    step of 4 ms takes 100 ms. threadpoolctl limits the libraries already loaded; the
    environment variables limit those loaded later (numpy's and scipy's OpenBLAS are
    loaded when first imported, often after this runs).
    """
    import os

    from threadpoolctl import threadpool_limits

    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    threadpool_limits(1, user_api="blas")


#: How long a worker thread keeps the interpreter once the GUI thread asks for it.
GUI_SWITCH_INTERVAL = 0.001


def ensure_application():
    """The QApplication, made with the app's names if it does not exist yet."""
    from PySide6.QtWidgets import QApplication

    limit_blas_threads()
    # Workers run numpy-heavy Python beside the GUI thread, which gives the interpreter
    # up at every call into Qt and waits to get it back: by default up to 5 ms each
    # time, which a paint of many such calls pays over and over.
    sys.setswitchinterval(GUI_SWITCH_INTERVAL)
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    app.setApplicationName(relulab.APP_NAME)
    app.setOrganizationName(relulab.ORGANIZATION)
    app.setApplicationVersion(relulab.__version__)
    app.setDesktopFileName(relulab.APP_ID)
    if app.windowIcon().isNull():
        app.setWindowIcon(window_icon())
    return app


def window_icon():
    """The application icon in every size shipped (16 … 512 px).

    Read through ``importlib.resources`` as bytes, so it is found wherever the
    package lives: a source tree, an installed wheel or a frozen build. A missing
    icon is logged, not fatal: the app still works without one.
    """
    from importlib.resources import files

    from PySide6.QtGui import QIcon, QPixmap

    icon = QIcon()
    hicolor = files(relulab) / "resources" / "icons" / "hicolor"
    try:
        folders = sorted(hicolor.iterdir(), key=lambda f: f.name)
    except OSError:
        folders = []
    for folder in folders:
        png = folder / "apps" / f"{relulab.APP_ID}.png"
        if png.is_file():
            pixmap = QPixmap()
            if pixmap.loadFromData(png.read_bytes(), "PNG"):
                icon.addPixmap(pixmap)
    if icon.isNull():
        logging.getLogger(__name__).warning("application icon not found under %s", hicolor)
    return icon


def build_main_window(panel: str | None = None, theme: str | None = None,
                      zoom: float | None = None):
    """The main window with every panel built, shown or not; no event loop entered."""
    ensure_application()
    from relulab.ui import settings
    from relulab.ui.main_window import MainWindow
    from relulab.ui.theme import current_theme

    t = current_theme()
    t.set_name(theme or settings.get("view/theme"))
    t.set_zoom(zoom if zoom is not None else settings.get("view/zoom"))
    t.apply_to_application()
    return MainWindow(panel=panel)
