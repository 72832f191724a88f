"""Entry point of the frozen desktop app (PyInstaller starts a script, not an entry point).

It runs the same ``relulab.app.main`` as the ``relulab`` command of a pip install.
"""

import os
import sys

# A windowed Windows build starts with no console: sys.stdout and sys.stderr are
# None there, and the first print or log line would raise. Send them nowhere.
for _name in ("stdout", "stderr"):
    if getattr(sys, _name) is None:
        setattr(sys, _name, open(os.devnull, "w", encoding="utf-8"))

from relulab.app import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
