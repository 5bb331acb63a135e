"""``python -m solvers.sliding.pdb``: the command line of the pattern databases (``main``).

A module of its own, so that running it does not execute a module the package ``solvers.sliding``
has already imported."""

import sys

from solvers.sliding.pdb import main

sys.exit(main())
