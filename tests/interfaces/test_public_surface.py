"""The top-level public surface (issue 22 "Public API"; docs/DECISIONS.md).

``blowfish_core.__all__`` holds at most 40 names: what a user of the Synthesizer, the CLI's functions
and the read-outs needs.  Research tools and extension protocols live in their subpackages; the names
that moved still resolve at the top level for one release, with a DeprecationWarning naming the new
home.  This is the one test that reads the deprecated path.
"""

from __future__ import annotations

import importlib

import pytest

import blowfish_core as bc

MAX_TOP_LEVEL = 40


def test_top_level_has_at_most_40_names_and_each_resolves():
    assert len(bc.__all__) == len(set(bc.__all__)) <= MAX_TOP_LEVEL
    for name in bc.__all__:
        assert getattr(bc, name) is not None, name
    assert set(bc.__all__) <= set(dir(bc))


def test_moved_and_public_names_do_not_overlap():
    assert not set(bc._MOVED_WHERE) & set(bc.__all__)


@pytest.mark.parametrize("name", sorted(bc._MOVED_WHERE))
def test_a_moved_name_resolves_with_a_deprecation_warning(name):
    home = f"blowfish_core.{bc._MOVED_WHERE[name]}"
    with pytest.warns(DeprecationWarning, match=rf"blowfish_core\.{name} moved to {home}\.{name}; .* 0\.4"):
        value = getattr(bc, name)
    assert value is getattr(importlib.import_module(home), name)


def test_from_import_of_a_moved_name_still_works():
    with pytest.warns(DeprecationWarning, match="blowfish_core.privacy.mechanisms.MECHANISMS"):
        from blowfish_core import MECHANISMS
    from blowfish_core.privacy.mechanisms import MECHANISMS as home

    assert MECHANISMS is home


def test_public_names_do_not_warn(recwarn):
    for name in bc.__all__:
        getattr(bc, name)
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning) and "moved to" in str(w.message)]


@pytest.mark.parametrize("module,names", [
    ("blowfish_core.privacy.mechanisms", ("Mechanism", "MECHANISMS", "get_mechanism", "Gaussian", "Laplace")),
    ("blowfish_core.algorithm.methods", ("Method", "METHODS", "get_method", "calibrate")),
    ("blowfish_core.model.votes", ("VOTES", "HardVote", "SoftVote", "Vote")),
    ("blowfish_core.model.calibration", ("Calibrator",)),
    ("blowfish_core.model.domain", ("ATTRIBUTE_TYPES", "KINDS", "NumericAttribute", "attribute_type")),
    ("blowfish_core.privacy.selection", ("ScaleRule", "SCALE_RULES", "make_scale_rule", "em_probabilities", "select_private")),
    ("blowfish_core.privacy.pubmix", ("beta_min", "water_fill", "choose_noise", "pubmix_pld")),
    ("blowfish_core.analysis.exact", ("exact_sensitivity", "population_aware_bound")),
    ("blowfish_core.analysis.audit", ("audit",)),
])
def test_extension_protocols_and_research_tools_import_from_their_subpackages(module, names):
    mod = importlib.import_module(module)
    for name in names:
        assert getattr(mod, name) is not None, f"{module}.{name}"
        if hasattr(mod, "__all__"):
            assert name in mod.__all__, f"{name} not in {module}.__all__"
