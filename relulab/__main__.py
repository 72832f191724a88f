"""``python -m relulab``: the same as the ``relulab`` command."""

import sys

from relulab.app import main

sys.exit(main())
