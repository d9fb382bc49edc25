"""The HTML report (:func:`pbem.report.render_html`), written as Python.

It was a Jinja template; ``pbem report`` and ``process --reports`` spent more on
importing Jinja and compiling the template in every process, and on Jinja's
attribute lookups and escaping per value, than on everything else a report does
(issue 14).  The page is the same, byte for byte.  Every value from the game
(side names, unit names, emails, order lines, event texts) goes through
:func:`escape`; the one exception is the ruleset's map SVG, which the rules layer
promises is well-formed XML with all its text escaped (see :mod:`pbem.report`).

What every reader of one resolution sees alike (its events, its dice and their
proof, the footer) is written once per resolution (:class:`pbem.report.Shared`).
"""

from __future__ import annotations

from functools import lru_cache

from pbem.report import TEMPLATE_DIR, ReportData, Shared, map_filename, report_filename, site_link


def escape(value: object) -> str:
    """``value`` as HTML text or attribute value: ``& < > ' "`` as entities, as
    Jinja's autoescaping (markupsafe) writes them."""
    text = str(value)
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;").replace('"', "&#34;")


@lru_cache(maxsize=1)
def _style() -> str:
    return (TEMPLATE_DIR / "report.css").read_text(encoding="utf-8")


def render(data: ReportData, shared: Shared, map_cid: str | None = None, detail_cid: str | None = None) -> str:
    d = data
    viewer = escape(d.viewer)
    emails = shared.emails
    out = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="generator" content="pbem">\n'
        f"<title>[pbem {escape(d.game_id)}] resolution {d.k} - {escape(d.label)}: {viewer}</title>\n<style>\n",
        _style(),
        "</style>\n</head>\n<body>\n<main>\n<header>\n",
        f"<h1>{escape(d.game_id)}: {f'resolution {d.k} - {escape(d.label)}' if d.k else 'the game as set up'}</h1>\n",
        f'<p class="meta">{escape(d.rules_title)} &middot; {escape(d.scenario_title)}',
        f' &middot; options: {escape(", ".join(d.options))}' if d.options else "",
        f' &middot; report for <span class="you">{viewer}</span>',
        f" &lt;{escape(emails[d.side])}&gt;" if d.side and emails.get(d.side) else "",
        "</p>\n",
    ]
    if d.over:
        out.append(f'<p class="banner over">Game over{": " + escape(d.result_text) if d.result_text else ""}.</p>\n')
    elif d.your_move:
        out.append(f'<p class="banner move">Your move: resolution {d.next_k} - {escape(d.next_label)}. Orders are due from {escape(", ".join(d.awaiting))}.</p>\n')
    else:
        due = escape(", ".join(d.awaiting)) if d.awaiting else "nobody"
        out.append(f'<p class="banner wait">Next: resolution {d.next_k} - {escape(d.next_label)}. Orders are due from {due}.</p>\n')
    for r in d.rollbacks:
        several = len(r.discarded) != 1
        out.append(
            f'<p class="banner rollback">Rollback on {escape(r.at)}: resolution{"s" if several else ""} {escape(", ".join(map(str, r.discarded)))} '
            f'{"were" if several else "was"} set aside and the game went back to this position'
        )
        if r.awaits:
            out.append(
                f"; it now awaits resolution {r.awaits}. Orders written for resolution {escape(' or '.join(map(str, r.discarded)))}"
                " are refused: write them again from this report"
            )
        out.append(".</p>\n")
    out.append('</header>\n\n<section id="score">\n<h2>Score</h2>\n<div class="table-wrap"><table>\n')
    out.append(f'<tr><th>side</th><th>{escape(d.score[0].heading) if d.score else "score"}</th><th>detail</th><th>player</th></tr>\n')
    for line in d.score:
        you = ' class="you"' if line.side == d.side else ""
        out.append(
            f'<tr{you}><td>{escape(line.side)}</td><td class="num">{escape(line.value)}</td><td>{escape(line.detail)}</td>'
            f'<td>{escape(emails.get(line.side) or "")}</td></tr>\n'
        )
    out.append('</table></div>\n</section>\n\n<section id="map">\n<h2>Map</h2>\n')
    out.append(_map(d, shared, map_cid, detail_cid))
    out.append("</section>\n\n")
    out.append(shared.part("html-events", lambda: _events(shared)))
    if d.problems:
        out.append(
            '<section id="problems">\n<h2>Problems with the orders received</h2>\n<div class="table-wrap"><table class="problems">\n'
            "<tr><th>side</th><th>received</th><th>problem</th></tr>\n"
        )
        for p in d.problems:
            out.append(f"<tr><td>{escape(p.side)}</td><td><code>{escape(p.received)}</code></td><td>{escape(p.reason)}</td></tr>\n")
        out.append("</table></div>\n</section>\n")
    out.append("\n")
    out.append(shared.part("html-dice", lambda: _dice(d, shared)))
    turn_file = d.next_turn_file_name
    if d.next_turn_file:
        name = escape(turn_file)
        out.append(
            '<section id="next-turn">\n<h2>Your next turn file</h2>\n'
            f"<p>Save it as <code>{name}</code> (it is attached to the e-mail), write your orders below the header, sign it "
            f"(<code>pbem sign {name} --key KEY</code>, or <code>--inline</code>) and mail it back as an attachment with its "
            "<code>.sig</code>, or pasted into the message with the inline signature.</p>\n"
            f"<pre>{escape(d.next_turn_file)}</pre>\n</section>\n"
        )
    out.append("\n")
    downloads = shared.downloads(d)
    if downloads:
        out.append('<section id="files">\n<h2>Files of this report</h2>\n<ul>\n')
        for name, uri in downloads:
            out.append(f'<li><a download="{escape(name)}" href="{escape(uri)}">{escape(name)}</a></li>\n')
        out.append("</ul>\n")
        if turn_file:
            out.append(
                f"<p>Check your orders offline, with no referee: <code>pbem check {escape(turn_file)} --position "
                f"{escape(d.position_file_name)}</code> gives the referee's verdict.</p>"
            )
        out.append("</section>\n")
    out.append("\n")
    if d.history:  # with no links, every side's list is alike
        out.append(shared.part(f"html-history-{bool(d.side)}", lambda: _history(d)) if d.links == "none" else _history(d))
    out.append("\n")
    out.append(shared.part("html-footer", lambda: _footer(d)))
    return "".join(out)


