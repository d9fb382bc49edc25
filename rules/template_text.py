"""Order templates fit in 72 columns: mail clients wrap longer lines, and a
wrapped line breaks an inline signature.

>>> print(fit_comments("#   move cav-3 cav-4 (MF 3): alegrete cachoeira camaqua cangucu encruzilhada jaguarao", 40))
#   move cav-3 cav-4 (MF 3): alegrete
#     cachoeira camaqua cangucu
#     encruzilhada jaguarao
"""

from __future__ import annotations

import re
import textwrap

TEMPLATE_WIDTH = 72


def fit_comments(text: str, width: int = TEMPLATE_WIDTH) -> str:
    """Every comment line of ``text`` longer than ``width`` wrapped at spaces; the
    continuation lines stay comments, indented two more columns.  Other lines
    are left as they are."""
    out: list[str] = []
    for line in text.split("\n"):
        match = re.match(r"^(#\s*)(.*)$", line)
        if len(line) <= width or match is None:
            out.append(line)
            continue
        lead = match.group(1)
        out.extend(textwrap.wrap(match.group(2), width=width, initial_indent=lead, subsequent_indent=lead + "  ",
                                 break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)
