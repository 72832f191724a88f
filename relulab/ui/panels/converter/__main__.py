"""``python -m relulab.ui.panels.converter``: the Deep → shallow panel alone, on its
first network (a random 2-8-8-1)."""

import sys

from relulab.ui.panels.base import run_alone
from relulab.ui.panels.converter import ConverterPanel

sys.exit(run_alone(ConverterPanel))