def _map(d: ReportData, shared: Shared, map_cid: str | None, detail_cid: str | None) -> str:
    look = shared.map_look(d.map_svg)
    why = escape(look.why.capitalize())
    label = escape(d.label)
    if map_cid:
        detail = (
            f'<figure class="map detail"><img src="cid:{escape(detail_cid)}" alt="{why} after {label}, enlarged" width="600" '
            f'style="max-width:100%;height:auto"><figcaption>{why}, enlarged; the whole map follows.</figcaption></figure>\n'
            if detail_cid
            else ""
        )
        return (
            f'{detail}<figure class="map"><img src="cid:{escape(map_cid)}" alt="Map of {escape(d.game_id)} after {label}" '
            f'style="max-width:100%;height:auto"><figcaption>The whole map after {label}.</figcaption></figure>\n'
        )
    if not look.embedded:
        return "<p>No map.</p>\n"
    detail = (
        f'<figure class="map detail"><svg xmlns="http://www.w3.org/2000/svg" viewBox="{escape(look.focus)}" role="img" '
        f'aria-label="{why}, enlarged"><use href="#{escape(look.board_id)}"/></svg><figcaption>{why} after {label}, enlarged. '
        '<a href="#whole-map">The whole map</a> follows.</figcaption></figure>\n'
        if look.focus
        else ""
    )
    native = f' style="--native: {int(look.width)}px"' if look.width else ""
    href = site_link(d, map_filename(d.k, d.side))
    own = f' <a href="{escape(href)}">Open it on its own</a> to zoom in.' if href else ""
    return (
        f'{detail}<figure class="map wide" id="whole-map"{native}>{look.embedded}'
        f"<figcaption>The whole map after {label}.{own}</figcaption></figure>\n"
    )


