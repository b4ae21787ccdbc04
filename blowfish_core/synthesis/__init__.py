"""Layer 5: paired runs of the method table -- the run spec (RunSpec), run_paired, the reports,
the release gate and the synthesis release, and the front ends' shared parsers."""
