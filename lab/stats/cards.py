"""Per-card statistics in the 17lands style — *observational* — counted in games (a seat's game).

Owns: ``card_table`` — for each army × card (× any ``by`` group, by default variant and tier),
over decisive games of the seat whose deck held the card:

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
- ``iwd`` = GIH win rate − GNS win rate;
- ``played``: win rate in games where ≥ 1 copy was played; ``won_set``: of those games, the share
  in which ≥ 1 copy was in a winning set;
- ``trigger``: of the games where the card reached the hand (any route), the share in which one of
  its abilities changed the state (NaN for cards without effects, from the game's card pool).

These are observational: a won battle draws cards (荷駄隊, 物見 …), so the winner of a game draws
more of its deck than the loser (``draw_bias`` measures it per variant and tier) and "drawn"
largely means "already winning" — every army's IWD sits above zero for that reason. The causal
card numbers are the opening-hand effect (``lab.stats.causal``) and ``lab value``.

Each rate comes as ``x, x_lo, x_hi, x_n``: Wilson on the effective number of games with errors
clustered by deal (the two seat orders of a deal give the army the same deck order); IWD's
interval is the clustered t interval of the difference (``lab.stats.clustered``). ``thin`` marks
cards whose GIH or GNS sample is below ``min_games``. Baselines per army (and group):
``gih_base`` (the army's pooled GIH win rate over its cards) and ``iwd_base`` (its cards' mean IWD
weighted by GIH games); a card is tested against them (clustered t tests of GIH − ``gih_base`` and
IWD − ``iwd_base``) and Benjamini–Hochberg (statsmodels ``fdr_bh``) runs over all non-thin cards of
the table: ``gih_q``/``gih_flag`` and ``iwd_q``/``iwd_flag``; ``iwd_vs_base`` = IWD − baseline
says in which direction a flagged card departs. Reads records only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lab.stats.clustered import (
    CLUSTER,
    clustered_rate,
    estimate_columns,
    grouped_diff,
    grouped_mean,
    t_pvalue,
)
from lab.stats.intervals import ALPHA, MIN_GAMES, bh
from lab.stats.records import as_records
from lab.stats.views import BY, card_rows, group_codes, group_columns, label_pooled, with_clusters

METRICS = ("oh", "gd", "gained", "gih", "gns", "played", "won_set", "trigger")


def card_flags(rows: pd.DataFrame) -> pd.DataFrame:
    """Per cards row, the game-level facts the metrics count (one seat's game each)."""
    oh = rows["opening"] > 0
    gd = (rows["opening"] == 0) & (rows["drawn"] > 0)
    gih = oh | gd
    gained = rows["gained"] > 0
    return pd.DataFrame(
        {
            "oh": oh,
            "gd": gd,
            "gih": gih,
            "gained": gained,
            "gns": ~gih,
            "held": gih | gained | (rows["played"] > 0) | (rows["triggers"] > 0),
            "played": rows["played"] > 0,
            "won_set": rows["won"] > 0,
            "fired": rows["triggers"] > 0,
        },
        index=rows.index,
    )


def _has_effects(names, pool) -> dict[str, bool]:
    if pool is None:
        from lab.games import get

        pool = get(None).card_pool()  # the default game's cards
    out = {}
    for name in names:
        out[name] = bool(pool.get(name).rows()) if name in pool else True
    return out


def card_table(
    records, by=BY, *, min_games: int = MIN_GAMES, alpha: float = ALPHA, pool=None
) -> pd.DataFrame:
    """The per-card table described in the module docstring, one row per group × army × card."""
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    rows = card_rows(rec.require_cards(), rec.games, keys)
    rows = rows[~rows["draw"]].reset_index(drop=True)
    f = card_flags(rows)
    won = rows["won_game"].to_numpy()
    cl = rows[CLUSTER].to_numpy()
    gk = [*keys, "army", "card"]
    codes, out = group_codes(rows, gk)
    out = out.copy()
    ng = len(out)
    first = pd.Series(np.arange(len(rows))).groupby(codes).first().to_numpy()
    if "card_id" in rows.columns:
        out["card_id"] = rows["card_id"].to_numpy()[first]
    out["copies"] = pd.Series(rows["copies"].to_numpy()).groupby(codes).max().to_numpy()
    out["games"] = np.bincount(codes, minlength=ng)
    for c in ("oh", "gd", "gained", "gih", "gns", "played"):
        for col, v in clustered_rate(c, won, f[c], codes, cl, ng, alpha).items():
            out[col] = v
    iwd = grouped_diff(won, f["gih"], codes, cl, n_groups=ng)
    cols = estimate_columns("iwd", iwd["diff"], iwd["se"], iwd["clusters"], iwd["n"], alpha)
    for c in ("iwd", "iwd_lo", "iwd_hi", "iwd_se"):
        out[c] = cols[c]
    out["iwd_n"] = np.minimum(out["gih_n"], out["gns_n"]).astype(int)
    for col, v in clustered_rate(
        "won_set", f["won_set"], f["played"], codes, cl, ng, alpha
    ).items():
        out[col] = v
    for col, v in clustered_rate("trigger", f["fired"], f["held"], codes, cl, ng, alpha).items():
        out[col] = v
    effects = _has_effects(pd.unique(out["card"]), pool)
    no_fx = ~out["card"].map(effects).astype(bool)
    out.loc[no_fx, ["trigger", "trigger_lo", "trigger_hi"]] = np.nan

    # baselines per army, tests, Benjamini–Hochberg over the non-thin cards of the table
    out["thin"] = (out["gih_n"] < min_games) | (out["gns_n"] < min_games)
    gih = grouped_mean(won[f["gih"]], codes[f["gih"]], cl[f["gih"]], ng)
    army = [out[k] for k in [*keys, "army"]]
    gih_w = (out["gih"] * out["gih_n"]).fillna(0)
    out["gih_base"] = gih_w.groupby(army, observed=True).transform("sum") / out["gih_n"].groupby(
        army, observed=True
    ).transform("sum")
    wgt = out["gih_n"].where(np.isfinite(out["iwd"]), 0)
    wsum = wgt.groupby(army, observed=True).transform("sum")
    out["iwd_base"] = (out["iwd"].fillna(0) * wgt).groupby(army, observed=True).transform(
        "sum"
    ) / wsum.where(wsum > 0)
    out["iwd_vs_base"] = out["iwd"] - out["iwd_base"]
    test = ~out["thin"].to_numpy()
    out["gih_p"] = np.where(
        test, t_pvalue(out["gih"] - out["gih_base"], gih["se"], gih["clusters"] - 1), np.nan
    )
    out["iwd_p"] = np.where(
        test, t_pvalue(out["iwd_vs_base"], out["iwd_se"], iwd["clusters"] - 1), np.nan
    )
    out["gih_q"], out["gih_flag"] = bh(out["gih_p"], alpha)
    out["iwd_q"], out["iwd_flag"] = bh(out["iwd_p"], alpha)
    return label_pooled(out, rec.games, keys)


def draw_bias(records, by=BY, *, alpha: float = ALPHA) -> pd.DataFrame:
    """How much more of its deck the winner draws than the loser, per group (variant and tier).

    Per decisive game, deck draws (the ``drawn`` column summed over the seat's cards, so not the
    opening hand and not cards gained from walls) of the winner and of the loser; ``extra_draws``
    = winner − loser, the mean over games with its interval clustered by deal. This is why
    "drawn" in the observational card metrics largely means "already winning".
    """
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    drawn = rec.require_cards().groupby(["game_id", "player"])["drawn"].sum()
    games = with_clusters(rec.games)
    games = games[games["winner"] != "draw"].reset_index(drop=True)
    loser = np.where(games["winner"] == "A", "B", "A")
    win = drawn.reindex(
        pd.MultiIndex.from_arrays([games["game_id"], games["winner"]]), fill_value=0
    ).to_numpy(float)
    lose = drawn.reindex(
        pd.MultiIndex.from_arrays([games["game_id"], loser]), fill_value=0
    ).to_numpy(float)
    codes, out = group_codes(games, keys)
    out = out.copy()
    ng = len(out)
    n = np.bincount(codes, minlength=ng)
    out["games"] = n
    out["winner_draws"] = np.bincount(codes, win, minlength=ng) / n
    out["loser_draws"] = np.bincount(codes, lose, minlength=ng) / n
    est = grouped_mean(win - lose, codes, games[CLUSTER], ng)
    cols = estimate_columns("extra_draws", est["mean"], est["se"], est["clusters"], est["n"], alpha)
    for c in ("extra_draws", "extra_draws_lo", "extra_draws_hi", "extra_draws_p"):
        out[c] = cols[c]
    return label_pooled(out, rec.games, keys)


def card_view(table: pd.DataFrame, metric: str = "iwd", **where) -> pd.DataFrame:
    """Rows of a card table for one group (``where``: column=value), sorted by a metric."""
    t = table
    for col, v in where.items():
        t = t[t[col] == v]
    return t.sort_values(["army", metric], ascending=[True, False], na_position="last")
