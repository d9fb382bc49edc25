"""Write docs/performance.md's tables from bench/results.json.

    python bench/report.py          # rewrite the generated part of the page
    python bench/report.py --check  # exit 1 if the page does not match the file

The tables sit between the two marker lines below; everything else on the page
is prose, written by hand.  tests/test_bench_doc.py checks that the page matches
bench/results.json, so no figure in those tables is ever typed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

RESULTS = HERE / "results.json"
DOC = HERE.parent / "docs" / "performance.md"
BEGIN = "<!-- results: written by bench/report.py from bench/results.json; do not edit by hand -->"
END = "<!-- end of results -->"
BUDGETS = HERE / "budgets.json"
BUDGETS_BEGIN = "<!-- budgets: written by bench/report.py from bench/budgets.json; do not edit by hand -->"
BUDGETS_END = "<!-- end of budgets -->"
BUDGET_NAMES = {
    "farrapos.ingest": "Farrapos, a submitted file (`ingest --dir`), per resolution",
    "farrapos.process": "Farrapos, `process --all`, per resolution",
    "farrapos.process_reports": "Farrapos, `process --all --reports DIR`, per resolution",
    "vouille.ingest": "Vouille, a submitted file (`ingest --dir`), per resolution",
    "vouille.process": "Vouille, `process --all`, per resolution",
    "vouille.process_reports": "Vouille, `process --all --reports DIR`, per resolution",
    "start.help": "`pbem --help` × `python -c pass`",
    "start.check_position": "`pbem check FILE --position POS` × `python -c pass`",
    "start.idle_tick": "idle `pbem tick` over 8 games × `python -c pass`",
}

TARGET_NAMES = {
    "farrapos_mid_battles_per_cpu_s": ("Farrapos, mid-game resolutions with battles, no reports (per CPU s)", ">= {}"),
    "farrapos_mid_battles_reports_per_cpu_s": (
        "Farrapos, mid-game with battles, both sides' reports (per CPU s)",
        ">= {}",
    ),
    "furor_barbarus_mid_per_cpu_s": ("Furor Barbarus, mid-game resolutions, no reports (per CPU s)", ">= {}"),
    "audit_farrapos_per_cpu_s": ("Audit, Farrapos resolutions per CPU s", ">= {}"),
    "audit_furor_barbarus_per_cpu_s": ("Audit, Furor Barbarus resolutions per CPU s", ">= {}"),
}
WORKER_RULES = {
    "sqlite_jobs_run_one_worker": "SQLite: `--jobs 2` and `--jobs 4` run one worker (the same run as `--jobs 1`)",
    "postgres_never_fewer_than_one_worker": "PostgreSQL: `--jobs 2` and `--jobs 4` never fewer per wall s than one",
}


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "met" if value else "**missed**"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.2f}".rstrip("0").rstrip(".") if value else "0"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table(head: list[str], rows: list[list[Any]], right_from: int = 1) -> list[str]:
    lines = [
        "| " + " | ".join(head) + " |",
        "| " + " | ".join("---" if i < right_from else "---:" for i in range(len(head))) + " |",
    ]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in rows]
    return lines + [""]


def tables(r: dict[str, Any]) -> str:
    m = r["machine"]
    loads = ", ".join(f"{entry[0]:.1f}" for entry in m["load_average"])
    out = [
        BEGIN,
        "",
        f"Run of {r['when']} on {m['cpus']} CPUs, Python {m['python']}; one-minute load average through the run: "
        f"{loads}.",
        "",
    ]
    out += instruction_tables(r)
    out += ["**Targets** (CPU seconds and wall seconds: they move with the machine's load)", ""]
    met = r["met"]
    rows = [
        [TARGET_NAMES[k][0], TARGET_NAMES[k][1].format(fmt(r["targets"][k])), r["measured"][k], met.get(k)]
        for k in TARGET_NAMES
    ]
    rows += [[name, "yes", "yes" if met[k] else "no", met[k]] for k, name in WORKER_RULES.items() if k in met]
    out += table(["target", "wanted", "measured", ""], rows, right_from=1)

    out += [
        "**Resolutions from whole bot games** (the referee's submit + process, per CPU second; with both sides' "
        "HTML and text reports after the slash)",
        "",
    ]
    rows = []
    for name, g in r["resolutions"].items():

        def cell(group: dict[str, Any]) -> str:
            return (
                f"{fmt(group['per_cpu_s'])} / {fmt(group['with_reports_per_cpu_s'])}" if group["resolutions"] else "-"
            )

        rows.append(
            [
                f"{name} ({g['games']} games)",
                g["all"]["resolutions"],
                cell(g["all"]),
                cell(g["early"]),
                cell(g["middle"]),
                cell(g["late"]),
                cell(g["middle_battles"]),
                g["middle_battles"]["resolutions"],
                g["all"]["median_ms"],
                g["all"]["median_reports_ms"],
            ]
        )
    out += table(
        [
            "game",
            "resolutions",
            "all",
            "early",
            "middle",
            "late",
            "middle, battles",
            "(how many)",
            "median ms",
            "reports ms",
        ],
        rows,
    )

    out += [
        "**Whole commands as processes** (start-up included; CPU seconds, median of the runs, against a plain "
        "interpreter's `python -c pass` measured beside them; the one-minute load average after each)",
        "",
    ]
    rows = [
        [f"`{name}`", row["kind"], row["cpu_s"], f"{row['x_floor']}×", fmt_load(row.get("load"))]
        for name, row in r["commands"].items()
    ]
    out += table(["command", "kind", "CPU s", "× python -c pass", "load"], rows, right_from=2)

    w = r["workers"]
    out += [
        f"**`pbem process --all --jobs N`** over {fmt(w['games'])} ready Farrapos games (resolutions per wall "
        "second, median of the runs; CPU seconds of all the processes)",
        "",
    ]
    pg = w.get("postgresql") or []
    rows = []
    for i, s in enumerate(w["sqlite"]):
        p = pg[i] if i < len(pg) else None
        rows.append(
            [
                _asked(s, p),
                s["per_wall_s"],
                s["cpu_s"],
                p["per_wall_s"] if p else None,
                p["cpu_s"] if p else None,
                f"{p['load_average'][0]:.1f}" if p else f"{s['load_average'][0]:.1f}",
            ]
        )
    out += table(
        ["`--jobs` (workers run)", "SQLite /wall s", "SQLite CPU s", "PostgreSQL /wall s", "PostgreSQL CPU s", "load"],
        rows,
    )

    out += ["**Audit** of the same whole games", ""]
    rows = [[name, a["games"], a["resolutions"], a["rolls"], a["per_cpu_s"]] for name, a in r["audit"].items()]
    out += table(["game", "games", "resolutions", "rolls", "resolutions per CPU s"], rows)

    f = r["floor"]
    out += [
        f"**Floor**, measured in the same run: Ed25519 verify {fmt(f['ed25519_verify_ms'])} ms, SQLite commit of "
        f"a {fmt(f['position_bytes'])}-byte position "
        f"{fmt(f['sqlite_commit_ms'])} ms, one render of the report template {fmt(f['render_template_ms'])} ms (CPU).",
        "",
    ]
    if r.get("memory"):
        rows = [[m_["games"], m_["db_mib"], m_["process_all_peak_rss_mib"]] for m_ in r["memory"]]
        out += ["**Peak RSS** of `pbem process --all` (the process's own `VmHWM`)", ""]
        out += table(["games", "database MiB", "peak RSS MiB"], rows)
    out.append(END)
    return "\n".join(out)


def fmt_load(load: float | None) -> str:
    return "-" if load is None else f"{load:.1f}"


def _asked(s: dict[str, Any], p: dict[str, Any] | None) -> str:
    """``--jobs N`` and the workers each store ran (fewer where the command capped them)."""
    ran = [s.get("ran", s["jobs"])] + ([p.get("ran", p["jobs"])] if p else [])
    return f"{s['jobs']} ({' / '.join(str(n) for n in ran)})"


def instruction_tables(r: dict[str, Any]) -> list[str]:
    """The instructions first: each piece of work (bench/instructions.py) and each
    command's start-up, under valgrind's callgrind; CPU seconds beside them."""
    out: list[str] = []
    counts = r.get("instructions")
    if counts:
        out += [
            f"**Instructions per piece of work** (valgrind's callgrind: one script run twice, the piece done K more "
            f"times and not at all, the difference over K; per resolution on {counts['games'] - 1} Farrapos games "
            f"at resolution {counts['at']}, played by the seeded random bot; CPU ms of the same pieces in a run "
            "without valgrind, with the one-minute load average of that run)",
            "",
        ]
        rows = [
            [p.get("name", name), p["times"], _millions(p.get("instructions")), p["cpu_ms"], fmt_load(p["cpu_load"])]
            for name, p in counts["pieces"].items()
        ]
        out += table(["piece", "K", "instructions", "CPU ms", "load"], rows)
    commands = r["commands"]
    if any(row.get("instructions") for row in commands.values()):
        plain = any("plain interpreter" in name for name in commands)
        against = (
            "a plain interpreter's `python -c pass`: a venv with nothing installed"
            if plain
            else "the project venv's own `python -c pass`: this run predates the plain interpreter's floor"
        )
        out += [
            "**Instructions per command start** (one run of each command under valgrind's callgrind, start-up "
            f"included, against {against})",
            "",
        ]
        rows = [
            [
                f"`{name}`",
                row["kind"],
                _millions(row.get("instructions")),
                f"{row['x_floor_instructions']}×" if row.get("x_floor_instructions") else "-",
            ]
            for name, row in commands.items()
        ]
        out += table(["command", "kind", "instructions", "× python -c pass"], rows, right_from=2)
    return out


def _millions(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value / 1e6:,.0f} M" if value >= 100e6 else f"{value / 1e6:,.3f} M" if value >= 1e4 else f"{value:,}"


def _figure(key: str, value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}×" if key.startswith("start.") else f"{value / 1e6:.2f} M"


def budget_tables(b: dict[str, Any]) -> str:
    """The instruction budgets (bench/budgets.py): each figure beside its budget, the
    figure of the run before (``before``, when the file holds one) and the raw counts."""
    before = b.get("before", {}).get("figures", {})
    loads = ", ".join(f"{x:.1f}" for x in b["load_average"])
    out = [
        BUDGETS_BEGIN,
        "",
        f"Run of {b['when']}, Python {b['python']}; one-minute load average through the run: {loads} "
        "(instruction counts do not move with it)."
        + (f" Before: the run of {b['before']['when']} on the tree before this work." if before else ""),
        "",
    ]
    rows = []
    for key, name in BUDGET_NAMES.items():
        value, budget = b["figures"][key], b["budgets"][key]
        rows.append([name, _figure(key, before.get(key)), _figure(key, value), _figure(key, budget), value <= budget])
    out += table(["instructions", "before", "now", "budget", ""], rows)
    out += _scenario_table(b)
    raw = b["raw"]
    rows = []
    for name in ("farrapos", "vouille", *b.get("scenarios", {})):
        r = raw[name]
        for label, games in (("many", r["games"]), ("one", 1)):
            rows.append(
                [f"{name}, {games} game(s) at resolution {r['at']}"]
                + [f"{r[label][k] / 1e6:,.1f} M" for k in ("ingest", "process", "process_reports")]
            )
    out += ["Raw counts (whole commands under callgrind, start-up included):", ""]
    out += table(["database", "`ingest --dir`", "`process --all`", "`process --all --reports`"], rows)
    s_ = raw["start"]
    out += [
        f"Start-up: `python -c pass` of a plain interpreter {s_['floor'] / 1e6:.1f} M, `pbem --help` "
        f"{s_['help'] / 1e6:.1f} M, `check --position` {s_['check_position'] / 1e6:.1f} M, idle `tick` "
        f"{s_['idle_tick'] / 1e6:.1f} M.",
        "",
        BUDGETS_END,
    ]
    return "\n".join(out)


_PER_RESOLUTION = ("ingest", "process", "process_reports")


def _scenario_table(b: dict[str, Any]) -> list[str]:
    """Every other Furor Barbarus scenario's figures against Vouille's budgets (a run
    before they were measured holds none)."""
    scenarios = b.get("scenarios", {})
    if not scenarios:
        return []
    rows = []
    for scenario, per in scenarios.items():
        row: list[Any] = [scenario]
        for key in _PER_RESOLUTION:
            budget = b["budgets"][f"vouille.{key}"]
            row.append(f"{per[key] / 1e6:.2f} M" + ("" if per[key] <= budget else " **over**"))
        rows.append(row)
    limits = ", ".join(_figure(f"vouille.{key}", b["budgets"][f"vouille.{key}"]) for key in _PER_RESOLUTION)
    out = [f"Every other Furor Barbarus scenario, measured as Vouille is and held to its budgets ({limits}):", ""]
    return out + table(["scenario", "`ingest --dir`", "`process --all`", "`process --all --reports`"], rows)


def _between(doc: str, begin: str, end: str, generated: str) -> str:
    if begin not in doc or end not in doc:
        raise SystemExit(f"{DOC}: the markers are missing ({begin!r} ... {end!r})")
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + generated + tail


def rewrite(doc: str, generated: str, budgets: str | None = None) -> str:
    doc = _between(doc, BEGIN, END, generated)
    return doc if budgets is None else _between(doc, BUDGETS_BEGIN, BUDGETS_END, budgets)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if docs/performance.md does not match bench/results.json"
    )
    args = parser.parse_args(argv)
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    doc = DOC.read_text(encoding="utf-8")
    wanted = rewrite(doc, tables(results), budget_tables(json.loads(BUDGETS.read_text(encoding="utf-8"))))
    if args.check:
        if wanted != doc:
            print(f"{DOC} does not match {RESULTS}: run python bench/report.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(wanted, encoding="utf-8")
    print(f"wrote the tables of {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
