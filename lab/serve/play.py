"""The 試験場 page's matches: set up from the page's form, stepped by the human's clicks, and shown
as the human's seat may see it — for 大天下 and Rumble Nation.

Owns the matches a server holds (``Matches``: an id each, a lock each, the oldest dropped past a
limit), the form ⇄ settings translation (every rule toggle with its allowed values, as ``lab
rules`` lists them), and ``view()`` — the only thing a page or its JSON is built from. A 大天下
view holds what rules.md R1 lets the seat see: its own hand, both camps, graveyards, logistics,
castles and the field, every zone's count, the opponent's hand cards known to be there, the
narration of ``lab.play.narrate`` told from the seat, and the seat's legal actions; never the
opponent's hand, a deck's order, a wall card or the seed (which decides them) before the end.
The matches themselves are ``lab.play.match.Match`` and the Rumble Nation facade, set up and
recorded as ``lab play`` does; nothing here holds a rule.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import fields
from pathlib import Path

from lab.errors import LabError

MAX_MATCHES = 64  # matches a server keeps; the oldest is dropped first
GAMES = ("daitenka", "rumble_nation")
DAITENKA_SEATS = ("A", "B")


# ------------------------------------------------------------------------------ rule toggles

def rule_fields(game: str, preset: str, overrides: dict | None = None) -> list[dict]:
    """Every toggle of ``game`` under ``preset`` + ``overrides``: key, shown value, the
    preset's value, allowed values (a list, or (lowest, highest)), input kind, meaning."""
    if game == "rumble_nation":
        from lab.games.rumble_nation.rules import BOOLS, DESCRIPTIONS, PRESETS, RANGES

        base = PRESETS[preset]
        rules = base.with_overrides(overrides or {})
        out = []
        for f in fields(rules):
            key = f.name
            if key in BOOLS:
                kind, allowed = "choice", ["on", "off"]
            elif key in RANGES:
                kind, allowed = "range", RANGES[key]
            elif key == "map":
                kind, allowed = "choice", ["default"]  # other maps: name them in a config file
            else:
                kind, allowed = "text", None
            out.append({"key": key, "value": rules.show(key) if key != "map" else "default",
                        "preset": base.show(key) if key != "map" else "default",
                        "kind": kind, "allowed": allowed, "description": DESCRIPTIONS.get(key, "")})
        return out
    from lab.rules import BOOLS, CHOICES, DESCRIPTIONS, PRESETS, RANGES

    base = PRESETS[preset]
    rules = base.with_overrides(overrides or {})
    out = []
    for f in fields(rules):
        key = f.name
        if key in CHOICES:
            kind, allowed = "choice", list(CHOICES[key])
        elif key in BOOLS:
            kind, allowed = "choice", ["on", "off"]
        else:
            kind, allowed = "range", RANGES[key]
        out.append({"key": key, "value": _show(getattr(rules, key)),
                    "preset": _show(getattr(base, key)), "kind": kind, "allowed": allowed,
                    "description": DESCRIPTIONS.get(key, "")})
    return out


def _show(v) -> str:
    return ("on" if v else "off") if isinstance(v, bool) else str(v)


def presets(game: str) -> tuple[list[str], str]:
    """The game's presets and its default."""
    if game == "rumble_nation":
        from lab.games.rumble_nation.rules import DEFAULT, PRESETS
    else:
        from lab.rules import DEFAULT_PRESET as DEFAULT, PRESETS
    return list(PRESETS), DEFAULT


def overrides_from_form(game: str, preset: str, form: dict) -> dict[str, str]:
    """The toggles of the form that differ from the preset (as typed; the rules layer checks
    them and names a bad one in one line)."""
    shown = {f["key"]: f["preset"] for f in rule_fields(game, preset)}
    out = {}
    for key, was in shown.items():
        value = str(form.get(f"rule_{key}", was)).strip()
        if value and value != was:
            if key == "map":
                raise LabError("map: the page plays the default map; name another map in a "
                               "config file under configs/")
            out[key] = value
    return out


# ------------------------------------------------------------------------------ the setup

