"""Rumble Nation on the 試験場 page (``lab serve``): the rule toggles its form offers, the
settings it checks, and the match stepped by the human's clicks — set up as ``lab play --game
rumble_nation`` does, shown as the human's seat may see it (``lab.games.protocol.PageMatch``).
Nothing here holds a rule: the game is the package's facade, the bots its compiled ``choose``.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from lab.errors import LabError


def rule_fields(preset: str, overrides: dict | None = None) -> list[dict]:
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
        out.append(
            {
                "key": key,
                "value": rules.show(key) if key != "map" else "default",
                "preset": base.show(key) if key != "map" else "default",
                "kind": kind,
                "allowed": allowed,
                "description": DESCRIPTIONS.get(key, ""),
            }
        )
    return out


def settings(form: dict, preset: str, overrides: dict, bot: str, seed: int | None, uploaded=None):
    """(the human's seat as the form names it, the checked ``lab play`` settings)."""
    from lab.games.rumble_nation.play import settings as play_settings

    seat = str(form.get("seat") or "P1")
    st = play_settings(None, preset, overrides, bot, seat, seed)
    if not 0 <= st.seat < st.rules.players:
        raise LabError(
            f"seat {seat} is not a seat of {st.rules.id}; allowed values: P1–P{st.rules.players}"
        )
    return seat, st


class RumbleMatch:
    """A Rumble Nation match on the page: the human's seat, bots in the others."""

    def __init__(self, setup, replay_dir: Path | None = None):
        from lab.games.rumble_nation.batch import Buffers
        from lab.games.rumble_nation.play import new_match

        self.setup = setup
        self.replay_dir = replay_dir  # the log is offered for download, not saved
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
            raise LabError(
                "the log with its seed decides the dice to come; it is offered when "
                "the match is over"
            )
        g = self.g
        head = [
            (
                f"# Rumble Nation — {g.rules.id}, seed {self.seed}; you were {self.me}, "
                f"bots {self.setup.settings.bot.label}"
            ),
            f"# result: {g.summary()}",
        ]
        return f"rumble-nation-s{self.seed}.txt", "\n".join(head + g.log_lines()) + "\n"

    def scenario_text(self, folder: Path) -> tuple[str, str, Path]:
        raise LabError("a Rumble Nation match has no scenario writer yet; download its log instead")

    def view(self) -> dict:
        g = self.g
        obs = g.observation(self.seat)
        result = None
        if self.over:
            r = g.result()
            result = {
                "head": "You win" if r["winner"] == self.me else f"{r['winner']} wins",
                "winner": r["winner"],
                "scores": r["scores"],
                "summary": g.summary(),
                "war": g.war_lines(),
            }
        return {
            "game": "rumble_nation",
            "you": self.me,
            "bot": self.setup.settings.bot.label,
            "rules": g.rules.id,
            "preset": self.setup.preset,
            "seed": self.seed if (self.over or self.setup.seed is not None) else None,
            "over": self.over,
            "step": self.steps,
            "to_move": g.to_move,
            "dice": list(obs["dice"]) if obs["dice"] and g.to_move == self.me else None,
            "areas": obs["areas"],
            "seats": obs["seats"],
            "legal": [{"i": k, "text": a.label} for k, a in enumerate(self.legal)],
            "log": [
                {"seat": line.split(" ", 1)[0], "text": line, "kind": ""} for line in g.history
            ],
            "result": result,
        }
