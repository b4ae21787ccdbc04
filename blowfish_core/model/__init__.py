"""Layer 1: the data model and its mathematics -- domain, schema, policy graphs, edges, Gower distance,
votes, sensitivity and per-method calibrators, metrics.  No privacy accounting, no I/O."""
