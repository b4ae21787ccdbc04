"""Error types of blowfish_core. Every message names the field and the fix.

Structured errors (issue 21): a message may be a :class:`~blowfish_core.base.fields.Text` naming
fields by placeholder; ``str(err)`` is then the API wording and ``err.render('cli')`` /
``err.render('app')`` the command line's / the app's (names from ``fields.FIELDS`` and
``fields.PHRASES``).  Raise one with :meth:`BlowfishError.of`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from .fields import Text


_E = TypeVar("_E", bound="BlowfishError")


class BlowfishError(ValueError):
    """Base class: bad input that the user can fix.

    field: the spec field at fault (a ``fields.FIELDS`` key) or None; fix: the fix's template
    (placeholders as in ``fields``) or None; text: the message as a Text (None for a plain one).
    """

    field: str | None = None
    fix: str | None = None
    text: Text | None = None

    def __init__(self, *args: Any, field: str | None = None, fix: str | None = None):
        super().__init__(*args)
        if args and isinstance(args[0], Text):
            self.text = args[0]
        if field is not None:
            self.field = field
        if fix is not None:
            self.fix = fix

    @classmethod
    def of(cls: type[_E], problem: str, fix: str | None = None, field: str | None = None, **values: Any) -> _E:
        """An error whose message is ``problem`` + '. Fix: ' + ``fix``.

        Templates take {field} and {phrase} placeholders rendered per front end and {value} from
        ``values``; user data goes only in ``values``.  E.g. ``DataError.of("{label}: the file looks
        {sep_word}-separated", "{sep_choice} or save it comma-separated", field="sep", label=...,
        sep_word=..., sep_shown=...)``.

        Parameters
        ----------
        problem : str
            Template of the problem.
        fix : str or None
            Template of the fix (". Fix: " is added before it); None for no fix.
        field : str or None
            The spec field at fault (a ``fields.FIELDS`` key), or None.
        **values : Any
            The message's values (user data, never parsed as a template).

        Returns
        -------
        BlowfishError
            An instance of ``cls`` whose message is a :class:`~blowfish_core.base.fields.Text`.

        Raises
        ------
        KeyError
            For an unknown placeholder (raised while the Text is built).
        """
        template = problem if fix is None else f"{problem}. Fix: {fix}"
        return cls(Text(template, **values), field=field, fix=fix)

    def render(self, frontend: str = "api") -> str:
        """The message in ``frontend``'s names; a plain message as it is.

        Parameters
        ----------
        frontend : str
            'cli', 'api' or 'app'.

        Returns
        -------
        str
            The rendered message.
        """
        return self.text.render(frontend) if self.text is not None else str(self)


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
