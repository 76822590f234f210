"""The Python facade of the engine: one game you can step, inspect and log.

For notebooks, tests, scenarios and custom bots. It builds the context and state arrays, calls the
kernels, and translates between action rows and the scenario step grammar; it holds no rule of its
own. Batch runs do not use it (they call the kernels directly).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lab.games.daitenka.cards.pool import CardPool, Deck, load_army, load_pool
from lab.games.daitenka.engine import nb_actions, nb_core, nb_play, nb_resolve
from lab.games.daitenka.engine.context import build_context, local_types, matchup_context
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.view import COUNT_ZONES, STACK_ZONES, StateView
from lab.games.daitenka.engine.text import (
    SEATS,
    Step,
    StepSyntaxError,
    format_events,
    parse_step,
    row_to_step,
    step_text,
)
from lab.errors import LabError
from lab.games.daitenka.rules import RuleSet

LOG_CAP = 200_000


class IllegalAction(LabError):
    """A step that is not legal now; the message lists the legal ones."""


@dataclass(frozen=True)
class Action:
    text: str  # the scenario step, e.g. "A lead 足軽3,足軽3 +車懸り"
    row: tuple[int, ...]  # the encoded action row (see lab.games.daitenka.engine.layout)

    def __str__(self) -> str:
        return self.text


def seed_words(seed) -> np.ndarray:
    """Twelve 32-bit words (seat A's deal, seat B's deal, play; 4 each) from an int seed or a
    SeedSequence."""
    if isinstance(seed, (np.ndarray, list, tuple)):
        w = np.asarray(seed, dtype=np.int64)
        if w.shape != (L.N_SEED_WORDS,):
            raise ValueError(f"seed words: expected {L.N_SEED_WORDS}, got {w.shape}")
        return w.copy()
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    w = ss.generate_state(L.N_SEED_WORDS, dtype=np.uint32).astype(np.int64)
    for k in (0, 4, 8):
        if not w[k : k + 4].any():
            w[k] = 1
    return w


class Game:
    """One game of 大天下 between two armies under a rule set.

    >>> g = Game(RuleSet(), "oda", "seigun", seed=1)
    >>> while not g.is_over:
    ...     g.step(g.legal_actions()[0])
    """

    def __init__(
        self,
        rules: RuleSet | str | None = None,
        army_a: Deck | str = "oda",
        army_b: Deck | str = "oda",
        seed=0,
        first: str | int | None = None,
        pool: CardPool | None = None,
        log: bool = False,
        _position=None,
    ):
        self.pool = pool or load_pool()
        if rules is None:
            rules = RuleSet()
        elif isinstance(rules, str):
            rules = RuleSet.preset(rules)
        if first is not None:
            rules = rules.with_overrides(
                {"first_player": SEATS[first] if isinstance(first, int) else first}
            )
        self.rules = rules
        self.s = np.zeros(L.S_SIZE, dtype=np.int64)
        self.lg = np.zeros((LOG_CAP if log else 1, L.LW), dtype=np.int64)
        self.s[L.G_LOG_ON] = int(log)
        self._acts = np.zeros((L.MAXA, L.AW), dtype=np.int64)
        self._wk = np.zeros(nb_actions.WK_SIZE, dtype=np.int64)
        if _position is None:
            self.decks = tuple(
                d if isinstance(d, Deck) else load_army(d, self.pool) for d in (army_a, army_b)
            )
            self.c = matchup_context(self.pool, rules, *self.decks)
            self.armies = tuple(d.name for d in self.decks)
            nb_play.setup(self.s, self.c, self.lg, seed_words(seed))
        else:
            self.decks = None
            self.armies = ("A", "B")
            self.c = _position(self)
        n = int(self.c[L.C_NLOC])
        self.names = [self.pool.cards[int(self.c[L.C_GTYPE + i])].name for i in range(n)]
        self.ability_names = {}
        for i in range(n):
            card = self.pool.cards[int(self.c[L.C_GTYPE + i])]
            rows = [a.name for a in card.abilities for _ in a.rows]
            self.ability_names[i] = dict(enumerate(rows))
        self._legal: list[Action] | None = None

    # ------------------------------------------------------------------ state
    @property
    def is_over(self) -> bool:
        return int(self.s[L.G_PHASE]) == L.PH_OVER

    @property
    def winner(self) -> str | None:
        w = int(self.s[L.G_WINNER])
        return None if w < 0 else ("draw" if w == 2 else SEATS[w])

    @property
    def end_reason(self) -> str:
        return L.END_NAMES[int(self.s[L.G_END])]

    @property
    def to_move(self) -> str:
        return SEATS[int(self.s[L.G_TO_MOVE])]

    @property
    def decisions(self) -> int:
        return int(self.s[L.G_DECISIONS])

    def _begin(self):
        if int(self.s[L.G_PHASE]) == L.PH_LEADER_START:
            nb_resolve.begin_turn(self.s, self.c, self.lg)
            self._legal = None

    # ------------------------------------------------------------------ actions
    def legal_actions(self) -> list[Action]:
        """The distinct legal decisions of the player to move (starts a due leader turn)."""
        if self.is_over:
            return []
        self._begin()
        if self._legal is None:
            n = nb_actions.legal_actions(self.s, self.c, self._acts, self._wk)
            seat = int(self.s[L.G_TO_MOVE])
            self._legal = [
                Action(
                    step_text(row_to_step(self._acts[k], seat, self.names)),
                    tuple(int(x) for x in self._acts[k]),
                )
                for k in range(n)
            ]
        return list(self._legal)

    def step(self, action: Action | str | int | tuple) -> None:
        """Apply a legal action: an ``Action``, its step text, its index in ``legal_actions()``
        or its encoded row. Illegal input raises ``IllegalAction`` listing the legal steps."""
        legal = self.legal_actions()
        if self.is_over:
            raise IllegalAction("the game is over")
        row = self._resolve(action, legal)
        nb_resolve.apply(self.s, self.c, self.lg, np.asarray(row, dtype=np.int64))
        self._legal = None

    def _resolve(self, action, legal: list[Action]) -> tuple:
        if isinstance(action, Action):
            action = action.row
        if isinstance(action, (int, np.integer)):
            if not 0 <= action < len(legal):
                raise IllegalAction(f"no action number {action}; there are {len(legal)}")
            return legal[action].row
        if isinstance(action, tuple):
            for a in legal:
                if a.row == action:
                    return a.row
            raise IllegalAction(
                f"action {action} is not legal now; legal: " + "; ".join(a.text for a in legal)
            )
        try:
            want = parse_step(str(action))
        except StepSyntaxError as e:
            raise IllegalAction(f"{e}; legal now: " + "; ".join(a.text for a in legal)) from None
        seat = int(self.s[L.G_TO_MOVE])
        for a in legal:
            have = row_to_step(a.row, seat, self.names)
            if have.key() == want.key():
                return self._reorder(a.row, want.cards)
        raise IllegalAction(
            f"\"{action}\" is not legal now ({SEATS[seat]} to move); legal: "
            + "; ".join(a.text for a in legal)
        )

    def _reorder(self, row: tuple, written: tuple[str, ...]) -> tuple:
        """Keep the card order the step was written in (it orders on-win effects, R6)."""
        row = list(row)
        if row[L.AX_KIND] not in (L.A_LEAD, L.A_ANSWER) or row[L.AX_N] < 2:
            return tuple(row)
        ids = [row[L.AX_C0 + j] for j in range(row[L.AX_N])]
        ordered = []
        for nm in written:
            for k, i in enumerate(ids):
                if i >= 0 and self.names[i] == nm:
                    ordered.append(i)
                    ids[k] = -1
                    break
        for j, i in enumerate(ordered):
            row[L.AX_C0 + j] = i
        return tuple(row)

    # ------------------------------------------------------------------ views
    @property
    def view(self) -> StateView:
        """The state read by name (``lab.games.daitenka.engine.view``): ``game.view.hand("A")``,
        ``game.view.turns`` …"""
        return StateView(self.s, self.c, self.names)

    def zone(self, seat: str | int, name: str):
        """One zone of one player, as the scenario format names it (full information)."""
        v = self.view
        if name in COUNT_ZONES:
            return v.counts(seat, name)
        if name in STACK_ZONES:
            return v.stack(seat, name)
        readers = {
            "hand_count": v.hand_count,
            "deck_count": v.deck_count,
            "wall_count": v.wall_count,
            "castle": v.castle,
            "castle_damaged": v.castle_damaged,
        }
        if name not in readers:
            raise KeyError(name)
        return readers[name](seat)

    @property
    def leader_turn_due(self) -> bool:
        """A leader turn is due and its automatic steps (draw) have not happened yet."""
        return int(self.s[L.G_PHASE]) == L.PH_LEADER_START

    @property
    def in_mulligan(self) -> bool:
        return int(self.s[L.G_PHASE]) == L.PH_MULLIGAN

    @property
    def leader(self) -> str:
        """Who takes the next leader turn ("" while a battle is open or the game is over)."""
        if int(self.s[L.G_OPEN]) or self.is_over:
            return ""
        return SEATS[int(self.s[L.G_LEADER])]

    def field(self) -> dict:
        v = self.view
        return {
            "open": bool(v.open),
            "top": v.top(),
            "top_owner": v.top_owner_seat(),
            "top_kurumagakari": v.top_kurumagakari >= 0,
            "plays": {seat: v.plays(seat) for seat in SEATS},
            "cards": {seat: v.field_cards(seat) for seat in SEATS},
        }

    def observation(self, player: str | int) -> dict:
        """What ``player`` may see (rules.md R1): own hand; both camps, graveyards, the field,
        logistics and castles; every zone's count; opponent hand cards known to be there."""
        p = SEATS.index(player) if isinstance(player, str) else player
        q = 1 - p
        me, opp = SEATS[p], SEATS[q]
        pub = {}
        for seat in SEATS:
            pub[seat] = {
                k: self.zone(seat, k)
                for k in (
                    "camp_up",
                    "camp_down",
                    "graveyard",
                    "logistics",
                    "castle",
                    "castle_damaged",
                    "hand_count",
                    "deck_count",
                    "wall_count",
                )
            }
        pub[me]["hand"] = self.zone(me, "hand")
        pub[opp]["known_hand"] = self.view.known_hand(me)
        return {
            "player": me,
            "to_move": self.to_move,
            "phase": int(self.s[L.G_PHASE]),
            "leader_turns": int(self.s[L.G_TURNS]),
            "field": self.field(),
            "players": pub,
            "rules": self.rules.as_dict(),
        }

    def events(self) -> np.ndarray:
        n = min(int(self.s[L.G_LOG_N]), self.lg.shape[0])
        return self.lg[:n].copy()

    def log_lines(self, lang: str = "ja") -> list[str]:
        """The event log, one line per event (``lang="en"``: in English)."""
        return format_events(self.events(), self.names, self.ability_names, self.armies, lang)

    def summary(self) -> str:
        if not self.is_over:
            return f"running — {self.to_move} to move"
        w = self.winner
        who = "draw" if w == "draw" else f"{w} ({self.armies[SEATS.index(w)]}) wins"
        return (
            f"{who} by {self.end_reason} after {int(self.s[L.G_TURNS])} leader turns, "
            f"{int(self.s[L.G_BATTLES])} battles; walls A {self.zone('A', 'wall_count')} – "
            f"B {self.zone('B', 'wall_count')}"
        )

    def result(self) -> dict | None:
        """The winner ("A", "B" or "draw"), how the game ended, its length and the walls left,
        once it is over; else None."""
        if not self.is_over:
            return None
        return {
            "winner": self.winner,
            "end_reason": self.end_reason,
            "leader_turns": int(self.s[L.G_TURNS]),
            "battles": int(self.s[L.G_BATTLES]),
            "walls": {seat: self.zone(seat, "wall_count") for seat in SEATS},
        }

    def redeal_hidden(self, seat: str | int, rng) -> "Game":
        """A copy with what ``seat`` cannot see dealt again (numpy ``rng``): each player's deck
        and walls, and the opponent's hand cards ``seat`` does not know, moved among that
        player's hidden places — the same observation for ``seat``, another game for the rest."""
        observer = SEATS.index(seat) if isinstance(seat, str) else int(seat)
        h = self.copy()
        s = h.s
        n = int(h.c[L.C_NLOC])
        for q in (0, 1):
            b = L.H_SIZE + q * L.P_SIZE
            pool = [int(s[b + L.PB_DECK + k]) for k in range(int(s[b + L.PB_DECK_N]))]
            pool += [int(s[b + L.PB_WALLS + k]) for k in range(int(s[b + L.PB_WALL_N]))]
            unknown = []
            if q != observer:
                ob = L.H_SIZE + observer * L.P_SIZE
                for i in range(n):
                    for _ in range(int(s[b + L.PB_HAND + i] - s[ob + L.PB_KNOWN + i])):
                        unknown.append(i)
            for i in unknown:
                s[b + L.PB_HAND + i] -= 1
            pool += unknown
            rng.shuffle(pool)
            d, w = int(s[b + L.PB_DECK_N]), int(s[b + L.PB_WALL_N])
            for k in range(d):
                s[b + L.PB_DECK + k] = pool[k]
            for k in range(w):
                s[b + L.PB_WALLS + k] = pool[d + k]
            for i in pool[d + w :]:
                s[b + L.PB_HAND + i] += 1
            mask = 0
            for i in range(n):
                if s[b + L.PB_HAND + i] > 0:
                    mask |= 1 << i
            s[b + L.PB_HAND_MASK] = mask
        return h

    def copy(self) -> "Game":
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.s = self.s.copy()
        g.lg = self.lg.copy()
        g._acts = np.zeros_like(self._acts)
        g._wk = np.zeros_like(self._wk)
        g._legal = None
        return g

    # ------------------------------------------------------------------ for compiled players
    def kernel_args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(state, context, log) for a compiled kernel that acts on this game in place, such
        as a bot's policy; call ``changed()`` if it moved the game on."""
        return self.s, self.c, self.lg

    def changed(self) -> None:
        """The state was changed outside ``step`` (a compiled loop played on): forget the
        cached legal actions."""
        self._legal = None

    def state_for_bot(self, play_words) -> np.ndarray:
        """A copy of the state for a bot to decide on: the log off and the play stream set to
        ``play_words`` (4 words), so the game's own stream is left to the rules' random
        effects and the game replays from its steps alone."""
        s = self.s.copy()
        s[L.G_LOG_ON] = 0
        s[L.G_RNG : L.G_RNG + 4] = np.asarray(play_words, dtype=np.int64)
        return s

    # ------------------------------------------------------------------ positions
    @classmethod
    def from_position(
        cls,
        rules: RuleSet,
        zones: dict,
        first: str,
        seed: int = 0,
        pool: CardPool | None = None,
        log: bool = False,
        source: str | None = None,
    ) -> "Game":
        """A game set to an explicit position (the scenario format): ``zones[seat]`` maps zone
        names (deck top first, walls 天守 first, logistics oldest first) to card names."""
        pool = pool or load_pool()

        def place(game: "Game") -> np.ndarray:
            cards = {}
            for seat in SEATS:
                z = zones.get(seat, {})
                names = [
                    n
                    for k in (
                        "deck",
                        "hand",
                        "walls",
                        "camp_up",
                        "camp_down",
                        "graveyard",
                        "logistics",
                    )
                    for n in z.get(k, [])
                ]
                if z.get("castle"):
                    names.append(z["castle"])
                cards[seat] = [pool.get(n, source=source, entry=f"[{seat}]").index for n in names]
            ta, tb = local_types(cards["A"], cards["B"])
            c = build_context(pool, rules, ta, tb)
            lid = [{g: i for i, g in enumerate(ta)}, {g: len(ta) + i for i, g in enumerate(tb)}]
            s = game.s
            nb_play.clear(s, seed_words(seed))
            for p, seat in enumerate(SEATS):
                z = zones.get(seat, {})
                b = L.H_SIZE + p * L.P_SIZE

                def ids(key):
                    return [lid[p][pool.get(n, source=source).index] for n in z.get(key, [])]

                deck = ids("deck")
                if len(deck) > L.DECK_CAP:
                    raise LabError(
                        f"[{seat}] deck holds {len(deck)} cards; at most {L.DECK_CAP}",
                        source=source,
                    )
                for k, i in enumerate(reversed(deck)):
                    s[b + L.PB_DECK + k] = i
                s[b + L.PB_DECK_N] = len(deck)
                walls = ids("walls")
                total = len(walls) + (1 if z.get("castle") else 0)
                if total > rules.walls:
                    raise LabError(
                        f"[{seat}] holds {total} walls (castle included) but the "
                        f"rules allow {rules.walls}; remove "
                        f"{total - rules.walls}",
                        source=source,
                    )
                for k, i in enumerate(walls):
                    s[b + L.PB_WALLS + k] = i
                s[b + L.PB_WALL_N] = len(walls)
                logi = ids("logistics")
                if len(logi) > L.LOGI_CAP:
                    raise LabError(
                        f"[{seat}] logistics holds more than {L.LOGI_CAP} cards", source=source
                    )
                for k, i in enumerate(logi):
                    s[b + L.PB_LOGI + k] = i
                s[b + L.PB_LOGI_N] = len(logi)
                for i in ids("hand"):
                    nb_core.hand_add(s, p, i)
                for i in ids("camp_up"):
                    _check_unit(c, i, seat, "camp_up", source)
                    nb_core.camp_add(s, p, i, True)
                for i in ids("camp_down"):
                    _check_unit(c, i, seat, "camp_down", source)
                    nb_core.camp_add(s, p, i, False)
                for i in ids("graveyard"):
                    s[b + L.PB_GRAVE + i] += 1
                if z.get("castle"):
                    cs = lid[p][pool.get(z["castle"], source=source).index]
                    if not c[L.C_FLAGS + cs] & L.F_CASTLE:
                        raise LabError(
                            f"[{seat}] castle = \"{z['castle']}\" is not a castle", source=source
                        )
                    s[b + L.PB_CASTLE] = cs
                    s[b + L.PB_CASTLE_DMG] = int(bool(z.get("castle_damaged", False)))
            p0 = SEATS.index(first)
            s[L.G_FIRST] = p0
            s[L.G_LEADER] = p0
            s[L.G_TO_MOVE] = p0
            s[L.G_PHASE] = L.PH_LEADER_START
            return c

        return cls(rules, seed=seed, pool=pool, log=log, _position=place)


def _check_unit(c, i, seat, zone, source):
    if not c[L.C_FLAGS + i] & L.F_UNIT:
        raise LabError(f"[{seat}] {zone}: only units stand in a camp", source=source)


def play_random_game(
    rules: RuleSet | str | None = None,
    army_a="oda",
    army_b="oda",
    seed=0,
    log: bool = False,
    pool: CardPool | None = None,
) -> Game:
    """A whole game between two random bots, through the compiled loop."""
    g = Game(rules, army_a, army_b, seed=seed, log=log, pool=pool)
    nb_play.play_random(g.s, g.c, g.lg, g._acts, g._wk)
    return g


__all__ = ["Action", "Game", "IllegalAction", "play_random_game", "seed_words", "Step"]
