"""Checking a player's address (``pbem new --email``, ``pbem player --email``).

An address is one RFC 5322 ``addr-spec``: ``local@domain``, the local part a
dot-atom or a quoted string, the domain a dot-atom of at least two labels or an
address literal (``[192.0.2.1]``).  No display name, no list, no comment, no CR
or LF (a header injection), at most 254 characters.

>>> checked_address("alice@example.org")
'alice@example.org'
>>> checked_address("alice@example.org, bob@example.org")
Traceback (most recent call last):
...
ValueError: 'alice@example.org, bob@example.org' is not one email address: give exactly one address
"""

from __future__ import annotations

import re

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_DOT_ATOM = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_QUOTED = r'"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"'
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = rf"(?:{_LABEL}\.)+{_LABEL}|\[[\x21-\x5a\x5e-\x7e]+\]"
_ADDR_SPEC = rf"(?:{_DOT_ATOM}|{_QUOTED})@(?:{_DOMAIN})"
MAX_ADDRESS = 254


def checked_address(value: str) -> str:
    """``value`` if it is one valid address, else :class:`ValueError` naming why."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"{value!r} is not an email address: it contains a line break")
    if "," in value.replace('\\"', "").split('"')[0] or ";" in value:
        raise ValueError(f"{value!r} is not one email address: give exactly one address")
    if "<" in value or ">" in value or "(" in value:
        raise ValueError(f"{value!r} is not a bare email address: give only local@domain, without a name or comment")
    if len(value) > MAX_ADDRESS:
        raise ValueError(f"email address is {len(value)} characters, the limit is {MAX_ADDRESS}")
    if not re.fullmatch(_ADDR_SPEC, value):  # compiled on first use (and cached by re), not at start-up
        raise ValueError(f"{value!r} is not a valid email address (RFC 5322: local@domain.example)")
    return value
