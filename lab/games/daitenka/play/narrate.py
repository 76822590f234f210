"""Narration: the game's event log as one line per event — Japanese, or English with ``lang="en"``
(card and ability names as printed in both) — told from one seat.

The engine's log is full information (``lab.games.daitenka.engine.text.format_events``). Told to a player, the
opponent's hidden cards stay hidden (rules.md R1): the opponent's draws say only that a card was
drawn, a wall broken into the opponent's hand is not named, nor the 天守 card a 築城 puts in the
opponent's hand. The viewer's own draws and walls that reach the viewer's hand are named.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.layout import EV_BREAK, EV_BUILD, EV_DRAW, EV_WALL_TO_HAND
from lab.games.daitenka.engine.text import PHRASES, SEATS, event_lines, who_text


@dataclass(frozen=True)
class Line:
    seat: str  # "A", "B", or "" for a line about both (場は流れる)
    text: str
    kind: str = ""  # "turn" for a leader-turn header, "end" for the game's end


class Narrator:
    """Hands out the lines of the events logged since the last call."""

    def __init__(self, game: Game, viewer: str | None, lang: str = "ja"):
        self.game = game
        self.viewer = viewer  # None = full information (a replay viewer)
        self.lang = lang
        self.words = PHRASES[lang]
        self.cursor = 0

    def _hidden(self, row) -> str | None:
        """The line for an event whose card the viewer may not see, else None."""
        code, p, card, amt, x = (int(v) for v in row)
        if self.viewer is None or SEATS[p] == self.viewer:
            return None
        who = who_text(p, self.game.armies, self.lang)
        if code == EV_DRAW:
            return self.words["hidden_draw"].format(who=who)
        if code == EV_BREAK and amt == 0 and x == 0:
            return self.words["hidden_break"].format(who=who)
        if code == EV_BUILD and amt >= 0:
            return self.words["hidden_build"].format(who=who, card=self.game.names[card])
        return None

    def lines(self, rows) -> list[Line]:
        g = self.game
        out: list[Line] = []
        segment: list = []

        def flush():
            if segment:
                for seat, code, text in event_lines(
                    segment, g.names, g.ability_names, g.armies, self.lang
                ):
                    kind = {L.EV_TURN: "turn", L.EV_END: "end"}.get(code, "")
                    out.append(Line(SEATS[seat] if seat in (0, 1) else "", text, kind))
                segment.clear()

        for row in rows:
            code, p, card = int(row[0]), int(row[1]), int(row[2])
            hidden = self._hidden(row)
            if hidden is not None:
                flush()
                out.append(Line(SEATS[p], hidden))
            elif (
                code == EV_WALL_TO_HAND
                and card >= 0
                and (self.viewer is None or SEATS[p] == self.viewer)
            ):
                flush()
                text = event_lines([row], g.names, g.ability_names, g.armies, self.lang)[0][2]
                out.append(
                    Line(SEATS[p], self.words["named"].format(line=text, card=g.names[card]))
                )
            else:
                segment.append(row)
        flush()
        return out

    def take(self) -> list[Line]:
        g = self.game
        rows = g.events()[self.cursor :]
        self.cursor += len(rows)
        return self.lines(rows)
