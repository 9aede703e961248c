"""``python -m refacct.validation [validate|cases] ...`` (see ``command``)."""
import sys

from .command import main

sys.exit(main())
