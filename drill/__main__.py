"""``python -m drill``: the same as the ``drill`` command."""

import sys

from drill.cli import main

sys.exit(main())
