"""Replay one recorded game: rebuild it from its record (rule toggles, armies, card patch,
seed words) and the manifest (bot specs, deck files, patches), play it again through the same
compiled loop with the event log on, and check that it reproduces the recorded result.

Reads a results folder; writes nothing. Presentation is the CLI's (``lab replay``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lab.games.daitenka.bots.match import finish, parse_bot
from lab.games.daitenka.cards.patch import BASE, Patch, parse_patch
from lab.games.daitenka.cards.pool import load_army, load_deck, pool_from
from lab.games.daitenka.engine.api import Game
from lab.errors import LabError
from lab.games.daitenka.rules import RuleSet
from lab import records
from lab.sim import manifest
from lab.games.daitenka.records import TOGGLE_TYPES
from lab.games.daitenka.experiment import variant_id

CHECKED = ("winner", "end_reason", "leader_turns", "battles", "decisions")


@dataclass
class Replay:
    game: Game
    record: dict  # the games row
    mismatches: list[str]  # "leader_turns: recorded 12, replayed 13", …
    warnings: list[str]  # e.g. a deck file changed since the run

    @property
    def reproduced(self) -> bool:
        return not self.mismatches


def replay(out, game_id: int) -> Replay:
    man, row = records.read_record(out, game_id)
    rules = RuleSet(**{k: row[k] for k in TOGGLE_TYPES})
    # the experiment's pool: the package's cards and its extra card files, kept in the manifest
    pool = pool_from(
        tuple((f["file"], f["toml"]) for f in man["config"].get("cards", {}).get("extra", []))
    )
    patch = _patch(man, row.get("patch") or BASE, pool)
    warnings = []
    if variant_id(rules, patch) != row["variant"]:
        warnings.append(
            f"the toggles now give variant {variant_id(rules, patch)}, recorded {row['variant']}"
        )
    armies = {a["key"]: a for a in man["config"]["armies"]}
    decks = []
    for key in (row["army_a"], row["army_b"]):
        info = armies[key]
        decks.append(load_deck(info["path"], pool) if info["path"] else load_army(key, pool))
    pool, *decks = patch.apply(((row["army_a"], decks[0]), (row["army_b"], decks[1])), pool)
    tier = next(t for t in man["config"]["tiers"] if t["label"] == row["tier"])
    game = Game(
        rules, decks[0], decks[1], seed=np.asarray(row["seed_words"], np.int64), log=True, pool=pool
    )
    finish(game, parse_bot(tier["a"]), parse_bot(tier["b"]))
    replayed = {
        "winner": game.winner,
        "end_reason": game.end_reason,
        "leader_turns": game.view.turns,
        "battles": game.view.battles,
        "decisions": game.decisions,
    }
    mismatches = [
        f"{k}: recorded {row[k]}, replayed {replayed[k]}" for k in CHECKED if row[k] != replayed[k]
    ]
    now = manifest.code_digest("daitenka")
    if mismatches and man.get("code_digest") != now:
        warnings.append(
            "the engine, bot or card code changed since this run (digest "
            f"{man.get('code_digest')}, now {now})"
        )
    return Replay(game, row, mismatches, warnings)


def _patch(man: dict, name: str, pool) -> Patch:
    """The recorded game's card patch, rebuilt from the manifest's resolved config."""
    if name == BASE:
        return Patch(BASE)
    found = [p for p in man["config"].get("patches", []) if p.get("name") == name]
    if not found:
        raise LabError(
            f"the manifest lists no patch \"{name}\"; this folder's records and "
            "manifest do not belong together"
        )
    return parse_patch(found[0], where=f"manifest patch \"{name}\"", pool=pool)
