"""The short summary printed at the end of ``lab run``: per variant (and bot tier), the
first-player win rate, draw rate and mean game length; per army, the win rate in each variant,
one table per bot tier (tiers are never pooled: a blend of random and heuristic games describes
no player).

Reads the games records of a results folder with pandas and returns rich tables that fit 80
columns (long variant ids become v1, v2, … with a legend); it does no statistics beyond counting
(confidence intervals and per-card metrics belong to ``lab.stats``).
"""

from __future__ import annotations

import pandas as pd
from rich.table import Table

from lab.records import read_games

SHORT_ID = 16  # longer variant ids are shown as v1, v2, … with a legend (80-column tables)
COLUMNS = [
    "variant",
    "tier",
    "army_a",
    "army_b",
    "first",
    "winner",
    "leader_turns",
    "battles",
    "error",
]


def variant_rates(games: pd.DataFrame) -> pd.DataFrame:
    """Per variant and tier: games, first-player win rate, draw rate, mean leader turns and
    battles (a draw counts as no first-player win)."""
    g = games.assign(first_won=games["winner"] == games["first"], draw=games["winner"] == "draw")
    return (
        g.groupby(["variant", "tier"], sort=False)
        .agg(
            games=("first", "size"),
            first_player_win=("first_won", "mean"),
            draw=("draw", "mean"),
            leader_turns=("leader_turns", "mean"),
            battles=("battles", "mean"),
        )
        .reset_index()
    )


def army_rates(games: pd.DataFrame) -> pd.DataFrame:
    """Win rate of each army (rows) in each variant (columns), mirrors left out; draws count
    as no win. Call it on one bot tier's games: tiers are never pooled (``tables`` makes one
    table per tier)."""
    g = games[games["army_a"] != games["army_b"]]
    seats = pd.concat(
        [
            pd.DataFrame({"variant": g["variant"], "army": g["army_a"], "won": g["winner"] == "A"}),
            pd.DataFrame({"variant": g["variant"], "army": g["army_b"], "won": g["winner"] == "B"}),
        ]
    )
    if seats.empty:
        return pd.DataFrame()
    order = [v for v in dict.fromkeys(games["variant"]) if v in set(seats["variant"])]
    table = seats.pivot_table(index="army", columns="variant", values="won", aggfunc="mean")
    return table[order]


def short_labels(variants: list[str], longest: int = SHORT_ID) -> dict[str, str]:
    """Variant id → the label the tables show: the id itself while every id is short, else
    v1, v2, … (in run order) explained by a legend, so the tables fit 80 columns."""
    if all(len(v) <= longest for v in variants):
        return {v: v for v in variants}
    return {v: f"v{i}" for i, v in enumerate(variants, 1)}


def tables(out, names: dict[str, str] | None = None) -> list[Table]:
    """The summary of a results folder as rich tables (``names``: army key → printed name)."""
    games = read_games(out, columns=COLUMNS)
    if games.empty:
        return []
    labels = short_labels(list(dict.fromkeys(games["variant"])))
    out_tables = []
    if any(k != v for k, v in labels.items()):
        legend = Table(
            title="variants", title_justify="left", show_header=False, box=None, padding=(0, 1)
        )
        legend.add_column(no_wrap=True)
        legend.add_column(overflow="fold")
        for variant, label in labels.items():
            legend.add_row(label, variant)
        out_tables.append(legend)
    several_tiers = games["tier"].nunique() > 1
    vt = Table(title=f"per variant — {len(games):,} games", title_justify="left")
    vt.add_column("variant", overflow="fold")
    if several_tiers:
        vt.add_column("bots", overflow="fold")
    for col in ("games", "first player wins", "draws", "leader turns", "battles"):
        vt.add_column(col, justify="right")
    for r in variant_rates(games).itertuples():
        cells = [labels[r.variant]] + ([r.tier] if several_tiers else [])
        vt.add_row(
            *cells,
            f"{r.games:,}",
            f"{r.first_player_win:.1%}",
            f"{r.draw:.1%}",
            f"{r.leader_turns:.1f}",
            f"{r.battles:.1f}",
        )
    vt.caption = "first player: the seat that took the first leader turn; lengths are means"
    vt.caption_justify = "left"
    out_tables.append(vt)
    for tier, tier_games in games.groupby("tier", sort=False):
        armies = army_rates(tier_games)
        if armies.empty:
            continue
        if names:  # the config's army order
            armies = armies.reindex([k for k in names if k in armies.index])
        title = "per army — win rate" + (f", bots {tier}" if several_tiers else "")
        at = Table(title=title, title_justify="left")
        at.caption = "mirror games left out; a draw counts as no win"
        at.caption_justify = "left"
        at.add_column("army", overflow="fold")
        for v in armies.columns:
            at.add_column(labels[v], justify="right")
        for army, row in armies.iterrows():
            label = f"{names[army]} ({army})" if names and army in names else army
            at.add_row(label, *(f"{x:.1%}" if pd.notna(x) else "—" for x in row))
        out_tables.append(at)
    return out_tables
