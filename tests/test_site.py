"""The game's site (`pbem site G -o DIR [--site-url URL]`), links that
resolve in the site and in every mailed report, one vocabulary (resolution vs the
game's own calendar), and rollbacks announced.  Real CLI, real SQLite file, real
signatures."""

from __future__ import annotations

import json
import re

import pytest

from pbem import store
from pbem.referee import mail_room as mailroom
from tests.conftest import Table
from tests.support.cli_steps import sign, status, write_orders
from tests.support.site_links import broken_links_in_folder, data_uri_decodes, links_of

pytestmark = pytest.mark.usefixtures("maps_drawn_once")

URL = "https://games.example.org/pbem/g1/"
EMAILS = ("--email", "republic=rep@example.org", "--email", "empire=emp@example.org")


def play(t: Table, game: str, resolutions: int) -> None:
    for _ in range(resolutions):
        st = status(t, game)
        for side in st["awaiting"]:
            path = write_orders(t, game, side, f"t{st['turn']}-{side}.txt", seed=st["turn"])
            sign(t, path, side)
            r = t.run("submit", str(path))
            assert r.exit_code == 0, r.stderr
        r = t.run("process", game)
        assert r.exit_code == 0, r.stderr


@pytest.fixture
def rolled_back(new_farrapos) -> Table:
    """A Farrapos game played 4 resolutions, rolled back to 2, then played 2 more
    (resolutions 1, 2, 6, 7 active; 3-5 set aside), with a republic file for
    resolution 3 written before the rollback kept aside."""
    t = new_farrapos("g1", *EMAILS)
    play(t, "g1", 2)
    old = write_orders(t, "g1", "republic", "old-3.txt", seed=9)
    old.write_text(old.read_text() + "# written before the rollback, never sent\n")
    sign(t, old, "republic")
    play(t, "g1", 3)
    r = t.run("rollback", "g1", "--to", "2")
    assert r.exit_code == 0, r.stderr
    return t


def test_status_check_and_submit_say_resolution_and_the_game_calendar_apart(new_farrapos):
    t = new_farrapos("g1")
    r = t.run("status", "g1")
    assert r.stdout.splitlines()[0] == "g1 (farrapos/campaign): resolution 1 - 1835, turn 1 (Republic)"
    path = write_orders(t, "g1", "republic", "t.txt")
    sign(t, path, "republic")
    r = t.run("submit", str(path))
    assert "queued: g1, republic, resolution 1 - 1835, turn 1 (Republic)" in r.stdout
    assert "turn: 1\n" in path.read_text()  # the header key stays `turn` (contract); it counts resolutions
    template = t.run("orders", "g1", "--side", "empire")
    assert template.exit_code != 0 or "resolution" in template.stdout


def test_a_file_written_before_a_rollback_is_refused_saying_so_and_the_rollback_is_announced(rolled_back):
    t = rolled_back
    before = t.dump()
    r = t.run("submit", str(t.tmp / "old-3.txt"))
    assert r.exit_code == 1
    (line,) = r.stderr.splitlines()
    assert re.fullmatch(
        r"pbem: the turn file is for resolution 3, which was set aside by a rollback on \d{4}-\d\d-\d\d \d\d:\d\d UTC "
        r"\(back to resolution 2\): game g1 now awaits resolution 6 \(1835, turn 3 \(Republic\)\)",
        line,
    ), line
    assert t.dump() == before
    assert status(t, "g1")["turn"] == 6
    # a file the game had received and then set aside says the same
    r = t.run("submit", str(t.tmp / "t3-republic.txt"))
    assert r.exit_code == 1
    assert re.fullmatch(
        r"pbem: this turn file \(received .* UTC, for resolution 3\) was set aside by a rollback on "
        r"\d{4}-\d\d-\d\d \d\d:\d\d UTC "
        r"\(back to resolution 2\): game g1 now awaits resolution 6 \(1835, turn 3 \(Republic\)\); write and "
        r"sign new orders against the latest report",
        r.stderr.strip(),
    ), r.stderr
    assert t.dump() == before
    # both sides are told, in the report of the position the game went back to
    engine = store.open_engine(t.db)
    messages = mailroom.report_messages(engine, "g1", None, "referee@example.org")
    assert len(messages) == 2
    for msg in messages:
        assert msg["Subject"] == "[pbem g1] rollback to resolution 2: resolution 6 - 1835, turn 3 (Republic) awaited"
        assert ".k2.rollback-5." in msg["Message-ID"]  # a new message, not a repeat of report k2
        text = msg.get_body(preferencelist=("plain",)).get_content()
        html = msg.get_body(preferencelist=("html",)).get_content()
        assert "resolutions 3, 4, 5 were set aside" in text and "it now awaits resolution 6" in text
        assert "resolutions 3, 4, 5 were set aside" in html and "it now awaits resolution 6" in html
    engine.dispose()


