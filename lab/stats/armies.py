"""Per-army statistics: win rates, the matchup matrix and Bradley–Terry ratings.

Owns: ``army_table`` (win rate overall, going first and going second, draws), ``matchup_table``
(win rate of each army against each other, long form) and ``matchup_matrix`` (its pivot), and
``bradley_terry`` — a logistic regression (statsmodels GLM, binomial) of "seat A won" on
army strengths coded sum-to-zero plus a first-player term (+1 when A went first, −1 when B did),
so a rating is the log-odds against the average army and ``first_player`` is the log-odds edge of
moving first between equal armies; intervals are Wald intervals of those linear combinations with
errors clustered by deal (``cov_type="cluster"``): the two seat orders of a deal are one cluster.

Conventions: mirror games (an army against itself) are left out — they add one win and one loss
whatever the army's strength; win rates count decisive games; every rate's interval is clustered
by deal (``lab.stats.clustered``); cells counting fewer than ``min_games`` games are marked
``thin``. Every table takes ``by`` — by default ``("variant", "tier")``; a table that leaves out
``tier`` on a run with several tiers says so in its ``tier`` column ("pooled: …"). Reads records
only; never simulates.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.special import expit

from lab.games import get
from lab.stats.clustered import CLUSTER, clustered_rate
from lab.stats.intervals import ALPHA, MIN_GAMES, thin
from lab.stats.records import as_records
from lab.stats.views import (
    BY,
    group_codes,
    group_columns,
    grouped,
    label_pooled,
    seat_rows,
    with_clusters,
)


def army_order(armies) -> list[str]:
    """The built-in armies in their canonical order (the default game's ``ARMIES``), then any
    others A–Z."""
    armies, known = set(armies), [key for key, _ in get(None).armies()]
    return [a for a in known if a in armies] + sorted(armies - set(known))


def _seats(rec, keys):
    rows = seat_rows(rec.games, keep=keys)
    rows = rows[~rows["mirror"]].reset_index(drop=True)
    return rows.assign(dec=rows["won"] | rows["lost"])


def _rates(rows: pd.DataFrame, keys: list[str], specs, alpha: float) -> pd.DataFrame:
    """Per group of ``keys``: ``games`` and one clustered rate per (name, y, mask) of ``specs``."""
    codes, out = group_codes(rows, keys)
    out = out.copy()
    out["games"] = np.bincount(codes, minlength=len(out))
    for name, y, mask in specs:
        for col, v in clustered_rate(name, y, mask, codes, rows[CLUSTER], len(out), alpha).items():
            out[col] = v
    return out


def army_table(records, by=BY, *, min_games: int = MIN_GAMES, alpha: float = ALPHA) -> pd.DataFrame:
    """Per army (and group): games, win rate, win rate going first / second, draw rate."""
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    rows = _seats(rec, keys)
    first = rows["went_first"]
    out = _rates(
        rows,
        [*keys, "army"],
        [
            ("win_rate", rows["won"], rows["dec"]),
            ("win_rate_first", rows["won"], rows["dec"] & first),
            ("win_rate_second", rows["won"], rows["dec"] & ~first),
            ("draw", rows["draw"], np.ones(len(rows), bool)),
        ],
        alpha,
    )
    out["thin"] = thin(out["win_rate_n"], min_games)
    return label_pooled(out, rec.games, keys)


def matchup_table(
    records, by=BY, *, min_games: int = MIN_GAMES, alpha: float = ALPHA
) -> pd.DataFrame:
    """Per ordered pair (army, opponent) and group: the army's win rate in decisive games."""
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    rows = _seats(rec, keys)
    out = _rates(rows, [*keys, "army", "opponent"], [("win_rate", rows["won"], rows["dec"])], alpha)
    out["thin"] = thin(out["win_rate_n"], min_games)
    return label_pooled(out, rec.games, keys)


def matchup_matrix(table: pd.DataFrame, value: str = "win_rate", **where) -> pd.DataFrame:
    """Pivot a ``matchup_table`` to army × opponent (rows: the army whose win rate it is).

    ``where`` selects one group, e.g. ``matchup_matrix(t, variant="base")``.
    """
    t = table
    for col, v in where.items():
        t = t[t[col] == v]
    armies = army_order(set(t["army"]) | set(t["opponent"]))
    m = t.pivot_table(index="army", columns="opponent", values=value, aggfunc="first")
    return m.reindex(index=armies, columns=armies)


def _fit_bt(part: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """One Bradley–Terry fit on the decisive, non-mirror games of one group."""
    g = part[(part["winner"] != "draw") & (part["army_a"] != part["army_b"])]
    armies = sorted(set(g["army_a"]) | set(g["army_b"]))
    k = len(armies)
    cols = [
        "term",
        "army",
        "rating",
        "rating_lo",
        "rating_hi",
        "se",
        "games",
        "vs_average",
        "vs_average_lo",
        "vs_average_hi",
    ]
    if k < 2 or len(g) == 0:
        return pd.DataFrame(columns=cols)
    idx = {a: i for i, a in enumerate(armies)}
    ia = g["army_a"].map(idx).to_numpy()
    ib = g["army_b"].map(idx).to_numpy()
    n = len(g)
    d = np.zeros((n, k))
    d[np.arange(n), ia] += 1.0
    d[np.arange(n), ib] -= 1.0
    contrast = np.vstack([np.eye(k - 1), -np.ones((1, k - 1))])  # sum-to-zero coding
    x = np.column_stack([d @ contrast, np.where(g["first"] == "A", 1.0, -1.0)])
    y = (g["winner"] == "A").to_numpy(dtype=float)
    lmat = np.zeros((k + 1, k))
    lmat[:k, : k - 1] = contrast
    lmat[k, k - 1] = 1.0
    clusters = g[CLUSTER].to_numpy()
    try:
        if len(np.unique(clusters)) < 2:
            raise ValueError("one deal: no clustered error")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = sm.GLM(y, x, family=sm.families.Binomial()).fit(
                cov_type="cluster", cov_kwds={"groups": clusters}
            )
            tt = res.t_test(lmat)
        est = np.asarray(tt.effect, dtype=float)
        se = np.asarray(tt.sd, dtype=float).ravel()
        ci = np.asarray(tt.conf_int(alpha=alpha), dtype=float)
        if not np.all(np.isfinite(se)) or np.any(se > 50):  # separation: no finite estimate
            raise ValueError("no finite estimate")
    except (ValueError, np.linalg.LinAlgError):
        est = se = np.full(k + 1, np.nan)
        ci = np.full((k + 1, 2), np.nan)
    per_army = pd.concat([g["army_a"], g["army_b"]]).value_counts()
    out = pd.DataFrame(
        {
            "term": ["army"] * k + ["first_player"],
            "army": armies + [""],
            "rating": est,
            "rating_lo": ci[:, 0],
            "rating_hi": ci[:, 1],
            "se": se,
            "games": [int(per_army.get(a, 0)) for a in armies] + [n],
        }
    )
    out["vs_average"] = expit(out["rating"])
    out["vs_average_lo"] = expit(out["rating_lo"])
    out["vs_average_hi"] = expit(out["rating_hi"])
    return out


def bradley_terry(records, by=BY, *, alpha: float = ALPHA) -> pd.DataFrame:
    """Bradley–Terry ratings per group, with a first-player term and 95% Wald intervals
    (errors clustered by deal).

    ``rating``: log-odds of beating the average army (ratings sum to zero within a group);
    ``vs_average``: that as a win probability. The row with ``term == "first_player"`` holds the
    log-odds edge of moving first between equal armies (``vs_average``: the first player's win
    probability then). ``games``: decisive non-mirror games the army played (all of them for the
    first-player row). A group whose games separate perfectly gets NaN ratings.
    """
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    parts = []
    for key, part in grouped(with_clusters(rec.games), keys):
        fit = _fit_bt(part, alpha)
        if keys:
            key = key if isinstance(key, tuple) else (key,)
            for col, v in zip(keys, key):
                fit.insert(keys.index(col), col, v)
        parts.append(fit)
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return label_pooled(out, rec.games, keys)


BAND = (0.45, 0.55)  # an army's win rate inside this band reads as balanced


def band_of(rate, band: tuple[float, float] = BAND) -> np.ndarray:
    """ "below", "in band" or "above" for each win rate (NaN: "—")."""
    r = np.asarray(rate, dtype=float)
    return np.where(
        ~np.isfinite(r),
        "—",
        np.where(r < band[0], "below", np.where(r > band[1], "above", "in band")),
    )
