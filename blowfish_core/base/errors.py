"""Error types of blowfish_core. Every message names the field and the fix."""


class BlowfishError(ValueError):
    """Base class: bad input that the user can fix."""


class SchemaError(BlowfishError):
    """The schema or the data do not match the declared public domain."""


class PolicyError(BlowfishError):
    """A policy graph is malformed or names an unknown attribute/value."""


class BudgetError(BlowfishError):
    """A privacy parameter (rho, epsilon, delta, tau, ...) is out of range."""


class DataError(BlowfishError):
    """A data file cannot be read or is malformed."""


class NotFittedError(BlowfishError, AttributeError):
    """A fitted attribute (``ledger_``, ``privacy_``, ...) was read before ``fit`` (scikit-learn's
    NotFittedError: also an AttributeError, so ``hasattr`` stays False)."""
