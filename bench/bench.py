"""``make bench``: how fast the referee is, against the floor of this machine.

Not a test: it prints a table and writes ``bench/results.json``.  What it measures
(docs/performance.md explains each number and what was changed):

- batch throughput: N Farrapos games created, one signed turn file submitted for
  each through the library (``pipeline.submit``, as ``pbem submit`` calls it), then
  one ``process --all`` (``pipeline.process``): resolutions per second with each
  side's HTML and text report rendered, and without.  "End to end" counts the
  referee's work (submit + process [+ reports]); the players' bot and signing
  are timed apart.  Rates are given per CPU second of this process (what the
  targets are judged on: on a shared machine the wall clock measures the
  neighbours too) and per wall-clock second;
- the median cost per resolution of each stage (signature check, parse and
  validate, dice reveal, resolve, store, render);
- the floor, measured in the same run: one Ed25519 verify, one SQLite commit of a
  row the size of a position, one render of the report template; and the ratio
  of our per-resolution cost to it;
- ``pbem audit`` over whole games: resolutions replayed and rolls verified per second;
- peak RSS of a real ``pbem process --all`` process over 1,000 and 10,000 games.

Usage: ``python bench/bench.py [--games 1000] [--rss 1000,10000] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from cryptography.hazmat.primitives.asymmetric import ed25519  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402
from sqlmodel import Session  # noqa: E402

from pbem import archive, audit, keys, pipeline, report, reporting, sshsig, store  # noqa: E402
from pbem import dice as dicev1  # noqa: E402
from pbem.canonical import canonical_json, position_hash  # noqa: E402
from pbem.turnfile import parse_turn_file  # noqa: E402
from pbem.rules import find_ruleset  # noqa: E402

sys.path.insert(0, str(HERE))
import peak_rss as peak_rss_module  # noqa: E402
import workload  # noqa: E402

TARGETS = {"with_reports_per_s": 100, "without_reports_per_s": 500, "audit_resolutions_per_s": 1000}
console = Console()


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def timed(call: Callable[[], Any], repeat: int) -> float:
    """Median seconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return median(times)


# ------------------------------------------------------------------ batches


def batch(tmp: Path, players: workload.Players, games: int, reports: bool) -> dict[str, Any]:
    """One database: create, write+sign (players), submit, process (+ reports)."""
    db = tmp / f"batch-{'reports' if reports else 'plain'}.db"
    engine = store.open_engine(db)
    ids, creating = workload.create_games(engine, games, players)
    files, writing, signing = workload.write_turns(engine, ids, players)
    start, cpu_start = time.perf_counter(), time.process_time()
    submitting = workload.submit_all(engine, files)
    submit_wall, submit_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    cpu_start = time.process_time()
    made, resolving, rendering, process_wall = workload.process_all(engine, tmp / "reports" if reports else None)
    process_cpu = time.process_time() - cpu_start
    engine.dispose()
    assert made == games, f"{made} resolutions made for {games} games"
    referee = submit_wall + process_wall
    return {
        "games": games,
        "resolutions": made,
        "create_per_s": round(games / sum(creating), 1),
        "player_write_ms": ms(median(writing)),
        "player_sign_ms": ms(median(signing)),
        "submit_per_s": round(len(files) / submit_wall, 1),
        "process_per_s": round(made / process_wall, 1),
        "end_to_end_per_s": round(made / referee, 1),
        "end_to_end_per_cpu_s": round(made / (submit_cpu + process_cpu), 1),
        "cpu_share": round((submit_cpu + process_cpu) / referee, 2),
        "submit_ms": ms(median(submitting)),
        "resolve_next_ms": ms(median(resolving)),
        "reports_ms": ms(median(rendering)) if rendering else None,
        "db_bytes": db.stat().st_size + (db.with_name(db.name + "-wal").stat().st_size if db.with_name(db.name + "-wal").exists() else 0),
        "_files": files if not reports else None,
        "_db": db,
    }


# ------------------------------------------------------------------ stages


