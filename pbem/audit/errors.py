"""The one error of an audit: the first discrepancy, named."""

import json


class AuditFailure(ValueError):
    """The first discrepancy found: where, what was expected, what was found."""


def shown(value: object, limit: int = 80) -> str:
    """A value read from an archive as a message shows it: text as it is, anything
    else as JSON (never Python's own notation), cut at ``limit`` characters."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
