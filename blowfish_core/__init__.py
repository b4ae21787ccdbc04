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
    pubmix_pld, pubmix_sample                the release's PLD and its sampler
    em_probabilities, selection_delta        exponential selection and its calibrations (papers/001)
    score_sensitivity, select_private        private choice of tau by the exponential mechanism
"""

__version__ = "0.1.0"

from .errors import BlowfishError, BudgetError, DataError, PolicyError, SchemaError  # noqa: E402
from .schema import Attribute, Schema, infer_schema  # noqa: E402
from .policy import (  # noqa: E402
    AttributePolicy, Policy, attribute_reach, components, path_length, record_reach, weighted_reaches,
)
from .methods import METHODS, Method, get_method  # noqa: E402
from .sensitivity import SQRT2, calibrate, hard_sensitivity, noise_ratio, soft_bound  # noqa: E402
from .mechanisms import MECHANISMS  # noqa: E402
from .ledger import LedgerRow, privacy_totals  # noqa: E402
from .evolution import RunStopped, SynthConfig, run_synthesis  # noqa: E402
from .experiment import PairedResult, RunRequest, RunResult, run_paired  # noqa: E402
from .presets import get_preset, load_preset_data  # noqa: E402
from .analysis.exact import exact_sensitivity, population_aware_bound, tightness_construction  # noqa: E402
from .analysis.readouts import pair_path, policy_readout  # noqa: E402
from .pilot import recommend, run_pilot  # noqa: E402
from .sweeps import budget_sweep  # noqa: E402
from .analysis.audit import audit  # noqa: E402
from .synthesizer import Synthesizer  # noqa: E402
from .pubmix import (  # noqa: E402
    beta_min, choose_noise, gamma_from_folds, linmix_noise, mifr, pubmix_delta, pubmix_pld, pubmix_sample,
    water_fill,
)

__all__ = [
    "BlowfishError", "BudgetError", "DataError", "PolicyError", "SchemaError",
    "Attribute", "Schema", "infer_schema",
    "AttributePolicy", "Policy", "attribute_reach", "components", "path_length", "record_reach", "weighted_reaches",
    "METHODS", "Method", "get_method", "MECHANISMS", "LedgerRow", "privacy_totals", "Synthesizer", "SQRT2", "calibrate", "hard_sensitivity", "noise_ratio", "soft_bound",
    "RunStopped", "SynthConfig", "run_synthesis", "RunRequest", "run_paired", "PairedResult", "RunResult", "get_preset", "load_preset_data",
    "exact_sensitivity", "population_aware_bound", "tightness_construction", "pair_path", "policy_readout",
    "recommend", "run_pilot", "budget_sweep", "audit",
    "beta_min", "choose_noise", "gamma_from_folds", "linmix_noise", "mifr", "pubmix_delta", "pubmix_pld",
    "pubmix_sample", "water_fill",
]

# exponential selection (papers/001; issue 14)
from .selection import (  # noqa: E402
    CALIBRATIONS, NOT_PRIVATE, em_probabilities, error_regret_bound, error_scores, hockey_stick, make_calibration,
    private_choice_plan, regret_bound, score_sensitivity, select_private, selection_delta, selection_epsilon,
    selection_rho,
)
from .analysis.selection_audit import (  # noqa: E402
    audit_selection, construction_multiplicity, construction_path, construction_table, run_selection_audit,
)

__all__ += [
    "CALIBRATIONS", "NOT_PRIVATE", "em_probabilities", "error_regret_bound", "error_scores", "hockey_stick",
    "make_calibration", "private_choice_plan", "regret_bound", "score_sensitivity", "select_private",
    "selection_delta", "selection_epsilon", "selection_rho",
    "audit_selection", "construction_multiplicity", "construction_path", "construction_table", "run_selection_audit",
]

# private choice of tau or Hard on the private table (issue 14, phase 2)
from .private_pilot import PrivateChoiceResult, PrivatePilotPlan, choose_tau_private, private_pilot_plan  # noqa: E402

__all__ += ["PrivateChoiceResult", "PrivatePilotPlan", "choose_tau_private", "private_pilot_plan"]
