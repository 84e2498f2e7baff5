"""QR codes of game links, drawn by segno as SVG on the server."""

import io

import segno


def qr_svg(url: str, title: str) -> str:
    code = segno.make(url, error="m")
    out = io.BytesIO()
    # No size attributes: the page sizes it. Presentation attributes only, no
    # inline style, so the strict Content-Security-Policy holds.
    code.save(out, kind="svg", scale=4, border=2, xmldecl=False, omitsize=True, title=title)
    return out.getvalue().decode()
