"""Layer 0 (bottom): error types, lazy imports, scalar input checks, math-only scalar numerics (numerics.py);
imports nothing else of blowfish_core."""
