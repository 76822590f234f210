"""The Python facade of one Rumble Nation game: set up from seed words or from a position, list
the legal steps, apply them, show what a seat sees, give the result.

For scenarios, tests, notebooks and custom bots; batch runs call the kernels directly
(``batch``). It translates between readable steps (the grammar in docs/rumble_nation.md) and the
kernels' integer actions, and holds no rule of its own: every rule is in ``nb_core``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from lab.errors import LabError
from lab.games.rumble_nation import nb_core
from lab.games.rumble_nation.board import AREAS, area_index
from lab.games.rumble_nation import nb_layout as L
from lab.games.rumble_nation.rules import RNRules

SEAT_NAMES = tuple(f"P{k + 1}" for k in range(L.MAXP))
N_SEED_WORDS = 12
DAIMYO_FLAG = "+daimyo"


class IllegalAction(LabError):
    """A step that is not legal now; the message lists the legal ones."""


def seats(rules: RNRules) -> tuple[str, ...]:
    return SEAT_NAMES[: rules.players]


def seed_words(seed) -> np.ndarray:
    """Twelve 32-bit words (deal and start player, dice, bots; 4 each) from an int seed, a
    SeedSequence, or the words themselves."""
    if isinstance(seed, (np.ndarray, list, tuple)):
        w = np.asarray(seed, dtype=np.int64)
        if w.shape != (N_SEED_WORDS,):
            raise ValueError(f"seed words: expected {N_SEED_WORDS}, got shape {w.shape}")
        w = w.copy()
    else:
        ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        w = ss.generate_state(N_SEED_WORDS, dtype=np.uint32).astype(np.int64)
    for k in (0, 4, 8):  # xoshiro must not start from four zero words
        if not w[k : k + 4].any():
            w[k] = 1
    return w


# ------------------------------------------------------------------ steps ⇄ actions
@dataclass(frozen=True)
class Action:
    text: str  # the step, e.g. "P1 place 7 with 6 +daimyo"
    code: int  # the kernel's action (nb_layout: 0 = reroll, else a placement)
    label: str  # the step with what it does, e.g. "P1 place 7 with 6: 3 soldiers in 京"

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Step:
    seat: int
    verb: str  # roll, reroll, place
    dice: tuple[int, ...] = ()
    token: int | None = None  # pair sum = token number, for place
    area: int | None = None  # area named instead of (or with) the token number
    single: int = 0
    daimyo: bool = False


_PLACE = re.compile(r"^place\s+(?:(\d+)\s+)?(\S+?)?\s*with\s+(\d)(\s+\+daimyo)?$")


def parse_step(text: str, source: str | None = None) -> Step:
    """A step string: ``P1 roll 3 4 6``, ``P1 reroll``, ``P1 place 7 with 6 [+daimyo]`` (the
    area may be named instead of, or after, the token number: ``P1 place 京 with 6``)."""
    parts = text.strip().split(None, 1)
    if len(parts) < 2 or parts[0] not in SEAT_NAMES:
        raise LabError(
            f"cannot read step \"{text}\": write `P1…P4 roll D D D`, `P1 reroll` or "
            "`P1 place SUM with DIE [+daimyo]`",
            source=source,
        )
    seat = SEAT_NAMES.index(parts[0])
    rest = parts[1].strip()
    if rest == "reroll":
        return Step(seat, "reroll")
    if rest.startswith("roll"):
        dice = rest[4:].split()
        if len(dice) != 3 or not all(d in "123456" and len(d) == 1 for d in dice):
            raise LabError(
                f"step \"{text}\": a roll is three dice 1–6, e.g. `P1 roll 3 4 6`", source=source
            )
        return Step(seat, "roll", tuple(int(d) for d in dice))
    m = _PLACE.match(rest)
    if rest.startswith("place") and m:
        num, name, single, daimyo = m.groups()
        if num is None and name is not None and name.isdigit():
            num, name = name, None
        if num is None and name is None:
            raise LabError(
                f"step \"{text}\": name the area by its token number or castle", source=source
            )
        if not 1 <= int(single) <= 6:
            raise LabError(f"step \"{text}\": the single die is 1–6", source=source)
        token = int(num) if num is not None else None
        if token is not None and not 2 <= token <= 12:
            raise LabError(f"step \"{text}\": token numbers are 2–12", source=source)
        area = area_index(name, source) if name else None
        return Step(
            seat, "place", token=token, area=area, single=int(single), daimyo=daimyo is not None
        )
    raise LabError(
        f"cannot read step \"{text}\": verbs are roll, reroll, place "
        "(`P1 place 7 with 6 [+daimyo]`)",
        source=source,
    )


# ------------------------------------------------------------------ the game
class Game:
    """One game of Rumble Nation under a rule set.

    >>> g = new_game(RNRules.preset("base_2p"), seed_words(1))
    >>> while not g.is_over:
    ...     g.step(g.legal_actions()[0])
    """

    def __init__(self, rules: RNRules, c: np.ndarray, s: np.ndarray):
        self.rules = rules
        self.c = c
        self.s = s
        self._acts = np.zeros(L.NACT, np.int64)
        self.history: list[str] = []  # every step applied, rolls included, in the grammar

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, rules: RNRules, words, first_seat: int | str | None = None) -> "Game":
        c = rules.context()
        s = np.zeros(L.S_SIZE, np.int64)
        nb_core.setup(s, c, seed_words(words), _seat_number(first_seat, rules))
        return cls(rules, c, s)

    @classmethod
    def from_position(
        cls,
        rules: RNRules,
        tokens: dict | None = None,
        seats_state: dict | None = None,
        first: str = "P1",
        seed=0,
        source: str | None = None,
    ) -> "Game":
        """A position written as a scenario writes it (docs/rumble_nation.md): ``tokens`` maps
        area names to token numbers (unlisted areas take the unlisted tokens in RN1 order);
        ``seats_state`` maps "P1"… to {soldiers = {area: n}, daimyo = area, "stock" or "" (not
        in play), stock = n, chip = n}. The dice and bot streams come from ``seed``."""
        c = rules.context()
        s = np.zeros(L.S_SIZE, np.int64)
        w = seed_words(seed)
        s[L.S_DICE_RNG : L.S_DICE_RNG + 4] = w[4:8]
        s[L.S_BOT_RNG : L.S_BOT_RNG + 4] = w[8:12]
        layout = _token_layout(tokens or {}, source)
        s[L.S_AREA : L.S_AREA + L.NA] = layout
        nb_core.clear(s, c)
        nb_core.link_board(s, c)
        _place_seats(s, rules, seats_state or {}, source)
        start = _seat_number(first, rules, source)
        nb_core.start_play(s, c, start)
        return cls(rules, c, s)

    # ------------------------------------------------------------------ state
    @property
    def seats(self) -> tuple[str, ...]:
        return seats(self.rules)

    @property
    def is_over(self) -> bool:
        return int(self.s[L.S_PHASE]) == L.PH_OVER

    @property
    def phase(self) -> str:
        return "over" if self.is_over else "placement"

    @property
    def to_move(self) -> str | None:
        return None if self.is_over else SEAT_NAMES[int(self.s[L.S_TO_MOVE])]

    @property
    def winner(self) -> str | None:
        w = int(self.s[L.S_WINNER])
        return None if w < 0 else SEAT_NAMES[w]

    @property
    def dice(self) -> tuple[int, int, int] | None:
        """The dice on the table, or None while the seat to move has yet to roll."""
        if self.is_over or int(self.s[L.S_STAGE]) != L.ST_CHOOSE:
            return None
        return tuple(int(x) for x in self.s[L.S_DIE : L.S_DIE + 3])

    def token_of(self, area: str | int) -> int:
        a = area if isinstance(area, int) else area_index(area)
        return int(self.s[L.S_SLOT + a]) + 2

    def area_of(self, token: int) -> str:
        return AREAS[int(self.s[L.S_AREA + token - 2])]

    def seat_field(self, seat: int, field: int) -> int:
        return int(self.s[L.S_P + field * L.MAXP + seat])

    # ------------------------------------------------------------------ chance
    def roll(self, dice: tuple[int, int, int] | None = None) -> tuple[int, int, int]:
        """Roll for the seat to move: the given dice (a scenario), or the game's dice stream."""
        if self.is_over or int(self.s[L.S_STAGE]) != L.ST_ROLL:
            raise IllegalAction(f"no roll is due now; legal: {self._legal_text()}")
        if dice is None:
            nb_core.roll(self.s)
        else:
            nb_core.set_dice(self.s, *dice)
        d = self.dice
        self.history.append(f"{self.to_move} roll {d[0]} {d[1]} {d[2]}")
        return d

    # ------------------------------------------------------------------ decisions
    def legal_actions(self) -> list[Action]:
        """The distinct legal decisions of the seat to move; rolls the dice first if they are
        due (from the game's dice stream)."""
        if self.is_over:
            return []
        if int(self.s[L.S_STAGE]) == L.ST_ROLL:
            self.roll()
        n = nb_core.legal(self.s, self.c, self._acts)
        return [self._action(int(a)) for a in self._acts[:n]]

    def step(self, action: Action | str | int) -> None:
        """Apply a legal step: an ``Action``, its text, a roll step, or an index into
        ``legal_actions()``."""
        if self.is_over:
            raise IllegalAction(f"the game is over ({self.summary()})")
        if isinstance(action, str):
            st = parse_step(action)
            if st.seat != int(self.s[L.S_TO_MOVE]):
                raise IllegalAction(f"\"{action}\": {self.to_move} is to move")
            if st.verb == "roll":
                self.roll(st.dice)
                return
            code = self._code(st, action)
        elif isinstance(action, Action):
            code = action.code
        else:
            legal = self.legal_actions()
            code = legal[int(action)].code
        if int(self.s[L.S_STAGE]) == L.ST_ROLL:
            self.roll()
        n = nb_core.legal(self.s, self.c, self._acts)
        if code not in self._acts[:n]:
            raise IllegalAction(
                f"\"{self._action(code).text}\" is not legal with the dice "
                f"{self.dice}; legal: {self._legal_text()}"
            )
        self.history.append(self._action(code).text)
        nb_core.apply(self.s, self.c, code)

    def _code(self, st: Step, text: str) -> int:
        if st.verb == "reroll":
            return L.A_REROLL
        token = st.token
        if st.area is not None:
            at = self.token_of(st.area)
            if token is not None and token != at:
                raise IllegalAction(f"\"{text}\": {AREAS[st.area]} holds token {at}, not {token}")
            token = at
        return nb_core.encode_place(token, st.single, int(st.daimyo))

    def _action(self, code: int) -> Action:
        who = SEAT_NAMES[int(self.s[L.S_TO_MOVE])]
        if code == L.A_REROLL:
            return Action(f"{who} reroll", code, f"{who} reroll all three dice")
        daimyo = (code - 1) & 1
        single = ((code - 1) >> 1) % 6 + 1
        token = (code - 1) // 12 + 2
        text = f"{who} place {token} with {single}" + (f" {DAIMYO_FLAG}" if daimyo else "")
        p = int(self.s[L.S_TO_MOVE])
        k = int(nb_core.placed_count(self.c, single, int(nb_core.in_stock(self.s, p))))
        what = (
            f"{k} soldier{'s' if k != 1 else ''}"
            if not daimyo
            else (
                f"the daimyo and {k - 1} soldier{'s' if k != 2 else ''}" if k > 1 else "the daimyo"
            )
        )
        return Action(text, code, f"{text}: {what} in {self.area_of(token)}")

    def _legal_text(self) -> str:
        if self.is_over:
            return "none (the game is over)"
        if int(self.s[L.S_STAGE]) == L.ST_ROLL:
            return f"{self.to_move} roll D D D"
        n = nb_core.legal(self.s, self.c, self._acts)
        return ", ".join(self._action(int(a)).text for a in self._acts[:n])

    # ------------------------------------------------------------------ what a seat sees
    def observation(self, seat: str | int) -> dict:
        """Everything seat may see — in Rumble Nation all of the board, stocks, chips and the
        dice on the table; only the dice to come are hidden (the generators are left out)."""
        p = _seat_number(seat, self.rules)
        names = self.seats
        areas = []
        for t in range(L.NA):
            here = {names[q]: int(self.s[L.S_MEN + t * L.MAXP + q]) for q in range(len(names))}
            areas.append(
                {
                    "token": t + 2,
                    "area": AREAS[int(self.s[L.S_AREA + t])],
                    "soldiers": {k: v for k, v in here.items() if v},
                    "daimyo": [
                        names[q] for q in range(len(names)) if self.seat_field(q, L.P_DAIMYO) == t
                    ],
                    "reinforcements": {
                        names[q]: int(self.s[L.S_REINF + t * L.MAXP + q])
                        for q in range(len(names))
                        if self.s[L.S_REINF + t * L.MAXP + q]
                    },
                    "large": _name(int(self.s[L.S_LARGE + t])),
                    "small": _name(int(self.s[L.S_SMALL + t])),
                    "adjacent": [int(u) + 2 for u in range(L.NA) if (self.s[L.S_ADJ + t] >> u) & 1],
                }
            )
        return {
            "seat": names[p],
            "phase": self.phase,
            "to_move": self.to_move,
            "dice": self.dice,
            "rerolled": bool(self.s[L.S_REROLLED]),
            "areas": areas,
            "seats": {
                names[q]: {
                    "stock": self.seat_field(q, L.P_STOCK),
                    "daimyo_in_stock": bool(self.seat_field(q, L.P_DSTOCK)),
                    "chip": self.seat_field(q, L.P_CHIP),
                    "score": self.seat_field(q, L.P_SCORE),
                }
                for q in range(len(names))
            },
        }

    def result(self) -> dict | None:
        """Scores, ranks, sword chips and the winner once the war phase is over; else None."""
        if not self.is_over:
            return None
        names = self.seats
        n = len(names)
        return {
            "winner": self.winner,
            "scores": {names[q]: self.seat_field(q, L.P_SCORE) for q in range(n)},
            "ranks": {names[q]: self.seat_field(q, L.P_RANK) for q in range(n)},
            "chips": {names[q]: self.seat_field(q, L.P_CHIP) for q in range(n)},
            "large": {t + 2: _name(int(self.s[L.S_LARGE + t])) for t in range(L.NA)},
            "small": {
                t + 2: _name(int(self.s[L.S_SMALL + t]))
                for t in range(L.NA)
                if self.s[L.S_SMALL + t] >= 0
            },
        }

    def redeal_hidden(self, seat: str | int, rng) -> "Game":
        """A copy with what no seat can see drawn again (numpy ``rng``): the dice still to come
        and the bots' stream. Everything else is public (RN1–RN3 hide nothing from the other
        players), so every seat's observation stays the same."""
        s = self.s.copy()
        words = rng.integers(1, 2**32, size=8, dtype=np.int64)
        s[L.S_DICE_RNG : L.S_DICE_RNG + 4] = words[:4]
        s[L.S_BOT_RNG : L.S_BOT_RNG + 4] = words[4:]
        return type(self)(self.rules, self.c.copy(), s)

    def summary(self) -> str:
        if not self.is_over:
            return f"placement, {self.to_move} to move"
        r = self.result()
        return f"{r['winner']} wins; " + ", ".join(f"{k} {v}" for k, v in r["scores"].items())

    def log_lines(self) -> list[str]:
        """Every step applied (rolls included), then the war phase once it is over."""
        return list(self.history) + (self.war_lines() if self.is_over else [])

    def war_lines(self) -> list[str]:
        """One line per area in war order: powers, who took the tokens (after the war)."""
        out = []
        for t in range(L.NA):
            pw = [
                f"{SEAT_NAMES[q]} {int(nb_core.power(self.s, t, q))}"
                for q in range(self.rules.players)
                if nb_core.present(self.s, t, q)
            ]
            w, sm = _name(int(self.s[L.S_LARGE + t])), _name(int(self.s[L.S_SMALL + t]))
            took = (
                "set aside"
                if w is None
                else f"{w} takes {t + 2}" + (f", {sm} takes {(t + 2) // 2}" if sm else "")
            )
            out.append(f"{t + 2:>2} {self.area_of(t + 2)}: {', '.join(pw) or 'empty'} → {took}")
        return out


