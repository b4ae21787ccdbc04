"""``python -m blowfish_core ...``: see blowfish_core.cli."""

import sys

from .cli import main

sys.exit(main())
