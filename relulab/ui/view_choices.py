"""The view a user chooses, a colour theme and a zoom: the one home of their names
and range.

The command line (``relulab --theme``, ``relulab render --theme --zoom``), the settings
file (``view/theme``, ``view/zoom``) and the View menu offer the same themes and hold
the zoom to the same range. The command line reads them before Qt starts: ``relulab
--version`` and ``--help`` answer without importing Qt (1.1–1.4 s to import the theme
with Qt and pyqtgraph), so this module imports nothing. :mod:`relulab.ui.theme` gives
each theme its colours.
"""

#: The colour themes, in the View menu's order.
THEMES = ("light", "dark", "high-contrast")
#: The theme of a first launch, and of a settings file that names none of THEMES.
DEFAULT_THEME = "light"
#: The zoom of fonts, lines and handles, as a factor of their size at zoom 1: the theme
#: holds any zoom asked for to this range, and the settings file forgets one outside it.
ZOOM_MIN, ZOOM_MAX = 0.6, 3.0
