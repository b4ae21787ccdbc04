"""Analysis tools apart from the synthesis pipeline (teaching and checking).

exact     exact per-population sensitivity, population-aware bound, Prop. 5.6 (§6.2.6)
audit     empirical privacy audit of one release round (Jagielski et al. 2020 style)
readouts  every Policy Designer number in one pure call (reach, q, warnings, paths)
graphs    layout data of one attribute's policy graph (positions, not pictures)

All four are built on :mod:`blowfish_core.model.edges` (the record-level edge enumerator)
and :mod:`blowfish_core.model.distance` (Gower); none reads private records (DESIGN §7).
"""
