"""One marginal's measurement, Gaussian or exact, with its typed ledger row (MST, bf-mst, bf-aim).

Used by MST's pipeline (:func:`.mst.fit_tree`) and by AIM's (:mod:`.aim`): each measurement is
given the marginal's :class:`.blowfish_sensitivity.MarginalSensitivity` (under standard DP a
global value, :class:`.mst.StandardPlan`; under a Blowfish policy the exact per-marginal value,
:class:`.blowfish_sensitivity.PolicyMarginals`, issue 25):

* sensitivity > 0: the Gaussian mechanism, y = h_S + N(0, sigma^2 I), zCDP rho = Delta^2 / (2 sigma^2)
  (Bun & Steinke 2016, Prop. 1.6); the noise comes from :class:`.common.FitRandomness` (numpy in a
  study run, OpenDP's Gaussian in a release);
* sensitivity 0 (no policy edge changes h_S): measured **exactly**, no noise, no budget, a ledger
  row with scale 0 and rho 0 that says :data:`.blowfish_sensitivity.RELEASED_EXACTLY`.  mbi's
  estimator needs a positive stddev for every measurement: an exact one gets ``exact_stddev``, an
  estimator weight only (no noise is drawn).

Both return an ``mbi.LinearMeasurement`` (identity query on the clique's marginal) and the
measured vector.  Extension point (soft marginals, issue 25): a measurement of another linear
statistic of h_S goes through :meth:`Measurer.measure_counts`'s contract -- the caller computes the
statistic and its sensitivity, the measurer adds the noise and writes the ledger row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..privacy.accounting import gaussian_sigma
from ._mbi import mbi_clique
from .blowfish_sensitivity import RELEASED_EXACTLY, MarginalSensitivity
from .common import FitRandomness, counts
from .ledger import LedgerRow


class Measurer:
    """Gaussian (or exact) measurements of count marginals, appending one ledger row each.

    Parameters
    ----------
    mbi : module
        The ``mbi`` module (:func:`._mbi.require_mbi`).
    names : sequence of str
        Attribute names (p,), for the ledger rows' cliques.
    draws : FitRandomness
        The fit's randomness (noise: :meth:`.common.FitRandomness.gaussian`).
    ledger : list of LedgerRow
        Appended to, in measurement order (``round`` = its index).
    exact_stddev : float, default 0.0
        mbi's stddev for an exact measurement (count units, > 0 when any can be exact): a weight
        for the estimator, not noise.
    """

    def __init__(self, mbi: Any, names, draws: FitRandomness, ledger: list[LedgerRow], exact_stddev: float = 0.0):
        self.mbi, self.names, self.draws, self.ledger = mbi, names, draws, ledger
        self.exact_stddev = exact_stddev

    def measure(self, codes: np.ndarray, sizes, cols: tuple[int, ...], rho_i: float, step: str,
                sens: MarginalSensitivity):
        """Measure the count marginal over ``cols`` at zCDP ``rho_i`` (exact when ``sens.exact``).

        Parameters
        ----------
        codes : (n, p) int ndarray
            The records' cell codes.
        sizes : tuple of int
            Cells per attribute (p,).
        cols : tuple of int
            The clique (column indices).
        rho_i : float
            The measurement's zCDP budget (> 0; ignored, and may be 0, for an exact one):
            sigma = sens.sensitivity / sqrt(2 rho_i).
        step : str
            The algorithm step, for the ledger row ("measure-1way", "measure-2way", "measure").
        sens : MarginalSensitivity
            The marginal's l2 sensitivity (count units) and how it was obtained (``how``).

        Returns
        -------
        (mbi.LinearMeasurement, (prod sizes[cols],) float64 ndarray)
            The measurement for the estimator and the measured vector (noisy, or the exact counts).
        """
        x = counts(codes, sizes, cols)
        sigma = 0.0 if sens.exact else gaussian_sigma(sens.sensitivity, rho_i)
        return self.measure_counts(x, cols, sigma, step, sens, sizes)

    def measure_counts(self, x: np.ndarray, cols: tuple[int, ...], sigma: float, step: str,
                       sens: MarginalSensitivity, sizes=None):
        """Measure the given true marginal ``x`` at noise stddev ``sigma`` (the core of :meth:`measure`).

        Parameters
        ----------
        x : (m,) float64 ndarray
            The true count marginal over ``cols`` (count units).
        cols : tuple of int
            The clique (column indices).
        sigma : float
            Noise stddev (count units, > 0); ignored for an exact measurement (``sens.exact``).
        step : str
            The algorithm step, for the ledger row.
        sens : MarginalSensitivity
            As :meth:`measure`; the ledger row's rho is sens.sensitivity^2 / (2 sigma^2).  One with a
            ``kernel`` (soft_marginals.SoftMarginalSensitivity: bf-soft-mst) is measured as K_S h_S + noise
            and handed to mbi with the kernel's query, so the estimate fits h_S.
        sizes : tuple of int, optional
            Cells per attribute (p,); needed for a soft marginal (ValueError without it).

        Returns
        -------
        (mbi.LinearMeasurement, (m,) float64 ndarray)
            As :meth:`measure`.
        """
        clique = tuple(self.names[c] for c in cols)
        if sens.exact:
            row = LedgerRow(len(self.ledger), step, "gaussian", clique, 0.0, 0.0, 0.0, candidates=int(x.size),
                            how=f"{sens.how}; {RELEASED_EXACTLY} (no noise; the estimator weighs it with "
                                f"stddev {self.exact_stddev:.3g}, a weight, not noise)")
            self.ledger.append(row)
            return self.mbi.LinearMeasurement(x, mbi_clique(cols), stddev=self.exact_stddev), x
        s = sens.sensitivity
        kernel = getattr(sens, "kernel", None)  # a soft marginal (soft_marginals): measure K_S h_S, fit h_S
        if kernel is not None and sizes is None:
            raise ValueError("a soft marginal's measurement needs the clique's sizes")
        y = self.draws.gaussian(x if kernel is None else kernel.apply(x, tuple(sizes[c] for c in cols)), sigma)
        self.ledger.append(LedgerRow(len(self.ledger), step, "gaussian", clique, s, sigma,
                                     s ** 2 / (2.0 * sigma ** 2), candidates=int(x.size), how=sens.how))
        query = {} if kernel is None else {"query": kernel.query(mbi_clique(cols))}
        return self.mbi.LinearMeasurement(y, mbi_clique(cols), stddev=sigma, **query), y

    def measure_step(self, codes: np.ndarray, sizes, cliques: Sequence[tuple[int, ...]], rho_step: float, step: str,
                     plan: Any) -> list:
        """Measure ``cliques`` in one step: ``rho_step`` split evenly over the noisy ones.

        Parameters
        ----------
        codes, sizes
            As :meth:`measure`.
        cliques : list of tuple of int
            The cliques to measure, in order.
        rho_step : float
            The step's zCDP budget, split evenly over the cliques of positive sensitivity under
            ``plan``; the exact ones spend nothing.
        step : str
            As :meth:`measure`.
        plan : StandardPlan or PolicyMarginals
            ``plan.marginal(clique)`` -> MarginalSensitivity.

        Returns
        -------
        list of (mbi.LinearMeasurement, ndarray)
            One per clique, in order (as :meth:`measure`).
        """
        sens = [plan.marginal(c) for c in cliques]
        k = sum(not m.exact for m in sens)
        return [self.measure(codes, sizes, c, rho_step / k if k else 0.0, step, m) for c, m in zip(cliques, sens)]
