"""A read-only view of one game's arrays, by the names the layout tables declare.

``Game.view`` is one of these; so is the view of any state array a kernel filled. Header fields
read as attributes in lower case (``view.turns``, ``view.battles``; a per-seat field is a method
taking the seat: ``view.plays("A")``), zones by the scenario format's names (``view.hand("A")``,
``view.walls("B")``), so nothing outside the engine reads an offset. Every name comes from
``lab.games.daitenka.engine.layout``: a field added there is readable here without an edit.
"""

from __future__ import annotations

import numpy as np

from lab.games.daitenka.engine import layout as L

SEATS = "AB"
PHASE_NAMES = {
    L.PH_LEADER_START: "leader_start",
    L.PH_LEADER: "leader",
    L.PH_LEADER_ACT: "leader_act",
    L.PH_RESPONSE: "response",
    L.PH_MULLIGAN: "mulligan",
    L.PH_OVER: "over",
}
# zones of the scenario format and the player-block fields behind them
COUNT_ZONES = {
    "hand": "HAND",
    "camp_up": "UP",
    "camp_down": "DOWN",
    "graveyard": "GRAVE",
    "field": "FIELD",
    "known_hand": "KNOWN",
}
STACK_ZONES = {
    "deck": ("DECK", "DECK_N"),
    "walls": ("WALLS", "WALL_N"),
    "logistics": ("LOGI", "LOGI_N"),
}
_HEADER = {f.name.lower(): f for f in L.HEADER}
_PLAYER = {f.name: f for f in L.PLAYER}


def _seat(seat) -> int:
    return SEATS.index(seat) if isinstance(seat, str) else int(seat)


class StateView:
    """What a state array holds, read by name. ``names[i]`` is local id i's card name."""

    def __init__(self, s: np.ndarray, c: np.ndarray, names: list[str]):
        self._s, self._c, self._names = s, c, names

    # ------------------------------------------------------------------ the header
    def __getattr__(self, name: str):
        f = _HEADER.get(name)
        if f is None:
            raise AttributeError(f"no state field {name!r}; header fields: {', '.join(_HEADER)}")
        if f.size == 1:
            return int(self._s[f.offset])
        if f.size == 2:  # one slot per seat
            return lambda seat: int(self._s[f.offset + _seat(seat)])
        return tuple(int(x) for x in self._s[f.offset : f.offset + f.size])

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(_HEADER))

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[int(self._s[L.G_PHASE])]

    # ------------------------------------------------------------------ a player's zones
    def _base(self, seat) -> int:
        return L.H_SIZE + _seat(seat) * L.P_SIZE

    def _field(self, seat, name: str) -> int:
        return self._base(seat) + _PLAYER[name].offset

    def counts(self, seat, zone: str) -> dict[str, int]:
        """A count zone (hand, camp_up, camp_down, graveyard, field, known_hand) as
        {card name: copies}; copies of a card type held under two local ids are added."""
        at = self._field(seat, COUNT_ZONES[zone])
        out: dict[str, int] = {}
        for i in range(int(self._c[L.C_NLOC])):
            k = int(self._s[at + i])
            if k:
                out[self._names[i]] = out.get(self._names[i], 0) + k
        return out

    def stack(self, seat, zone: str) -> list[str]:
        """A stack zone as the scenario format lists it: deck top first, walls 天守 first,
        logistics oldest first."""
        cards, count = STACK_ZONES[zone]
        at, n = self._field(seat, cards), int(self._s[self._field(seat, count)])
        names = [self._names[int(self._s[at + k])] for k in range(n)]
        return names[::-1] if zone == "deck" else names

    def hand(self, seat):
        return self.counts(seat, "hand")

    def camp_up(self, seat):
        return self.counts(seat, "camp_up")

    def camp_down(self, seat):
        return self.counts(seat, "camp_down")

    def graveyard(self, seat):
        return self.counts(seat, "graveyard")

    def field_cards(self, seat):
        return self.counts(seat, "field")

    def known_hand(self, seat):
        """The cards of the *other* seat's hand that ``seat`` knows are there (R1)."""
        return self.counts(seat, "known_hand")

    def deck(self, seat):
        return self.stack(seat, "deck")

    def walls(self, seat):
        return self.stack(seat, "walls")

    def logistics(self, seat):
        return self.stack(seat, "logistics")

    def hand_count(self, seat) -> int:
        return int(self._s[self._field(seat, "HAND_N")])

    def deck_count(self, seat) -> int:
        return int(self._s[self._field(seat, "DECK_N")])

    def wall_count(self, seat) -> int:
        """Walls as the rules count them: the home castle is one (R11; ruling T5)."""
        return int(self._s[self._field(seat, "WALL_N")]) + (self.castle_id(seat) >= 0)

    def castle_id(self, seat) -> int:
        return int(self._s[self._field(seat, "CASTLE")])

    def castle(self, seat) -> str:
        cs = self.castle_id(seat)
        return self._names[cs] if cs >= 0 else ""

    def castle_damaged(self, seat) -> bool:
        return bool(self._s[self._field(seat, "CASTLE_DMG")])

    # ------------------------------------------------------------------ as arrays, by local id
    def card_types(self) -> np.ndarray:
        """The pool index (global card type) of each local id: a read-only view."""
        out = self._c[L.C_GTYPE : L.C_GTYPE + int(self._c[L.C_NLOC])]
        out.flags.writeable = False
        return out

    def count_array(self, seat, zone: str) -> np.ndarray:
        """A count zone (as ``counts``) as copies per local id: a read-only view of the state."""
        at = self._field(seat, COUNT_ZONES[zone])
        out = self._s[at : at + int(self._c[L.C_NLOC])]
        out.flags.writeable = False
        return out

    def stack_array(self, seat, zone: str) -> np.ndarray:
        """A stack zone's local ids as stored (the deck's top last): a read-only view."""
        cards, count = STACK_ZONES[zone]
        at = self._field(seat, cards)
        out = self._s[at : at + int(self._s[self._field(seat, count)])]
        out.flags.writeable = False
        return out

    def top_array(self) -> np.ndarray:
        """The top set's local ids in the order played: a read-only view."""
        out = self._s[L.G_TOP_CARDS : L.G_TOP_CARDS + self.top_n]
        out.flags.writeable = False
        return out

    # ------------------------------------------------------------------ the field
    def top(self) -> list[str]:
        """The top set's cards, in the order played."""
        return [self._names[int(self._s[L.G_TOP_CARDS + j])] for j in range(self.top_n)]

    def top_owner_seat(self) -> str:
        return SEATS[self.top_owner] if self.top_owner >= 0 else ""


def describe() -> list[tuple[str, str, int, int, str]]:
    """Every field of the state as (table, name, offset, size, meaning): the layout as a
    reader wants it (``lab.games.daitenka.engine.layout`` declares it)."""
    rows = [("header", f.name, f.offset, f.size, f.meaning) for f in L.HEADER]
    rows += [("player", f.name, f.offset, f.size, f.meaning) for f in L.PLAYER]
    rows += [("statistics", f.name, f.offset, f.size, f.meaning) for f in L.STATS]
    return rows
