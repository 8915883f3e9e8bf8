"""A deliberately plain Perlen-Pyramide: lists of lists, written straight from RULES.md.

It shares no code with controller.games.perlen.rules, so the tests can check one against the
other over thousands of random games, and bench/engine.py measures how much faster the
bitmask engine is.
"""

from __future__ import annotations

FILES = "abcde"


class PlainGame:
    def __init__(
        self,
        pools: str = "strict",
        start: str = "anywhere",
        placement: str = "touching",
    ) -> None:
        self.layers: list[list[list[int | None]]] = [
            [[None] * n for _ in range(n)] for n in (5, 4, 3, 2, 1)
        ]
        self.used = [0, 0, 0]
        self.to_move: int | None = 0
        self.pools = pools
        self.start = start
        self.placement = placement
        self.placed: list[tuple[str, int, str]] = []

    def legal(self) -> list[str]:
        base = self.layers[0]
        if self.to_move is None:
            return []
        empty_board = all(base[r][f] is None for r in range(5) for f in range(5))
        out = []
        for r in range(5):
            for f in range(5):
                if base[r][f] is not None:
                    continue
                if empty_board:
                    if self.start == "centre" and (f, r) != (2, 2):
                        continue
                elif self.placement == "touching":
                    touching = False
                    for dr in (-1, 0, 1):
                        for df in (-1, 0, 1):
                            rr, ff = r + dr, f + df
                            if (
                                (dr or df)
                                and 0 <= rr < 5
                                and 0 <= ff < 5
                                and base[rr][ff] is not None
                            ):
                                touching = True
                    if not touching:
                        continue
                out.append(f"{FILES[f]}{r + 1}")
        return out

    def _take(self, colour: int) -> int:
        if self.pools == "strict":
            for step in range(3):
                c = (colour + step) % 3
                if self.used[c] < 25:
                    colour = c
                    break
        self.used[colour] += 1
        return colour

    def play(self, cell: str) -> None:
        assert cell in self.legal(), cell
        assert self.to_move is not None
        f, r = FILES.index(cell[0]), int(cell[1]) - 1
        mover = self.to_move
        self.layers[0][r][f] = mover
        self.used[mover] += 1
        self.placed.append((f"1:{cell}", mover, "base"))
        changed = True
        while changed:
            changed = False
            for layer in range(4):
                below = self.layers[layer]
                above = self.layers[layer + 1]
                for rr in range(len(above)):
                    for ff in range(len(above)):
                        group = [
                            below[rr][ff],
                            below[rr][ff + 1],
                            below[rr + 1][ff],
                            below[rr + 1][ff + 1],
                        ]
                        if above[rr][ff] is not None or None in group:
                            continue
                        counts = [group.count(c) for c in range(3)]
                        if 4 in counts:
                            owed = (counts.index(4) + 1) % 3
                        elif 3 in counts:
                            owed = counts.index(3)
                        elif sorted(counts) == [0, 2, 2]:
                            owed = counts.index(0)
                        else:
                            owed = counts.index(2)
                        colour = self._take(owed)
                        above[rr][ff] = colour
                        self.placed.append((f"{layer + 2}:{FILES[ff]}{rr + 1}", colour, "bonus"))
                        changed = True
        if all(self.layers[0][r][f] is not None for r in range(5) for f in range(5)):
            self.to_move = None
            return
        nxt = (mover + 1) % 3
        if self.pools == "strict":
            while self.used[nxt] >= 25:
                nxt = (nxt + 1) % 3
        self.to_move = nxt

    def visible(self) -> list[int]:
        out = [0, 0, 0]
        for layer in self.layers:
            n = len(layer)
            for r in range(n):
                for f in range(n):
                    c = layer[r][f]
                    if c is not None and (r in (0, n - 1) or f in (0, n - 1)):
                        out[c] += 1
        return out
