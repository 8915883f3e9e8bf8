"""KiCad's S-expressions: read a footprint's pads, write netlists and footprints.

>>> parse('(pad "1" smd rect (at -1.65 0) (size 0.9 1.2))')
['pad', '1', 'smd', 'rect', ['at', '-1.65', '0'], ['size', '0.9', '1.2']]
>>> dump(['net', ['code', '1'], ['name', 'ROW 0']])
'(net (code "1") (name "ROW 0"))'
"""

from __future__ import annotations

import re
from typing import TypeAlias

Expr: TypeAlias = "str | list[Expr]"

_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))')


class SexprError(ValueError):
    """Text that is no well-formed S-expression."""


def parse(text: str) -> Expr:
    """The first S-expression in ``text``; atoms stay strings (quoted or not)."""
    stack: list[list[Expr]] = [[]]
    pos = 0
    while True:
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            break
        pos = match.end()
        opened, closed, quoted, atom = match.groups()
        if opened:
            stack.append([])
        elif closed:
            if len(stack) == 1:
                raise SexprError(f"unbalanced ')' at character {pos}")
            done = stack.pop()
            stack[-1].append(done)
            if len(stack) == 1:
                return done
        elif quoted is not None:
            stack[-1].append(quoted.replace('\\"', '"').replace("\\\\", "\\"))
        else:
            stack[-1].append(atom)
    raise SexprError("unexpected end of text (missing ')')")


def children(expr: Expr, head: str) -> list[list[Expr]]:
    """The sub-lists of ``expr`` that start with ``head``."""
    if isinstance(expr, str):
        return []
    return [e for e in expr if isinstance(e, list) and e and e[0] == head]


def child(expr: Expr, head: str) -> list[Expr] | None:
    """The first sub-list of ``expr`` that starts with ``head``, or None."""
    found = children(expr, head)
    return found[0] if found else None


def numbers(expr: list[Expr] | None, count: int) -> tuple[float, ...]:
    """The first ``count`` numbers after the head of ``expr`` (missing ones are 0)."""
    values = [float(e) for e in (expr or [])[1:] if isinstance(e, str)][:count]
    return tuple(values + [0.0] * (count - len(values)))


def quote(atom: str) -> str:
    return '"' + atom.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dump(expr: Expr, indent: int | None = None, _depth: int = 0) -> str:
    """Text of ``expr``: the head bare, every other atom quoted. With ``indent``, one
    nested list per line."""
    if isinstance(expr, str):
        return quote(expr)
    head, *rest = expr
    assert isinstance(head, str), "the head of a list is an atom"
    parts = [head] + [dump(e, indent, _depth + 1) for e in rest]
    if indent is None or not any(isinstance(e, list) for e in rest):
        return "(" + " ".join(parts) + ")"
    pad = "\n" + " " * (indent * (_depth + 1))
    return (
        "("
        + parts[0]
        + "".join(
            (pad if isinstance(e, list) else " ") + p for e, p in zip(rest, parts[1:], strict=True)
        )
        + ")"
    )
