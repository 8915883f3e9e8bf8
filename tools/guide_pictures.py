"""Draw the LED pictures of the user guide from the real guidance frames.

    .venv/bin/python tools/guide_pictures.py            # (re)write docs/img/leds-*.svg
    .venv/bin/python tools/guide_pictures.py --check    # exit 1 if any is out of date

Every picture is a real game position run through its game's picture
(:mod:`controller.games.perlen.lights`, :mod:`controller.games.pyramidos.lights`) and
:func:`controller.guidance.to_frame` on the default channel map, then drawn LED by LED:
the 5×5 base (rank 1 at the bottom, where seat 1 sits), the four seat LEDs round it and
the three button LEDs under it; Pyramidos pictures show the targets instead of the base.
Blinking LEDs blink in the SVG too (and have a dashed ring, for paper); the game-over
sweep is animated frame by frame. ``tests/table/test_guide_pictures.py`` fails when the
committed pictures no longer match what the LEDs would show.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.games.perlen import rules as perlen  # noqa: E402
from controller.games.perlen.lights import picture as perlen_picture  # noqa: E402
from controller.games.pyramidos import rules as pyramidos  # noqa: E402
from controller.games.pyramidos.lights import picture as pyramidos_picture  # noqa: E402
from controller.guidance import (  # noqa: E402
    CALM,
    SWEEP_PERIOD,
    GuidanceOptions,
    Light,
    Mismatch,
    MismatchKind,
    to_frame,
)
from controller.hardware.channels import CELLS, ChannelMap  # noqa: E402
from controller.hardware.port import LedFrame, LedMode  # noqa: E402
from controller.palette import PALETTE  # noqa: E402
from controller.rules.notation import FILES, parse_position  # noqa: E402

OUT = ROOT / "docs" / "img"
CMAP = ChannelMap.default()
PLAYERS = [Light(seat, colour.rgb) for seat, colour in enumerate(PALETTE[:4])]
"""Seat 1 red, seat 2 blue, seat 3 yellow, seat 4 green (the defaults)."""
STEP = 44
MARGIN = 56
SIDE = 5 * STEP
WIDTH = SIDE + 2 * MARGIN
HEIGHT = SIDE + 2 * MARGIN + 50
SWEEP_STEP_S = 0.12  # the Table's default sweep_step_s

BUTTONS = (("button:confirm", "✓ confirm"), ("button:end_turn", "→ end turn"),
           ("button:undo", "↶ undo"))  # fmt: skip


def _cell_xy(cell: str) -> tuple[float, float]:
    file, rank = FILES.index(cell[0]), int(cell[1]) - 1
    return MARGIN + STEP * (file + 0.5), MARGIN + STEP * (4 - rank + 0.5)


def _seat_xy(seat: int) -> tuple[float, float]:
    mid = MARGIN + SIDE / 2
    near, far = MARGIN + SIDE + 26, MARGIN - 26
    # Seat 1 at rank 1 (the bottom), then round the table clockwise seen from above.
    return ((mid, near), (far, mid), (mid, far), (near, mid))[seat]


_TARGET_XY = {
    "t1": (MARGIN + SIDE * 0.25, MARGIN + SIDE * 0.75),
    "t2": (MARGIN + SIDE * 0.75, MARGIN + SIDE * 0.75),
    "t3": (MARGIN + SIDE * 0.75, MARGIN + SIDE * 0.25),
    "t4": (MARGIN + SIDE * 0.25, MARGIN + SIDE * 0.25),
    "top": (MARGIN + SIDE * 0.5, MARGIN + SIDE * 0.5),
}


def _fill(colour: tuple[int, int, int]) -> tuple[str, float]:
    """The screen colour and opacity of an LED: dim glows are drawn faint, not black."""
    brightest = max(colour)
    if brightest == 0:
        return "#3b3631", 1.0
    if brightest >= 100:
        r, g, b = colour
        return f"#{r:02x}{g:02x}{b:02x}", 1.0
    r, g, b = (round(c * 255 / brightest) for c in colour)
    return f"#{r:02x}{g:02x}{b:02x}", 0.45


def _led(name: str, frames: Sequence[LedFrame], x: float, y: float, r: float) -> str:
    index = CMAP.led(name)
    assert index is not None, name
    leds = [frame.leds[index] for frame in frames]
    fills = [_fill(led.colour) for led in leds]
    blink = leds[0].mode is LedMode.BLINK
    colour, opacity = fills[0]
    parts = [
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{colour}" fill-opacity="{opacity}" '
        f'stroke="#1e1b18" stroke-width="1.5"'
    ]
    if len(frames) > 1 and len({f for f in fills}) > 1:
        values = ";".join(c for c, _ in fills)
        ops = ";".join(f"{o}" for _, o in fills)
        dur = f"{len(frames) * SWEEP_STEP_S:.2f}s"
        parts.append(
            f'><animate attributeName="fill" values="{values}" dur="{dur}" calcMode="discrete" '
            f'repeatCount="indefinite"/><animate attributeName="fill-opacity" values="{ops}" '
            f'dur="{dur}" calcMode="discrete" repeatCount="indefinite"/></circle>'
        )
    elif blink:
        parts.append(
            '><animate attributeName="fill-opacity" values="1;1;0.15;0.15" dur="0.5s" '
            'calcMode="discrete" repeatCount="indefinite"/></circle>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r + 4}" fill="none" stroke="#1e1b18" '
            'stroke-width="1.2" stroke-dasharray="3 3"/>'
        )
    else:
        parts.append("/>")
    return "".join(parts)


def svg(frames: Sequence[LedFrame], title: str, kind: str = "perlen") -> str:
    """One picture: the LEDs of ``frames`` (one frame, or an animation of several)."""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" rx="14" fill="#d8b47c"/>',
        f'<rect x="{MARGIN - 8}" y="{MARGIN - 8}" width="{SIDE + 16}" height="{SIDE + 16}" '
        'rx="8" fill="#c49a5e" stroke="#8a6434" stroke-width="2"/>',
        '<g font-family="sans-serif" font-size="11" fill="#4a3419" text-anchor="middle">',
    ]
    if kind == "perlen":
        for i, file in enumerate(FILES):
            out.append(f'<text x="{MARGIN + STEP * (i + 0.5):.0f}" y="{MARGIN + SIDE + 5}">'
                       f"{file}</text>")  # fmt: skip
        for rank in range(1, 6):
            y = MARGIN + STEP * (5 - rank + 0.5) + 4
            out.append(f'<text x="{MARGIN - 2}" y="{y:.0f}" text-anchor="end">{rank}</text>')
    for seat in range(4):
        x, y = _seat_xy(seat)
        dy = -16 if seat == 2 else 24  # below the LED, except at the far side
        out.append(f'<text x="{x:.0f}" y="{y + dy + 4:.0f}">seat {seat + 1}</text>')
    for i, (_, label) in enumerate(BUTTONS):
        x = MARGIN + SIDE * (i + 0.5) / 3
        out.append(f'<text x="{x:.0f}" y="{HEIGHT - 12}">{escape(label)}</text>')
    if kind == "pyramidos":
        for name, (x, y) in _TARGET_XY.items():
            out.append(f'<text x="{x:.0f}" y="{y + 34:.0f}">{name}</text>')
    out.append("</g>")
    if kind == "perlen":
        for cell in CELLS:
            out.append(_led(cell, frames, *_cell_xy(cell), 14))
    else:
        for name, (x, y) in _TARGET_XY.items():
            out.append(_led(name, frames, x, y, 20 if name == "top" else 16))
    for seat in range(4):
        out.append(_led(f"seat:{seat}", frames, *_seat_xy(seat), 9))
    for i, (name, _) in enumerate(BUTTONS):
        out.append(_led(name, frames, MARGIN + SIDE * (i + 0.5) / 3, HEIGHT - 34, 9))
    out.append("</svg>\n")
    return "\n".join(out)


# -- the positions -------------------------------------------------------------------------


def _play(*cells: str) -> tuple[perlen.PerlenState, tuple[perlen.Bonus, ...]]:
    state = perlen.new_game()
    bonuses: tuple[perlen.Bonus, ...] = ()
    for cell in cells:
        state, bonuses = perlen.play(state, cell)
    return state, bonuses


def _frame(
    game: perlen.PerlenState | pyramidos.PyramidosState,
    players: Sequence[Light],
    pending: Sequence[perlen.Bonus] = (),
    mismatches: Sequence[Mismatch] = (),
    options: GuidanceOptions = CALM,
    take_off: tuple[str, ...] = (),
) -> LedFrame:
    """The LED frame of either game's position, as the referee asks its game for it."""
    if isinstance(game, perlen.PerlenState):
        lit = perlen_picture(game, players, tuple(pending), tuple(mismatches), options, take_off)
    else:
        lit = pyramidos_picture(game, players, tuple(mismatches), options)
    return to_frame(lit, CMAP)


