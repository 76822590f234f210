"""Intervals for independent observations, multiple-comparison flags and the thin threshold.

Owns: the Wilson interval for a proportion (``wilson``, ``rate``; ``lab.stats.clustered`` applies
it to the effective number of games when games share deals), the t interval of a mean of
independent values (``mean_interval``), Benjamini–Hochberg flags (``bh``), the confidence level
``ALPHA`` and the minimum-sample threshold ``MIN_GAMES`` every table uses, and the column
convention ``x, x_lo, x_hi, x_n`` (a rate ``x`` with its interval and the number of games it
counts). The computations are statsmodels' and scipy's; this module only makes them vectorised,
NaN-safe for empty cells (n = 0 gives NaN, never a warning or a fake 0%) and uniform. It reads no
records and knows no game.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

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
