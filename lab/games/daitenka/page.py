"""大天下 on the 試験場 page (``lab serve``): the rule toggles its form offers, the settings it
checks (armies, an uploaded deck, the seat), and the match stepped by the human's clicks — a
``lab.games.daitenka.play.match.Match`` set up and recorded as ``lab play`` does (``lab.games.protocol.PageMatch``).
Its view holds what rules.md R1 lets the seat see: its own hand, both camps, graveyards,
logistics, castles and the field, every zone's count, the opponent's hand cards known to be there,
the narration of ``lab.games.daitenka.play.narrate`` told from the seat, and the seat's legal actions; never the
opponent's hand, a deck's order, a wall card or the seed (which decides them) before the end.
Nothing here holds a rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

from lab.errors import LabError

SEATS = ("A", "B")


def rule_fields(preset: str, overrides: dict | None = None) -> list[dict]:
    from lab.games.daitenka.rules import BOOLS, CHOICES, DESCRIPTIONS, PRESETS, RANGES

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
        out.append(
            {
                "key": key,
                "value": _show(getattr(rules, key)),
                "preset": _show(getattr(base, key)),
                "kind": kind,
                "allowed": allowed,
                "description": DESCRIPTIONS.get(key, ""),
            }
        )
    return out


def _show(v) -> str:
    return ("on" if v else "off") if isinstance(v, bool) else str(v)


def settings(
    form: dict,
    preset: str,
    overrides: dict,
    bot: str,
    seed: int | None,
    uploaded: Callable[[str], Path],
):
    """(the human's seat, the checked ``lab play`` settings)."""
    from lab.games.daitenka.play.options import PlaySettings, parse_bot_option

    seat = str(form.get("seat") or "A")
    if seat not in SEATS:
        raise LabError(f"seat \"{seat}\" is not allowed; allowed values: A, B")
    army = _army(form.get("army") or "oda", uploaded, "army")
    vs = _army(form.get("vs") or "", uploaded, "vs")
    return seat, PlaySettings(
        army=army,
        vs=vs,
        bot=parse_bot_option(bot),
        preset=preset,
        overrides=tuple(overrides.items()),
        seed=seed,
    ).check()


def _army(value: str, uploaded: Callable[[str], Path], key: str) -> str:
    """An army of the form: a key of the nine, or ``deck:NAME`` — a deck file uploaded to the
    results folder's decks/, as ``uploaded`` finds it (never any other path)."""
    from lab.games.daitenka.cards.pool import ARMIES

    value = str(value).strip()
    if value in ("", "random"):
        return ""
    if value.startswith("deck:"):
        path = uploaded(value[5:])
        if not path.is_file():
            raise LabError(f"{key}: no uploaded deck \"{value[5:]}\"")
        return str(path)
    if value not in ARMIES:
        raise LabError(
            f"{key} = \"{value}\" is not allowed; allowed values: "
            f"{', '.join(ARMIES)} or an uploaded deck"
        )
    return value


class DaitenkaMatch:
    """A 大天下 match on the page: the human's seat against a bot."""

    def __init__(self, setup, replay_dir: Path):
        from lab.games.daitenka.cards.pool import load_pool
        from lab.games.daitenka.play.match import Match

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
        from lab.games.daitenka.play.record import dump_json

        self._only_at_end("replay")
        name = self.replay.name if self.replay else "replay.json"
        return name, dump_json(self.m.rec.to_json())

    def scenario_text(self, folder: Path) -> tuple[str, str, Path]:
        """The match as a scenario file (``lab scenario`` passes it), also written to
        ``folder``."""
        from lab.games.daitenka.play.record import scenario_toml

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
            raise LabError(
                f"the {what} holds both armies' cards; it is offered when the match is over"
            )

    # ---------------------------------------------------------------- what the seat sees
    def view(self) -> dict:
        from lab.games.daitenka.play.view import card_label

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
        for seat in SEATS:
            o = obs["players"][seat]
            deck = m.rec.decks[seat]
            block = {
                "seat": seat,
                "army": deck.name,
                "key": deck.key,
                "who": "you" if seat == me else f"bot {m.bot.spec.label}",
                "hand_count": o["hand_count"],
                "deck_count": o["deck_count"],
                "walls": o["wall_count"],
                "walls_max": game.rules.walls,
                "castle": o["castle"],
                "castle_damaged": bool(o["castle_damaged"]),
                "camp_up": labels(o["camp_up"]),
                "camp_down": labels(o["camp_down"]),
                "logistics": list(o["logistics"]),
                "graveyard": labels(o["graveyard"]),
            }
            if seat == me:
                block["hand"] = labels(o["hand"])
            else:
                block["known_hand"] = labels(o.get("known_hand") or {})
            seats[seat] = block
        f = obs["field"]
        sets = []
        for k, ps in enumerate(m.track.sets):
            sets.append(
                {
                    "seat": ps.seat,
                    "verb": "出陣" if k == 0 else ("奇襲" if ps.note else "応戦"),
                    "cards": [card_label(pool, c) for c in ps.cards],
                    "kurumagakari": ps.kurumagakari,
                    "fire": ps.fire,
                    "beaten": ps.beaten,
                }
            )
        if not sets and f["top"]:
            sets.append(
                {
                    "seat": f["top_owner"],
                    "verb": "出陣",
                    "cards": [card_label(pool, c) for c in f["top"]],
                    "kurumagakari": f["top_kurumagakari"],
                    "fire": False,
                    "beaten": False,
                }
            )
        return {
            "game": "daitenka",
            "you": me,
            "bot": m.bot.spec.label,
            "rules": game.rules.id,
            "preset": self.setup.preset,
            "seed": m.seed if (self.over or self.setup.seed is not None) else None,
            "turn": game.view.turns,
            "over": self.over,
            "step": self.steps,
            "decision": self._decision(),
            "seats": seats,
            "order": [opp, me],
            "field": {"open": f["open"], "plays": f["plays"], "sets": sets},
            "legal": [{"i": k, "text": a.text} for k, a in enumerate(self.legal)],
            "log": self.lines,
            "log_title": "合戦の記録 battle log",
            "result": self._result() if self.over else None,
        }

    def _decision(self) -> str:
        if self.over:
            return "the match is over"
        from lab.games.daitenka.play.view import decision_line

        return decision_line(self.m.game, self.m.human).plain

    def _result(self) -> dict:
        from lab.games.daitenka.play.session import END_WORDS, decided_by

        game, rec, me = self.m.game, self.m.rec, self.m.human
        w = game.winner
        head = "You win" if w == me else ("Draw" if w in ("draw", None) else "You lose")
        yours = sum(1 for _, by, _ in rec.steps if by == "human")
        return {
            "head": head,
            "winner": w or "",
            "by": END_WORDS.get(game.end_reason, game.end_reason),
            "decided_by": decided_by(game, rec),
            "summary": game.summary(),
            "length": f"{game.view.turns} leader turns · {game.view.battles} battles · "
            f"{game.decisions} decisions ({yours} yours)",
            "walls": {s: game.zone(s, "wall_count") for s in SEATS},
            "replay": str(self.replay) if self.replay else "",
            "scenario": str(self.scenario) if self.scenario else "",
        }


def _sorted(pool, names: list[str]) -> list[str]:
    from lab.games.daitenka.cards.vocab import Kind

    def key(n):
        card = pool.get(n)
        return ({Kind.TACTIC: 1, Kind.CASTLE: 2}.get(card.kind, 0), card.strength, card.index)

    return sorted(names, key=key)