def _layer3_bonus() -> tuple[perlen.PerlenState, tuple[perlen.Bonus, ...]]:
    """A real position where the next bonus to place is on layer 3 (its 3×3 footprint)."""
    rng = random.Random(4)
    while True:
        state = perlen.new_game()
        while not state.over:
            state, bonuses = perlen.play(state, rng.choice(perlen.legal_moves(state)))
            for i, bonus in enumerate(bonuses):
                if bonus.position.layer == 3 and not state.over:
                    return state, bonuses[i:]


def _finished(seed: int) -> perlen.PerlenState:
    rng = random.Random(seed)
    state = perlen.new_game()
    while not state.over:
        state, _ = perlen.play(state, rng.choice(perlen.legal_moves(state)))
    return state


def _pyr(*events: str, seats: int = 3) -> pyramidos.PyramidosState:
    state = pyramidos.new_game(seats)
    for text in events:
        state = pyramidos.apply(state, pyramidos.parse_event(text))
    return state


def pictures() -> dict[str, str]:
    """File name -> SVG text, for every picture of the guide."""
    after_c3, _ = _play("c3")
    bonus_state, bonus = _play("c3", "d4", "d3", "c4")
    three_state, three = _layer3_bonus()
    over = _finished(2)
    sweep = [_frame(over, PLAYERS, options=GuidanceOptions(sweep_frame=k))
             for k in range(SWEEP_PERIOD)]  # fmt: skip
    four = _pyr("land t1", "land t2", "land t3", "land t4", seats=2)
    # Undo of b3, which had earned 2:b2, 2:b3 and 3:b2: the top one's footprint first.
    undone, _ = _play("c3", "d4", "d3", "c4", "b4", "d2", "c2", "b2")
    top = parse_position("3:b2").footprint

    made: dict[str, tuple[list[LedFrame], str, str]] = {
        "leds-turn.svg": (
            [_frame(after_c3, PLAYERS)],
            "Seat 2's turn: its seat LED is lit",
            "perlen",
        ),
        "leds-children.svg": (
            [_frame(after_c3, PLAYERS, options=GuidanceOptions(children_help=True))],
            "Help for children: the allowed cells glow dimly in the mover's colour",
            "perlen",
        ),
        "leds-bonus.svg": (
            [_frame(bonus_state, PLAYERS, bonus)],
            "A bonus pearl for red on 2:c3: c3, d3, c4 and d4 blink red; confirm glows red",
            "perlen",
        ),
        "leds-bonus-layer3.svg": (
            [_frame(three_state, PLAYERS, three)],
            f"A bonus pearl on layer 3 ({three[0].position}): its 3×3 footprint blinks",
            "perlen",
        ),
        "leds-extra.svg": (
            [_frame(after_c3, PLAYERS, mismatches=[Mismatch("a1", MismatchKind.EXTRA)])],
            "A pearl where none belongs (a1) flashes white",
            "perlen",
        ),
        "leds-missing.svg": (
            [_frame(after_c3, PLAYERS, mismatches=[Mismatch("c3", MismatchKind.MISSING, 0)])],
            "A red pearl missing from c3: c3 blinks red",
            "perlen",
        ),
        "leds-take-off.svg": (
            [
                _frame(
                    undone,
                    PLAYERS,
                    mismatches=[Mismatch("b3", MismatchKind.EXTRA)],
                    take_off=top,
                )
            ],
            "A move taken back under bonus pearls: the cells under the top one, 3:b2, flash "
            "white until it is off",
            "perlen",
        ),
        "leds-thinking.svg": (
            [_frame(after_c3, PLAYERS, options=GuidanceOptions(thinking=True))],
            "A computer player is choosing: its seat LED blinks",
            "perlen",
        ),
        "leds-computer.svg": (
            [_frame(after_c3, PLAYERS, options=GuidanceOptions(computer_move="b2"))],
            "The computer player chose b2: place a blue pearl there for it",
            "perlen",
        ),
        "leds-hint.svg": (
            [_frame(after_c3, PLAYERS, options=GuidanceOptions(hint="d4"))],
            "A hint: d4 blinks in the mover's colour",
            "perlen",
        ),
        "leds-over.svg": (
            sweep,
            "Game over: the winner's colour sweeps the board",
            "perlen",
        ),
        "leds-pyramidos-turn.svg": (
            [_frame(_pyr("land t1", "end", "land t3"), PLAYERS)],
            "Pyramidos: t1 is red's, t3 yellow's; seat 1 to play; end turn glows",
            "pyramidos",
        ),
        "leds-pyramidos-top.svg": (
            [_frame(four, PLAYERS)],
            "Pyramidos: all four base targets hold a ball, the top is open and pulses",
            "pyramidos",
        ),
        "leds-pyramidos-closed-top.svg": (
            [_frame(_pyr("land t1"), PLAYERS, mismatches=[Mismatch("top", MismatchKind.EXTRA)])],
            "Pyramidos: a ball on the top before it is open flashes white",
            "pyramidos",
        ),
    }
    return {name: svg(frames, title, kind) for name, (frames, title, kind) in made.items()}


def main(argv: Sequence[str] | None = None, out: Path = OUT,
         write: Callable[[Path, str], None] | None = None) -> int:  # fmt: skip
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    stale = []
    for name, text in pictures().items():
        path = out / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        out.mkdir(parents=True, exist_ok=True)
        (write or (lambda p, t: p.write_text(t, encoding="utf-8")))(path, text)
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    if stale:
        print("out of date (run tools/guide_pictures.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
