"""The record of one played match: a replay file (JSON) and a scenario file (TOML).

A replay file holds what rebuilds the match exactly: the resolved rule toggles, both decks' card
lists, the seed (and its twelve seed words), who played each seat and every decision as a step of
the scenario grammar (../shared/spec/scenarios.md), with the final state for checking. Bots decide
on a copy of the state with their own random stream (lab.games.daitenka.bots.play), so stepping the recorded
steps again reproduces the match without any bot.

A scenario file is the same match as `lab scenario` reads it: the position after set-up as
explicit zones, every step after the mulligans, and the final state as expectations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path

import numpy as np

from lab import writable
from lab.games.daitenka.cards.pool import CardPool, Deck, load_pool, validate_deck
from lab.games.daitenka.engine.api import Game, IllegalAction, seed_words
from lab.errors import LabError
from lab.games.daitenka.rules import PRESETS, RuleSet
from lab.schema.base import check
from lab.games.daitenka.schema.replay import ReplayArmy, ReplayFile

FORMAT = "daitenka-lab/play-replay"
VERSION = 1
SEATS = ("A", "B")
SETUP_VERBS = ("mulligan", "keep")  # set-up decisions: in the replay, not in the scenario
MULTISETS = ("hand", "camp_up", "camp_down", "graveyard")


# ------------------------------------------------------------------------------ game state


def expand(counts: dict[str, int]) -> list[str]:
    return [name for name, n in counts.items() for _ in range(n)]


def start_position(game: Game) -> dict:
    """The zones of both seats as a scenario writes them (deck top first, walls 天守 first)."""
    out = {}
    for seat in SEATS:
        z = {
            "deck": game.zone(seat, "deck"),
            "hand": expand(game.zone(seat, "hand")),
            "walls": game.zone(seat, "walls"),
            "castle": game.zone(seat, "castle"),
            "castle_damaged": game.zone(seat, "castle_damaged"),
            "camp_up": expand(game.zone(seat, "camp_up")),
            "camp_down": expand(game.zone(seat, "camp_down")),
            "graveyard": expand(game.zone(seat, "graveyard")),
            "logistics": game.zone(seat, "logistics"),
        }
        out[seat] = z
    return out


def final_state(game: Game) -> dict:
    """The game's state as scenario expectations (every key the format knows)."""
    over = game.is_over
    top = {
        "winner": game.winner or "",
        "leader": game.leader,
        "to_move": "" if over else game.to_move,
    }
    if over:
        top["end_reason"] = game.end_reason
    for seat in SEATS:
        top[seat] = {
            **{k: sorted(expand(game.zone(seat, k))) for k in MULTISETS},
            "logistics": sorted(game.zone(seat, "logistics")),
            "hand_count": game.zone(seat, "hand_count"),
            "deck_count": game.zone(seat, "deck_count"),
            "walls": game.zone(seat, "wall_count"),
            "castle": game.zone(seat, "castle"),
            "castle_damaged": game.zone(seat, "castle_damaged"),
        }
    return top


def differences(want: dict, got: dict) -> list[str]:
    out = []
    for key, value in want.items():
        if isinstance(value, dict):
            out += [f"{key}.{d}" for d in differences(value, got.get(key, {}))]
        elif got.get(key) != value:
            out.append(f"{key}: recorded {value!r}, replayed {got.get(key)!r}")
    return out


# ------------------------------------------------------------------------------ the record


