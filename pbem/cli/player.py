"""The player's commands: ``keygen``, ``status``, ``orders``, ``check``, ``sign``,
``submit``."""

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
import typer.core
import typer.main
import typer.models

from pbem.cli.application import registry as app
from pbem.cli.common import (
    REFEREE_KEY,
    _read,
    _signature_for,
    database,
    db_option,
    example,
    fail,
    is_stdout,
    referee_key,
    refusals,
)


@app.command(epilog=example("pbem keygen alice --dir keys"))
def keygen(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="Key name: writes NAME (private, mode 0600) and NAME.pub.")
    ],
    dir: Annotated[Path, typer.Option("--dir", metavar="DIR", help="Folder for the key files (default: here).")] = Path(
        "."
    ),
) -> None:
    """Make a new Ed25519 key pair in OpenSSH format."""
    from pbem.turnfiles import keys

    with refusals():
        private, public = keys.generate_ed25519(name, dir)
        pub = keys.PublicKey.from_file(public)
    typer.echo(f"private key: {private}\npublic key:  {public}\nfingerprint: {pub.fingerprint()}")


@app.command(epilog=example("pbem status g1 --json"))
def status(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """The resolution awaited and the game's own time, sides awaited, score, and the result once over."""
    from pbem import store
    from pbem.dice import chains as dice_chains
    from pbem.referee import lifecycle

    with refusals():
        st = lifecycle.status(database(), game)
    exposed = store.readable_by_others(store.database_url(db_option()))
    if exposed:
        typer.echo(
            f"pbem: warning: others can read {', '.join(exposed)}, which hold the dice seed: chmod 600 them", err=True
        )
    if as_json:
        typer.echo(json.dumps(st.to_json(), indent=2, ensure_ascii=False))
        return
    typer.echo(f"{st.game} ({st.rules}/{st.scenario}): resolution {st.turn} - {st.label}")
    for line in st.score:
        typer.echo(f"  {line['side']}: {line['detail']}")
    if st.over:
        typer.echo(f"  game over: {st.result_text}")
    else:
        typer.echo(f"  awaiting: {', '.join(st.awaiting) or 'nobody (ready to process)'}")
        for due in st.deadline_lines():
            typer.echo(f"  {due}")
        if st.queued:
            typer.echo(f"  queued: {', '.join(st.queued)}")
        if st.dice_left <= dice_chains.NEAR_THE_END:
            left = "used up" if st.dice_left == 0 else f"serve only {st.dice_left} more resolution(s)"
            typer.echo(f"  dice: the committed chains {left}; extend them with 'pbem extend {st.game}'")
    for side, since in st.civil_disorder.items():
        typer.echo(f"  {side} is in civil disorder since resolution {since}: its orders are written by the greedy bot")
    if st.observers:
        typer.echo(f"  observers: {st.observers}")


@app.command(epilog=example("pbem orders --position g1-r4.position.json --side republic -o turn.txt"))
def orders(
    side: Annotated[str, typer.Option("--side", metavar="SIDE", help="The side to write orders for.")],
    game: Annotated[
        Optional[str], typer.Argument(metavar="[GAME]", help="Game id (on the referee's database).")
    ] = None,
    bot: Annotated[
        Optional[str], typer.Option("--bot", metavar="NAME", help="Fill with a bot's legal orders (random, greedy).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Bot seed.")] = 0,
    output: Annotated[
        Optional[Path], typer.Option("-o", "--output", metavar="FILE", help="Write here ('-' or none: stdout).")
    ] = None,
    position: Annotated[
        Optional[Path],
        typer.Option(
            "--position",
            metavar="POSFILE",
            help="Offline, from this position file (G-rK.position.json, attached to every report); no database.",
        ),
    ] = None,
) -> None:
    """Write the next turn file for a side (template, or a bot's orders)."""
    from pbem.referee import lifecycle
    from pbem.store import NoDatabase

    if (game is None) == (position is None):
        typer.echo("pbem: give GAME (on the referee's database) or --position POSFILE (offline), one of them", err=True)
        raise typer.Exit(2)
    with refusals():
        if position is not None:
            from pbem.turnfiles import position_file

            try:
                kept = position_file.load(_read(position), str(position))
            except position_file.PositionFileError as exc:
                fail(str(exc))
            text = lifecycle.offline_turn_file(kept, side, bot, seed)
        else:
            assert game is not None
            try:
                db = database()
            except NoDatabase:
                fail(
                    f"no referee's database here: a player writes orders with 'pbem orders --position "
                    f"G-rK.position.json --side {side}' (the position file attached to the latest report)"
                )
            text = lifecycle.next_turn_file(db, game, side, bot, seed)
        if output is None or is_stdout(output):
            sys.stdout.write(text)
        else:
            from pbem import paths

            paths.write_file(output, text)
            typer.echo(f"wrote {output}")


@app.command(epilog=example("pbem check turn.txt"))
def check(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Turn file.")],
    sig: Annotated[
        Optional[Path],
        typer.Option("--sig", metavar="SIGFILE", help="Detached signature (default FILE.sig if present)."),
    ] = None,
    position: Annotated[
        Optional[Path],
        typer.Option(
            "--position",
            metavar="POSFILE",
            help="Check offline against this position file (G-rK.position.json, attached to every report); no "
            "database.",
        ),
    ] = None,
) -> None:
    """Parse and validate a turn file against the game's current position; stores nothing."""
    from pbem.turnfiles.envelope import MAX_TURN_FILE_BYTES

    with refusals():
        data = _read(file, MAX_TURN_FILE_BYTES + 16 * 1024)
        if position is not None:  # offline: neither the store nor the dice (pbem.referee.judging)
            from pbem.referee import judging
            from pbem.turnfiles import position_file

            try:
                kept = position_file.load(position_file.read(position), str(position))
            except position_file.PositionFileError as exc:
                fail(str(exc))
            checked = judging.check_offline(data, _signature_for(file, sig), kept)
        else:
            from pbem import store
            from pbem.referee import verdict

            try:
                db = database()
            except store.NoDatabase:
                fail(
                    f"no referee's database here: a player checks offline with 'pbem check {file} --position "
                    "G-rK.position.json' (the position file attached to the latest report)"
                )
            checked = verdict.check(db, data, _signature_for(file, sig))
    signed = "signature verified" if checked.signature else "not signed (signature not checked)"
    typer.echo(
        f"{file}: OK: {checked.game_id}, {checked.side}, resolution {checked.turn} - {checked.label}; "
        f"{len(checked.orders)} order(s); {signed}"
    )


@app.command(epilog=example("pbem sign turn.txt --key ~/.ssh/id_ed25519"))
def sign(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Turn file.")],
    key: Annotated[Path, typer.Option("--key", metavar="KEYFILE", help="OpenSSH private key.")],
    inline: Annotated[bool, typer.Option("--inline", help="Append the armored signature to FILE.")] = False,
) -> None:
    """Sign a turn file (SSHSIG, namespace pbem): writes FILE.sig, or appends inline."""
    from pbem.turnfiles import keys, sshsig

    with refusals():
        try:
            written = sshsig.sign_file(file, key, inline=inline)
        except keys.KeyFileError as exc:
            if "passphrase" not in str(exc) or not sys.stdin.isatty():
                raise
            secret = typer.prompt(f"passphrase for {key}", hide_input=True)
            written = sshsig.sign_file(file, key, inline=inline, passphrase=secret.encode("utf-8"))
    typer.echo(f"signed: {written}")


@app.command(epilog=example("pbem submit turn.txt"))
def submit(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Signed turn file.")],
    sig: Annotated[
        Optional[Path], typer.Option("--sig", metavar="SIGFILE", help="Detached signature (default FILE.sig).")
    ] = None,
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Verify and queue a turn file (a vacation request is granted)."""
    from pbem.referee import intake
    from pbem.turnfiles.envelope import MAX_TURN_FILE_BYTES

    with refusals():
        db = database()
        data = _read(file, MAX_TURN_FILE_BYTES + 16 * 1024)
        result = intake.submit(db, data, _signature_for(file, sig), source=str(file), referee_key=referee_key(key))
    c = result.checked
    if result.granted is not None:
        typer.echo(f"granted: {c.game_id}, {c.side} on vacation until {result.granted.details['until']}")
        return
    extra = f", superseding {result.superseded} earlier file(s)" if result.superseded else ""
    typer.echo(f"queued: {c.game_id}, {c.side}, resolution {c.turn} - {c.label}{extra}")
