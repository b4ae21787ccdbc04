"""``python -m blowfish_core ...``: see blowfish_core.interfaces.cli.main."""

import sys

from .interfaces.cli.main import main

sys.exit(main())
