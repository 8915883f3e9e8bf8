"""``pyramid label [--out FILE] [URL ...]``: a printable label with the page's addresses.

::

    pyramid label --out label.html http://pyramid.local:8080/ http://192.168.1.23:8080/
    pyramid label                  # the addresses `pyramid run` would serve, on stdout

One HTML page, with each address as text and as a QR code (SVG, made by segno) that a
phone's camera opens: print it and stick it under the board, so that a family finds the
page without a terminal. deploy/install-pi.sh makes one at the end of every install.
"""

from __future__ import annotations

import argparse
import html
import sys
from collections.abc import Sequence
from pathlib import Path

from controller.addresses import page_urls
from controller.config import ConfigError, load_config

TITLE = "pyramid-board"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "label",
        help="a printable label (HTML) with the web page's addresses and their QR codes",
        description="Write an HTML label with the page's addresses, each with a QR code.",
    )
    parser.add_argument(
        "urls",
        nargs="*",
        metavar="URL",
        help="the addresses (default: those `pyramid run` would serve with the config)",
    )
    parser.add_argument("--config", type=Path, help="the config file (default: the usual places)")
    parser.add_argument("--out", type=Path, help="the file to write (default: standard output)")
    parser.set_defaults(handler=run)


def label_html(urls: Sequence[str]) -> str:
    """The label: each address as large text beside its QR code.

    >>> page = label_html(["http://pyramid.local:8080/"])
    >>> "http://pyramid.local:8080/" in page and page.count("<svg") == 1
    True
    """
    if not urls:
        raise ValueError("a label needs at least one address")
    # Here, not at the top: every `pyramid` command loads this module to list itself, and
    # segno costs each of them about 57 ms of start-up that only a label needs.
    import segno

    cards = []
    for url in urls:
        code = segno.make(url, error="m").svg_inline(scale=5, border=4, title=url)
        cards.append(f'<div class="card">{code}<p>{html.escape(url)}</p></div>')
    body = "\n".join(cards)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{TITLE}: the page's address</title>
<style>
body {{ font-family: sans-serif; margin: 1cm; }}
.card {{ display: inline-block; border: 1px dashed #888; padding: 0.5cm; margin: 0.3cm;
  text-align: center; page-break-inside: avoid; }}
.card p {{ font-size: 14pt; font-family: monospace; margin: 0.2cm 0 0; }}
h1 {{ font-size: 16pt; }}
</style></head><body>
<h1>{TITLE}: open the board's page on a phone (camera on the code) or type the address</h1>
{body}
</body></html>
"""


def run(args: argparse.Namespace) -> int:
    urls: list[str] = list(args.urls)
    if not urls:
        try:
            config = load_config(args.config)
        except ConfigError as exc:
            print(f"pyramid label: {exc}", file=sys.stderr)
            return 2
        urls = page_urls(config.web.host, config.web.port)
    page = label_html(urls)
    if args.out is None:
        sys.stdout.write(page)
        return 0
    try:
        args.out.write_text(page, encoding="utf-8")
    except OSError as error:
        print(f"pyramid label: cannot write {args.out}: {error.strerror}", file=sys.stderr)
        return 1
    print(f"pyramid label: wrote {args.out} ({len(urls)} addresses)")
    return 0