def stages(tmp: Path, players: workload.Players, sample: int) -> dict[str, float]:
    """Each stage of one resolution, timed alone on ``sample`` fresh games with the
    same functions the pipeline calls; "store" is what the pipeline's calls take
    beyond the stages (the database and the ORM)."""
    engine = store.open_engine(tmp / "stages.db")
    ids, _ = workload.create_games(engine, sample, players)
    files, _w, _s = workload.write_turns(engine, ids, players)
    ruleset = find_ruleset(workload.RULES)
    signature_check, parse_validate, reveal, resolve, store_submit, store_resolution, render = [], [], [], [], [], [], []
    with Session(engine) as session:
        games = {g: store.get_game(session, g) for g in ids}
        positions = {g: store.current_position(session, games[g]) for g in ids}
        roster = {p.side: p.public_key for p in store.players(session, ids[0])}
    for f in files:
        game, position = games[f.game_id], positions[f.game_id]
        t0 = time.perf_counter()
        signer = sshsig.verify(f.message, f.signature)
        assert signer.same_key(keys.PublicKey.from_openssh(roster[f.side]))
        t1 = time.perf_counter()
        tf = parse_turn_file(f.message)
        orders, problems = pipeline.orders_of(ruleset, position, tf)
        assert not problems
        t2 = time.perf_counter()
        kept = getattr(game, "seed_checkpoints", "")  # the proposed dice checkpoints, once applied
        secret = dicev1.reveal(bytes.fromhex(game.seed), game.chain_length, 1, *([bytes.fromhex(kept)] if kept else []))
        t3 = time.perf_counter()
        stream = dicev1.DiceStream(dicev1.dice_key(secret, game.id, 1, [f.message]))
        result = ruleset.resolve(position, {f.side: orders}, stream)
        position_hash(result.position)
        canonical_json(result.position)
        canonical_json(result.events)
        ruleset.outcome(result.position)
        t4 = time.perf_counter()
        submit_call = timed(lambda: pipeline.submit(engine, f.message, f.signature, source="bench"), 1)
        resolve_call = timed(lambda: pipeline.resolve_next(engine, f.game_id), 1)
        t5 = time.perf_counter()
        reporting.write_resolution_reports(engine, f.game_id, 1, tmp / "stage-reports" / f.game_id)
        t6 = time.perf_counter()
        signature_check.append(t1 - t0)
        parse_validate.append(t2 - t1)
        reveal.append(t3 - t2)
        resolve.append(t4 - t3)
        store_submit.append(submit_call - (t1 - t0) - (t2 - t1))
        store_resolution.append(resolve_call - (t2 - t1) - (t3 - t2) - (t4 - t3))
        render.append(t6 - t5)
    engine.dispose()
    return {
        "signature_check_ms": ms(median(signature_check)),
        "parse_validate_ms": ms(median(parse_validate)),
        "parse_validate_times": 2,
        "dice_reveal_ms": ms(median(reveal)),
        "resolve_ms": ms(median(resolve)),
        "store_submission_ms": ms(median(store_submit)),
        "store_resolution_ms": ms(median(store_resolution)),
        "render_both_sides_ms": ms(median(render)),
    }


# ------------------------------------------------------------------ the floor


