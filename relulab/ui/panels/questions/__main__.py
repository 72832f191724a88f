"""``python -m relulab.ui.panels.questions``: the Questions panel alone."""

import sys

from relulab.ui.panels.base import run_alone
from relulab.ui.panels.questions import QuestionsPanel

sys.exit(run_alone(QuestionsPanel))
