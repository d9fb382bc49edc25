"""Who holds a claim on an outbox row (pbem.mail.outbox, "Claims"): this host, a
process id and a random word; and whether such a holder has ended."""

from __future__ import annotations

import os


def holder_id() -> str:
    """Who claims rows: this host, this process and a random word (a process id
    alone is reused)."""
    import secrets
    import socket

    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


def ended(holder: str) -> bool:
    """Whether ``holder`` (:func:`holder_id`) is a process of this host that has
    ended, so that its claims lapsed with it.  A holder of another host, this
    process, or a process id in use (perhaps by another program) is not."""
    import socket

    parts = holder.rsplit(":", 2)  # host, process id, random word
    if len(parts) != 3 or parts[0] != socket.gethostname()[:40] or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid() or pid <= 1:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # the process is there, owned by another user
        return False
    return False