def test_site_writes_a_folder_where_every_link_resolves(rolled_back, tmp_path):
    t = rolled_back
    play(t, "g1", 2)
    out = tmp_path / "site"
    r = t.run("site", "g1", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    names = {p.name for p in out.iterdir()}
    reports = {f"report-k{k}-{side}.html" for k in (0, 1, 2, 6, 7) for side in ("empire", "republic")}
    maps = {f"map-k{k}-{side}.svg" for k in (0, 1, 2, 6, 7) for side in ("empire", "republic")}
    assert reports | maps | {"index.html", "audit.html", "dice.html", "dice.json", "g1.json", "feed.atom"} == names
    assert 'href="map-k7-republic.svg"' in (out / "report-k7-republic.html").read_text()
    assert (out / "map-k7-republic.svg").read_text().startswith("<svg")
    assert broken_links_in_folder(out) == []
    index = (out / "index.html").read_text()
    index_links = links_of(index).refs
    assert reports <= set(index_links) and {"audit.html", "dice.html", "g1.json"} <= set(index_links)
    assert "Now: resolution 8 - " in index and "Orders are due from" in index
    assert "Rollback on" in index and "back to resolution 2" in index
    assert "<svg" in index and "Score by resolution" in index
    assert "republic" in index and "ssh-ed25519" in index
    # every report of the site links its earlier resolutions, the audit page links every report
    k7 = links_of((out / "report-k7-republic.html").read_text()).refs
    assert {"report-k1-republic.html", "report-k6-republic.html", "index.html", "audit.html", "dice.html"} <= set(k7)
    audit_refs = links_of((out / "audit.html").read_text()).refs
    assert "index.html" in audit_refs and "report-k6-empire.html" in audit_refs
    dice = json.loads((out / "dice.json").read_text())
    assert dice["rolls"] and any(r["set_aside"] for r in dice["rolls"])
    assert t.run("audit", "--archive", str(out / "g1.json")).exit_code == 0
    # run again: the same folder, brought up to date
    assert t.run("site", "g1", "-o", str(out)).exit_code == 0
    assert {p.name for p in out.iterdir()} == names


def test_mailed_reports_name_only_what_they_attach_until_a_site_url_is_set(rolled_back, tmp_path):
    t = rolled_back
    play(t, "g1", 1)
    engine = store.open_engine(t.db)
    checked = 0
    for k in (0, 1, 2, 6):
        for msg in mailroom.report_messages(engine, "g1", k, "referee@example.org"):
            attached = {p.get_filename() for p in msg.walk() if p.get_filename()}
            cids = {p["Content-ID"].strip("<>") for p in msg.walk() if p["Content-ID"]}
            html = msg.get_body(preferencelist=("html",)).get_content()
            text = msg.get_body(preferencelist=("plain",)).get_content()
            page = links_of(html)
            for ref in page.refs:
                if ref.startswith("cid:"):
                    assert ref[4:] in cids, ref
                elif ref.startswith("data:"):  # a file carried in the page itself
                    assert data_uri_decodes(ref), ref[:60]
                else:
                    assert ref.startswith("#") and ref[1:] in page.ids, ref
            named = set(re.findall(r"[\w.-]+\.(?:html|png|txt|json)\b", text + html))
            assert named <= attached, (k, named - attached)
            checked += 1
    assert checked == 8
    # the audit page on its own names the reports without linking files the reader lacks
    alone = tmp_path / "audit.html"
    assert t.run("report", "g1", "--format", "audit", "-o", str(alone)).exit_code == 0
    assert [ref for ref in links_of(alone.read_text()).refs if not ref.startswith(("#", "data:"))] == []
    # the referee publishes the site: mail links to it, and every link resolves there
    site = tmp_path / "published"
    r = t.run("site", "g1", "-o", str(site), "--site-url", URL.rstrip("/"))
    assert r.exit_code == 0, r.stderr
    assert URL in r.stdout
    for k in (0, 1, 2, 6):
        for msg in mailroom.report_messages(engine, "g1", k, "referee@example.org"):
            cids = {p["Content-ID"].strip("<>") for p in msg.walk() if p["Content-ID"]}
            html = msg.get_body(preferencelist=("html",)).get_content()
            text = msg.get_body(preferencelist=("plain",)).get_content()
            page = links_of(html)
            site_links = [ref for ref in page.refs if ref.startswith("http")]
            assert site_links, k
            for ref in page.refs:
                if ref.startswith("cid:"):
                    assert ref[4:] in cids
                elif ref.startswith("#"):
                    assert ref[1:] in page.ids
                elif ref.startswith("data:"):
                    assert data_uri_decodes(ref), ref[:60]
                else:
                    assert ref.startswith(URL) and (site / ref[len(URL) :]).is_file(), ref
            for url in re.findall(r"https?://\S+", text):
                assert url.startswith(URL) and (site / url[len(URL) :]).is_file(), url
    assert t.run("report", "g1", "--format", "audit", "-o", str(alone)).exit_code == 0
    published = [ref for ref in links_of(alone.read_text()).refs if not ref.startswith("#")]
    assert published and all(ref.startswith(URL) and (site / ref[len(URL) :]).is_file() for ref in published)
    engine.dispose()


def test_a_bad_site_url_or_an_unknown_game_is_refused_and_nothing_is_written(new_farrapos, tmp_path):
    t = new_farrapos("g1")
    before = t.dump()
    for url in ("ftp://example.org/x", "example.org/g1", "https://", "https://exa mple.org/"):
        r = t.run("site", "g1", "-o", str(tmp_path / "x"), "--site-url", url)
        assert r.exit_code == 1, url
        assert r.stderr.startswith("pbem: --site-url") and len(r.stderr.splitlines()) == 1
    r = t.run("site", "nope", "-o", str(tmp_path / "x"))
    assert r.exit_code == 1 and "nope" in r.stderr
    assert not (tmp_path / "x").exists()
    assert t.dump() == before


def test_site_again_after_a_rollback_drops_the_pages_of_the_set_aside_resolutions(new_farrapos, tmp_path):
    t = new_farrapos("g1")
    play(t, "g1", 3)
    out = tmp_path / "site"
    assert t.run("site", "g1", "-o", str(out)).exit_code == 0
    (out / "notes.txt").write_text("the referee's own file")
    assert (out / "report-k3-empire.html").is_file()
    assert t.run("rollback", "g1", "--to", "1").exit_code == 0
    assert t.run("site", "g1", "-o", str(out)).exit_code == 0
    reports = sorted(p.name for p in out.glob("report-*.html"))
    assert reports == [f"report-k{k}-{side}.html" for k in (0, 1) for side in ("empire", "republic")]
    assert sorted(p.name for p in out.glob("map-*.svg")) == [
        f"map-k{k}-{side}.svg" for k in (0, 1) for side in ("empire", "republic")
    ]
    assert (out / "notes.txt").is_file()
    assert broken_links_in_folder(out) == []


def test_the_site_index_shows_the_deadline_where_the_game_has_one(new_farrapos, tmp_path):
    t = new_farrapos("g1", "--deadline", "72h")
    out = tmp_path / "site"
    assert t.run("site", "g1", "-o", str(out)).exit_code == 0
    index = (out / "index.html").read_text()
    assert re.search(r"Orders are due from republic, by \d{4}-\d\d-\d\d \d\d:\d\d UTC\.", index), index.split("banner")[
        1
    ][:300]


ATOM = "{http://www.w3.org/2005/Atom}"


def test_the_site_has_an_atom_feed_of_the_active_resolutions(rolled_back, tmp_path):
    """RFC 4287's required elements on the feed and each entry; one entry per active
    resolution (the set-aside 3-5 are none); ids the same on every run."""
    import xml.etree.ElementTree as ET

    t = rolled_back
    play(t, "g1", 1)
    out = tmp_path / "site"
    assert t.run("site", "g1", "-o", str(out), "--site-url", "https://example.org/g1").exit_code == 0
    index = (out / "index.html").read_text()
    assert '<link rel="alternate" type="application/atom+xml" href="feed.atom"' in index
    text = (out / "feed.atom").read_text()
    feed = ET.fromstring(text)
    assert feed.tag == f"{ATOM}feed"
    assert feed.get("{http://www.w3.org/XML/1998/namespace}base") == "https://example.org/g1/"
    for tag in ("id", "title", "updated", "author"):
        assert len(feed.findall(f"{ATOM}{tag}")) == 1, tag
    assert feed.find(f"{ATOM}author/{ATOM}name").text
    assert {link.get("rel") for link in feed.findall(f"{ATOM}link")} == {"alternate", "self"}
    entries = feed.findall(f"{ATOM}entry")
    assert [e.find(f"{ATOM}title").text.split(":")[0] for e in entries] == [f"Resolution {k}" for k in (6, 2, 1)]
    for entry in entries:
        for tag in ("id", "title", "updated", "summary"):
            assert len(entry.findall(f"{ATOM}{tag}")) == 1, tag
        assert entry.find(f"{ATOM}id").text.startswith("urn:uuid:")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry.find(f"{ATOM}updated").text)
        alternate = [link for link in entry.findall(f"{ATOM}link") if link.get("rel") == "alternate"]
        assert len(alternate) == 1 and (out / alternate[0].get("href")).is_file()
        assert "Score:" in entry.find(f"{ATOM}summary").text
    assert len({e.find(f"{ATOM}id").text for e in entries}) == 3
    assert t.run("site", "g1", "-o", str(tmp_path / "again")).exit_code == 0
    assert (tmp_path / "again" / "feed.atom").read_text() == text
    feedparser = pytest.importorskip("feedparser")
    parsed = feedparser.parse(text)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10" and len(parsed.entries) == 3
    assert parsed.entries[0].link == "https://example.org/g1/report-k6-empire.html"
