"""``lab value``: plan, run and read the card-value experiment of a config (docs/value.md).

Owns the design: for every card type of every army of the config (or those named), the arms —
card patches scoped to that army's deck — of two contrasts, each compared with the unchanged
decks on the same deals and seat orders:

- **ability_off**: the card keeps its strength and loses every ability (``ability_off``);
- **above_vanilla**: every copy replaced by a vanilla 足軽 of the nearest strength — a unit or
  warlord of strength s by 足軽s, a general (∞) by 足軽10, a tactic or castle by the army's
  weakest vanilla 足軽 (足軽1 if it holds none).

For a unit or warlord of strength 1–10 the two contrasts are one and the same deck in play (the
engine reads no kind beyond unit / tactic / castle and nothing of a card but its strength and
ability rows), so one arm answers both rows. A 足軽 itself gets no row: it has no ability and is
its own vanilla. One run holds every arm of every army (``lab.sim.runner``: joblib or Dask,
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

from lab.games.daitenka.cards.patch import Patch, ability_off, replace_card
from lab.games.daitenka.cards.pool import Card, Deck
from lab.games.daitenka.cards.vocab import INF, Kind
from lab.errors import LabError, closest
from lab.design.tiers import names as tier_names
from lab.games.daitenka.experiment import BASE_PATCH, Experiment, with_patches
from lab.stats.intervals import ALPHA
from lab.stats.value import ARM_COLUMNS, CONTRASTS, GAME_COLUMNS, value_table, write_value

OFF, VANILLA = CONTRASTS
RECORDS = "records"  # the run's results folder inside the value folder


@dataclass(frozen=True)
class Arm:
    """One card patch of a value run and the value rows it answers."""

    patch: Patch
    army: str
    card: Card
    copies: int
    contrasts: tuple[tuple[str, str], ...]  # (contrast, printed name of the replacement or "")


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


def vanilla(card: Card, deck: Deck, pool) -> Card:
    """The vanilla 足軽 of the nearest strength (the above_vanilla replacement)."""
    if card.is_unit:
        return pool.get(f"ashigaru{10 if card.strength == INF else card.strength}")
    plain = [c for c, _ in deck.entries if c.kind == Kind.UNIT and not c.abilities]
    return min(plain, key=lambda c: c.strength) if plain else pool.get("ashigaru1")


def arms_of(army: str, deck: Deck, cards: set[str] | None, pool) -> list[Arm]:
    """The arms of one army's cards (those in ``cards`` when given), in deck order."""
    out = []
    for card, n in deck.entries:
        if cards is not None and card.id not in cards:
            continue
        if card.kind == Kind.UNIT and not card.abilities:
            continue  # a 足軽: no ability to turn off, and its own vanilla
        plain = vanilla(card, deck, pool)
        if card.abilities:
            off = Patch(
                f"{army}:{card.id}:off",
                (ability_off(card.id, army=army, pool=pool),),
                f"{card.name} without its abilities in {deck.name}",
            )
            both = card.is_unit and card.strength != INF  # off is its vanilla: one arm
            out.append(
                Arm(off, army, card, n, ((OFF, ""),) + (((VANILLA, plain.name),) if both else ()))
            )
            if both:
                continue
        swap = Patch(
            f"{army}:{card.id}:vanilla",
            (replace_card(army, card.id, plain.id, pool=pool),),
            f"{card.name} → {plain.name} in {deck.name}",
            allow_no_general=card.kind == Kind.GENERAL,
        )
        out.append(Arm(swap, army, card, n, ((VANILLA, plain.name),)))
    return out


def plan(
    exp: Experiment, cards: list[str] | None = None, tiers: list[str] | None = None
) -> ValuePlan:
    """The value run of ``exp``: every card of every army (or the ``cards`` named, by printed
    name or id), in every rule variant and bot tier (or the ``tiers`` named)."""
    if exp.patches != (BASE_PATCH,):
        raise LabError(
            f"{exp.source} varies card patches ([[patch]] / [grid] patch); lab value "
            "measures the decks as written — use a config without patches"
        )
    pool = exp.pool()
    decks = {a.key: a.deck() for a in exp.armies}
    wanted = _cards(cards, decks, pool, exp.source) if cards else None
    opponents = {
        a: {x for m in exp.matchups if a in m and m[0] != m[1] for x in m} - {a} for a in decks
    }
    arms, skipped = [], []
    for army, deck in decks.items():
        mine = arms_of(army, deck, wanted, pool)
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
    run_exp = with_patches(
        narrowed, (BASE_PATCH,) + tuple(a.patch for a in arms), patched_matchups="affected"
    )
    return ValuePlan(exp, run_exp, tuple(arms), tuple(skipped))


def _cards(names: list[str], decks: dict[str, Deck], pool, source: str) -> set[str]:
    held = {c.id: c for d in decks.values() for c, _ in d.entries}
    out = set()
    for name in names:
        if name not in pool:
            held_names = [c.name for c in held.values()] + list(held)
            hint = closest(name, held_names)
            did = f"did you mean {', '.join(hint)}? " if hint else ""
            raise LabError(
                f"--cards: unknown card \"{name}\"; {did}(`lab decks ARMY` lists a deck's cards)"
            )
        card = pool.get(name)
        if card.id not in held:
            hint = closest(card.name, [c.name for c in held.values()])
            did = f"; cards they hold that look alike: {', '.join(hint)}" if hint else ""
            raise LabError(
                f"--cards: no army of {source} holds {card.name} (armies: {', '.join(decks)}){did}"
            )
        out.add(card.id)
    return out


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
            hint = closest(label, by_label)
            did = f"did you mean {', '.join(hint)}? " if hint else ""
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
