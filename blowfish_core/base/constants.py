"""Constants shared by every layer (issue 22: one ``DEFAULT_DELTA``).

``DEFAULT_DELTA`` is the DP delta of (epsilon, delta) statements by default: the delta an
epsilon budget is read at, and the delta a zCDP rho is shown at, when the user gives none.
papers/000 uses this value.  Every function default, fallback and widget default that means
"the default delta" reads this name; the literal is written here only.
"""

from __future__ import annotations

#: the default DP delta of (epsilon, delta) statements.
DEFAULT_DELTA = 1e-5  # papers/000's delta
#: how messages and --help write it (as the papers do: "1e-5", not Python's "1e-05").
DEFAULT_DELTA_TEXT = "1e-5"
