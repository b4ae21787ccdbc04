"""Layer 0 (bottom): error types, lazy imports, scalar input checks; imports nothing else of blowfish_core."""
