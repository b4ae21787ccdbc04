"""How each front end names the fields of a run (issue 21: structured errors).

Engine messages never spell a front end's names.  They name fields and fixes by
placeholder, and each front end renders them:

* ``{rho}`` -- a field of :data:`FIELDS`: ``--rho`` (CLI), ``rho=`` (API), "the budget
  slider" (app);
* ``{drop_rows}`` -- a phrase of :data:`PHRASES`: a fix worded differently by each front end,
  itself a template over the message's values (``--drop-missing 'age'`` / ``drop_missing=['age']``);
* ``{col}`` -- a value given with the message (user data: never parsed as a template).

A :class:`Text` is such a message: a ``str`` whose value is the API rendering (so
``str(err)``, ``in`` and ``==`` behave as before) and whose :meth:`Text.render` gives the
CLI's or the app's.  ``BlowfishError(Text(...))`` keeps it (``err.render('cli')``).
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from typing import Any

#: the front ends, in the column order of FIELDS and PHRASES.
FRONTENDS = ("cli", "api", "app")

#: spec field -> (CLI flag, API argument, app control): how each front end names a field in a message.
FIELDS: dict[str, tuple[str, str, str]] = {
    "seeds": ("--seeds", "seed=", "the Seeds box"),
    "schema": ("--schema", "schema=", "the Data step's schema table"),
    "allow_data_domain": ("--allow-data-domain", "allow_data_domain=True",
                          "the 'release with a data-derived domain' checkbox"),
    "method": ("--method", "method=", "the Method choice"),
    "noise": ("--noise", "noise=", "the Noise choice"),
    "mechanism": ("--mechanism", "mechanism=", "the Mechanism choice"),
    "calibration": ("--calibration", "calibration=", "the Calibration choice"),
    "rho": ("--rho", "rho=", "the budget slider"),
    "epsilon": ("--epsilon", "epsilon=", "the budget slider"),
    "delta": ("--delta", "delta=", "the delta choice"),
    "tau": ("--tau", "tau=", "the tau slider"),
    # intake (the Data step / --data)
    "sep": ("--sep", "sep=", "the Separator box"),
    "no_header": ("--no-header", "no_header=True", "the 'No header row' checkbox"),
    "names": ("--names", "names=", "the 'Use these column names' button"),
    "drop_missing": ("--drop-missing", "drop_missing=", "the Missing values choice"),
    "missing_level": ("--missing-level", "missing_level=", "the Missing values choice"),
    "columns": ("--columns", "columns=", "the schema table's 'model' ticks"),
}

#: phrase -> (CLI, API, app) templates: a fix each front end words its own way.  Templates may
#: name the message's values ({col}), FIELDS ({sep}) and other phrases; a list value renders
#: joined by ', ' (``{names}``) or by ',' (``{names:,}``).  Where the app has no control of its
#: own for a fix, its column repeats the API wording (as the app has always shown it).
PHRASES: dict[str, tuple[str, str, str]] = {
    # where a field's own wording is kept and only its place is named ("--seeds: seeds must be ...")
    "seeds_at": ("--seeds: ", "", "the Seeds box: "),
    # the file looks semicolon-separated: sep_word 'semicolon', sep_shown "';'"
    "sep_choice": ("pass --sep {sep_shown}", "choose the {sep_word} separator", "choose the {sep_word} separator"),
    # a headerless file: name its columns (names: a list)
    "header_names": ("--no-header --names {names:,}", "no_header=True and names=[{names}]",
                     "no_header=True and names=[{names}]"),
    "confirm_offered": ("confirm with {header_names} (offered)", "confirm with {header_names} (offered)",
                        "press 'Use these column names' below (the offered names)"),
    # a wide headerless file: --no-header alone takes the offered names (count, first, last)
    "confirm_offered_count": ("confirm with {no_header_given} (it takes the {count} offered names, {first} .. {last})",
                              "confirm with {no_header_given} (it takes the {count} offered names, {first} .. {last})",
                              "press 'Use these column names' below (the {count} offered names, {first} .. {last})"),
    "no_header_given": ("--no-header", "no_header=True", "no_header=True"),
    "names_arg": ("--no-header --names a,b,...", "names=[...]", "names=[...]"),
    # missing cells of column col
    "drop_rows": ("--drop-missing '{col}'", "drop_missing=['{col}']", "drop_missing=['{col}']"),
    "drop_those_rows": ("drop those rows ({drop_rows})", "drop those rows ({drop_rows})",
                        "choose 'drop rows' for '{col}' under Missing values below"),
    "level_arg": ("--missing-level '{col}={level}'", "missing_level={{'{col}': '{level}'}}",
                  "missing_level={{'{col}': '{level}'}}"),
    "declare_level": ("declare a missing level ({level_arg})", "declare a missing level ({level_arg})",
                      "choose 'declared missing level' there"),
    # the fixes of missing cells, in the order of the rows they keep (io.intake.missing_fix; issue 27):
    # {where} is the app's place of the control ("for 'c' under Missing values below", then "there")
    "fix_level": ("treat missing as its own level ({level_arg})", "treat missing as its own level ({level_arg})",
                  "choose 'declared missing level' {where}"),
    "fix_leave_out": ("leave the column out ({columns_arg}, or remove it from the schema)",
                      "leave the column out ({columns_arg}, or remove it from the schema)",
                      "choose 'leave the column out' {where}"),
    "fix_leave_out_named": ("leave the column out (--columns {rest}, or remove it from the schema)",
                            "leave the column out (columns={rest_list!r}, or remove it from the schema)",
                            "choose 'leave the column out' {where}"),
    "fix_drop_rows": ("drop those rows ({drop_rows})", "drop those rows ({drop_rows})", "choose 'drop rows' {where}"),
    "missing_options": ("--drop-missing / --missing-level", "drop_missing / missing_level",
                        "drop_missing / missing_level"),
    # the release gate (release_gate.problems_of)
    "declare_domain": ("pass --schema FILE with bounds and levels from public knowledge (python -m blowfish_core "
                       "schema --data FILE --out FILE writes one to edit: replace a column's bounds, remove it from "
                       "\"data_derived_columns\", and set \"data_derived\": false when none is left; "
                       "docs/FORMATS.md)",
                       "pass a schema whose bounds and levels come from public knowledge (Schema.from_dict with "
                       "data_derived false)",
                       "type public bounds or levels in the Data step's schema table, or tick 'declared public'"),
    "allow_domain_anyway": ("pass --allow-data-domain to release anyway, labelled not differentially private",
                            "pass allow_data_domain=True to release anyway, labelled not differentially private",
                            "tick 'Release with a domain read from the private data' to release anyway, labelled "
                            "not differentially private"),
    # which columns are modelled
    "columns_arg": ("--columns a,b,...", "columns=[...]", "columns=[...]"),
    "pick_columns": ("pick the columns to model ({columns_arg})", "pick the columns to model ({columns_arg})",
                     "tick 'model' in the schema table"),
    # model one column the intake did not model (an identifier guess: its values become categorical levels)
    "model_column": ("name it in --columns (e.g. --columns {col},...)", "name it in columns=['{col}', ...]",
                     "tick 'model' for '{col}' in the schema table (type categorical)"),
}


def field_name(name: str, frontend: str = "api") -> str:
    """How ``frontend`` names spec field ``name``.

    Parameters
    ----------
    name : str
        A spec field (a :data:`FIELDS` key).
    frontend : str
        'cli', 'api' or 'app'.

    Returns
    -------
    str
        The front end's name of the field (the name itself when unknown).
    """
    row = FIELDS.get(name)
    return name if row is None else row[_column(frontend)]


def _column(frontend: str) -> int:
    """The column of ``frontend`` in FIELDS / PHRASES; ValueError for an unknown front end."""
    try:
        return FRONTENDS.index(frontend)
    except ValueError:
        raise ValueError(f"frontend must be one of {', '.join(FRONTENDS)} (got {frontend!r})") from None


class _Renderer(string.Formatter):
    """str.format over a message's values, then PHRASES, then FIELDS, in one front end's names."""

    def __init__(self, frontend: str, values: Mapping[str, Any]):
        super().__init__()
        self.col = _column(frontend)
        self.values = values

    def get_value(self, key, args, kwargs):
        if key in self.values:
            return self.values[key]
        if key in PHRASES:
            return self.vformat(PHRASES[key][self.col], (), {})
        if key in FIELDS:
            return FIELDS[key][self.col]
        raise KeyError(f"unknown field or phrase {{{key}}} in a message (add it to blowfish_core.base.fields)")

    def format_field(self, value, format_spec):
        if isinstance(value, (list, tuple)):
            return ("," if format_spec == "," else ", ").join(str(v) for v in value)
        return super().format_field(value, format_spec)


def render_template(template: str, frontend: str = "api", **values: Any) -> str:
    """``template`` with its placeholders in ``frontend``'s names (FIELDS, PHRASES) and ``values``.

    Parameters
    ----------
    template : str
        A message template with {field}, {phrase} and {value} placeholders.
    frontend : str
        'cli', 'api' or 'app'.
    **values : Any
        The message's values (user data).

    Returns
    -------
    str
        The rendered message.

    Raises
    ------
    KeyError
        For a placeholder that is neither a value, a phrase nor a field.
    """
    return _Renderer(frontend, values).vformat(template, (), {})


def _render_parts(parts: tuple, frontend: str) -> str:
    return "".join(p if isinstance(p, str) else render_template(p[0], frontend, **p[1]) for p in parts)


def _from_parts(parts: tuple) -> Text:
    obj = str.__new__(Text, _render_parts(parts, "api"))
    obj.parts = parts
    return obj


class Text(str):
    """A message naming fields by placeholder; its ``str`` value is the API rendering.

    ``Text(template, **values)``: template with {field}, {phrase} and {value} placeholders
    (literal braces doubled, user data passed as values, never written into the template).
    ``+`` with a str or a Text keeps the structure (plain strings are literal).
    :meth:`render` gives one front end's wording.  Raises KeyError for an unknown placeholder.
    """

    parts: tuple

    def __new__(cls, template: str = "", /, **values: Any) -> Text:
        return _from_parts(((template, dict(values)),))

    def render(self, frontend: str = "api") -> str:
        """The message in ``frontend``'s names: 'cli' (--flags), 'api' (arguments=), 'app' (controls)."""
        return _render_parts(self.parts, frontend)

    def __add__(self, other: object) -> Text:
        if not isinstance(other, str):
            return NotImplemented
        return _from_parts(self.parts + _parts_of(other))

    def __radd__(self, other: object) -> Text:
        if not isinstance(other, str):
            return NotImplemented
        return _from_parts(_parts_of(other) + self.parts)

    def __reduce__(self):
        return _from_parts, (self.parts,)


def _parts_of(s: str) -> tuple:
    return s.parts if isinstance(s, Text) else (str(s),)


def join(sep: str, items: Iterable[str]) -> Text:
    """``sep.join(items)`` keeping the structure of Text items.

    Parameters
    ----------
    sep : str
        The separator (literal).
    items : iterable of str
        Plain strings or Text.

    Returns
    -------
    Text
        The joined message.
    """
    parts: tuple = ()
    for i, it in enumerate(items):
        parts += ((sep,) if i else ()) + _parts_of(it)
    return _from_parts(parts)


def render(message: object, frontend: str = "api") -> str:
    """Any message in ``frontend``'s names.

    Parameters
    ----------
    message : object
        A Text or a BlowfishError (rendered), or anything else (``str()``).
    frontend : str
        'cli', 'api' or 'app'.

    Returns
    -------
    str
        The rendered message.
    """
    r = getattr(message, "render", None)
    return r(frontend) if callable(r) and isinstance(message, (str, BaseException)) else str(message)
