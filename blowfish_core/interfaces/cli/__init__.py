"""The command-line interface (``blowfish ...`` / ``python -m blowfish_core ...``): one module per
command (reach, synth, schema, presets, pilot) over parser, setting, reading and outputs; the entry
point is :func:`blowfish_core.interfaces.cli.main.main`."""
