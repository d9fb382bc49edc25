"""A report's map as a PNG for mail: mail clients drop inline SVG, so the
message carries the map drawn by cairosvg and cut down to a palette."""

from __future__ import annotations


def svg_to_png(svg: str, width: int = 1200) -> bytes:
    """Render an SVG to PNG (cairosvg) at ``width`` pixels, for mail clients that
    drop inline SVG."""
    import cairosvg  # imported here: loading cairo is slow and only mail needs it

    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=width, background_color="white")
    return _palette_png(png)


PALETTE_COLOURS = 32
"""Colours of a mailed map: its fills, inks and the anti-aliasing between them."""


def _palette_png(png: bytes) -> bytes:
    """``png`` as an 8-bit palette PNG (Pillow, which cairosvg depends on): a map is
    flat colours and text, so 32 colours keep it readable (anti-aliased edges a
    shade coarser) at a quarter of the bytes or less, and a report mail stays small."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        quantized = image.convert("RGB").quantize(
            colors=PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
        out = io.BytesIO()
        quantized.save(out, format="PNG", optimize=True)
    return out.getvalue()
