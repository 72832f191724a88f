"""``python -m relulab.ui.panels.training``: the Training panel alone, on demo data."""

import sys

from relulab.ui.panels.base import run_alone
from relulab.ui.panels.training import TrainingPanel

sys.exit(run_alone(TrainingPanel))
