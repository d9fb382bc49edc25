"""The plain-text report (:func:`pbem.report.render_text`), written as Python:
72 columns, no markup, readable in any mail client.  It was a Jinja template
(see :mod:`pbem.report_html` for why it is not); the text is the same, byte for
byte.  Plain text has no markup to inject into: nothing is escaped.

What every reader of one resolution sees alike (its events, its dice and their
proof) is written once per resolution (:class:`pbem.report.Shared`).
"""

from __future__ import annotations

import textwrap

from pbem.battle_table import text_table
from pbem.report import ReportData, Shared, report_filename, site_link

RULE = "=" * 72
CUT = "-" * 72


def wordwrap(text: str, width: int) -> str:
    """Each line of ``text`` wrapped at ``width`` without breaking words (Jinja's
    ``wordwrap`` filter, as the template used it)."""
    return "\n".join(
        "\n".join(textwrap.wrap(line, width=width, expand_tabs=False, replace_whitespace=False, break_long_words=False))
        for line in text.splitlines()
    )


def indent(text: str, first: bool = False) -> str:
    """Every line but the first (and blank ones) indented by four spaces; with
    ``first``, the first too (Jinja's ``indent`` filter)."""
    lines = (text + "\n").splitlines()
    out = lines.pop(0)
    if lines:
        out += "\n" + "\n".join("    " + line if line else line for line in lines)
    return "    " + out if first else out


def render(data: ReportData, shared: Shared) -> str:
    d = data
    emails = shared.emails
    out = [
        f"{d.game_id}: {f'resolution {d.k} - {d.label}' if d.k else 'the game as set up'}\n{RULE}\n",
        f"{d.rules_title} / {d.scenario_title}",
    ]
    if d.options:
        out.append(f" / options: {', '.join(d.options)}")
    out.append(f"\n\nReport for {d.viewer}")
    if d.side and emails.get(d.side):
        out.append(f" <{emails[d.side]}>")
    out.append("\n")
    if d.over:
        out.append(f"GAME OVER{': ' + d.result_text if d.result_text else ''}.\n")
    elif d.your_move:
        out.append(f"YOUR MOVE: resolution {d.next_k} - {d.next_label}. Orders are due from {', '.join(d.awaiting)}.\n")
    else:
        out.append(f"Next: resolution {d.next_k} - {d.next_label}. Orders are due from {', '.join(d.awaiting) if d.awaiting else 'nobody'}.\n")
    for r in d.rollbacks:
        several = len(r.discarded) != 1
        out.append(
            f"\nROLLBACK on {r.at}: resolution{'s' if several else ''} {', '.join(map(str, r.discarded))} {'were' if several else 'was'} set aside\n"
            "and the game went back to this position"
        )
        if r.awaits:
            out.append(
                f"; it now awaits resolution {r.awaits}.\n"
                f"Orders written for resolution {' or '.join(map(str, r.discarded))} are refused: write them again from this report"
            )
        out.append(".\n")
    out.append("\nSCORE")
    if d.score and not d.score[0].higher_is_better:
        out.append(f" ({d.score[0].heading})")
    out.append("\n")
    for line in d.score:
        out.append(f"  {'*' if line.side == d.side else ' '} {line.side}: {line.detail or line.value}\n")
    out.append(shared.part("text-events", lambda: _events(shared)))
    if d.problems:
        out.append("PROBLEMS WITH THE ORDERS RECEIVED\n")
        for p in d.problems:
            out.append(f"- {p.side}: {p.received}\n    {indent(wordwrap(p.reason, 66))}\n")
        out.append("\n")
    out.append(shared.part("text-dice", lambda: _dice(d, shared)))
    out.append("MAP\nThe map is in the HTML version of this report (in the e-mail, its HTML part).\n")
    here = site_link(d, report_filename(d.k, d.side))
    if here:
        out.append(f"This report on the game's site: {here}\nEvery resolution, the audit page and the archive: {site_link(d, 'index.html')}\n")
    turn_file = d.next_turn_file_name
    if d.next_turn_file:
        out.append(
            f"\nYOUR NEXT TURN FILE ({turn_file}, also attached)\n"
            "Write your orders below the header, sign the file (pbem sign FILE --key KEY,\n"
            "or --inline) and mail it back attached with its .sig, or pasted into the\n"
            f"message with the inline signature.\n{CUT}\n"
            f"{d.next_turn_file}{'' if d.next_turn_file.endswith(chr(10)) else chr(10)}{CUT}\n"
        )
    if d.position_file and turn_file:
        out.append(
            f"\nCHECK YOUR ORDERS OFFLINE\n{d.position_file_name} (attached) is the position this report was\n"
            "written from. With it, pbem gives the referee's verdict with no referee:\n"
            f"  pbem check {turn_file} --position {d.position_file_name}\n"
        )
    players = ", ".join(f"{side}{f' <{email}>' if email else ''}" for side, email in d.sides)
    out.append(f"\nPlayers: {players}\n-- \npbem {d.game_id}, {d.rules_id}/{d.scenario_id}, resolution {d.k}\n")
    return "".join(out)


def _events(shared: Shared) -> str:
    out = ["\nWHAT HAPPENED\n"]
    for n, b in enumerate(shared.blocks, 1):
        if b["kind"] == "table":
            out.append(f"{n}. {b['title']}\n{indent(text_table(b['columns'], b['rows']), first=True)}\n\n")
        else:
            e = b["event"]
            out.append(indent(wordwrap(f"{n}. [{e['type'].replace('_', ' ')}] {e['text']}", 72)) + "\n")
            if e["rolls"]:
                out.append("    dice: " + "; ".join(f"d{r.sides}={r.value} ({r.purpose})" for r in e["rolls"]) + "\n")
    if not shared.blocks:
        out.append(f"Nothing happened{': the game has just been set up' if shared.data.k == 0 else ''}.\n")
    out.append("\n")
    return "".join(out)


def _dice(d: ReportData, shared: Shared) -> str:
    out = ["DICE\n"]
    out.extend(f"{r.index:4d}  {f'd{r.sides}':<4} {r.value:3d}  {r.purpose}\n" for r in d.rolls)
    if not d.rolls:
        out.append("No dice were rolled in this resolution.\n")
    out.append(f"\nDICE PROOF\nanchor ({d.chain_length}): {d.anchor}\n")
    if d.reveal:
        out.append(
            f"reveal {d.k}:    {d.reveal}\nprevious:    {d.previous_reveal or d.anchor}\n"
            f"SHA-256 of the reveal is the previous one; hashed {d.chain_link} time{'s' if d.chain_link != 1 else ''} it is the anchor:\n"
            f"{shared.verify}\n`pbem audit {d.game_id}` re-derives every die.\n"
        )
    else:
        out.append(f"No reveal yet: dice for resolution {d.next_k} are revealed when it is processed.\n")
    out.append(f"position:    {d.state_hash}\n")
    if d.previous_state_hash:
        out.append(f"previous:    {d.previous_state_hash}\n")
    out.append("\n")
    return "".join(out)