def _events(shared: Shared) -> str:
    out = ['<section id="events">\n<h2>What happened</h2>\n']
    if not shared.events:
        out.append(f"<p>Nothing happened{': the game has just been set up' if shared.data.k == 0 else ''}.</p>\n</section>\n\n")
        return "".join(out)
    out.append('<ol class="events">\n')
    for b in shared.blocks:
        if b["kind"] == "table":
            rows = b["rows"]
            out.append(f'<li class="battle"><span class="event-type">{escape(b["title"])}</span>\n<div class="table-wrap"><table class="rounds">\n')
            out.append("<tr>" + "".join(f"<th>{escape(c)}</th>" for c in b["columns"]) + "</tr>\n")
            for row in rows:
                out.append("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row["cells"]) + "</tr>\n")
            rounds = "this round" if len(rows) == 1 else f"these {len(rows)} rounds"
            out.append(f'</table></div>\n<details class="details"><summary>Every detail and die of {rounds}</summary>\n')
            for row in rows:
                e = row["event"]
                out.append(f'<p>{escape(e["text"])}</p>\n<dl class="details">\n')
                out.extend(f"<dt>{escape(key)}</dt><dd>{escape(value)}</dd>\n" for key, value in e["details"])
                out.append("</dl>\n")
                if e["rolls"]:
                    out.append(f"<p>Dice: {_dice_line(e['rolls'])}</p>\n")
            out.append("</details>\n</li>\n")
        else:
            e = b["event"]
            kind = "battle" if e["battle"] else "event"
            out.append(f'<li class="{kind}"><span class="event-type">{escape(e["type"].replace("_", " "))}</span><br>{escape(e["text"])}\n')
            if e["details"]:
                out.append('<details class="details"><summary>Details</summary>\n<dl class="details">\n')
                out.extend(f"<dt>{escape(key)}</dt><dd>{escape(value)}</dd>\n" for key, value in e["details"])
                out.append("</dl>\n</details>\n")
            if e["rolls"]:
                out.append(f"<p>Dice: {_dice_line(e['rolls'])}</p>\n")
            out.append("</li>\n")
    out.append("</ol>\n</section>\n\n")
    return "".join(out)


def _dice_line(rolls: list) -> str:
    return "; ".join(f"d{escape(r.sides)} = <b>{escape(r.value)}</b> ({escape(r.purpose)})" for r in rolls)


def _dice(d: ReportData, shared: Shared) -> str:
    out = ['<section id="dice">\n<h2>Dice</h2>\n']
    if d.rolls:
        out.append('<div class="table-wrap"><table>\n<tr><th>#</th><th>die</th><th>value</th><th>purpose</th></tr>\n')
        out.extend(
            f'<tr><td class="num">{escape(r.index)}</td><td>d{escape(r.sides)}</td><td class="num">{escape(r.value)}</td><td>{escape(r.purpose)}</td></tr>\n'
            for r in d.rolls
        )
        out.append("</table></div>\n")
    else:
        out.append("<p>No dice were rolled in this resolution.</p>\n")
    out.append(f"<h3>Dice proof</h3>\n<p>Anchor (the game's commitment, chain length {escape(d.chain_length)}): <span class=\"hash\">{escape(d.anchor)}</span></p>\n")
    if d.reveal:
        previous = "anchor" if d.chain_link == 1 else f"reveal of resolution {d.k - 1}"
        out.append(
            f'<p>Reveal of resolution {d.k}: <span class="hash">{escape(d.reveal)}</span></p>\n'
            f'<p>Previous ({previous}): <span class="hash">{escape(d.previous_reveal or d.anchor)}</span></p>\n'
            f"<p>SHA-256 of this reveal is the previous one; hashed {d.chain_link} time{'s' if d.chain_link != 1 else ''} it is the anchor. Check it:</p>\n"
            f"<pre>{escape(shared.verify)}</pre>\n"
            "<p>The dice follow from the reveal, the game id, the resolution number and the signed turn files (dice v1); "
            f"<code>pbem audit {escape(d.game_id)}</code> re-derives every die.</p>\n"
        )
    else:
        out.append(f"<p>No reveal yet: dice for resolution {d.next_k} are fixed by the anchor and revealed when it is processed.</p>\n")
    previous_hash = f'<br>previous: <span class="hash">{escape(d.previous_state_hash)}</span>' if d.previous_state_hash else ""
    out.append(f'<p>Position hash: <span class="hash">{escape(d.state_hash)}</span>{previous_hash}</p>\n</section>\n\n')
    return "".join(out)


def _history(d: ReportData) -> str:
    out = ['<section id="history" class="no-print">\n<h2>Earlier resolutions</h2>\n']
    if d.links == "none":
        where = "Each earlier report was mailed to you when it was made" if d.side else "The earlier reports are in the game's database"
        out.append(f"<p>{where}; <code>pbem site {escape(d.game_id)} -o DIR</code> writes them all, with the audit page, as a folder to publish.</p>\n")
    out.append("<ul>\n")
    for k, label, state_hash in d.history:
        href = site_link(d, report_filename(k, d.side))
        line = f"resolution {k}: {escape(label)}"
        out.append(f'<li>{f"""<a href="{escape(href)}">{line}</a>""" if href else line} <span class="hash">{escape(state_hash[:12])}</span></li>\n')
    out.append("</ul>\n")
    if site_link(d, "index.html"):
        out.append(
            f'<p><a href="{escape(site_link(d, "index.html"))}">The game\'s site</a> &middot; <a href="{escape(site_link(d, "audit.html"))}">audit page</a>'
            f' &middot; <a href="{escape(site_link(d, "dice.html"))}">every die</a></p>\n'
        )
    out.append("</section>\n")
    return "".join(out)


def _footer(d: ReportData) -> str:
    out = ["<footer>\n"]
    home = site_link(d, "index.html")
    if home:
        out.append(f'<p>This game\'s site: <a href="{escape(home)}">every resolution\'s report, the audit page, every die and the archive</a>.</p>\n')
    players = ", ".join(f"{escape(side)}{f' &lt;{escape(email)}&gt;' if email else ''}" for side, email in d.sides)
    out.append(
        f"<p>Players: {players}.</p>\n<p>pbem: {escape(d.game_id)}, {escape(d.rules_id)}/{escape(d.scenario_id)}, resolution {d.k}.</p>\n"
        "</footer>\n</main>\n</body>\n</html>\n"
    )
    return "".join(out)
