"""pbem: a play-by-email referee for board wargames."""

__version__ = "0.1.0"
