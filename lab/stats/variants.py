"""Per-variant statistics: how each rule set plays — first-player edge, draws, ends, length.

Owns: ``variant_table`` (one row per variant, or per any ``by`` grouping): games; first-player win
rate among decisive games; draw rate; the share of each end reason; mean leader turns and battles
(t intervals, with medians); mean wall margin of decisive games (winner's walls left − loser's);
comeback rate (decisive games whose winner was behind by ≥ ``comeback_walls`` walls at some point,
from ``max_deficit_*``); ``end_reason_table`` in long form; and ``length_values`` for histograms.
Every rate is ``x, x_lo, x_hi, x_n`` with a Wilson interval. Reads records only; never simulates.

Conventions: a draw is neither a win nor a loss — win rates count decisive games (their ``_n``
says how many) and the draw rate stands beside them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lab.errors import LabError
from lab.stats.intervals import ALPHA, mean_columns, rate
from lab.stats.records import END_REASONS, as_records
from lab.stats.views import group_columns, grouped, reset

COMEBACK_WALLS = 3


def _game_facts(g: pd.DataFrame, comeback_walls: int) -> pd.DataFrame:
    g = g.copy()
    a_won = g["winner"] == "A"
    decisive = g["winner"] != "draw"
    g["decisive"] = decisive
    g["draw"] = ~decisive
    g["first_won"] = decisive & (g["winner"] == g["first"])
    winner_deficit = np.where(a_won, g["max_deficit_a"], g["max_deficit_b"])
    g["comeback"] = decisive & (winner_deficit >= comeback_walls)
    margin = np.where(a_won, g["walls_a"] - g["walls_b"], g["walls_b"] - g["walls_a"])
    g["wall_margin"] = np.where(decisive, margin, np.nan)
    return g


def variant_table(records, by=("variant",), *, comeback_walls: int = COMEBACK_WALLS,
                  alpha: float = ALPHA) -> pd.DataFrame:
    """One row per group (default: per variant) with sample sizes and 95% intervals."""
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    g = _game_facts(rec.games, comeback_walls)
    grp = grouped(g, keys)
    sums = grp[["decisive", "draw", "first_won", "comeback"]].sum()
    sums["games"] = grp.size()
    out = pd.DataFrame({"games": sums["games"]}, index=sums.index)
    for name, k, n in (("first_win", sums["first_won"], sums["decisive"]),
                       ("draw", sums["draw"], sums["games"]),
                       ("comeback", sums["comeback"], sums["decisive"])):
        for col, v in rate(k, n, name, alpha).items():
            out[col] = v
    if keys:
        reasons = pd.crosstab([g[k] for k in keys], g["end_reason"]).reindex(out.index,
                                                                             fill_value=0)
    else:
        reasons = pd.crosstab(np.zeros(len(g)), g["end_reason"]).set_axis(out.index)
    ordered = [r for r in END_REASONS if r in reasons.columns] + sorted(
        r for r in reasons.columns if r not in END_REASONS)
    for r in ordered:
        for col, v in rate(reasons[r], sums["games"], f"end_{r}", alpha).items():
            out[col] = v
    for col in ("leader_turns", "battles", "wall_margin"):
        out = out.join(mean_columns(grp, col, alpha=alpha))
    return reset(out, keys)


def end_reason_table(records, by=("variant",), alpha: float = ALPHA) -> pd.DataFrame:
    """Long form: one row per group × end reason with games, share and its Wilson interval."""
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    g = rec.games
    counts = g.groupby([*keys, "end_reason"], observed=True).size().rename("k").reset_index()
    totals = (g.groupby(keys).size().rename("games").reset_index() if keys
              else pd.DataFrame({"games": [len(g)]}))
    counts = counts.merge(totals, on=keys) if keys else counts.assign(games=len(g))
    cols = rate(counts["k"], counts["games"], "share", alpha)
    for c, v in cols.items():
        counts[c] = v
    return counts.drop(columns=["k", "share_n"])


def length_values(records, by=("variant",), column: str = "leader_turns") -> dict:
    """Group → array of a length column (leader_turns or battles), for histograms."""
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    if column not in rec.games.columns:
        raise LabError(f"no games column \"{column}\" (allowed: leader_turns, battles, decisions)")
    if not keys:
        return {"all": rec.games[column].to_numpy()}
    out = {}
    for k, part in rec.games.groupby(keys, sort=False):
        k = k[0] if isinstance(k, tuple) and len(k) == 1 else k
        out[k] = part[column].to_numpy()
    return out