@dataclass
class MatchRecord:
    rules: RuleSet
    preset: str
    decks: dict  # seat -> Deck
    seed: int
    players: dict  # seat -> "human" | "bot"
    bot: str  # the --bot form of the bot's spec
    steps: list = field(default_factory=list)  # [(seat, "human"|"bot", step text)]
    first: str = ""
    start: dict | None = None  # zones after set-up (after mulligans)
    status: str = "running"  # running | finished | abandoned
    result: dict = field(default_factory=dict)
    final: dict = field(default_factory=dict)
    created: str = field(default_factory=lambda: datetime.now().isoformat(timespec="seconds"))

    def begin(self, game: Game) -> None:
        """The game as set up (before any step)."""
        self.final = final_state(game)

    def add(self, seat: str, by: str, text: str, game: Game | None = None) -> None:
        """One step played; ``game`` is the state right after it (kept as the final state, so
        a later leader turn's automatic draw is not part of it, as in a replay)."""
        self.steps.append((seat, by, text))
        if game is not None:
            self.final = final_state(game)

    def close(self, game: Game, status: str) -> None:
        self.status = status
        self.result = {
            "winner": game.winner or "",
            "end_reason": game.end_reason if game.is_over else "",
            "summary": game.summary(),
            "leader_turns": game.view.turns,
            "battles": game.view.battles,
            "decisions": game.decisions,
            "walls": {s: game.zone(s, "wall_count") for s in SEATS},
        }

    @property
    def scenario_steps(self) -> list[str]:
        return [t for _, _, t in self.steps if t.split()[1] not in SETUP_VERBS]

    # -------------------------------------------------------------------- JSON
    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "created": self.created,
            "status": self.status,
            "rules": {"preset": self.preset, "id": self.rules.id, "toggles": self.rules.as_dict()},
            "armies": {
                s: {
                    "key": d.key,
                    "name": d.name,
                    "path": d.path,
                    "cards": [[c.name, n] for c, n in d.entries],
                }
                for s, d in self.decks.items()
            },
            "players": self.players,
            "bot": self.bot,
            "seed": self.seed,
            "seed_words": [int(x) for x in seed_words(self.seed)],
            "first": self.first,
            "start": self.start,
            "steps": [{"seat": s, "by": by, "step": t} for s, by, t in self.steps],
            "result": self.result,
            "final": self.final,
        }

    def save(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        base = f"play-{stamp}-{self.decks['A'].key}-vs-{self.decks['B'].key}-s{self.seed}"
        path = folder / f"{base}.json"
        k = 2
        while path.exists():
            path = folder / f"{base}-{k}.json"
            k += 1
        path.write_text(dump_json(self.to_json()), encoding="utf-8")
        return path

    # -------------------------------------------------------------------- scenario
    @property
    def name(self) -> str:
        a, b = self.decks["A"], self.decks["B"]
        return (
            f"lab play {self.created}: {a.name} ({a.key}, {self.players['A']}) vs "
            f"{b.name} ({b.key}, {self.players['B']}), {self.rules.id}, seed {self.seed}"
            f" — {self.status}"
        )

    def scenario_table(self) -> dict:
        if self.start is None:
            raise LabError(
                "the match ended before set-up finished; there is no position to "
                "write as a scenario"
            )
        base = PRESETS[self.preset]
        overrides = {
            f.name: getattr(self.rules, f.name)
            for f in fields(self.rules)
            if getattr(self.rules, f.name) != getattr(base, f.name)
        }
        table = {
            "name": self.name,
            "rules": self.preset,
            "seed": self.seed,
            "first": self.first,
            "steps": self.scenario_steps,
        }
        if overrides:
            table["overrides"] = overrides
        for seat in SEATS:
            table[seat] = self.start[seat]
        table["expect"] = self.final
        return table


def dump_json(data: dict) -> str:
    """JSON a person can read: one line per top-level key, per step and per seat's zones."""

    def one(v) -> str:
        return json.dumps(v, ensure_ascii=False)

    parts = []
    for key, value in data.items():
        if key == "steps":
            body = ",\n".join(f"  {one(s)}" for s in value)
            text = f"[\n{body}\n ]" if value else "[]"
        elif isinstance(value, dict) and value and key in ("rules", "armies", "start", "final"):
            body = ",\n".join(f"  {one(k)}: {one(v)}" for k, v in value.items())
            text = f"{{\n{body}\n }}"
        else:
            text = one(value)
        parts.append(f" {one(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def deck_of(info: ReplayArmy, pool: CardPool, src: str, seat: str) -> Deck:
    entries = tuple(
        (pool.get(name, source=src, entry=f"armies.{seat}"), n) for name, n in info.cards
    )
    deck = Deck(info.key, info.name or info.key, "", info.path, entries)
    validate_deck(deck)
    return deck


def load_record(path: str | Path, pool: CardPool | None = None) -> MatchRecord:
    """Read a replay file written by `lab play` (one-line errors for anything else)."""
    src = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LabError("file not found", source=src) from None
    except IsADirectoryError:
        raise LabError(
            "is a directory; give a replay file (.json) written by `lab play`", source=src
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise LabError(f"not a replay file (not JSON: {e})", source=src) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LabError(
            f"not a replay file written by `lab play` (format is not {FORMAT})", source=src
        )
    if data.get("version") != VERSION:
        raise LabError(
            f"replay format version {data.get('version')!r}; this lab reads version {VERSION}",
            source=src,
        )
    rec = check(ReplayFile, data, src)
    missing = [s for s in SEATS if s not in rec.armies]
    if missing:
        raise LabError(
            f"armies: missing seat {', '.join(missing)}; a replay holds both seats' "
            "decks (the file was edited or damaged)",
            source=src,
        )
    pool = pool or load_pool()
    rules = RuleSet.from_dict({"preset": rec.rules.preset, **rec.rules.toggles}, source=src)
    decks = {s: deck_of(rec.armies[s], pool, src, s) for s in SEATS}
    return MatchRecord(
        rules,
        rec.rules.preset,
        decks,
        rec.seed,
        dict(rec.players),
        rec.bot,
        [(st.seat, st.by, st.step) for st in rec.steps],
        rec.first,
        rec.start,
        rec.status,
        rec.result,
        rec.final,
        rec.created,
    )


def new_game(rec: MatchRecord, pool: CardPool | None = None, log: bool = True) -> Game:
    return Game(
        rec.rules, rec.decks["A"], rec.decks["B"], seed=rec.seed, log=log, pool=pool or load_pool()
    )


def replay_game(rec: MatchRecord, pool: CardPool | None = None, src: str | None = None) -> Game:
    """The match played again from its steps (raises LabError at a step that is not legal)."""
    game = new_game(rec, pool)
    for k, (seat, _, text) in enumerate(rec.steps):
        try:
            game.step(text)
        except IllegalAction as e:
            raise LabError(f"step {k + 1} \"{text}\" does not replay: {e}", source=src) from None
    return game


# ------------------------------------------------------------------------------ TOML out


def _toml_value(v, one_per_line: bool = False) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        items = [_toml_value(x) for x in v]
        one = "[" + ", ".join(items) + "]"
        if len(one) <= 90 and not one_per_line:
            return one
        if one_per_line:
            return "[\n" + "".join(f"  {x},\n" for x in items) + "]"
        rows, row = [], ""
        for x in items:
            if row and len(row) + len(x) + 2 > 88:
                rows.append(row)
                row = ""
            row += ("" if not row else " ") + x + ","
        rows.append(row)
        return "[\n" + "".join(f"  {r}\n" for r in rows) + "]"
    raise TypeError(f"cannot write {v!r} as TOML")


def _toml_table(lines: list[str], path: str, table: dict) -> None:
    for k, v in table.items():
        if not isinstance(v, dict):
            lines.append(f"{k} = {_toml_value(v, one_per_line=k == 'steps')}")
    for k, v in table.items():
        if isinstance(v, dict):
            sub = f"{path}.{k}" if path else k
            lines.append("")
            lines.append(f"[{sub}]")
            _toml_table(lines, sub, v)


def scenario_toml(records: list[MatchRecord]) -> str:
    """One scenario file: a single match as a plain table, several as [[scenario]] tables."""
    lines = [
        "# Written by `lab play`: each match from the position after set-up (walls dealt,",
        "# opening hands drawn, mulligans taken), every decision as a step, and the state",
        "# it ended in as expectations. Run it with `lab scenario PATH`.",
    ]
    tables = [r.scenario_table() for r in records]
    if len(tables) == 1:
        lines.append("")
        _toml_table(lines, "", tables[0])
    else:
        for t in tables:
            lines += ["", "[[scenario]]"]
            _toml_table(lines, "scenario", t)
    return "\n".join(lines) + "\n"


def check_scenario_path(path: Path) -> None:
    """``--save-scenario PATH`` can be written: asked before the match is played or replayed
    (one-line LabError)."""
    path = Path(path)
    if not path.parent.is_dir() and not path.is_dir():
        raise LabError(f"--save-scenario {path}: folder {path.parent} does not exist")
    writable.check_file(path, "--save-scenario", "a file path (.toml)")


def write_scenarios(path: Path, records: list[MatchRecord]) -> Path:
    path.write_text(scenario_toml(records), encoding="utf-8")
    return path
