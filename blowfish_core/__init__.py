"""blowfish_core: policy-aware differentially private data synthesis (the engine).

Pure Python + numpy/pandas/scipy/networkx; never imports streamlit.  Source:
"Soft Voting for Policy-Aware Private Data Synthesis" (papers/000), Algorithm 1.

Main entry points:
    Schema, Attribute, infer_schema          public domain and encoding
    Policy, AttributePolicy                  per-attribute policy graphs
    weighted_reaches, record_reach           reach (Cor. 5.2)
    noise_ratio, soft_bound                  q and the BF-Soft bound (Cor. 5.5)
    hard_sensitivity, calibrate              per-round calibration (Cor. 5.3)
    run_synthesis, SynthConfig               Algorithm 1 with ResampleMutate
    run_paired, RunRequest, PairedResult     paired multi-method runs (typed); report.build_report -> JSON
    Synthesizer                              scikit-learn-style API: fit(df).sample(n), ledger_, privacy_
    METHODS, MECHANISMS                      the method table and the mechanism registry
    get_preset                               adult, bank, xor3 (xorK)
    exact_sensitivity, population_aware_bound exact per-population sensitivity (Lemma 5.1, §6.2.6)
    policy_readout                           every Policy Designer number in one call
    run_pilot, recommend                     public-data pilot for tau (§6.2.4, Eq. (4))
    budget_sweep                             error vs rho and the crossing budget (App. F.3)
    audit                                    empirical privacy audit of one round
    beta_min, water_fill, mifr, choose_noise PubMix / LinMix (papers/003): mixing weight (Thm 4.1),
    gamma_from_folds, linmix_noise,          floor raising (Defs 4.3-4.4), Remark 4.5, gamma (§5),
    pubmix_pld, pubmix_sample                the release's PLD and its (seeded, study) sampler
    exact_mixture_sample                     the exact release sampler (integer arithmetic, OS CSPRNG)
    em_probabilities, selection_delta        exponential selection and its scale rules (papers/001)
    score_sensitivity, select_private        private choice of tau by the exponential mechanism
"""

__version__ = "0.2.0"

# Lazy public API (PEP 562; issue 15): ``import blowfish_core`` costs almost nothing and
# ``bc.Synthesizer`` imports blowfish_core.interfaces.synthesizer on first use, so
# ``python -m blowfish_core --help`` does not pay for pandas/scipy.  One row per module:
# the public names it provides.  ``from blowfish_core import X`` works as before.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "base.errors": ("BlowfishError", "BudgetError", "DataError", "NotFittedError", "PolicyError", "SchemaError"),
    "model.schema": ("Attribute", "Schema", "infer_schema"),
    "model.policy": ("AttributePolicy", "Policy", "attribute_reach", "components", "path_length", "record_reach",
               "weighted_reaches"),
    "algorithm.methods": ("METHODS", "Method", "calibrate", "get_method"),
    "model.sensitivity": ("SQRT2", "hard_sensitivity", "noise_ratio", "soft_bound"),
    "privacy.mechanisms": ("MECHANISMS", "select_release"),
    "privacy.ledger": ("LedgerRow",),
    "privacy.totals": ("privacy_totals",),
    "algorithm.evolution": ("RunStopped", "SynthConfig", "run_synthesis"),
    "synthesis.spec": ("RunRequest",),
    "synthesis.experiment": ("PairedResult", "RunResult", "run_paired"),
    "io.presets": ("get_preset", "load_preset_data"),
    "analysis.exact": ("exact_sensitivity", "population_aware_bound", "tightness_construction"),
    "analysis.readouts": ("pair_path", "policy_readout"),
    "workflows.pilot": ("recommend", "run_pilot"),
    "workflows.sweeps": ("budget_sweep",),
    "analysis.audit": ("audit",),
    "interfaces.synthesizer": ("Synthesizer",),
    "privacy.pubmix": ("beta_min", "choose_noise", "exact_mixture_sample", "gamma_from_folds", "linmix_noise", "mifr",
               "pubmix_delta", "pubmix_pld", "pubmix_sample", "water_fill"),
    # exponential selection (papers/001; issue 14)
    "privacy.selection": ("SCALE_RULES", "NOT_PRIVATE", "em_probabilities", "error_regret_bound", "error_scores",
                  "hockey_stick", "make_scale_rule", "private_choice_plan", "regret_bound", "score_sensitivity",
                  "CALIBRATIONS", "make_calibration",  # deprecated aliases of SCALE_RULES / make_scale_rule
                  "select_private", "selection_delta", "selection_epsilon", "selection_rho"),
    "analysis.selection_audit": ("audit_selection", "construction_multiplicity", "construction_path",
                                 "construction_table", "run_selection_audit"),
    # private choice of tau or Hard on the private table (issue 14)
    "workflows.private_pilot": ("PrivateChoiceResult", "PrivatePilotPlan", "choose_tau_private", "private_pilot_plan",
                      "release_tau_choice"),
}
_WHERE = {name: mod for mod, names in _EXPORTS.items() for name in names}

__all__ = [name for names in _EXPORTS.values() for name in names]


def __getattr__(name: str):
    """Import the submodule that provides ``name`` on first use (PEP 562)."""
    import importlib

    mod = _WHERE.get(name)
    if mod is None:
        try:  # a subpackage, e.g. blowfish_core.model
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
