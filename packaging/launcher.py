"""Entry point of the frozen desktop app (PyInstaller starts a script, not an entry point).

It runs the same ``relulab.app.main`` as the ``relulab`` command of a pip install.
"""

import multiprocessing
import os
import sys

# A windowed Windows build starts with no console: sys.stdout and sys.stderr are
# None there, and the first print or log line would raise. Send them nowhere.
for _name in ("stdout", "stderr"):
    if getattr(sys, _name) is None:
        setattr(sys, _name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - kept open for the life of the app

if __name__ == "__main__":
    # a child the app spawned (relulab.model.core.platform.process_context) starts this
    # executable again, with --multiprocessing-fork: it runs its job here and exits
    multiprocessing.freeze_support()

if __name__ == "__main__" and os.environ.get("RELULAB_COMPILE_TARGET"):
    # the app started as its own compiler: fill numba's disk cache and exit (see
    # relulab.model.core._compile_apart); nothing of the window is imported
    from relulab.model.core._compile_apart import TARGET_VARIABLE
    from relulab.model.core._compile_apart import main as compile_main

    sys.exit(compile_main(os.environ.pop(TARGET_VARIABLE)))

if __name__ == "__main__" and os.environ.get("RELULAB_RUN_COMMAND"):
    # the app started as one of its commands (relulab.model.core.platform.command_line:
    # the window writes a handout with ``lecture export`` in a child): the variable names
    # the command, the arguments are its own
    from relulab.app import main as run_command
    from relulab.model.core.platform import RUN_COMMAND_VARIABLE

    sys.exit(run_command([os.environ.pop(RUN_COMMAND_VARIABLE), *sys.argv[1:]]))

from relulab.app import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