class Setup:
    """What the page's form chose, checked: ``settings`` is the game's own settings object."""

    def __init__(self, form: dict, decks_dir: Path):
        game = str(form.get("game") or "daitenka")
        if game not in GAMES:
            raise LabError(f"game = \"{game}\" is not a game of the lab; allowed values: "
                           f"{', '.join(GAMES)}")
        names, default = presets(game)
        preset = str(form.get("preset") or default)
        if preset not in names:
            raise LabError(f"preset \"{preset}\" is not one of: {', '.join(names)}")
        self.game, self.preset = game, preset
        self.form = {k: str(v) for k, v in form.items()}
        self.overrides = overrides_from_form(game, preset, form)
        seed_text = str(form.get("seed") or "").strip()
        from lab.play.options import parse_seed

        self.seed = parse_seed(seed_text) if seed_text else None
        self.bot = str(form.get("bot") or "heuristic").strip()
        if game == "rumble_nation":
            from lab.games.rumble_nation.play import settings as rn_settings

            self.seat = str(form.get("seat") or "P1")
            self.settings = rn_settings(None, preset, self.overrides, self.bot, self.seat,
                                        self.seed)
            if not 0 <= self.settings.seat < self.settings.rules.players:
                raise LabError(f"seat {self.seat} is not a seat of {self.settings.rules.id}; "
                               f"allowed values: P1–P{self.settings.rules.players}")
        else:
            from lab.play.options import PlaySettings, parse_bot_option

            self.seat = str(form.get("seat") or "A")
            if self.seat not in DAITENKA_SEATS:
                raise LabError(f"seat \"{self.seat}\" is not allowed; allowed values: A, B")
            army = _army(form.get("army") or "oda", decks_dir, "army")
            vs = _army(form.get("vs") or "", decks_dir, "vs")
            self.settings = PlaySettings(army=army, vs=vs, bot=parse_bot_option(self.bot),
                                         preset=preset, overrides=tuple(self.overrides.items()),
                                         seed=self.seed).check()


def _army(value: str, decks_dir: Path, key: str) -> str:
    """An army of the form: a key of the nine, or ``deck:NAME`` — a deck file uploaded to the
    results folder's decks/ (never any other path)."""
    from lab.cards.pool import ARMIES

    value = str(value).strip()
    if value in ("", "random"):
        return ""
    if value.startswith("deck:"):
        from lab.serve.paths import inside

        path = inside(decks_dir, value[5:], "the uploaded decks")
        if not path.is_file():
            raise LabError(f"{key}: no uploaded deck \"{value[5:]}\"")
        return str(path)
    if value not in ARMIES:
        raise LabError(f"{key} = \"{value}\" is not allowed; allowed values: "
                       f"{', '.join(ARMIES)} or an uploaded deck")
    return value


# ------------------------------------------------------------------------------ matches

