"""The synthesis release (issue 21): a RunSpec without seeds through the one release gate.

:func:`release_synthesis` runs :func:`blowfish_core.synthesis.experiment.run_paired` inside
:func:`blowfish_core.synthesis.gate.publish`; :func:`claim_of` is a spec's Claim.  Split from
the gate (issue 22) because the gate is read by the reports, which run_paired builds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..algorithm.events import RoundEvent
from ..algorithm.methods import get_method
from . import gate
from .experiment import run_paired
from .gate import Claim, Part, Publication


def release_synthesis(spec: Any, progress: Callable[[RoundEvent], None] | None = None,
                      should_stop: Callable[[], bool] | None = None) -> Publication:
    """A synthesis release (CLI ``synth`` without seeds, the API with seed=None, the app's Release step).

    Every (method) run draws from the gate's OS entropy.

    Parameters
    ----------
    spec : RunSpec
        An unseeded, validated RunSpec.
    progress : callable, optional
        ``progress(event)`` after every round (run_paired).
    should_stop : callable, optional
        ``should_stop() -> bool``; True stops the run (RunStopped).

    Returns
    -------
    Publication
        The gate's Publication; ``publication.result`` is the PairedResult (its public report
        carries the gate's label and total).

    Raises
    ------
    GateError
        When the gate refuses the claim or a part (gate.publish); BlowfishError from the run.
    """
    claim = claim_of(spec)
    box: dict[str, Any] = {}

    def produce(entropy: Callable[[], Any]) -> list[Part]:
        res = run_paired(spec, progress=progress, should_stop=should_stop, streams_factory=entropy)
        box["result"] = res
        return [Part(f"{r.method}.csv", tuple(r.ledger), r.synth.noise_sampler or "", r.synth.randomness or "",
                     r.release) for r in res.runs]

    # looked up on the gate module (tests replace it there); the PairedResult is the Publication's result
    pub = gate.publish(claim, produce, result_of=lambda parts: box["result"])
    pub.result.attach_publication(pub)
    return pub


def claim_of(spec: Any) -> Claim:
    """The Claim of a synthesis RunSpec (methods, mechanism, schema, seeds, data-domain choice).

    Parameters
    ----------
    spec : RunSpec
        The run spec.

    Returns
    -------
    Claim
        'synthetic table' with the spec's methods, its mechanism plus the reference methods' release
        mechanisms, seeded flag, data-domain choice, unprotected rows and delta.
    """
    mechs = {spec.mechanism}
    meths = spec.checked.methods if getattr(spec, "validated", False) else [get_method(m) for m in spec.methods]
    for meth in meths:  # reference methods (MST, AIM): Gaussian measurements + exponential selections
        mechs.update(meth.release_mechanisms)
    return Claim("synthetic table", spec.schema, tuple(spec.methods), tuple(sorted(mechs)), (),
                 spec.seeds is not None, bool(getattr(spec, "allow_data_domain", False)),
                 int(getattr(spec, "unprotected_rows", 0) or 0), float(spec.delta), private_rows(spec))


def private_rows(spec: Any) -> int | None:
    """The rows of a spec's private table, for the gate's tiny-table rule (gate.TINY_TABLE_ROWS).

    Parameters
    ----------
    spec : RunSpec
        The run spec (its ``grouped`` table or its ``data``).

    Returns
    -------
    int or None
        A grouped table's count total, else the DataFrame's length; None when neither is known.
    """
    grouped = getattr(spec, "grouped", None)
    if grouped is not None:
        counts = grouped.counts if hasattr(grouped, "counts") else grouped[1]
        return int(round(float(sum(counts))))
    data = getattr(spec, "data", None)
    return None if data is None else len(data)
