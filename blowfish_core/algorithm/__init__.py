"""Layer 3: Algorithm 1 (papers/000) -- the method table, the evolution loop with its random
streams, and the Dask scale-out of the vote step."""
