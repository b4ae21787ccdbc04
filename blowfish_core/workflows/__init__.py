"""Layer 6: workflows built on paired runs -- pilots, sweeps, accuracy-first budgets, the
public-aware sampler, verdicts and the epsilon-first budget view."""
