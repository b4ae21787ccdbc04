"""Layer 7 (top): the front ends -- the CLI (cli/), the scikit-learn-style Synthesizer, run bundles."""
