"""blowfish_core: policy-aware differentially private data synthesis (the engine).

Pure Python + numpy/pandas/scipy/networkx; never imports streamlit.  Source:
"Soft Voting for Policy-Aware Private Data Synthesis" (papers/000), Algorithm 1.

The top level is what a user of the Synthesizer, the CLI's functions and the read-outs needs
(issue 22 "Public API"; docs/DECISIONS.md):
    Synthesizer                              scikit-learn-style API: fit(df).sample(n), ledger_, privacy_
    Schema, Attribute, infer_schema          public domain and encoding
    Policy, AttributePolicy                  per-attribute policy graphs
    BlowfishError and its subclasses         BudgetError, DataError, NotFittedError, PolicyError,
                                             SchemaError, RunStopped
    run_synthesis, SynthConfig               Algorithm 1 with ResampleMutate
    run_paired, RunRequest, PairedResult,    paired multi-method runs (typed); report.build_report -> JSON
    RunResult
    LedgerRow, privacy_totals                the ledger's rows and their totals
    get_preset, load_preset_data             adult, bank, xor3 (xorK)
    record_reach, weighted_reaches           reach (Cor. 5.2)
    noise_ratio, soft_bound                  q and the BF-Soft bound (Cor. 5.5)
    policy_readout, pair_path                every Policy Designer number in one call; group privacy
    run_pilot, recommend                     public-data pilot for tau (§6.2.4, Eq. (4))
    budget_sweep                             error vs rho and the crossing budget (App. F.3)
    release_tau_choice, choose_tau_private,  private choice of tau or Hard on the private table
    private_pilot_plan, PrivateChoiceResult, (pilot --private; papers/001)
    PrivatePilotPlan

Research tools and extension protocols live in their subpackages, each with its own names:
    blowfish_core.algorithm.methods          METHODS, Method, get_method, calibrate (Cor. 5.3)
    blowfish_core.privacy.mechanisms         MECHANISMS, Mechanism, get_mechanism, select_release
    blowfish_core.model.sensitivity          hard_sensitivity, SQRT2 (and noise_ratio, soft_bound)
    blowfish_core.model.policy               attribute_reach, components, path_length
    blowfish_core.model.votes                VOTES, HardVote, SoftVote;  model.calibration: Calibrator
    blowfish_core.model.domain               the attribute types (ATTRIBUTE_TYPES, KINDS)
    blowfish_core.analysis.exact             exact_sensitivity, population_aware_bound (Lemma 5.1, §6.2.6)
    blowfish_core.analysis.audit             audit: empirical privacy audit of one round
    blowfish_core.analysis.selection_audit   audit_selection and the selection constructions
    blowfish_core.privacy.pubmix             PubMix / LinMix (papers/003): beta_min (Thm 4.1), water_fill,
                                             mifr, choose_noise, gamma_from_folds, linmix_noise,
                                             pubmix_pld, pubmix_sample, exact_mixture_sample
    blowfish_core.privacy.selection          exponential selection (papers/001): em_probabilities,
                                             selection_delta, score_sensitivity, select_private
The names that were top-level before 0.3 still resolve there with a DeprecationWarning naming
their new home (:data:`_MOVED`); they go in 0.4.
"""

__version__ = "0.2.0"

# Lazy public API (PEP 562; issue 15): ``import blowfish_core`` costs almost nothing and
# ``bc.Synthesizer`` imports blowfish_core.interfaces.synthesizer on first use, so
# ``python -m blowfish_core --help`` does not pay for pandas/scipy.  One row per module:
# the public names it provides.  ``from blowfish_core import X`` works as before.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "base.errors": ("BlowfishError", "BudgetError", "DataError", "NotFittedError", "PolicyError", "SchemaError"),
    "model.schema": ("Attribute", "Schema", "infer_schema"),
    "model.policy": ("AttributePolicy", "Policy", "record_reach", "weighted_reaches"),
    "model.sensitivity": ("noise_ratio", "soft_bound"),
    "privacy.ledger": ("LedgerRow",),
    "privacy.totals": ("privacy_totals",),
    "algorithm.evolution": ("RunStopped", "SynthConfig", "run_synthesis"),
    "synthesis.spec": ("RunRequest",),
    "synthesis.experiment": ("PairedResult", "RunResult", "run_paired"),
    "io.presets": ("get_preset", "load_preset_data"),
    "analysis.readouts": ("pair_path", "policy_readout"),
    "workflows.pilot": ("recommend", "run_pilot"),
    "workflows.sweeps": ("budget_sweep",),
    "interfaces.synthesizer": ("Synthesizer",),
    # private choice of tau or Hard on the private table (issue 14; pilot --private)
    "workflows.private_pilot": ("PrivateChoiceResult", "PrivatePilotPlan", "choose_tau_private", "private_pilot_plan",
                                "release_tau_choice"),
}
_WHERE = {name: mod for mod, names in _EXPORTS.items() for name in names}

__all__ = [name for names in _EXPORTS.values() for name in names]

# Top-level names before 0.3 that moved to their subpackages (issue 22 "Public API"): new home ->
# names.  ``bc.X`` / ``from blowfish_core import X`` still work, with a DeprecationWarning, until 0.4.
_MOVED: dict[str, tuple[str, ...]] = {
    "model.policy": ("attribute_reach", "components", "path_length"),
    "model.sensitivity": ("SQRT2", "hard_sensitivity"),
    "algorithm.methods": ("METHODS", "Method", "calibrate", "get_method"),
    "privacy.mechanisms": ("MECHANISMS", "select_release"),
    "analysis.exact": ("exact_sensitivity", "population_aware_bound", "tightness_construction"),
    "analysis.audit": ("audit",),
    "privacy.pubmix": ("beta_min", "choose_noise", "exact_mixture_sample", "gamma_from_folds", "linmix_noise", "mifr",
                       "pubmix_delta", "pubmix_pld", "pubmix_sample", "water_fill"),
    "privacy.selection": ("CALIBRATIONS", "NOT_PRIVATE", "em_probabilities", "error_regret_bound", "error_scores",
                          "hockey_stick", "make_calibration", "private_choice_plan", "regret_bound",
                          "score_sensitivity", "select_private", "selection_delta", "selection_epsilon",
                          "selection_rho"),
    "analysis.selection_audit": ("audit_selection", "construction_multiplicity", "construction_path",
                                 "construction_table", "run_selection_audit"),
}
_MOVED_WHERE = {name: mod for mod, names in _MOVED.items() for name in names}
#: the release in which the deprecated top-level names are removed.
_REMOVED_IN = "0.4"


def __getattr__(name: str):
    """Import the submodule that provides ``name`` on first use (PEP 562).

    A name of :data:`__all__` is imported from its module and cached.  A name that moved to a
    subpackage (:data:`_MOVED`) is returned with a DeprecationWarning naming its new home, on every
    access (not cached).  Any other name is tried as a subpackage (``blowfish_core.model``).

    Parameters
    ----------
    name : str
        The attribute asked for.

    Returns
    -------
    object
        The public object, the moved object or the subpackage.

    Raises
    ------
    AttributeError
        If ``name`` is none of these.
    """
    import importlib

    mod = _WHERE.get(name)
    if mod is None:
        moved = _MOVED_WHERE.get(name)
        if moved is not None:
            import warnings

            warnings.warn(f"{__name__}.{name} moved to {__name__}.{moved}.{name}; the top-level name goes in "
                          f"{_REMOVED_IN}", DeprecationWarning, stacklevel=2)
            return getattr(importlib.import_module(f"{__name__}.{moved}"), name)
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
