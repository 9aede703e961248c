"""``python -m refacct``: the command line (``refacct.cli``)."""
import sys

from .cli import main

sys.exit(main())
