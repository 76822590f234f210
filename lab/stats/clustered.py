"""Cluster-robust estimates over deals: the errors of every statistic that pools games of one deal.

Owns: the deal a game belongs to (``deal_clusters``: the unordered army pair and the deal index —
the runner deals the same deck orders to a matchup's deal in both seat orders, in every variant
and in every bot tier, so those games are correlated) and the grouped estimators every table
uses — a mean (``grouped_mean``), a difference of two means, optionally within strata
(``grouped_diff``), and any linear combination given by its influence values
(``influence_se``) — each with its cluster-robust standard error. The variance is statsmodels'
CR1 sandwich for OLS with ``cov_type="cluster"``: (G/(G−1))·((N−1)/(N−K))·Σ_clusters(Σ ψ)²,
computed for thousands of groups at once with ``numpy.bincount`` instead of one model fit per
group (tests/test_stats_clustered.py pins it to statsmodels). Intervals use Student's t with
G − 1 degrees of freedom (statsmodels' ``use_t=True`` for clustered errors); a proportion's
interval is Wilson's on the effective number of games (n / design effect). A paired contrast
whose deals all show the same difference (every pair tied: the sandwich says SE = 0) gets the
conservative interval of ``tie_interval`` rather than a zero-width one. It reads no records and
knows no game beyond the deal key.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from lab.stats.intervals import ALPHA, wilson

CLUSTER = "_deal"  # the column views add to carry a row's deal cluster


def deal_clusters(games: pd.DataFrame) -> np.ndarray:
    """Per game, an integer id of its deal: (unordered army pair, deal index).

    Deal i of x–y and of y–x (seat swap or the reverse pairing of a round robin) and deal i under
    every variant, patch and tier share an id: they were played from the same deck orders.
    """
    n = len(games)
    armies = pd.factorize(
        np.concatenate(
            [games["army_a"].to_numpy(dtype=object), games["army_b"].to_numpy(dtype=object)]
        )
    )[0]
    a, b = armies[:n].astype(np.int64), armies[n:].astype(np.int64)
    pair = _combine(np.minimum(a, b), np.maximum(a, b))
    deal = pd.factorize(games["deal"].to_numpy())[0].astype(np.int64)
    return pd.factorize(_combine(pair, deal))[0].astype(np.int64)


def _combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One int64 key per (a, b) pair of non-negative integer codes."""
    return a * (int(b.max()) + 1) + b


def _codes(group) -> tuple[np.ndarray, int]:
    g = np.asarray(group, dtype=np.int64)
    return g, int(g.max()) + 1 if len(g) else 0


def influence_se(psi, group, cluster, k=1, n_groups: int | None = None):
    """Cluster-robust SE per group of an estimator whose influence values are ``psi``.

    ``psi``: per row, its share of the estimator's deviation (for a mean: (y − ȳ)/N). Rows of one
    cluster are summed first, then squared: CR1 with statsmodels' small-sample factor
    (G/(G−1))·((N−1)/(N−K)), ``k`` the number of coefficients (scalar or per group).
    Returns (se, clusters G, rows N) per group; NaN SE where G < 2.
    """
    g, ng = _codes(group)
    ng = n_groups if n_groups is not None else ng
    cl = np.asarray(cluster, dtype=np.int64)
    psi = np.asarray(psi, dtype=float)
    pair = pd.factorize(_combine(g, cl))[0] if len(g) else g
    sums = np.bincount(pair, psi, minlength=pair.max() + 1 if len(pair) else 0)
    pair_group = np.zeros(len(sums), dtype=np.int64)
    pair_group[pair] = g
    ss = np.bincount(pair_group, sums**2, minlength=ng)
    n_cl = np.bincount(pair_group, minlength=ng).astype(float)
    n = np.bincount(g, minlength=ng).astype(float)
    k = np.broadcast_to(np.asarray(k, dtype=float), (ng,))
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = n_cl / (n_cl - 1) * (n - 1) / (n - k)
        se = np.sqrt(factor * ss)
    se = np.where((n_cl >= 2) & (n > k), se, np.nan)
    return se, n_cl.astype(np.int64), n.astype(np.int64)


def t_crit(alpha: float, df) -> np.ndarray:
    """The two-sided 1 − alpha quantile of Student's t with ``df`` degrees of freedom."""
    df = np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(df >= 1, sps.t.ppf(1 - alpha / 2, np.maximum(df, 1)), np.nan)


