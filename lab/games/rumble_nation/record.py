"""Replay files of Rumble Nation matches played in the terminal (`lab play --game
rumble_nation`), and what `lab replay FILE` shows for one — the counterpart of ``lab.games.daitenka.play.record``
for 大天下.

A replay holds what rebuilds the match exactly: the resolved rule toggles, the seed, who played
each seat, and every step in the step grammar of docs/rumble_nation.md, rolls included (so
stepping them again needs neither the bots nor the dice stream), with the board at the end for
checking. Finished and abandoned matches alike are saved. This module holds no rule: the game is
the package's facade.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.text import Text

from lab.errors import LabError
from lab.games.rumble_nation.game import Game, IllegalAction, new_game, seed_words
from lab.games.rumble_nation.rules import DEFAULT, RNRules

FORMAT = "daitenka-lab/rumble-nation-replay"
VERSION = 1
EXIT_MISMATCH = 1


def _plain(value):
    """The value as JSON writes and reads it back (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def final_state(g: Game) -> dict:
    return _plain(
        {"over": g.is_over, "to_move": g.to_move, "result": g.result(), "board": g.observation(0)}
    )


@dataclass
class RNRecord:
    rules: RNRules
    seed: int
    players: dict[str, str]  # seat → "human" | "bot"
    bot: str  # the bots' label
    steps: list[str] = field(default_factory=list)  # every step, rolls included
    status: str = "playing"  # finished | abandoned
    final: dict | None = None
    created: str = field(default_factory=lambda: datetime.now().isoformat(timespec="seconds"))

    def close(self, g: Game, status: str) -> None:
        self.steps = list(g.history)
        self.status = status
        self.final = final_state(g)

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": "rumble_nation",
            "created": self.created,
            "status": self.status,
            "rules": {"id": self.rules.id, "toggles": self.rules.as_dict()},
            "seed": self.seed,
            "players": self.players,
            "bot": self.bot,
            "steps": self.steps,
            "final": self.final,
        }

    def save(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        human = next((s for s, who in self.players.items() if who == "human"), "P0")
        base = f"play-rn-{stamp}-{self.rules.players}p-{human}-s{self.seed}"
        path = folder / f"{base}.json"
        k = 2
        while path.exists():
            path = folder / f"{base}-{k}.json"
            k += 1
        path.write_text(
            json.dumps(self.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        return path


def is_replay(path: str | Path) -> bool:
    """True for a file this module wrote (read without raising)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def load(path: str | Path) -> RNRecord:
    """A Rumble Nation replay file; anything else is one ``LabError`` naming the file."""
    src = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LabError("file not found", source=src) from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise LabError(f"not a replay file ({e})", source=src) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LabError(f"not a Rumble Nation replay (format is not {FORMAT})", source=src)
    if data.get("version") != VERSION:
        raise LabError(
            f"replay format version {data.get('version')!r}; this lab reads version {VERSION}",
            source=src,
        )
    try:
        toggles = data["rules"]["toggles"]
        steps, seed = data["steps"], data["seed"]
        players, bot, status = data["players"], data["bot"], data["status"]
    except (KeyError, TypeError) as e:
        raise LabError(f"missing key {e} (the file was edited or damaged)", source=src) from None
    if not (
        isinstance(steps, list)
        and all(isinstance(s, str) for s in steps)
        and isinstance(seed, int)
        and not isinstance(seed, bool)
        and seed >= 0
    ):
        raise LabError(
            "steps must be a list of step texts and seed a whole number ≥ 0 (the "
            "file was edited or damaged)",
            source=src,
        )
    rules = RNRules.preset(DEFAULT).with_overrides(toggles, source=src)
    return RNRecord(
        rules,
        seed,
        dict(players),
        str(bot),
        steps,
        status,
        data.get("final"),
        data.get("created", ""),
    )


def replay(rec: RNRecord) -> tuple[Game, str]:
    """The match stepped again from its seed; the problem found, or ""."""
    g = new_game(rec.rules, seed_words(rec.seed))
    for k, text in enumerate(rec.steps):
        try:
            g.step(text)
        except IllegalAction as e:
            return g, f"step {k + 1} \"{text}\" does not replay: {e}"
    if rec.final is not None and final_state(g) != rec.final:
        return g, "the replayed board differs from the recorded one"
    return g, ""


def show(path: str | Path, console: Console, log: bool = True) -> int:
    """What `lab replay FILE` prints for a Rumble Nation replay; the exit code (0, or 1 when
    the file no longer reproduces)."""
    rec = load(path)
    who = ", ".join(f"{s} {p}" for s, p in rec.players.items())
    console.print(
        Text(
            f"replay {path}: Rumble Nation {rec.rules.id}, seed {rec.seed}, {who} "
            f"(bots {rec.bot}); {rec.status}, {len(rec.steps)} steps, saved "
            f"{rec.created}",
            style="bold",
        ),
        soft_wrap=True,
    )
    g, problem = replay(rec)
    if log:
        for line in g.log_lines():
            console.print("  " + line, soft_wrap=True)
    console.print(Text(f"result: {g.summary()}", style="bold"), soft_wrap=True)
    if problem:
        console.print(
            Text("does not reproduce the recorded match: ", style="bold red") + Text(problem),
            soft_wrap=True,
        )
        return EXIT_MISMATCH
    console.print(Text("reproduces the recorded match", style="green"))
    return 0
