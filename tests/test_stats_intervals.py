"""Intervals, tests and BH flags: known values from the literature and independent references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from lab.stats.intervals import bh, mean_interval, rate, thin, wilson


def wilson_by_hand(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval written out (Wilson 1927), as an independent reference."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize("k,n", [(0, 10), (5, 10), (10, 10), (1, 3), (537, 1000), (3, 250)])
def test_wilson_matches_the_formula(k, n):
    lo, hi = wilson(k, n)
    ref = wilson_by_hand(k, n)
    assert lo == pytest.approx(ref[0], abs=1e-12)
    assert hi == pytest.approx(ref[1], abs=1e-12)


def test_wilson_known_values():
    # 5 of 10: the textbook 0.2366–0.7634; 0 of 10: 0–0.2775 (never a zero-width interval)
    lo, hi = wilson([5, 0], [10, 10])
    assert lo == pytest.approx([0.23659, 0.0], abs=1e-5)
    assert hi == pytest.approx([0.76341, 0.27753], abs=1e-5)


def test_empty_cells_give_nan_not_zero():
    cols = rate([0, 3], [0, 4], "x")
    assert math.isnan(cols["x"][0]) and math.isnan(cols["x_lo"][0]) and math.isnan(cols["x_hi"][0])
    assert cols["x"][1] == 0.75
    assert list(cols["x_n"]) == [0, 4]


def test_mean_interval_is_the_t_interval():
    m, lo, hi, n = mean_interval([1, 2, 3, 4, 5])
    # mean 3, sem sqrt(2.5/5), t(0.975, 4) = 2.776445
    assert (m, n) == (3.0, 5)
    assert lo == pytest.approx(3 - 2.776445 * math.sqrt(0.5), abs=1e-5)
    assert hi == pytest.approx(3 + 2.776445 * math.sqrt(0.5), abs=1e-5)
    assert math.isnan(mean_interval([4.0])[1])


def test_bh_by_hand():
    p = [0.01, 0.04, 0.03, 0.005, 0.5]
    # sorted .005 .01 .03 .04 .5 → q = min over later of p·m/rank = .025 .025 .05 .05 .5
    q, flag = bh(p)
    assert q == pytest.approx([0.025, 0.05, 0.05, 0.025, 0.5])
    assert list(flag) == [True, True, True, True, False]


def bh_reference(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini–Hochberg step-up written out (an independent reference)."""
    m = len(p)
    order = np.argsort(p)
    ranked = p[order] * m / np.arange(1, m + 1)
    q_sorted = np.minimum.accumulate(ranked[::-1])[::-1].clip(max=1)
    q = np.empty(m)
    q[order] = q_sorted
    below = np.flatnonzero(p[order] <= alpha * np.arange(1, m + 1) / m)
    reject = np.zeros(m, bool)
    if len(below):
        reject[order[: below.max() + 1]] = True
    return q, reject


def test_bh_matches_a_reference_and_statsmodels_and_skips_nan():
    rng = np.random.default_rng(7)
    p = np.concatenate([rng.uniform(0, 1, 40), rng.uniform(0, 0.002, 8)])
    with_nan = np.concatenate([p, [np.nan, np.nan]])
    q, flag = bh(with_nan)
    ref_q, ref_flag = bh_reference(p, 0.05)
    sm_reject, sm_q, _, _ = multipletests(p, alpha=0.05, method="fdr_bh")
    assert q[:-2] == pytest.approx(ref_q)
    assert q[:-2] == pytest.approx(sm_q)
    assert list(flag[:-2]) == list(ref_flag) == list(sm_reject)
    assert np.isnan(q[-2:]).all() and not flag[-2:].any()
    assert flag.sum() >= 8


def test_thin_threshold():
    assert list(thin([0, 99, 100, 500], 100)) == [True, True, False, False]
