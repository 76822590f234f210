"""Intervals, tests and multiple-comparison flags: every number the lab shows carries one.

Owns: the 95% intervals used by every table — Wilson for a proportion, Newcombe's hybrid score
interval for a difference of two independent proportions, the t interval for a mean (and so for a
paired mean difference) — the p-values behind them, Benjamini–Hochberg flags, the minimum-sample
threshold, and the column convention ``x, x_lo, x_hi, x_n`` that every table follows (a rate ``x``
with its interval and the number of games it counts). The computations are statsmodels' and
scipy's; this module only makes them vectorised, NaN-safe for empty cells (n = 0 gives NaN, never a
warning or a fake 0%) and uniform. It reads no records and knows no game.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import (confint_proportions_2indep, proportion_confint,
                                          test_proportions_2indep)

ALPHA = 0.05  # 95% intervals everywhere
MIN_GAMES = 100  # cells counting fewer games are "thin": shown greyed, never flagged or tested


def _arrays(*xs):
    return [np.asarray(x, dtype=float) for x in xs]


def wilson(k, n, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for k successes in n trials (arrays or scalars); NaN where n == 0."""
    k, n = _arrays(k, n)
    k, n = np.broadcast_arrays(k, n)
    lo = np.full(k.shape, np.nan)
    hi = np.full(k.shape, np.nan)
    ok = n > 0
    if ok.any():
        lo[ok], hi[ok] = proportion_confint(k[ok], n[ok], alpha=alpha, method="wilson")
    return lo, hi


def rate(k, n, name: str, alpha: float = ALPHA) -> dict[str, np.ndarray]:
    """Columns ``name, name_lo, name_hi, name_n`` for k successes out of n (NaN where n == 0)."""
    k, n = _arrays(k, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    lo, hi = wilson(k, n, alpha)
    return {name: p, f"{name}_lo": lo, f"{name}_hi": hi, f"{name}_n": n.astype(np.int64)}


def diff_interval(k1, n1, k2, n2, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe hybrid score interval for p1 − p2 (independent samples); NaN where either n is 0."""
    k1, n1, k2, n2 = np.broadcast_arrays(*_arrays(k1, n1, k2, n2))
    lo = np.full(k1.shape, np.nan)
    hi = np.full(k1.shape, np.nan)
    ok = (n1 > 0) & (n2 > 0)
    if ok.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            lo[ok], hi[ok] = confint_proportions_2indep(k1[ok], n1[ok], k2[ok], n2[ok],
                                                        method="newcomb", compare="diff",
                                                        alpha=alpha)
    return lo, hi


def diff_pvalue(k1, n1, k2, n2, value=0.0) -> np.ndarray:
    """Two-sided score-test p-value of H0: p1 − p2 = value (independent samples); NaN if n is 0."""
    k1, n1, k2, n2, value = np.broadcast_arrays(*_arrays(k1, n1, k2, n2, value))
    p = np.full(k1.shape, np.nan)
    ok = (n1 > 0) & (n2 > 0) & np.isfinite(value)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for i in np.flatnonzero(ok):  # the score test takes one null value at a time
            res = test_proportions_2indep(k1.flat[i], n1.flat[i], k2.flat[i], n2.flat[i],
                                          value=float(value.flat[i]), method="score",
                                          compare="diff")
            p.flat[i] = min(max(float(res.pvalue), 0.0), 1.0)
    return p


def binom_pvalue(k, n, p0) -> np.ndarray:
    """Two-sided exact binomial test of H0: rate = p0 per cell (scipy); NaN if n is 0 or p0 NaN."""
    k, n, p0 = np.broadcast_arrays(*_arrays(k, n, p0))
    out = np.full(k.shape, np.nan)
    for i in np.flatnonzero((n > 0) & np.isfinite(p0) & (p0 > 0) & (p0 < 1)):
        out.flat[i] = sps.binomtest(int(k.flat[i]), int(n.flat[i]), float(p0.flat[i])).pvalue
    return out


def mean_interval(x, alpha: float = ALPHA) -> tuple[float, float, float, int]:
    """(mean, lo, hi, n) with the t interval of the mean of x; NaN bounds for n < 2."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return np.nan, np.nan, np.nan, 0
    m = float(x.mean())
    if n < 2:
        return m, np.nan, np.nan, n
    sem = sps.sem(x)
    if sem == 0:
        return m, m, m, n
    lo, hi = sps.t.interval(1 - alpha, n - 1, loc=m, scale=sem)
    return m, float(lo), float(hi), n


def mean_test(x, alpha: float = ALPHA) -> dict[str, float]:
    """Mean of x with its t interval and the two-sided p-value of H0: mean = 0 (for paired
    differences: scipy's one-sample t test, which is the paired t test on the differences)."""
    m, lo, hi, n = mean_interval(x, alpha)
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if n < 2:
        p = np.nan
    elif np.all(x == x[0]):
        p = 1.0 if x[0] == 0 else 0.0
    else:
        p = float(sps.ttest_1samp(x, 0.0).pvalue)
    return {"change": m, "change_lo": lo, "change_hi": hi, "pairs": n, "p": p}


def mean_columns(groups, column: str, name: str | None = None,
                 alpha: float = ALPHA) -> pd.DataFrame:
    """Per group of a DataFrameGroupBy: ``name, name_lo, name_hi, name_n`` (the t interval of the
    mean, scipy's ``t.interval``; NaN bounds for fewer than 2 values) and ``name_median``."""
    name = name or column
    agg = groups[column].agg(["mean", "sem", "count", "median"])
    n = agg["count"].to_numpy(dtype=float)
    m = agg["mean"].to_numpy(dtype=float)
    sem = agg["sem"].to_numpy(dtype=float)
    lo = np.full(len(agg), np.nan)
    hi = np.full(len(agg), np.nan)
    ok = (n >= 2) & np.isfinite(sem)
    if ok.any():
        with np.errstate(invalid="ignore", divide="ignore"):
            lo[ok], hi[ok] = sps.t.interval(1 - alpha, n[ok] - 1, loc=m[ok], scale=sem[ok])
        flat = ok & (sem == 0)
        lo[flat], hi[flat] = m[flat], m[flat]
    return pd.DataFrame({name: m, f"{name}_lo": lo, f"{name}_hi": hi,
                         f"{name}_n": n.astype(np.int64), f"{name}_median": agg["median"]},
                        index=agg.index)


def bh(pvalues, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini–Hochberg over the finite p-values (statsmodels 'fdr_bh'): (q-values, flags).

    NaN p-values (thin or untestable cells) are outside the family: q NaN, flag False.
    """
    p = np.asarray(pvalues, dtype=float)
    q = np.full(p.shape, np.nan)
    flag = np.zeros(p.shape, dtype=bool)
    ok = np.isfinite(p)
    if ok.any():
        reject, qv, _, _ = multipletests(p[ok], alpha=alpha, method="fdr_bh")
        q[ok] = qv
        flag[ok] = reject
    return q, flag


def thin(n, min_games: int = MIN_GAMES) -> np.ndarray:
    """True where a cell counts fewer than ``min_games`` games (including none)."""
    return np.asarray(n, dtype=float) < min_games