class DaitenkaMatch:
    """A 大天下 match on the page: the human's seat against a bot."""

    game = "daitenka"

    def __init__(self, setup: Setup, replay_dir: Path):
        from lab.cards.pool import load_pool
        from lab.play.match import Match

        self.setup = setup
        self.replay_dir = replay_dir
        self.m = Match(setup.settings, load_pool(), setup.seat)
        self.lines: list[dict] = []
        self.replay: Path | None = None
        self.scenario: Path | None = None
        self.legal = self.m.bots_until_human()
        self._told()
        self._maybe_finish()

    @property
    def over(self) -> bool:
        return self.m.game.is_over

    @property
    def steps(self) -> int:
        return len(self.m.rec.steps)

    def act(self, k: int) -> None:
        """The human takes legal action ``k`` (0-based); the bot answers until the human is to
        move again or the game ends."""
        if self.over:
            raise LabError("the match is over; start another")
        if not 0 <= k < len(self.legal):
            raise LabError(f"there is no action {k + 1}; choose 1–{len(self.legal)}")
        m = self.m
        action = self.legal[k]
        m.game.step(action)
        m.record(self.setup.seat, action.text)
        self.legal = m.bots_until_human()
        self._told()
        self._maybe_finish()

    def _told(self) -> None:
        for line in self.m.narrator.take():
            self.lines.append({"seat": line.seat, "text": line.text, "kind": line.kind})

    def _maybe_finish(self) -> None:
        if self.over and self.m.rec.status == "running":
            self.m.rec.close(self.m.game, "finished")
            try:
                self.replay = self.m.rec.save(self.replay_dir)
            except OSError:
                self.replay = None

    # ---------------------------------------------------------------- files at the end
    def replay_text(self) -> tuple[str, str]:
        from lab.play.record import dump_json

        self._only_at_end("replay")
        name = self.replay.name if self.replay else "replay.json"
        return name, dump_json(self.m.rec.to_json())

    def scenario_text(self, folder: Path) -> tuple[str, str, Path]:
        """The match as a scenario file (``lab scenario`` passes it), also written to
        ``folder``."""
        from lab.play.record import scenario_toml

        self._only_at_end("scenario")
        text = scenario_toml([self.m.rec])
        stem = self.replay.stem if self.replay else f"play-{self.m.seed}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{stem}.toml"
        path.write_text(text, encoding="utf-8")
        self.scenario = path
        return path.name, text, path

    def _only_at_end(self, what: str) -> None:
        if not self.over:
            raise LabError(f"the {what} holds both armies' cards; it is offered when the match "
                           "is over")

    # ---------------------------------------------------------------- what the seat sees
    def view(self) -> dict:
        from lab.play.view import card_label

        m, game = self.m, self.m.game
        pool = game.pool
        me, opp = m.human, m.bot_seat
        obs = game.observation(me)

        def labels(counts) -> list[str]:
            if isinstance(counts, dict):
                names = [n for n, k in counts.items() for _ in range(k)]
            else:
                names = list(counts)
            return [card_label(pool, n) for n in _sorted(pool, names)]

        seats = {}
        for seat in DAITENKA_SEATS:
            o = obs["players"][seat]
            deck = m.rec.decks[seat]
            block = {"seat": seat, "army": deck.name, "key": deck.key,
                     "who": "you" if seat == me else f"bot {m.bot.spec.label}",
                     "hand_count": o["hand_count"], "deck_count": o["deck_count"],
                     "walls": o["wall_count"], "walls_max": game.rules.walls,
                     "castle": o["castle"], "castle_damaged": bool(o["castle_damaged"]),
                     "camp_up": labels(o["camp_up"]), "camp_down": labels(o["camp_down"]),
                     "logistics": list(o["logistics"]), "graveyard": labels(o["graveyard"])}
            if seat == me:
                block["hand"] = labels(o["hand"])
            else:
                block["known_hand"] = labels(o.get("known_hand") or {})
            seats[seat] = block
        f = obs["field"]
        sets = []
        for k, ps in enumerate(m.track.sets):
            sets.append({"seat": ps.seat, "verb": "出陣" if k == 0 else ("奇襲" if ps.note
                                                                       else "応戦"),
                         "cards": [card_label(pool, c) for c in ps.cards],
                         "kurumagakari": ps.kurumagakari, "fire": ps.fire, "beaten": ps.beaten})
        if not sets and f["top"]:
            sets.append({"seat": f["top_owner"], "verb": "出陣",
                         "cards": [card_label(pool, c) for c in f["top"]],
                         "kurumagakari": f["top_kurumagakari"], "fire": False, "beaten": False})
        return {
            "game": "daitenka", "you": me, "bot": m.bot.spec.label,
            "rules": game.rules.id, "preset": self.setup.preset,
            "seed": m.seed if (self.over or self.setup.seed is not None) else None,
            "turn": game.view.turns, "over": self.over, "step": self.steps,
            "decision": self._decision(),
            "seats": seats, "order": [opp, me],
            "field": {"open": f["open"], "plays": f["plays"], "sets": sets},
            "legal": [{"i": k, "text": a.text} for k, a in enumerate(self.legal)],
            "log": self.lines,
            "result": self._result() if self.over else None,
        }

    def _decision(self) -> str:
        if self.over:
            return "the match is over"
        from lab.play.view import decision_line

        return decision_line(self.m.game, self.m.human).plain

    def _result(self) -> dict:
        from lab.play.session import END_WORDS, decided_by

        game, rec, me = self.m.game, self.m.rec, self.m.human
        w = game.winner
        head = "You win" if w == me else ("Draw" if w in ("draw", None) else "You lose")
        yours = sum(1 for _, by, _ in rec.steps if by == "human")
        return {"head": head, "winner": w or "",
                "by": END_WORDS.get(game.end_reason, game.end_reason),
                "decided_by": decided_by(game, rec), "summary": game.summary(),
                "length": f"{game.view.turns} leader turns · {game.view.battles} battles · "
                          f"{game.decisions} decisions ({yours} yours)",
                "walls": {s: game.zone(s, "wall_count") for s in DAITENKA_SEATS},
                "replay": str(self.replay) if self.replay else "",
                "scenario": str(self.scenario) if self.scenario else ""}


