"""Each map drawn to PNG once per test process: the fixture ``maps_drawn_once``,
asked for by a module with ``pytestmark = pytest.mark.usefixtures("maps_drawn_once")``.

A mailed report carries its maps drawn to PNG (``pbem.reports.images.svg_to_png``,
cairosvg), most of the time of building it; the tests of the referee's mail
(what a message says, links and attaches; how a delivery or a conversation
fails) mail the same few games' maps again and again.  ``svg_to_png`` is a
function of its arguments alone, so under the fixture each distinct map is drawn
once and its bytes are given again.  The drawing itself is tested without it
(tests/test_report.py, tests/test_email.py, tests/test_smtp.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest

from pbem.reports import images

_drawn: dict[tuple[bytes, int], bytes] = {}


@pytest.fixture(scope="module")
def maps_drawn_once() -> Iterator[None]:
    draw = images.svg_to_png

    def drawn(svg: str, width: int = 1200) -> bytes:
        key = (hashlib.sha256(svg.encode("utf-8")).digest(), width)
        if key not in _drawn:
            _drawn[key] = draw(svg, width)
        return _drawn[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(images, "svg_to_png", drawn)
        yield
