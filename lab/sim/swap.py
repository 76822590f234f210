"""The card-swap test (``lab swap``): the same deals with and without a card.

Owns the two arms of a swap: the **base** arm is the experiment as written; the **alt** arm is the
same experiment in which every army holding the card has each copy replaced by the other card, in
place and copy for copy (``Army.swaps``, applied by ``lab.sim.config.apply_swaps``). Army keys,
seeds, variants, tiers and matchups are unchanged, so both arms play the same deals: the same deck
order position for position (only the swapped positions hold another card), the same first
player, the same play-stream words. The alt arm's armies carry the swap in the fingerprint, so
its folder can never be mistaken for the base's.

Both arms are ordinary results folders (``OUT/base``, ``OUT/alt``) written by ``lab.sim.runner``
and resumable with ``--resume``; the analysis is ``lab.stats.paired.swap_effect`` per affected
army. This module plays nothing itself and holds no statistics of its own.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from lab.cards.pool import Card, load_pool
from lab.errors import LabError
from lab.sim.config import Experiment, apply_swaps, deck_digest

TABLE_KEYS = ("card", "with")


@dataclass(frozen=True)
class SwapPlan:
    card: Card  # the card taken out
    replacement: Card  # the card put in its place
    base: Experiment
    alt: Experiment
    copies: dict[str, int]  # affected army key → copies replaced
    unaffected: tuple[str, ...]  # armies of the run without the card (decks unchanged)

    @property
    def affected(self) -> tuple[str, ...]:
        return tuple(self.copies)


def read_table(config: str | Path) -> dict | None:
    """The config's ``[swap]`` table as {"card", "with"} (None when it has none)."""
    src = str(config)
    try:
        with open(config, "rb") as f:
            data = tomllib.load(f)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # load_experiment reports the file's problem in its own words
    table = data.get("swap")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise LabError(f"swap must be a table: [swap] with card = \"…\" and with = \"…\"; got "
                       f"{table!r}", source=src)
    for key in table:
        if key not in TABLE_KEYS:
            raise LabError(f"[swap] unknown key \"{key}\"; allowed keys: card, with",
                           source=src)
    for key in TABLE_KEYS:
        if key not in table:
            raise LabError(f"[swap] missing key \"{key}\"; add {key} = \"<card name>\"",
                           source=src)
        if not isinstance(table[key], str) or not table[key].strip():
            raise LabError(f"[swap] {key} = {table[key]!r} is not a card name", source=src)
    return {k: table[k] for k in TABLE_KEYS}


def plan(exp: Experiment, card: str, replacement: str) -> SwapPlan:
    """The two arms of swapping ``card`` for ``replacement`` in every army of ``exp`` that holds
    it. One-line errors: an unknown card (with suggestions), no army holding the card, a
    swapped deck that breaks the deck rules."""
    pool = load_pool()
    old = pool.get(card, source="--card")
    new = pool.get(replacement, source="--with")
    armies, copies, unaffected = [], {}, []
    for army in exp.armies:
        deck = army.deck()
        n = sum(k for c, k in deck.entries if c.index == old.index)
        if not n:
            unaffected.append(army.key)
            armies.append(army)
            continue
        swaps = army.swaps + ((old.id, new.id),)
        swapped = apply_swaps(deck, ((old.id, new.id),), pool)
        armies.append(replace(army, swaps=swaps, digest=deck_digest(swapped)))
        copies[army.key] = n
    if not copies:
        raise LabError(f"--card {old.name}: no army of {exp.source} holds it (armies: "
                       f"{', '.join(a.key for a in exp.armies)}); pick a card one of them "
                       "holds (`lab decks ARMY` lists a deck)")
    return SwapPlan(old, new, exp, replace(exp, armies=tuple(armies)), copies,
                    tuple(unaffected))


def _slug(text: str) -> str:
    return re.sub(r"[/\\\s]+", "_", text)


def default_out(p: SwapPlan, games_option: bool = False) -> Path:
    """results/NAME-swap-CARD-WITH (…-gamesN with --games, like ``lab run``)."""
    name = f"{p.base.name}-swap-{_slug(p.card.name)}-{_slug(p.replacement.name)}"
    return Path("results") / (f"{name}-games{p.base.games}" if games_option else name)


def arms(out: str | Path) -> tuple[Path, Path]:
    out = Path(out)
    return out / "base", out / "alt"


def run(p: SwapPlan, out: str | Path, *, jobs: int | None = None, resume: bool = False,
        console=None):
    """Play both arms (each a results folder under ``out``): (base RunResult, alt RunResult)."""
    from lab.sim import runner

    base_dir, alt_dir = arms(out)
    results = []
    for label, exp, folder in (("base", p.base, base_dir), ("alt", p.alt, alt_dir)):
        if console is not None:
            console.print(f"{label} arm → {folder}", soft_wrap=True)
        results.append(runner.run(exp, folder, jobs=jobs, resume=resume, console=console))
    return tuple(results)


def effects(p: SwapPlan, out: str | Path, *, min_games: int | None = None) -> pd.DataFrame:
    """``swap_effect`` for every affected army, concatenated (columns of swap_effect).

    An affected army with only mirror games gets no rows (it has nothing to compare against).
    """
    from lab.stats.intervals import MIN_GAMES
    from lab.stats.paired import swap_effect
    from lab.stats.records import load

    base_dir, alt_dir = arms(out)
    base, alt = load(base_dir), load(alt_dir)
    min_games = MIN_GAMES if min_games is None else min_games
    split = [col for col, n in (("variant", len(p.base.variants)), ("tier", len(p.base.tiers)))
             if n > 1]
    parts = []
    for army in p.affected:
        if not any(army in m and m[0] != m[1] for m in p.base.matchups):
            continue
        parts.append(swap_effect(base, alt, army, min_games=min_games))
        if split:  # the pooled change, then the change in each variant / bot tier
            rows = swap_effect(base, alt, army, by=split, min_games=min_games)
            rows = rows[rows["kind"] == "army"].copy()
            rows["kind"] = "split"
            rows["item"] = rows[split].astype(str).agg(" / ".join, axis=1)
            parts.append(rows.drop(columns=split))
    if not parts:
        raise LabError("every army holding the card plays only mirror games; a swap test needs "
                       "opponents — add other armies to the config")
    return pd.concat(parts, ignore_index=True)


def reading(p: SwapPlan, row, names: dict[str, str]) -> str:
    """One line a designer reads: "removing 赤備え costs 武田 −3.1 points [−5.0, −1.2]"."""
    name = names.get(row["army"], row["army"])
    pts = lambda x: f"{100 * x:+.1f}".replace("-", "−")  # noqa: E731
    span = f"{pts(row['change'])} points [{pts(row['change_lo'])}, {pts(row['change_hi'])}]"
    head = f"removing {p.card.name} (for {p.replacement.name})"
    if row["change_hi"] < 0:
        line = f"{head} costs {name} {span}"
    elif row["change_lo"] > 0:
        line = f"{head} gains {name} {span}"
    else:
        line = f"{head} moves {name} {span}: no detectable effect"
    if row.get("thin"):
        line += f" (thin: only {int(row['pairs'])} pairs)"
    return line