def _sorted(pool, names: list[str]) -> list[str]:
    from lab.cards.vocab import Kind

    def key(n):
        card = pool.get(n)
        return ({Kind.TACTIC: 1, Kind.CASTLE: 2}.get(card.kind, 0), card.strength, card.index)

    return sorted(names, key=key)


class RumbleMatch:
    """A Rumble Nation match on the page: the human's seat, bots in the others."""

    game = "rumble_nation"

    def __init__(self, setup: Setup):
        from lab.games.rumble_nation.batch import Buffers
        from lab.games.rumble_nation.play import new_match

        self.setup = setup
        st = setup.settings
        self.seat = st.seat
        self.seed, self.g = new_match(st)
        self.me = self.g.seats[st.seat]
        self.bot_row = st.bot.pack()
        self.buffers = Buffers()
        self.legal = []
        self._advance()

    @property
    def over(self) -> bool:
        return self.g.is_over

    @property
    def steps(self) -> int:
        return len(self.g.history)

    def _advance(self) -> None:
        from lab.games.rumble_nation.play import bot_step

        g = self.g
        while not g.is_over:
            legal = g.legal_actions()  # rolls the dice when they are due
            if g.to_move == self.me:
                self.legal = legal
                return
            bot_step(g, legal, self.bot_row, self.buffers)
        self.legal = []

    def act(self, k: int) -> None:
        if self.over:
            raise LabError("the match is over; start another")
        if not 0 <= k < len(self.legal):
            raise LabError(f"there is no decision {k + 1}; choose 1–{len(self.legal)}")
        self.g.step(self.legal[k])
        self._advance()

    def replay_text(self) -> tuple[str, str]:
        """The match in the step grammar (docs/rumble_nation.md): rules, seed, every step."""
        if not self.over:
            raise LabError("the log with its seed decides the dice to come; it is offered when "
                           "the match is over")
        g = self.g
        head = [f"# Rumble Nation — {g.rules.id}, seed {self.seed}; you were {self.me}, bots "
                f"{self.setup.settings.bot.label}", f"# result: {g.summary()}"]
        return f"rumble-nation-s{self.seed}.txt", "\n".join(head + g.log_lines()) + "\n"

    def view(self) -> dict:
        g = self.g
        obs = g.observation(self.seat)
        result = None
        if self.over:
            r = g.result()
            result = {"head": "You win" if r["winner"] == self.me else f"{r['winner']} wins",
                      "winner": r["winner"], "scores": r["scores"], "summary": g.summary(),
                      "war": g.war_lines()}
        return {
            "game": "rumble_nation", "you": self.me, "bot": self.setup.settings.bot.label,
            "rules": g.rules.id, "preset": self.setup.preset,
            "seed": self.seed if (self.over or self.setup.seed is not None) else None,
            "over": self.over, "step": self.steps, "to_move": g.to_move,
            "dice": list(obs["dice"]) if obs["dice"] and g.to_move == self.me else None,
            "areas": obs["areas"], "seats": obs["seats"],
            "legal": [{"i": k, "text": a.label} for k, a in enumerate(self.legal)],
            "log": [{"seat": line.split(" ", 1)[0], "text": line, "kind": ""}
                    for line in g.history],
            "result": result,
        }


class Matches:
    """The matches a server holds, by id; each has its own lock (one click at a time)."""

    def __init__(self, replay_dir: Path, limit: int = MAX_MATCHES):
        self.replay_dir = replay_dir
        self.limit = limit
        self._items: OrderedDict[str, tuple[object, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, setup: Setup):
        match = (RumbleMatch(setup) if setup.game == "rumble_nation"
                 else DaitenkaMatch(setup, self.replay_dir))
        match_id = secrets.token_urlsafe(9)
        match.id, match.created = match_id, time.time()
        with self._lock:
            self._items[match_id] = (match, threading.Lock())
            while len(self._items) > self.limit:
                self._items.popitem(last=False)
        return match

    def get(self, match_id: str):
        with self._lock:
            item = self._items.get(match_id)
            if item is not None:
                self._items.move_to_end(match_id)
        if item is None:
            raise KeyError(match_id)
        return item


__all__ = ["DaitenkaMatch", "Matches", "RumbleMatch", "Setup", "overrides_from_form",
           "presets", "rule_fields"]
