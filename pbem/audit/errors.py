"""The one error of an audit: the first discrepancy, named."""


class AuditFailure(ValueError):
    """The first discrepancy found: where, what was expected, what was found."""