def t_pvalue(est, se, df) -> np.ndarray:
    """Two-sided p-value of est / se against Student's t(df); NaN where se is NaN or 0 with
    est 0, 0 where se is 0 and est is not."""
    est, se, df = (np.asarray(x, dtype=float) for x in (est, se, df))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(est) / se
        p = 2 * sps.t.sf(t, np.maximum(df, 1))
    p = np.where(se == 0, np.where(est == 0, 1.0, 0.0), p)
    return np.where(np.isfinite(est) & np.isfinite(se) & (df >= 1), p, np.nan)


def estimate_columns(name: str, est, se, clusters, n, alpha: float = ALPHA) -> dict:
    """``name, name_lo, name_hi, name_n`` plus ``name_se``, ``name_clusters`` and ``name_p``
    (H0: 0) — the t interval on G − 1 degrees of freedom."""
    est, se = np.asarray(est, dtype=float), np.asarray(se, dtype=float)
    df = np.asarray(clusters, dtype=float) - 1
    half = t_crit(alpha, df) * se
    return {
        name: est,
        f"{name}_lo": est - half,
        f"{name}_hi": est + half,
        f"{name}_n": np.asarray(n, dtype=np.int64),
        f"{name}_se": se,
        f"{name}_clusters": np.asarray(clusters, dtype=np.int64),
        f"{name}_p": t_pvalue(est, se, df),
    }


def tie_interval(est, se, clusters, alpha: float = ALPHA, bounds=(-1.0, 1.0)) -> dict:
    """The interval of a paired contrast whose deals show no variation, in place of a zero-width
    one: ``{"lo", "hi", "p", "tied"}`` per group (``tied``: the rows it replaces).

    When every deal of a group has the same mean difference c (SE 0 on G ≥ 1 deals — e.g. a
    change that altered no game's outcome), the sample says only that none of G deals differed
    from c. The exact (Clopper–Pearson) upper bound on the share of deals that could differ,
    0 of G at the two-sided level ``alpha``, is u = 1 − (alpha/2)^(1/G) ≈ 3.7/G at 95% (the
    "rule of three" is its one-sided form, 3/G); such a deal's difference lies within
    ``bounds`` (a score or a share: [−1, 1]), so the mean lies in [c − u·(c − low),
    c + u·(high − c)]. p: 1 when c = 0; else the sign test of G deals all moved one way,
    min(1, 2·0.5^G). Rows with SE > 0, NaN or no deal are returned as NaN with ``tied`` False.
    """
    est, se, g = (np.asarray(x, dtype=float) for x in (est, se, clusters))
    low, high = bounds
    tied = (se == 0) & (g >= 1) & np.isfinite(est)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        u = np.where(tied, 1 - (alpha / 2) ** (1 / np.where(g >= 1, g, 1)), np.nan)
        lo = np.where(tied, est - u * (est - low), np.nan)
        hi = np.where(tied, est + u * (high - est), np.nan)
        sign = np.minimum(1.0, 2 * 0.5 ** np.where(g >= 1, g, 1))
    p = np.where(tied, np.where(est == 0, 1.0, sign), np.nan)
    return {"lo": lo, "hi": hi, "p": p, "tied": tied}


