"""ReLU Lab: see how ReLU networks approximate functions.

This package's top level imports nothing from Qt, so ``relulab.model`` and
``relulab.io`` can be used from a notebook or a script without a display.
"""

__version__ = "0.1.0"

#: Reverse-DNS application id shared by the desktop entry, the AppStream
#: metainfo, the icon names and ``QGuiApplication.setDesktopFileName``.
APP_ID = "io.github.relulab.ReLULab"
APP_NAME = "ReLU Lab"
ORGANIZATION = "ReLU Lab"
