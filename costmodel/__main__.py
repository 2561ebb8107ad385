"""``python -m costmodel``: the same as the ``costmodel`` command."""

import sys

from .cli import main

sys.exit(main())