def rate_columns(name: str, p, se, n, alpha: float = ALPHA) -> dict:
    """``name, name_lo, name_hi, name_n`` for a proportion with a clustered SE.

    The interval is Wilson's on the effective number of games n_eff = p(1−p)/SE² (the design
    effect n/n_eff floored at 1, so clustering never narrows a rate's interval): the same Wilson
    interval as for independent games when deals add no correlation. NaN where n is 0.
    """
    p, se, n = (np.asarray(x, dtype=float) for x in (p, se, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        deff = np.where((se > 0) & (p > 0) & (p < 1), se**2 * n / (p * (1 - p)), 1.0)
    deff = np.where(np.isfinite(deff), np.maximum(deff, 1.0), 1.0)
    n_eff = n / deff
    lo, hi = wilson(p * n_eff, n_eff, alpha)
    return {
        name: np.where(n > 0, p, np.nan),
        f"{name}_lo": lo,
        f"{name}_hi": hi,
        f"{name}_n": n.astype(np.int64),
    }


def grouped_mean(y, group, cluster, n_groups: int | None = None) -> pd.DataFrame:
    """Per group code: ``mean``, cluster-robust ``se``, ``n`` rows and ``clusters`` G.

    Equal to statsmodels ``OLS(y, ones).fit(cov_type="cluster")`` within each group.
    """
    g, ng = _codes(group)
    ng = n_groups if n_groups is not None else ng
    y = np.asarray(y, dtype=float)
    n = np.bincount(g, minlength=ng).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.bincount(g, y, minlength=ng) / n
        psi = (y - mean[g]) / n[g]
    se, n_cl, _ = influence_se(psi, g, cluster, 1, ng)
    return pd.DataFrame({"mean": mean, "se": se, "n": n.astype(np.int64), "clusters": n_cl})


def diff_influence(y, treated, group, strata=None, n_groups: int | None = None):
    """The within-strata difference of ``grouped_diff`` with its influence values: (per group:
    difference, Σ(treated − stratum mean)², coefficients k; per row: ψ). ``grouped_diff`` turns
    ψ into a clustered SE; summing ψ of two such estimates (one with a minus sign) gives the SE of
    their difference when they share clusters (``influence_se``)."""
    g, ng = _codes(group)
    ng = n_groups if n_groups is not None else ng
    y = np.asarray(y, dtype=float)
    d = np.asarray(treated, dtype=float)
    s = np.zeros(len(g), dtype=np.int64) if strata is None else np.asarray(strata, np.int64)
    cell = pd.factorize(_combine(g, s))[0] if len(g) else g
    n_cell = np.bincount(cell).astype(float) if len(cell) else np.zeros(0)
    y_t = y - (np.bincount(cell, y) / n_cell)[cell] if len(g) else y
    d_t = d - (np.bincount(cell, d) / n_cell)[cell] if len(g) else d
    sxx = np.bincount(g, d_t * d_t, minlength=ng)
    with np.errstate(divide="ignore", invalid="ignore"):
        beta = np.bincount(g, d_t * y_t, minlength=ng) / np.where(sxx > 0, sxx, np.nan)
        psi = np.nan_to_num(d_t * (y_t - beta[g] * d_t) / sxx[g])
    cell_group = np.zeros(len(n_cell), dtype=np.int64)
    cell_group[cell] = g
    k = 1 + np.bincount(cell_group, minlength=ng)  # the difference plus one mean per stratum
    return beta, sxx, k, psi


def grouped_diff(
    y, treated, group, cluster, strata=None, n_groups: int | None = None
) -> pd.DataFrame:
    """Per group code: the difference treated − untreated in mean ``y``, with its clustered SE.

    With ``strata`` (an integer code per row), the difference is estimated within strata — the
    coefficient of ``treated`` in OLS of y on treated plus one dummy per stratum, solved by
    demeaning within (group, stratum) — so a stratum's composition cannot shift it. Equal to
    statsmodels ``OLS(y, [treated, strata dummies]).fit(cov_type="cluster")`` within each group.
    Columns: ``diff``, ``se``, ``n`` rows, ``treated`` rows, ``clusters`` G, ``k`` coefficients.
    """
    g, ng = _codes(group)
    ng = n_groups if n_groups is not None else ng
    beta, sxx, k, psi = diff_influence(y, treated, g, strata, ng)
    se, n_cl, n = influence_se(psi, g, cluster, k, ng)
    se = np.where(sxx > 0, se, np.nan)
    return pd.DataFrame(
        {
            "diff": beta,
            "se": se,
            "n": n,
            "treated": np.bincount(g, np.asarray(treated, float), minlength=ng).astype(np.int64),
            "clusters": n_cl,
            "k": k,
        }
    )


def clustered_rate(name: str, y, mask, group, cluster, n_groups: int, alpha: float = ALPHA) -> dict:
    """``rate_columns`` of the share of ``y`` among the rows where ``mask`` holds, per group
    code (0 … n_groups − 1; a group without such rows gets NaN and n = 0)."""
    m = np.asarray(mask, dtype=bool)
    est = grouped_mean(
        np.asarray(y, dtype=float)[m], np.asarray(group)[m], np.asarray(cluster)[m], n_groups
    )
    return rate_columns(name, est["mean"], est["se"], est["n"], alpha)


def clustered_mean(name: str, y, mask, group, cluster, n_groups: int, alpha: float = ALPHA) -> dict:
    """``name, name_lo, name_hi, name_n``: the mean of ``y`` where ``mask`` holds, per group
    code, with the t interval of its clustered SE (NaN bounds for fewer than two clusters)."""
    m = np.asarray(mask, dtype=bool)
    est = grouped_mean(
        np.asarray(y, dtype=float)[m], np.asarray(group)[m], np.asarray(cluster)[m], n_groups
    )
    cols = estimate_columns(name, est["mean"], est["se"], est["clusters"], est["n"], alpha)
    return {k: cols[k] for k in (name, f"{name}_lo", f"{name}_hi", f"{name}_n")}
