"""Report e-mails and receipts: parsed back
with the standard library."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

from pbem.mail.build import receipt_email
from pbem.reports.message import report_email, report_message_id, report_subject, thread_root_id
from pbem.reports.render import turn_file_name
from tests.support.report_data import EVIL, report_data

REFEREE = "Referee <referee@pbem.example>"


def parse(msg: EmailMessage) -> EmailMessage:
    return email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)


def test_report_email_is_text_and_html_alternatives_with_the_map_png_and_the_turn_file():
    data = report_data(side="empire", awaiting=("empire",))
    msg = parse(report_email(data, REFEREE, "emp@example.org", None))
    assert msg.get_content_type() == "multipart/mixed"
    alternative, attachment = msg.get_payload()
    assert alternative.get_content_type() == "multipart/alternative"
    text, related = alternative.get_payload()
    assert text.get_content_type() == "text/plain" and data.label in text.get_content()
    assert related.get_content_type() == "multipart/related"
    html, png = related.get_payload()
    assert html.get_content_type() == "text/html"
    assert png.get_content_type() == "image/png" and png.get_content()[:8] == b"\x89PNG\r\n\x1a\n"
    cid = png["Content-ID"].strip("<>")
    assert f'src="cid:{cid}"' in html.get_content()
    assert "<svg" not in html.get_content()  # mail clients drop inline SVG: the PNG stands in
    assert attachment.get_filename() == turn_file_name("g1", 3, "empire") == "turn-g1-4-empire.txt"
    assert attachment.get_content_type() == "text/plain"
    assert attachment.get_payload(decode=True) == data.next_turn_file.encode()


def test_report_subject_says_whose_move_it_is():
    assert (
        report_subject(report_data(side="empire", awaiting=("empire",)))
        == "[pbem g1] resolution 4 - 1837, turn 3: your move"
    )
    assert (
        report_subject(report_data(side="empire", awaiting=("republic",)))
        == "[pbem g1] resolution 3 - 1836, turn 3 (Republic): report"
    )
    assert report_subject(report_data(side="empire", over=True, awaiting=())).endswith(": game over")


def test_threading_one_game_is_one_conversation_per_side():
    first = parse(report_email(report_data(side="empire", k=0), REFEREE, "emp@example.org", None))
    third = parse(report_email(report_data(side="empire", k=3), REFEREE, "emp@example.org", None))
    root = thread_root_id("g1", "empire")
    assert first["Message-ID"] == root and first["In-Reply-To"] is None
    assert third["Message-ID"] == report_message_id("g1", 3, "empire") == "<pbem.g1.k3.empire@pbem.invalid>"
    assert third["In-Reply-To"] == root and third["References"] == root
    again = parse(report_email(report_data(side="empire", k=3), REFEREE, "emp@example.org", None))
    assert again["Message-ID"] == third["Message-ID"], "resending is idempotent"
    given = parse(report_email(report_data(side="empire", k=3), REFEREE, "emp@example.org", "<root@x.example>"))
    assert given["In-Reply-To"] == "<root@x.example>"


def test_message_ids_stay_valid_whatever_the_game_is_called():
    mid = report_message_id("my game <1>", 2, "Gallo Romans")
    assert mid == "<pbem.my_game_1_.k2.Gallo_Romans@pbem.invalid>"


def test_report_email_escapes_names_in_the_html_part():
    data = report_data(side_name=EVIL, unit_name=EVIL, email=EVIL)
    msg = parse(report_email(data, REFEREE, "x@example.org", None))
    html = next(p for p in msg.walk() if p.get_content_type() == "text/html").get_content()
    assert "<script" not in html.lower() and "&lt;script&gt;" in html


def test_report_email_without_a_map_or_turn_file_is_just_the_two_alternatives():
    data = report_data(side=None, map_svg="")
    msg = parse(report_email(data, REFEREE, "ref@example.org", None))
    assert msg.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in msg.get_payload()] == ["text/plain", "text/html"]


def original_message() -> email.message.Message:
    return email.message_from_bytes(
        b"From: Bento <bento@republic.example>\nReply-To: b2@republic.example\nSubject: Re: [pbem g1] 1837, turn "
        b"4: your move\n"
        b"Message-ID: <orders-1@republic.example>\nReferences: <pbem.g1.k0.republic@pbem.invalid>\n\norders\n"
    )


def test_a_refusal_replies_to_the_message_and_lists_each_problem_by_line():
    problems = ["line 7: inf-9 is not a unit of the republic", "line 9: porto-alegre is not linked to bage"]
    reply = parse(receipt_email(original_message(), REFEREE, False, problems))
    assert reply["To"] == "b2@republic.example"
    assert reply["Subject"] == "Re: [pbem g1] 1837, turn 4: your move (refused)"
    assert reply["In-Reply-To"] == "<orders-1@republic.example>"
    assert reply["References"] == "<pbem.g1.k0.republic@pbem.invalid> <orders-1@republic.example>"
    assert reply["Auto-Submitted"] == "auto-replied"
    body = reply.get_content()
    for line in problems:
        assert f"  {line}\n" in body
    assert "refused" in body


def test_a_receipt_lists_the_orders_as_understood():
    orders = ["line 7: move cav-1 from bage to dom-pedrito"]
    reply = parse(receipt_email(original_message(), REFEREE, True, orders))
    assert reply["Subject"].endswith("(accepted)")
    assert "Orders as understood:\n  line 7: move cav-1 from bage to dom-pedrito" in reply.get_content()


def test_a_check_answer_says_nothing_was_queued():
    reply = parse(receipt_email(original_message(), REFEREE, True, ["line 7: move a b"], check_only=True))
    assert reply["Subject"].endswith("(checked: valid)")
    assert "Nothing was queued" in reply.get_content()


def test_the_same_message_always_gets_the_same_receipt_id():
    a = receipt_email(original_message(), REFEREE, True, [])
    b = receipt_email(original_message(), REFEREE, True, [])
    assert a["Message-ID"] == b["Message-ID"]
