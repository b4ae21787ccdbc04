"""The command-line interface (``blowfish ...`` / ``python -m blowfish_core ...``); the code is in
:mod:`blowfish_core.interfaces.cli.main` (one module per command is issue 22 phase 2)."""
