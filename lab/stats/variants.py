"""Per-variant statistics: how each rule set plays — first-player edge, draws, ends, length.

Owns: ``variant_table`` (one row per variant, or per any ``by`` grouping): games; first-player win
rate among decisive games; draw rate; the share of each end reason; mean leader turns and battles
(t intervals, with medians); mean wall margin of decisive games (winner's walls left − loser's);
comeback rate (decisive games whose winner was behind by ≥ ``comeback_walls`` walls at some point,
from ``max_deficit_*``); ``first_player_edge`` (the rows whose first-player interval excludes
50%, never a thin one); ``end_reason_table`` in long form; and ``length_values`` for histograms.
Every rate is ``x, x_lo, x_hi, x_n`` with a Wilson interval. Reads records only; never simulates.

Conventions: a draw is neither a win nor a loss — win rates count decisive games (their ``_n``
says how many) and the draw rate stands beside them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lab.errors import LabError
from lab.stats.clustered import CLUSTER, clustered_mean, clustered_rate
from lab.stats.intervals import ALPHA, MIN_GAMES
from lab.stats.records import END_REASONS, as_records
from lab.stats.views import BY, group_codes, group_columns, label_pooled, with_clusters

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


def variant_table(
    records, by=BY, *, comeback_walls: int = COMEBACK_WALLS, alpha: float = ALPHA
) -> pd.DataFrame:
    """One row per group (default: per variant and tier) with sample sizes and 95% intervals."""
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    g = _game_facts(with_clusters(rec.games), comeback_walls)
    codes, out = group_codes(g, keys)
    out = out.copy()
    ng, cl = len(out), g[CLUSTER]
    out["games"] = np.bincount(codes, minlength=ng)
    every = np.ones(len(g), bool)
    specs = [
        ("first_win", g["first_won"], g["decisive"]),
        ("draw", g["draw"], every),
        ("comeback", g["comeback"], g["decisive"]),
    ]
    seen = set(g["end_reason"])
    reasons = [r for r in END_REASONS if r in seen] + sorted(seen - set(END_REASONS))
    specs += [(f"end_{r}", g["end_reason"] == r, every) for r in reasons]
    for name, y, mask in specs:
        for col, v in clustered_rate(name, y, mask, codes, cl, ng, alpha).items():
            out[col] = v
    for col in ("leader_turns", "battles", "wall_margin"):
        y = g[col].to_numpy(float)
        ok = np.isfinite(y)
        for c, v in clustered_mean(col, y, ok, codes, cl, ng, alpha).items():
            out[c] = v
        out[f"{col}_median"] = (
            pd.Series(y[ok]).groupby(codes[ok]).median().reindex(range(ng)).to_numpy()
        )
    return label_pooled(out, rec.games, keys)


def first_player_edge(vt: pd.DataFrame, min_games: int = MIN_GAMES) -> np.ndarray:
    """Per row of a ``variant_table``: True where the first player's interval excludes 50% on
    at least ``min_games`` decisive games — the first seat is drawn at random per deal, so this
    is a causal edge. A thin row is never flagged. The report bolds and colours by it."""
    lo, hi = vt["first_win_lo"].to_numpy(float), vt["first_win_hi"].to_numpy(float)
    return (vt["first_win_n"].to_numpy(float) >= min_games) & ((lo > 0.5) | (hi < 0.5))


def end_reason_table(records, by=BY, alpha: float = ALPHA) -> pd.DataFrame:
    """Long form: one row per group × end reason with its share and clustered interval."""
    vt = variant_table(records, by, alpha=alpha)
    keys = list(vt.columns[: vt.columns.get_loc("games")])
    parts = []
    for col in vt.columns:
        if col.startswith("end_") and not col.endswith(("_lo", "_hi", "_n")):
            part = vt[[*keys, "games"]].copy()
            part.insert(len(keys), "end_reason", col[4:])
            for suffix in ("", "_lo", "_hi"):
                part[f"share{suffix}"] = vt[f"{col}{suffix}"]
            parts.append(part[part["share"] > 0])
    return (
        pd.concat(parts, ignore_index=True).sort_values(keys, kind="stable").reset_index(drop=True)
    )


def length_values(records, by=BY, column: str = "leader_turns") -> dict:
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
