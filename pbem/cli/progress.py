"""Progress bars and summary tables for batch commands (``ingest``, ``process``,
``send``), drawn with rich on stderr so stdout stays clean for pipes.

>>> from io import StringIO
>>> from rich.console import Console
>>> console = Console(file=StringIO(), width=80)
>>> console.print(summary_table("ingest", ["source", "verdict"], [["a.txt", "accepted"]]))
>>> "accepted" in console.file.getvalue()
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

T = TypeVar("T")

VERDICT_STYLES = {
    "accepted": "green",
    "checked": "cyan",
    "refused": "red",
    "skipped": "dim",
    "sent": "green",
    "resolved": "green",
    "failed": "red",
}


def stderr_console() -> Console:
    return Console(stderr=True)


def _progress(console: Console | None) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or stderr_console(),
        transient=True,
    )


class BatchProgress:
    """A progress bar fed by ``pbem.mail.readers`` (its ``ProgressSink``): ``start(total)``
    then ``advance(outcome)`` per message; it also counts the verdicts.

        with BatchProgress("ingest") as bar:
            summary = ingest_maildir(..., progress=bar)
    """

    def __init__(self, description: str, console: Console | None = None) -> None:
        self.description = description
        self.counts: Counter[str] = Counter()
        self._progress = _progress(console)
        self._task: Any = None

    def __enter__(self) -> BatchProgress:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(*exc)  # type: ignore[arg-type]

    def start(self, total: int) -> None:
        self._task = self._progress.add_task(self.description, total=total)

    def advance(self, outcome: Any) -> None:
        verdict = getattr(getattr(outcome, "verdict", None), "value", None) or str(outcome)
        self.counts[verdict] += 1
        if self._task is not None:
            self._progress.update(self._task, advance=1, description=f"{self.description} ({self._summary()})")

    def tick(self, verdict: str = "done") -> None:
        """Advance by one item that is not an ingest outcome (``process``, ``send``)."""
        self.advance(verdict)

    def _summary(self) -> str:
        return ", ".join(f"{n} {word}" for word, n in sorted(self.counts.items()))


def summary_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Table:
    """A table of one row per item; a column named ``verdict`` (or ``result``) is
    coloured by its value."""
    table = Table(title=title, show_lines=False, expand=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    styled = {i for i, c in enumerate(columns) if c in ("verdict", "result")}
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            text = "" if cell is None else str(cell)
            style = VERDICT_STYLES.get(text) if i in styled else None
            cells.append(f"[{style}]{_escape(text)}[/{style}]" if style else _escape(text))
        table.add_row(*cells)
    return table


def ingest_table(summary: Any, title: str = "ingest") -> Table:
    """The summary of ``pbem.mail.readers``: one row per message (source, verdict, sender,
    first line of the reason), then the totals in the caption."""
    rows = [
        (o.source, o.verdict.value, o.sender or "", (o.lines[0].splitlines()[0] if o.lines else ""))
        for o in summary.outcomes
    ]
    table = summary_table(title, ["source", "verdict", "from", "detail"], rows)
    counts = Counter(o.verdict.value for o in summary.outcomes)
    table.caption = ", ".join(f"{n} {word}" for word, n in sorted(counts.items())) or "nothing to do"
    return table


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
