"""Statistics of ``lab balance``: army win rates from paired deals, the three objectives of a card
edit set and their bounds, racing and Pareto fronts.

Owns: an army's mean score with its interval clustered by deal, from per-deal sums
(``cluster_mean``: hundreds of candidates per search round, so it never sees single games) or
from the games themselves (``game_mean``: the confirmed figures and paired changes a designer
reads) — both through ``lab.stats.clustered``, statsmodels' CR1 cluster-robust variance of OLS on
a constant with t quantiles on clusters − 1 degrees of freedom; the objectives — worst distance
of an army from the target, spread (best − worst army), number of edits — with bounds from the
armies' intervals (``objectives``), the racing rule (``hopeless``) and the non-dominated filter
(``pareto``). A score is 1 for a win, ½ for a draw, 0 for a loss. It reads arrays handed to it:
it never plays a game and knows no card.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lab.stats.clustered import estimate_columns, grouped_mean, influence_se, t_crit
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


def cluster_mean(
    sums: list[np.ndarray],
    counts: list[np.ndarray],
    alpha: float = ALPHA,
    simultaneous: bool = False,
) -> Rates:
    """Mean score per army from its per-deal score sums and game counts (``sums[a]``,
    ``counts[a]``: one entry per deal the army played; a deal is a cluster). A deal's influence
    on the mean is (s − n·ȳ)/N, so the CR1 variance needs no single game. ``simultaneous``:
    Bonferroni over the armies (racing needs every army's bound at once)."""
    k = len(sums)
    group = np.repeat(np.arange(k), [len(x) for x in sums])
    s = np.concatenate(sums) if k else np.zeros(0)
    n = np.concatenate(counts) if k else np.zeros(0)
    keep = n > 0
    group, s, n = group[keep], s[keep], n[keep]
    total = np.bincount(group, n, minlength=k)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.bincount(group, s, minlength=k) / total
        psi = (s - n * mean[group]) / total[group]
    se, clusters, _ = influence_se(psi, group, np.arange(len(group)), 1, k)
    half = t_crit(alpha / k if simultaneous and k else alpha, clusters - 1) * se
    return Rates(mean, se, mean - half, mean + half, total.astype(np.int64), clusters)


def controlled_mean(y_sums, y_counts, x_sums, x_counts, paired, alpha: float = ALPHA) -> Rates:
    """Mean score per army of a dear tier (``y``) played on some deals of a set, with a cheap
    tier (``x``) played on every deal of the set as a control variate: ȳ − β·(x̄ on y's deals −
    x̄ on all of them). A deal dealt well or badly for an army is so at both tiers (the deal-level
    correlation of tuned and search(400) scores is about 0.44), so what the dear tier's few
    deals share by luck shows in the cheap tier's games on them and is taken out; the estimate
    stays unbiased, and its variance shrinks by about ρ²·(1 − n/N).

    Per army ``a``: ``x_sums[a]``, ``x_counts[a]`` one entry per deal of the set (a cluster);
    ``paired[a]`` marks the deals ``y`` played, whose ``y_sums[a]``, ``y_counts[a]`` follow
    in the same order. β is the clusters' regression slope of y on x (a game-weighted least
    squares on the paired deals); the CR1 standard error comes from each deal's influence on
    the estimate (β taken as known), with t quantiles on the paired deals − 1."""
    k = len(y_sums)
    mean, se = np.full(k, np.nan), np.full(k, np.nan)
    games, clusters = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
    for a in range(k):
        ys, yc = np.asarray(y_sums[a], dtype=float), np.asarray(y_counts[a], dtype=float)
        xs, xc = np.asarray(x_sums[a], dtype=float), np.asarray(x_counts[a], dtype=float)
        on = np.flatnonzero(np.asarray(paired[a], dtype=bool))
        both = (yc > 0) & (xc[on] > 0)
        on, ys, yc = on[both], ys[both], yc[both]
        every = np.flatnonzero(xc > 0)
        if len(on) < 2:
            continue
        y_bar, x_on = ys.sum() / yc.sum(), xs[on].sum() / xc[on].sum()
        x_all = xs[every].sum() / xc[every].sum()
        dy, dx = ys / yc - y_bar, xs[on] / xc[on] - x_on
        spread = float(np.sum(yc * dx * dx))
        beta = float(np.sum(yc * dy * dx)) / spread if spread > 0 else 0.0
        mean[a] = y_bar - beta * (x_on - x_all)
        psi = np.zeros(len(xc))
        psi[every] = beta * (xs[every] - x_all * xc[every]) / xc[every].sum()
        psi[on] += (ys - y_bar * yc) / yc.sum() - beta * (xs[on] - x_on * xc[on]) / xc[on].sum()
        g = len(every)
        se[a] = np.sqrt(g / (g - 1) * np.sum(psi**2))
        games[a], clusters[a] = int(yc.sum()), len(on)
    half = t_crit(alpha, clusters - 1) * se
    return Rates(mean, se, mean - half, mean + half, games, clusters)


def game_mean(values, clusters, alpha: float = ALPHA) -> dict:
    """Mean of ``values`` (one per game) with its interval clustered by ``clusters``: {mean, lo,
    hi, se, games, clusters}."""
    values = np.asarray(values, dtype=float)
    est = grouped_mean(values, np.zeros(len(values), dtype=np.int64), clusters, 1)
    cols = estimate_columns("x", est["mean"], est["se"], est["clusters"], est["n"], alpha)
    return {
        "mean": float(cols["x"][0]),
        "lo": float(cols["x_lo"][0]),
        "hi": float(cols["x_hi"][0]),
        "se": float(cols["x_se"][0]),
        "games": int(cols["x_n"][0]),
        "clusters": int(cols["x_clusters"][0]),
    }


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
    near = np.where(
        (lo <= target) & (target <= hi), 0.0, np.minimum(np.abs(lo - target), np.abs(hi - target))
    )
    far = np.maximum(np.abs(lo - target), np.abs(hi - target))
    return Objectives(
        float(dist.max()),
        float(near.max()),
        float(far.max()),
        float(mean.max() - mean.min()),
        float(max(0.0, lo.max() - hi.min())),
        float(hi.max() - lo.min()),
        edits,
    )


def hopeless(cand: Objectives, front) -> bool:
    """Racing: True when a member of ``front`` with no more edits is better on both worst
    distance and spread than ``cand`` can be (``worst_hi``/``spread_hi`` of a front member —
    its point estimates or its pessimistic bounds — below ``cand``'s optimistic bounds), so
    more games cannot bring ``cand`` onto the front."""
    return any(
        o.edits <= cand.edits and o.worst_hi < cand.worst_lo and o.spread_hi < cand.spread_lo
        for o in front
    )


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
