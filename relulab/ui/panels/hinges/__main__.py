"""``python -m relulab.ui.panels.hinges``: the Hinges panel alone, on demo data."""

import sys

from relulab.ui.panels.base import run_alone
from relulab.ui.panels.hinges import HingesPanel

sys.exit(run_alone(HingesPanel))
