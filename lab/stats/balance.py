"""Statistics of ``lab balance``: army win rates from paired deals, the three objectives of a card
edit set and their bounds, racing, Pareto fronts and the confirmed before/after table.

Owns: the cluster-robust mean of an army's scores with the deal as the cluster, in two forms — a
vectorised one from per-deal sums (``cluster_mean``: the CR1 estimator statsmodels' OLS on a
constant uses with ``cov_type="cluster"``, t quantiles on clusters − 1 degrees of freedom; it runs
for hundreds of candidates per search round, and a test checks it against statsmodels) and
statsmodels itself for the figures a designer reads (``clustered``: confirmed win rates and paired
changes); the objectives — worst distance of an army from the target, spread (best − worst army),
number of edits — with bounds from simultaneous intervals (``objectives``), the racing rule
(``hopeless``) and the non-dominated filter (``pareto``). A score is 1 for a win, ½ for a draw, 0
for a loss. It reads arrays handed to it: it never plays a game and knows no card.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from lab.stats.intervals import ALPHA


@dataclass(frozen=True)
class Rates:
    """Per army: mean score, standard error, interval, games and clusters (deals)."""

    mean: np.ndarray
    se: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    games: np.ndarray
    clusters: np.ndarray


def cluster_mean(sums: list[np.ndarray], counts: list[np.ndarray], alpha: float = ALPHA,
                 simultaneous: bool = False) -> Rates:
    """Mean score per army from its per-deal sums and game counts (``sums[a]``, ``counts[a]``:
    one entry per deal the army played; a deal is a cluster), with the cluster-robust (CR1)
    standard error — Σ_g (s_g − n_g·ȳ)² · G/(G − 1) · (N − 1)/(N − 1) / N², what statsmodels'
    OLS on a constant with cov_type="cluster" gives — and t intervals on G − 1 degrees of
    freedom. ``simultaneous``: Bonferroni over the armies (racing needs every army's bound at
    once)."""
    k = len(sums)
    out = {f: np.full(k, np.nan) for f in ("mean", "se", "lo", "hi")}
    games = np.zeros(k, np.int64)
    clusters = np.zeros(k, np.int64)
    a = alpha / k if simultaneous and k else alpha
    for i, (s, n) in enumerate(zip(sums, counts)):
        keep = n > 0
        s, n = s[keep], n[keep]
        total, g = float(n.sum()), len(n)
        games[i], clusters[i] = int(total), g
        if total == 0:
            continue
        m = float(s.sum()) / total
        out["mean"][i] = m
        if g < 2:
            continue
        se = np.sqrt(g / (g - 1) * float(np.sum((s - n * m) ** 2))) / total
        q = sps.t.ppf(1 - a / 2, g - 1)
        out["se"][i], out["lo"][i], out["hi"][i] = se, m - q * se, m + q * se
    return Rates(out["mean"], out["se"], out["lo"], out["hi"], games, clusters)


def clustered(values: np.ndarray, groups: np.ndarray, alpha: float = ALPHA) -> dict:
    """Mean of ``values`` with its cluster-robust interval (statsmodels OLS on a constant,
    clustered by ``groups``, t quantiles on clusters − 1 degrees of freedom): {mean, lo, hi, se,
    games, clusters}. Constant values give a zero-width interval."""
    import statsmodels.api as sm

    values = np.asarray(values, dtype=float)
    n, g = len(values), len(np.unique(groups))
    row = {"mean": float(values.mean()) if n else np.nan, "games": n, "clusters": g}
    if g < 2 or not np.any(values != values[0]):
        flat = bool(n) and not np.any(values != values[0])
        m = row["mean"] if flat else np.nan
        return row | {"lo": m, "hi": m, "se": 0.0 if flat else np.nan}
    fit = sm.OLS(values, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": groups},
                                         use_t=True)
    lo, hi = fit.conf_int(alpha)[0]
    return row | {"lo": float(lo), "hi": float(hi), "se": float(fit.bse[0])}


@dataclass(frozen=True)
class Objectives:
    """The objectives of one edit set, each with bounds from the armies' intervals: worst
    distance of an army from the target, spread (best − worst army), and the number of
    edits (known exactly)."""

    worst: float
    worst_lo: float
    worst_hi: float
    spread: float
    spread_lo: float
    spread_hi: float
    edits: int

    def key(self) -> tuple:
        return (self.worst, self.spread, self.edits)


def objectives(mean, lo, hi, target: float, edits: int) -> Objectives:
    """Objectives of army rates ``mean`` with intervals [lo, hi]: when every interval holds, the
    worst distance lies in [worst_lo, worst_hi] and the spread in [spread_lo, spread_hi]."""
    mean, lo, hi = (np.asarray(x, dtype=float) for x in (mean, lo, hi))
    lo = np.where(np.isnan(lo), mean, lo)
    hi = np.where(np.isnan(hi), mean, hi)
    dist = np.abs(mean - target)
    near = np.where((lo <= target) & (target <= hi), 0.0,
                    np.minimum(np.abs(lo - target), np.abs(hi - target)))
    far = np.maximum(np.abs(lo - target), np.abs(hi - target))
    return Objectives(float(dist.max()), float(near.max()), float(far.max()),
                      float(mean.max() - mean.min()),
                      float(max(0.0, lo.max() - hi.min())), float(hi.max() - lo.min()), edits)


def hopeless(cand: Objectives, front) -> bool:
    """Racing: True when a member of ``front`` with no more edits is better on both worst
    distance and spread than ``cand`` can be (``worst_hi``/``spread_hi`` of a front member —
    its point estimates or its pessimistic bounds — below ``cand``'s optimistic bounds), so
    more games cannot bring ``cand`` onto the front."""
    return any(o.edits <= cand.edits and o.worst_hi < cand.worst_lo
               and o.spread_hi < cand.spread_lo for o in front)


def pareto(points) -> list[int]:
    """Indices of the non-dominated rows of ``points`` (tuples to minimise), in input order; of
    equal rows the first is kept."""
    p = np.asarray(list(points), dtype=float)
    if p.size == 0:
        return []
    p = p.reshape(len(p), -1)
    keep = []
    for i in range(len(p)):
        le = np.all(p <= p[i], axis=1)
        lt = np.any(p < p[i], axis=1)
        same = ~lt & le
        if np.any(le & lt) or np.any(same[:i]):
            continue
        keep.append(i)
    return keep
