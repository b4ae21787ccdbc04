"""The report's budget sentence names the mechanism(s) in the ledger, by their declared label
(issue 22): not every mechanism of the table that shares its accountant."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from blowfish_core.privacy.mechanisms import MECHANISMS, Laplace, get_mechanism
from blowfish_core.synthesis.report import _budget_text, _ledger_mechanisms, ledger_text


@dataclass(frozen=True)
class _Twin(Laplace):
    """A second pure-DP mechanism with the Laplace accountant ('pure-sum')."""

    name: str = "twin-laplace"
    label: ClassVar[str] = "Twin Laplace"


@pytest.fixture
def twin(monkeypatch):
    monkeypatch.setitem(MECHANISMS, _Twin.name, _Twin())
    return MECHANISMS[_Twin.name]


def _pure(name: str) -> dict:
    m = get_mechanism(name)
    rows = [m.row(t, 4, _cal(), m.scale(1.0, e), e) for t, e in enumerate(m.split(1.0, 2), 1)]
    return {"privacy": m.totals(rows, 1e-5, 1.0), "mechanism": name}


def _cal():
    from blowfish_core.model.sensitivity import Calibration

    return Calibration(1.0, "global")


def _sentence(report: dict) -> str:
    p = report["privacy"]
    return _budget_text(p, p["accountant"], _ledger_mechanisms(report))[0]


def test_the_ledger_mechanism_is_named_not_the_accountant_siblings(twin):
    text = _sentence(_pure("laplace"))
    assert text == "epsilon = 1 pure DP over 2 rounds (Laplace mechanism, epsilon_t = 0.5 per round)", text
    text = _sentence(_pure(twin.name))
    assert text == "epsilon = 1 pure DP over 2 rounds (Twin Laplace mechanism, epsilon_t = 0.5 per round)", text


def test_the_planned_report_names_its_mechanism(twin):
    from blowfish_core.interfaces.run_bundle import RunSettings, planned_report
    from blowfish_core.io.presets import xor

    p = xor(3)
    s = RunSettings(p.schema, p.default_policy(), methods=["hard"], seeds=[0], epsilon=1.0,
                    mechanism="laplace", preset="xor3")
    rep = planned_report(s)
    assert rep["mechanism"] == "laplace"
    assert "(Laplace mechanism," in ledger_text(rep) and "Twin" not in ledger_text(rep)


def test_sampling_ledgers_use_the_labels():
    p = {"epsilon": 1.0, "delta": 1e-5, "rounds": 2, "beta_per_round": [0.5, 0.6], "note": "n",
         "epsilon_exact_applicable": False, "mechanisms": ["linmix"], "accountant": "pld"}
    budget, _ = _budget_text(p, "pld", _ledger_mechanisms({"privacy": p}))
    assert "over 2 LinMix rounds" in budget, budget
