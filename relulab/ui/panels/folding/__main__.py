"""``python -m relulab.ui.panels.folding``: the Folding panel alone, on demo data."""

import sys

from relulab.ui.panels.base import run_alone
from relulab.ui.panels.folding import FoldingPanel

sys.exit(run_alone(FoldingPanel))
