"""Per-card statistics in the 17lands style, counted in games (a seat's game), not copies.

Owns: ``card_table`` — for each army × card (× any ``by`` group), over decisive games of the seat
whose deck held the card:

- ``oh``: win rate in games where ≥ 1 copy was in the opening hand (after a mulligan);
- ``gd``: games where no copy was in the opening hand and ≥ 1 was drawn from the deck later
  (deck draws only — so OH and GD split GIH);
- ``gained``: games where ≥ 1 copy came to hand from the walls (broken walls, 見送り, 築城 — its
  own column: broken walls go to the losing side's hand, so counting them as draws would drag GD
  and GIH towards losses);
- ``gih`` = OH ∪ GD; ``gns`` = the rest of the games with the card in the deck (17lands' "not
  seen": not in the opening hand and never drawn from the deck). A game whose only copy came from
  the walls stays in GNS: taking it out would condition on a consequence of losing walls and bias
  GNS towards wins for every card alike;
- ``iwd`` = GIH win rate − GNS win rate, with Newcombe's interval;
- ``played``: win rate in games where ≥ 1 copy was played; ``won_set``: of those games, the share
  in which ≥ 1 copy was in a winning set;
- ``trigger``: of the games where the card reached the hand (any route), the share in which one of
  its abilities changed the state (NaN for cards without effects, from ``lab.cards.pool``);
- ``in_deck``: win rate of the army's games with the card in the deck — shown (not NaN) only where
  decks vary (swap runs), since with fixed decks it equals the army's win rate.

Each rate comes as ``x, x_lo, x_hi, x_n`` (Wilson). ``thin`` marks cards whose GIH or GNS sample is
below ``min_games``. Baselines per army (and group): ``gih_base`` (the army's pooled GIH win rate
over its cards) and ``iwd_base`` (its cards' mean IWD weighted by GIH games); a card is tested
against them — GIH by an exact binomial test, IWD by a score test of the difference with the
baseline as null value — and Benjamini–Hochberg (statsmodels ``fdr_bh``) runs over all non-thin
cards of the table: ``gih_q``/``gih_flag`` and ``iwd_q``/``iwd_flag``. Reads records only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lab.stats.intervals import (ALPHA, MIN_GAMES, bh, binom_pvalue, diff_interval, diff_pvalue,
                                 rate)
from lab.stats.records import as_records
from lab.stats.views import card_rows, group_columns, seat_rows

METRICS = ("oh", "gd", "gained", "gih", "gns", "played", "won_set", "trigger", "in_deck")


def card_flags(rows: pd.DataFrame) -> pd.DataFrame:
    """Per cards row, the game-level facts the metrics count (one seat's game each)."""
    oh = rows["opening"] > 0
    gd = (rows["opening"] == 0) & (rows["drawn"] > 0)
    gih = oh | gd
    gained = rows["gained"] > 0
    return pd.DataFrame({
        "oh": oh, "gd": gd, "gih": gih, "gained": gained, "gns": ~gih,
        "held": gih | gained | (rows["played"] > 0) | (rows["triggers"] > 0),
        "played": rows["played"] > 0, "won_set": rows["won"] > 0,
        "fired": rows["triggers"] > 0,
    }, index=rows.index)


def _has_effects(names, pool) -> dict[str, bool]:
    if pool is None:
        from lab.cards.pool import load_pool
        pool = load_pool()
    out = {}
    for name in names:
        out[name] = bool(pool.get(name).rows()) if name in pool else True
    return out


def card_table(records, by=("variant",), *, min_games: int = MIN_GAMES, alpha: float = ALPHA,
               pool=None) -> pd.DataFrame:
    """The per-card table described in the module docstring, one row per group × army × card."""
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    rows = card_rows(rec.require_cards(), rec.games, keys)
    rows = rows[~rows["draw"]]
    f = card_flags(rows)
    w = rows["won_game"].to_numpy()
    counts = pd.DataFrame({"n": 1, "w": w}, index=rows.index)
    for c in ("oh", "gd", "gih", "gained", "gns", "played", "held"):
        counts[c] = f[c]
        counts[f"{c}_w"] = f[c] & w
    counts["won_set"] = f["played"] & f["won_set"]
    counts["fired"] = f["held"] & f["fired"]
    gk = [*keys, "army", "card"]
    for c in gk:
        counts[c] = rows[c]
    counts["copies"] = rows["copies"]
    if "card_id" in rows.columns:
        counts["card_id"] = rows["card_id"]
    agg = {c: "sum" for c in counts.columns if c not in gk and c not in ("copies", "card_id")}
    agg["copies"] = "max"
    if "card_id" in counts.columns:
        agg["card_id"] = "first"
    s = counts.groupby(gk, observed=True, sort=True).agg(agg).reset_index()

    out = s[gk].copy()
    if "card_id" in s.columns:
        out["card_id"] = s["card_id"]
    out["copies"] = s["copies"].astype(int)
    out["games"] = s["n"].astype(int)
    for c in ("oh", "gd", "gained", "gih", "gns", "played"):
        for col, v in rate(s[f"{c}_w"], s[c], c, alpha).items():
            out[col] = v
    out["iwd"] = out["gih"] - out["gns"]
    out["iwd_lo"], out["iwd_hi"] = diff_interval(s["gih_w"], s["gih"], s["gns_w"], s["gns"], alpha)
    out["iwd_n"] = np.minimum(s["gih"], s["gns"]).astype(int)
    for col, v in rate(s["won_set"], s["played"], "won_set", alpha).items():
        out[col] = v
    for col, v in rate(s["fired"], s["held"], "trigger", alpha).items():
        out[col] = v
    effects = _has_effects(pd.unique(out["card"]), pool)
    no_fx = ~out["card"].map(effects).astype(bool)
    out.loc[no_fx, ["trigger", "trigger_lo", "trigger_hi"]] = np.nan

    # in-deck win rate, only where the army's decks vary (the card is missing from some)
    seats = seat_rows(rec.games, keep=keys)
    seats = seats[seats["won"] | seats["lost"]]
    army_n = seats.groupby([*keys, "army"], observed=True).size().rename("army_games")
    out = out.merge(army_n.reset_index(), on=[*keys, "army"], how="left")
    for col, v in rate(s["w"], s["n"], "in_deck", alpha).items():
        out[col] = v
    fixed = out["games"] >= out["army_games"].fillna(0)
    out.loc[fixed, ["in_deck", "in_deck_lo", "in_deck_hi"]] = np.nan
    out = out.drop(columns="army_games")

    # baselines per army, tests, Benjamini–Hochberg over the non-thin cards of the table
    out["thin"] = (out["gih_n"] < min_games) | (out["gns_n"] < min_games)
    ak = [*keys, "army"]
    sums = s.groupby(ak, observed=True)[["gih_w", "gih"]].transform("sum")
    out["gih_base"] = np.where(sums["gih"] > 0, sums["gih_w"] / sums["gih"].where(sums["gih"] > 0),
                               np.nan)
    wgt = out["gih_n"].where(np.isfinite(out["iwd"]), 0)
    wiwd = (out["iwd"].fillna(0) * wgt)
    wsum = wgt.groupby([out[k] for k in ak], observed=True).transform("sum")
    out["iwd_base"] = (wiwd.groupby([out[k] for k in ak], observed=True).transform("sum")
                       / wsum.where(wsum > 0))
    test = ~out["thin"].to_numpy()
    out["gih_p"] = binom_pvalue(s["gih_w"], s["gih"], out["gih_base"].where(test))
    out["iwd_p"] = diff_pvalue(s["gih_w"], s["gih"], s["gns_w"], s["gns"],
                               out["iwd_base"].where(test))
    out["gih_q"], out["gih_flag"] = bh(out["gih_p"], alpha)
    out["iwd_q"], out["iwd_flag"] = bh(out["iwd_p"], alpha)
    return out


def card_view(table: pd.DataFrame, metric: str = "iwd", **where) -> pd.DataFrame:
    """Rows of a card table for one group (``where``: column=value), sorted by a metric."""
    t = table
    for col, v in where.items():
        t = t[t[col] == v]
    return t.sort_values(["army", metric], ascending=[True, False], na_position="last")