def new_game(rules: RNRules, seed_words_, first_seat: int | str | None = None) -> Game:
    """Set-up from seed words (RN2): the token deal and, unless ``first_seat`` is given, the
    start player come from words 0–3; the dice from 4–7; the bots' choices from 8–11."""
    return Game.new(rules, seed_words_, first_seat)


# ------------------------------------------------------------------ helpers
def _name(seat: int) -> str | None:
    return None if seat < 0 else SEAT_NAMES[seat]


def _seat_number(seat, rules: RNRules, source: str | None = None) -> int:
    if seat is None:
        return -1
    if isinstance(seat, (int, np.integer)) and 0 <= seat < rules.players:
        return int(seat)
    if isinstance(seat, str) and seat in SEAT_NAMES[: rules.players]:
        return SEAT_NAMES.index(seat)
    raise LabError(
        f"seat {seat!r} is not one of {', '.join(seats(rules))} (players = {rules.players})",
        source=source,
    )


def _token_layout(tokens: dict, source: str | None) -> list[int]:
    """Area of each slot: the listed areas hold the listed tokens; the others take the unlisted
    tokens in RN1 order (徳山館 gets the smallest)."""
    area_of = [-1] * L.NA
    for name, token in tokens.items():
        a = area_index(name, source, "area in [tokens]")
        if isinstance(token, bool) or not isinstance(token, int) or not 2 <= token <= 12:
            raise LabError(
                f"[tokens] \"{name}\" = {token!r}: a token number is 2–12", source=source
            )
        if area_of[token - 2] >= 0:
            raise LabError(
                f"[tokens] token {token} is given to both "
                f"\"{AREAS[area_of[token - 2]]}\" and \"{name}\"",
                source=source,
            )
        area_of[token - 2] = a
    free_areas = [a for a in range(L.NA) if a not in area_of]
    for t in range(L.NA):
        if area_of[t] < 0:
            area_of[t] = free_areas.pop(0)
    return area_of


