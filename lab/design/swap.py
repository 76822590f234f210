"""The card-swap test (``lab swap``): the same deals with and without a card — a card patch.

Owns the swap's experiment and the reading of its result. A swap is the patch (made by the game,
``CardDesign.swap``) that, in every army holding the card (or, with ``--army``, in that army only), replaces each copy
by the other card in place and copy for copy; ``lab swap`` runs the experiment with the patches ``base`` and that one (variant ids
``RULES`` and ``RULES@CARD→WITH``) into one ordinary results folder through ``lab.sim.runner``
(resumable with ``--resume``; ``lab report`` compares the two like any two variants). Both play
the same deals: the same deck order position for position (only the swapped positions hold another
card), the same first player, the same play-stream words; matchups without the card are played
once and recorded for both. The analysis is ``lab.stats.paired.swap_effect`` per affected army
in each rule variant and bot tier, never pooled over them.
This module plays nothing itself and holds no statistics of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from lab.design import card_design
from lab.errors import LabError, read_toml
from lab.games.protocol import Experiment
from lab.schema.base import check
from lab.schema.experiment import SwapTable
from lab.schema.experiment import slug


@dataclass(frozen=True)
class SwapPlan:
    card: Any  # the card taken out
    replacement: Any  # the card put in its place
    base: Experiment  # the config as written
    exp: Experiment  # the config playing the patches base and ``patch``
    patch: Any
    copies: dict[str, int]  # affected army key → copies replaced
    unaffected: tuple[str, ...]  # armies of the run whose decks are unchanged
    army: str | None = None  # --army: only this army's copies are swapped
    kept: tuple[str, ...] = ()  # with --army: other armies that hold the card and keep it

    @property
    def affected(self) -> tuple[str, ...]:
        return tuple(self.copies)


def read_table(config: str | Path) -> dict | None:
    """The config's ``[swap]`` table as {"card", "with", "army"} (None when it has none)."""
    try:
        data = read_toml(config)
    except LabError:
        return None  # load_experiment reports the file's problem in its own words
    if data.get("swap") is None:
        return None
    table = check(SwapTable, data["swap"], str(config), where="[swap]")
    return {"card": table.card, "with": table.with_, "army": table.army}


def plan(exp: Experiment, card: str, replacement: str, army: str | None = None) -> SwapPlan:
    """The swap of ``card`` for ``replacement`` in every army of ``exp`` that holds it — or,
    with ``army`` (a key or printed name), in that army's deck only: the others keep their
    copies, so the change is what the card is worth to that army against opponents as they
    are (``lab value``'s question), not what removing it from the game does.
    One-line errors: an unknown card (with suggestions), no army holding the card, an army not
    in the config or not holding the card, a swapped deck that breaks the deck rules, a config
    that already has patches."""
    design = card_design(exp)
    if exp.patches != (design.BASE_PATCH,):
        raise LabError(
            f"{exp.source} already varies card patches ([[patch]] / [grid] patch); "
            "lab swap compares the unpatched decks — add the swap as one more "
            "[[patch]] (edit: army, card, replace) and use lab run instead"
        )
    s = design.swap(exp, card, replacement, army)
    exp_swap = design.with_patches(exp, (design.BASE_PATCH, s.patch))
    return SwapPlan(
        s.card, s.replacement, exp, exp_swap, s.patch, s.copies, s.unaffected, s.army, s.kept
    )


def default_out(p: SwapPlan, games_option: bool = False) -> Path:
    """results/NAME-swap-CARD-WITH (…-ARMY with --army; …-gamesN with --games, like
    ``lab run``)."""
    name = f"{p.base.name}-swap-{slug(p.card.name)}-{slug(p.replacement.name)}"
    name += f"-{p.army}" if p.army else ""
    return Path("results") / (f"{name}-games{p.base.games}" if games_option else name)


def run(
    p: SwapPlan, out: str | Path, *, jobs: int | None = None, resume: bool = False, console=None
):
    """Play the swap (both patches, one results folder): the runner's RunResult."""
    from lab.sim import runner

    return runner.run(p.exp, out, jobs=jobs, resume=resume, console=console)


def arms(games: pd.DataFrame, p: SwapPlan) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(base, swapped) games of a swap's records; the swapped games carry their rule set's id
    as ``variant`` so that the two pair on it."""
    base = games[games["patch"] == card_design(p.base).BASE_PATCH.name]
    alt = games[games["patch"] == p.patch.name].copy()
    alt["variant"] = alt["variant"].str.removesuffix(f"@{p.patch.name}")
    return base, alt


GROUP = ("variant", "tier")  # a swap's change is never pooled over these


def effects(p: SwapPlan, out: str | Path, *, min_games: int | None = None) -> pd.DataFrame:
    """``swap_effect`` for every affected army in each rule variant and bot tier of the config,
    concatenated (columns of swap_effect, led by ``variant`` and ``tier``): one ``army`` row per
    army × variant × tier, then its ``matchup`` rows. Variants and tiers are never pooled — a
    change at the plain heuristic says nothing of the search's, and a pooled number would mix
    them.

    An affected army with only mirror games gets no rows (it has nothing to compare against).
    """
    from lab.stats.intervals import MIN_GAMES
    from lab.stats.paired import swap_effect
    from lab.stats.records import load

    base, alt = arms(load(out, cards=False).games, p)
    min_games = MIN_GAMES if min_games is None else min_games
    parts = []
    for army in p.affected:
        if not any(army in m and m[0] != m[1] for m in p.base.matchups):
            continue
        rows = swap_effect(base, alt, army, by=GROUP, min_games=min_games)
        # each group's army row, then its matchups, in the order the config plays them
        order = {c: {v: i for i, v in enumerate(pd.unique(base[c]))} for c in GROUP}
        rows = rows.assign(
            _v=rows["variant"].map(order["variant"]),
            _t=rows["tier"].map(order["tier"]),
            _k=rows["kind"] != "army",
        )
        parts.append(
            rows.sort_values(["_v", "_t", "_k"], kind="stable").drop(columns=["_v", "_t", "_k"])
        )
    if not parts:
        raise LabError(
            "every army holding the card plays only mirror games; a swap test needs "
            "opponents — add other armies to the config"
        )
    return pd.concat(parts, ignore_index=True)


def groups(rows: pd.DataFrame) -> list[tuple[str, str]]:
    """The (variant, tier) groups of ``effects``' rows, in their order."""
    return list(dict.fromkeys(zip(rows["variant"], rows["tier"])))


def reading(p: SwapPlan, row, names: dict[str, str]) -> str:
    """One line a designer reads: "removing 赤備え costs 武田 −3.1 points [−5.0, −1.2]" — the
    headline of a swap measured in one variant and tier (``row``: its army row)."""
    name = names.get(row["army"], row["army"])
    from lab.fmt import points as pts

    span = f"{pts(row['change'])} points [{pts(row['change_lo'])}, {pts(row['change_hi'])}]"
    head = f"removing {p.card.name} (for {p.replacement.name})"
    if p.army:
        head += f" from {name}'s deck only"
    elif len(p.copies) > 1:
        head += " from every deck holding it"
    if row["change_hi"] < 0:
        line = f"{head} costs {name} {span}"
    elif row["change_lo"] > 0:
        line = f"{head} gains {name} {span}"
    else:
        line = f"{head} moves {name} {span}: no detectable effect"
    if row.get("thin"):
        line += f" (thin: only {int(row['pairs'])} pairs)"
    return line
