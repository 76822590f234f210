"""``lab value``: plan, run and read the card-value experiment of a config (docs/value.md).

Owns the design: for every card type of every army of the config (or those named), the arms —
card patches scoped to that army's deck, made by the game (``CardDesign.value_arms``) — of two
contrasts, each compared with the unchanged decks on the same deals and seat orders:
**ability_off** (the card loses every ability) and **above_vanilla** (every copy replaced by a
vanilla card of the nearest strength); one arm may answer both. One run holds every arm of every army (``lab.sim.runner``: joblib or Dask,
deterministic, interrupt and ``--resume``, progress bar): the config's matchups minus mirror
games (a mirror has no opponent to be worth something against), the base patch on all of them and
each arm only on its army's matchups (``patched_matchups = "affected"``). The statistics are
``lab.stats.value``; this module reads the run's records and writes ``value.parquet``. It never
reaches into the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from lab.design import card_design
from lab.design.tiers import names as tier_names
from lab.errors import did_you_mean, LabError
from lab.games.protocol import Experiment, ValueArm
from lab.stats.intervals import ALPHA
from lab.stats.value import ARM_COLUMNS, GAME_COLUMNS, value_table, write_value

RECORDS = "records"  # the run's results folder inside the value folder
Arm = ValueArm  # one card patch of a value run and the value rows it answers


@dataclass(frozen=True)
class ValuePlan:
    base: Experiment  # the config as given (after --games)
    exp: Experiment  # the value run: base and every arm
    arms: tuple[Arm, ...]
    skipped: tuple[str, ...] = ()  # armies left out: they play only mirror games

    def arms_frame(self) -> pd.DataFrame:
        names = {a.key: a.name for a in self.base.armies}
        rows = [
            (a.patch.name, a.army, names[a.army], a.card.id, a.card.name, a.copies, contrast, repl)
            for a in self.arms
            for contrast, repl in a.contrasts
        ]
        return pd.DataFrame(rows, columns=ARM_COLUMNS)

    @property
    def rows(self) -> int:
        return (
            sum(len(a.contrasts) for a in self.arms) * len(self.exp.variants) * len(self.exp.tiers)
        )


def plan(
    exp: Experiment, cards: list[str] | None = None, tiers: list[str] | None = None
) -> ValuePlan:
    """The value run of ``exp``: every card of every army (or the ``cards`` named, by printed
    name or id), in every rule variant and bot tier (or the ``tiers`` named)."""
    design = card_design(exp)
    if exp.patches != (design.BASE_PATCH,):
        raise LabError(
            f"{exp.source} varies card patches ([[patch]] / [grid] patch); lab value "
            "measures the decks as written — use a config without patches"
        )
    by_army = design.value_arms(exp, cards)
    opponents = {
        a: {x for m in exp.matchups if a in m and m[0] != m[1] for x in m} - {a} for a in by_army
    }
    arms, skipped = [], []
    for army, mine in by_army.items():
        if mine and not opponents[army]:
            skipped.append(army)
        elif mine:
            arms += mine
    if not arms:
        raise LabError(
            f"{exp.source}: no card to value — every army with such cards plays "
            "only mirror games; add opponents to the config's armies"
        )
    valued = {a.army for a in arms}
    matchups = tuple(m for m in exp.matchups if m[0] != m[1] and valued & set(m))
    narrowed = replace(exp, name=f"{exp.name}-value", matchups=matchups, tiers=_tiers(exp, tiers))
    run_exp = design.with_patches(
        narrowed, (design.BASE_PATCH,) + tuple(a.patch for a in arms), patched_matchups="affected"
    )
    return ValuePlan(exp, run_exp, tuple(arms), tuple(skipped))


def _tiers(exp: Experiment, labels: list[str] | None):
    if not labels:
        return exp.tiers
    by_label = {t.label: t for t in exp.tiers}
    # a bot's own label or short name (tuned, search(400)) names the tier in which it plays
    # both seats
    for t in exp.tiers:
        by_label |= {name: t for name in tier_names(t) if name not in by_label}
    out = []
    for label in labels:
        if label not in by_label:
            did = did_you_mean(label, by_label)
            raise LabError(
                f"--tier: \"{label}\" is not a bot tier of {exp.source}; {did}"
                f"tiers: {', '.join(t.label for t in exp.tiers)}"
            )
        if by_label[label] not in out:
            out.append(by_label[label])
    return tuple(out)


# ------------------------------------------------------------------------------------ running


def default_out(exp: Experiment, games_option: bool = False) -> Path:
    """results/NAME/value (results/NAME-gamesN/value with --games): inside the experiment's
    results folder, where `lab report results/NAME` finds it."""
    from lab.sim.runner import default_out as run_out

    return run_out(exp, games_option) / "value"


def run(
    p: ValuePlan,
    out: str | Path,
    *,
    jobs: int | None = None,
    resume: bool = False,
    backend: str = "loky",
    scheduler: str | None = None,
    console=None,
):
    """Play every arm into OUT/records (a results folder): the runner's RunResult. A folder
    already holding this value run, complete, is reused as it is (nothing is played)."""
    from lab import records
    from lab.sim import manifest, runner

    folder = Path(out) / RECORDS
    old = manifest.read(folder)
    if old is not None and old.get("fingerprint") != p.exp.fingerprint():
        raise LabError(
            f"--out {out} holds a value run of another config or selection (cards, "
            "tiers, games); choose another --out, or delete that folder"
        )
    complete = old is not None and len(records.written_chunks(folder)) == len(old["chunks"])
    return runner.run(
        p.exp,
        folder,
        jobs=jobs,
        resume=resume or complete,
        backend=backend,
        scheduler=scheduler,
        console=console,
    )


def compute(p: ValuePlan, out: str | Path) -> pd.DataFrame:
    """The value table of a finished run in ``out``, also written to OUT/value.parquet."""
    from lab.records import read_games

    games = read_games(Path(out) / RECORDS, columns=GAME_COLUMNS)
    table = value_table(games, p.arms_frame())
    write_value(out, table)
    return table


# ---------------------------------------------------------------------------------- showing


def tables(table: pd.DataFrame, alpha: float = ALPHA):
    """Rich tables of a value table, one per variant × tier: army, card, contrast, value in
    points with its 95% interval, q, games; bold where q < ``alpha`` (the level the table's
    intervals were computed at, ``lab.stats.ALPHA``)."""
    from rich.table import Table

    from lab.fmt import points as pts

    out = []
    for (variant, tier), part in table.groupby(["variant", "tier"], sort=False):
        t = Table(
            title=f"card value — {variant}, {tier}",
            title_justify="left",
            caption="value: the army's win rate (draw ½) with the card as is − with the "
            f"contrast, in points, {1 - alpha:.0%} interval clustered by deal; "
            f"bold: q < {alpha:g} (Benjamini–Hochberg across cards)",
            caption_justify="left",
        )
        for col in ("army", "card", "×", "contrast", "value", "interval", "q", "games"):
            t.add_column(
                col, justify="right" if col in ("×", "value", "interval", "q", "games") else "left"
            )
        for r in part.itertuples():
            what = r.contrast if not r.replacement else f"{r.contrast} ({r.replacement})"
            t.add_row(
                r.army_name,
                r.card,
                str(r.copies),
                what,
                pts(r.value),
                f"[{pts(r.lo)}, {pts(r.hi)}]",
                "—" if pd.isna(r.q) else f"{r.q:.3f}",
                f"{r.games:,}",
                style="bold" if r.q < alpha else None,
            )
        out.append(t)
    return out


def precision(table: pd.DataFrame) -> dict:
    """The achieved precision: the largest and the median 95% half-width, in points."""
    half = (table["hi"] - table["lo"]) / 2 * 100
    return {
        "rows": len(table),
        "max_half_width": float(half.max()),
        "median_half_width": float(half.median()),
    }