def floor(tmp: Path, players: workload.Players, repeat: int = 300) -> dict[str, float]:
    """The cost of the irreducible work, measured here and now."""
    ruleset = find_ruleset(workload.RULES)
    position = ruleset.setup(None, [])
    size = len(canonical_json(position).encode("utf-8"))

    key = ed25519.Ed25519PrivateKey.generate()
    public = key.public_key()
    data = sshsig._signed_data(b"x" * 400, sshsig.NAMESPACE, "sha512")
    signature = key.sign(data)
    verify = timed(lambda: public.verify(signature, data), repeat)

    con = sqlite3.connect(tmp / "floor.db", isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, position TEXT)")
    blob = "x" * size

    def commit() -> None:
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO t (position) VALUES (?)", (blob,))
        con.execute("COMMIT")

    commit_cost = timed(commit, repeat)
    con.close()

    engine = store.open_engine(tmp / "floor-report.db")
    [game], _ = workload.create_games(engine, 1, players, prefix="floor")
    files, _w, _s = workload.write_turns(engine, [game], players)
    workload.submit_all(engine, files)
    pipeline.resolve_next(engine, game)
    with Session(engine) as session:
        data_republic = reporting.report_data(session, game, 1, "republic")
    render = timed(lambda: report.render_html(data_republic), max(repeat // 10, 20))
    engine.dispose()
    return {"ed25519_verify_ms": ms(verify), "sqlite_commit_ms": ms(commit_cost), "render_template_ms": ms(render), "position_bytes": size}


# ------------------------------------------------------------------ audit


def audit_speed(tmp: Path, players: workload.Players, games: int) -> dict[str, float]:
    engine = store.open_engine(tmp / "audit.db")
    ids, _ = workload.create_games(engine, games, players, prefix="whole")
    for game_id in ids:
        workload.play_whole_game(engine, game_id, players)
    archives = [archive.build_archive(engine, g) for g in ids]
    engine.dispose()
    resolutions = sum(len(a["resolutions"]) for a in archives)
    rolls = sum(len(r["rolls"]) for a in archives for r in a["resolutions"])
    files = sum(len(r["submissions"]) for a in archives for r in a["resolutions"])
    seconds = timed(lambda: [audit.audit_archive(a) for a in archives], 3)
    return {
        "games": games,
        "resolutions": resolutions,
        "rolls": rolls,
        "turn_files": files,
        "seconds": round(seconds, 3),
        "resolutions_per_s": round(resolutions / seconds, 1),
        "rolls_per_s": round(rolls / seconds, 1),
    }


# ------------------------------------------------------------------ memory


def peak_rss(args: list[str], tmp: Path) -> tuple[int, float, str]:
    """(exit status, peak RSS in MiB, stderr) of ``python -m pbem ARGS``."""
    code, err, peak = peak_rss_module.run_pbem(args, ROOT, tmp, timeout=3600)
    return code, round(peak / 2**20, 1), err


def memory(tmp: Path, players: workload.Players, sizes: list[int]) -> list[dict[str, Any]]:
    rows = []
    for games in sizes:
        db = tmp / f"rss-{games}.db"
        engine = store.open_engine(db)
        ids, _ = workload.create_games(engine, games, players, prefix="m")
        files, _w, _s = workload.write_turns(engine, ids, players)
        workload.submit_all(engine, files)
        engine.dispose()
        con = sqlite3.connect(db)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        size = db.stat().st_size
        code, rss, err = peak_rss(["--db", str(db), "process", "--all", "-q"], tmp)
        assert code == 0, err
        audit_code, audit_rss, err = peak_rss(["--db", str(db), "audit", ids[-1]], tmp)
        assert audit_code == 0, err
        rows.append({"games": games, "db_mib": round(size / 2**20, 1), "process_all_peak_rss_mib": rss, "audit_one_game_peak_rss_mib": audit_rss})
        db.unlink()
    return rows


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per batch (default 1000)")
    parser.add_argument("--rss", default="1000,10000", help="game counts for the memory runs (default 1000,10000)")
    parser.add_argument("--stage-sample", type=int, default=200, help="games timed stage by stage (default 200)")
    parser.add_argument("--audit-games", type=int, default=5, help="whole games played for the audit timing (default 5)")
    parser.add_argument("--quick", action="store_true", help="small sizes, to check the script runs")
    parser.add_argument("--out", type=Path, default=HERE / "results.json")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.rss, args.stage_sample, args.audit_games = 50, "50,200", 20, 1
    sizes = [int(n) for n in args.rss.split(",") if n]

    tmp = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    try:
        players = workload.make_players(tmp / "keys")
        with console.status("floor: Ed25519 verify, SQLite commit, template render"):
            base = floor(tmp, players)
        with console.status(f"batch of {args.games} games without reports"):
            plain = batch(tmp, players, args.games, reports=False)
        with console.status(f"batch of {args.games} games with both sides' reports"):
            with_reports = batch(tmp, players, args.games, reports=True)
        with console.status(f"stages, {args.stage_sample} games"):
            stage = stages(tmp, players, args.stage_sample)
        with console.status(f"audit over {args.audit_games} whole games"):
            audited = audit_speed(tmp, players, args.audit_games)
        with console.status(f"peak RSS of process --all over {', '.join(map(str, sizes))} games"):
            rss = memory(tmp, players, sizes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    plain_cost = 1000 / plain["end_to_end_per_cpu_s"]
    reports_cost = 1000 / with_reports["end_to_end_per_cpu_s"]
    floor_plain = base["ed25519_verify_ms"] + base["sqlite_commit_ms"]
    floor_reports = floor_plain + 2 * base["render_template_ms"]
    results = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(), "load_average": os.getloadavg()},
        "targets": TARGETS,
        "without_reports": {k: v for k, v in plain.items() if not k.startswith("_")},
        "with_reports": {k: v for k, v in with_reports.items() if not k.startswith("_")},
        "stages_median": stage,
        "floor": base,
        "ratio_to_floor": {
            "without_reports": round(plain_cost / floor_plain, 1),
            "with_reports": round(reports_cost / floor_reports, 1),
            "per_resolution_ms": {"without_reports": round(plain_cost, 3), "with_reports": round(reports_cost, 3)},
            "floor_ms": {"without_reports": round(floor_plain, 3), "with_reports": round(floor_reports, 3)},
        },
        "audit": audited,
        "memory": rss,
        "met": {
            "with_reports": with_reports["end_to_end_per_cpu_s"] >= TARGETS["with_reports_per_s"],
            "without_reports": plain["end_to_end_per_cpu_s"] >= TARGETS["without_reports_per_s"],
            "audit": audited["resolutions_per_s"] >= TARGETS["audit_resolutions_per_s"],
            "rss_flat": bool(rss) and max(r["process_all_peak_rss_mib"] for r in rss) - min(r["process_all_peak_rss_mib"] for r in rss) < 20,
        },
    }
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print_results(results)
    console.print(f"wrote {args.out}")
    return 0


def print_results(r: dict[str, Any]) -> None:
    def mark(ok: bool) -> str:
        return "[green]met[/green]" if ok else "[red]missed[/red]"

    t = Table(title=f"pbem bench ({r['machine']['cpus']} CPUs, Python {r['machine']['python']}, load {r['machine']['load_average'][0]:.1f})")
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_column("target", justify="right")
    plain, rep = r["without_reports"], r["with_reports"]
    t.add_row(f"end to end, no reports ({plain['games']} games), per CPU second", f"{plain['end_to_end_per_cpu_s']} /s", f">= {r['targets']['without_reports_per_s']} /s {mark(r['met']['without_reports'])}")
    t.add_row(f"end to end, both reports ({rep['games']} games), per CPU second", f"{rep['end_to_end_per_cpu_s']} /s", f">= {r['targets']['with_reports_per_s']} /s {mark(r['met']['with_reports'])}")
    t.add_row("  the same per wall-clock second (no reports / reports)", f"{plain['end_to_end_per_s']} / {rep['end_to_end_per_s']} /s", f"CPU share {plain['cpu_share']} / {rep['cpu_share']}")
    t.add_row("  submit alone", f"{plain['submit_per_s']} /s", "")
    t.add_row("  process --all alone (no reports)", f"{plain['process_per_s']} /s", "")
    t.add_row("  process --all + reports", f"{rep['process_per_s']} /s", "")
    t.add_row("  pbem new", f"{plain['create_per_s']} /s", "")
    t.add_row("players: bot writes / signs (not counted)", f"{plain['player_write_ms']} / {plain['player_sign_ms']} ms", "")
    for name, value in r["stages_median"].items():
        if name.endswith("_ms"):
            t.add_row(f"stage: {name.removesuffix('_ms').replace('_', ' ')}", f"{value} ms", "")
    for name, value in r["floor"].items():
        if name.endswith("_ms"):
            t.add_row(f"floor: {name.removesuffix('_ms').replace('_', ' ')}", f"{value} ms", "")
    ratio = r["ratio_to_floor"]
    t.add_row("per resolution / floor, no reports", f"{ratio['per_resolution_ms']['without_reports']} ms / {ratio['floor_ms']['without_reports']} ms = {ratio['without_reports']}x", "")
    t.add_row("per resolution / floor, both reports", f"{ratio['per_resolution_ms']['with_reports']} ms / {ratio['floor_ms']['with_reports']} ms = {ratio['with_reports']}x", "")
    a = r["audit"]
    t.add_row(f"audit ({a['resolutions']} resolutions, {a['rolls']} rolls)", f"{a['resolutions_per_s']} res/s, {a['rolls_per_s']} rolls/s", f">= {r['targets']['audit_resolutions_per_s']} res/s {mark(r['met']['audit'])}")
    for m in r["memory"]:
        t.add_row(f"peak RSS, process --all over {m['games']} games (db {m['db_mib']} MiB)", f"{m['process_all_peak_rss_mib']} MiB", "flat " + mark(r["met"]["rss_flat"]))
    console.print(t)


if __name__ == "__main__":
    sys.exit(main())
