"""``python -m relulab.ui.panels.playground``: the Playground alone, on demo data."""

import sys

from relulab.ui.panels.base import run_alone
from relulab.ui.panels.playground import PlaygroundPanel

sys.exit(run_alone(PlaygroundPanel))
