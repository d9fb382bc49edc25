"""Autoescape's ``escape`` for the report environment's HTML templates, the same text
at a quarter of the cost.

A compiled HTML template writes each value it outputs through ``escape`` (markupsafe's,
imported by the template's code from ``jinja2.runtime``): a Python call, a ``hasattr``
that fails, and a :class:`markupsafe.Markup` made through its own Python ``__new__``
and ``super()``, some 5,000 instructions a value; a resolution's pages write some two
hundred values.  Nearly all are plain strings with nothing to escape, or whole numbers.
:class:`Template` gives each compiled template's code :func:`escape` instead: such a
value is written as it is (a number as ``str`` writes it), anything else (a string
holding one of ``&<>'"``, a ``Markup``, an undefined value, any other object) goes to
markupsafe's ``escape`` as before.

The compiled code only ever yields what ``escape`` returns, or adds it to a buffer a
macro, a block or ``{% set %}`` joins (and wraps in ``Markup`` itself): a plain string
or a ``Markup`` of the same text join into the same page.  The bytecode Jinja keeps
between processes is the template's code as before (only the name it calls is bound
to another function when the code is loaded), so no cached template goes stale.
"""

from __future__ import annotations

from typing import Any

import jinja2
from markupsafe import escape as markup_escape

_str = str


def escape(value: Any) -> Any:
    """``markupsafe.escape(value)`` as a page writes it: the same text; a plain string
    with nothing to escape is itself and a whole number its digits (no ``Markup`` made)."""
    kind = value.__class__
    if kind is _str:
        if "&" in value or "<" in value or ">" in value or '"' in value or "'" in value:
            return markup_escape(value)
        return value
    if kind is int:
        return _str(value)
    return markup_escape(value)


class Template(jinja2.Template):
    """A template whose compiled code writes its output through :func:`escape`."""

    @classmethod
    def from_code(
        cls,
        environment: jinja2.Environment,
        code: Any,
        globals: Any,
        uptodate: Any = None,
    ) -> jinja2.Template:
        template = super().from_code(environment, code, globals, uptodate)
        namespace = template.root_render_func.__globals__  # the module namespace the template's code ran in
        if namespace.get("escape") is markup_escape:  # the name its code imported from jinja2.runtime
            namespace["escape"] = escape
        return template
