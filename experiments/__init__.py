"""Reproduction experiments (scripts that print tables and write experiments/out/; not tests)."""