SEAT_KEYS = {"soldiers", "daimyo", "stock", "chip"}


def _place_seats(s, rules: RNRules, given: dict, source: str | None) -> None:
    """Write each seat's start state. Stock defaults to what the map leaves of the rules'
    soldiers; a position may hold fewer meeples than the rules give (the rest play no part),
    never more. Meeple conservation is then kept from this total on."""
    n = rules.players
    for key in given:
        if key not in SEAT_NAMES[:n]:
            raise LabError(f"[{key}]: not a seat; seats: {', '.join(seats(rules))}", source=source)
    holders = []
    for p in range(n):
        name = SEAT_NAMES[p]
        z = given.get(name, {})
        unknown = set(z) - SEAT_KEYS
        if unknown:
            raise LabError(
                f"[{name}]: unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                f"{', '.join(sorted(SEAT_KEYS))}",
                source=source,
            )
        on_map = 0
        for area, k in z.get("soldiers", {}).items():
            if isinstance(k, bool) or not isinstance(k, int) or k < 0:
                raise LabError(f"[{name}] soldiers \"{area}\" = {k!r}: a count ≥ 0", source=source)
            t = int(s[L.S_SLOT + area_index(area, source, f"area in [{name}] soldiers")])
            s[L.S_MEN + t * L.MAXP + p] = k
            on_map += k
        daimyo_at = z.get("daimyo", "stock" if rules.daimyo else "")
        if daimyo_at and not rules.daimyo:
            raise LabError(
                f"[{name}] daimyo = \"{daimyo_at}\" needs daimyo = true (RN6) in "
                "[overrides] or the advanced_4p preset",
                source=source,
            )
        s[L.S_P + L.P_DSTOCK * L.MAXP + p] = int(daimyo_at == "stock")
        if daimyo_at not in ("", "stock"):
            t = int(
                s[
                    L.S_SLOT
                    + area_index(daimyo_at, source, f"area in [{name}] daimyo (or \"stock\", \"\")")
                ]
            )
            s[L.S_P + L.P_DAIMYO * L.MAXP + p] = t
        stock = z.get("stock", rules.soldiers - on_map)
        if (
            isinstance(stock, bool)
            or not isinstance(stock, int)
            or stock < 0
            or stock + on_map > rules.soldiers
        ):
            raise LabError(
                f"[{name}]: stock {stock!r} + {on_map} soldiers on the map exceed the "
                f"rules' soldiers = {rules.soldiers}; raise soldiers in [overrides] "
                "or lower the counts",
                source=source,
            )
        s[L.S_P + L.P_STOCK * L.MAXP + p] = stock
        s[L.S_P + L.P_TOTAL * L.MAXP + p] = stock + on_map + int(daimyo_at != "")
        chip = z.get("chip", 0)
        left = stock + int(s[L.S_P + L.P_DSTOCK * L.MAXP + p])
        if (
            isinstance(chip, bool)
            or not isinstance(chip, int)
            or not 0 <= chip <= n
            or (left == 0) != (chip > 0)
        ):
            raise LabError(
                f"[{name}] chip = {chip!r}: a seat holds a sword chip (1–{n}) exactly "
                "when its stock is empty (RN3)",
                source=source,
            )
        s[L.S_P + L.P_CHIP * L.MAXP + p] = chip
        if chip:
            holders.append((chip, name))
    chips = sorted(c for c, _ in holders)
    if chips != list(range(n - len(chips) + 1, n + 1)):
        raise LabError(
            f"sword chips {', '.join(f'{nm}={c}' for c, nm in sorted(holders))}: "
            f"chips are taken biggest first, so {len(chips)} emptied stock(s) hold "
            f"{list(range(n, n - len(chips), -1))}",
            source=source,
        )
    s[L.S_NEXT_CHIP] = n - len(chips)
