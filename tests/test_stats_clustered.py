"""Errors clustered by deal: the vectorised estimators equal statsmodels', deals are the right
clusters, and the intervals cover the truth 93–97% of the time on records with realistic
within-deal correlation (where intervals that treat games as independent fall short)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from _support.frames import games_frame
from _support.synthetic import clustered_replications
from lab import stats
from lab.stats.causal import opening_hand_effect
from lab.stats.clustered import (
    deal_clusters,
    grouped_diff,
    grouped_mean,
    influence_se,
    rate_columns,
)
from lab.stats.intervals import wilson


@pytest.fixture(scope="module")
def random_data():
    rng = np.random.default_rng(7)
    n = 2500
    return {
        "group": rng.integers(0, 3, n),
        "cluster": rng.integers(0, 300, n),
        "y": (rng.random(n) < 0.45).astype(float),
        "d": (rng.random(n) < 0.3).astype(float),
        "strata": rng.integers(0, 5, n),
    }


def _ols(y, x, cluster):
    return sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True)


def test_grouped_mean_is_statsmodels_ols_with_clustered_errors(random_data):
    r = random_data
    est = grouped_mean(r["y"], r["group"], r["cluster"])
    for k in range(3):
        sel = r["group"] == k
        ref = _ols(r["y"][sel], np.ones(sel.sum()), r["cluster"][sel])
        assert est.loc[k, "mean"] == pytest.approx(ref.params[0], abs=1e-12)
        assert est.loc[k, "se"] == pytest.approx(ref.bse[0], abs=1e-12)
        assert est.loc[k, "clusters"] == len(np.unique(r["cluster"][sel]))


def test_grouped_diff_is_the_ols_coefficient_with_and_without_strata(random_data):
    r = random_data
    plain = grouped_diff(r["y"], r["d"], r["group"], r["cluster"])
    within = grouped_diff(r["y"], r["d"], r["group"], r["cluster"], strata=r["strata"])
    for k in range(3):
        sel = r["group"] == k
        ref = _ols(r["y"][sel], sm.add_constant(r["d"][sel]), r["cluster"][sel])
        assert plain.loc[k, "diff"] == pytest.approx(ref.params[1], abs=1e-12)
        assert plain.loc[k, "se"] == pytest.approx(ref.bse[1], abs=1e-12)
        dummies = pd.get_dummies(r["strata"][sel]).to_numpy(float)
        ref = _ols(r["y"][sel], np.column_stack([r["d"][sel], dummies]), r["cluster"][sel])
        assert within.loc[k, "diff"] == pytest.approx(ref.params[0], abs=1e-12)
        assert within.loc[k, "se"] == pytest.approx(ref.bse[0], abs=1e-12)


def test_one_cluster_has_no_error_and_singletons_give_the_usual_standard_error():
    se, g, n = influence_se([0.1, -0.1, 0.0], [0, 0, 0], [5, 5, 5])
    assert np.isnan(se[0]) and g[0] == 1 and n[0] == 3
    y = np.array([1.0, 0, 1, 1, 0, 1])
    est = grouped_mean(y, np.zeros(6, int), np.arange(6))
    assert est.loc[0, "se"] == pytest.approx(y.std(ddof=1) / np.sqrt(6))


def test_a_rate_interval_is_wilson_when_deals_add_no_correlation_and_wider_when_they_do():
    p, n = 0.6, 200
    iid_se = np.sqrt(p * (1 - p) / n)
    cols = rate_columns("x", [p, p], [iid_se, 2 * iid_se], [n, n])
    lo, hi = wilson(p * n, n)
    assert (cols["x_lo"][0], cols["x_hi"][0]) == (pytest.approx(lo), pytest.approx(hi))
    lo4, hi4 = wilson(p * n / 4, n / 4)  # twice the SE: a design effect of 4
    assert (cols["x_lo"][1], cols["x_hi"][1]) == (pytest.approx(lo4), pytest.approx(hi4))
    # a smaller clustered SE never narrows the interval below Wilson's
    narrow = rate_columns("x", [p], [iid_se / 2], [n])
    assert narrow["x_lo"][0] == pytest.approx(lo)


def test_deals_are_shared_by_seat_orders_variants_and_tiers():
    g = games_frame(
        [
            {"army_a": "oda", "army_b": "takeda", "deal": 3},
            {"army_a": "takeda", "army_b": "oda", "deal": 3, "swapped": True},
            {"army_a": "oda", "army_b": "takeda", "deal": 3, "variant": "w", "tier": "u"},
            {"army_a": "oda", "army_b": "takeda", "deal": 4},
            {"army_a": "oda", "army_b": "uesugi", "deal": 3},
        ]
    )
    c = deal_clusters(g)
    assert c[0] == c[1] == c[2]
    assert len({c[0], c[3], c[4]}) == 3


# ---------------------------------------------------------------------------------- coverage

REPS, DEALS = 800, 40


@pytest.fixture(scope="module")
def replications():
    """800 independent runs of 40 deals × 2 seat orders × 2 variants (128,000 games), deal
    effect sigma = 1 — the design effect of real runs (army intervals ~10% wider clustered)."""
    g, c, truth = clustered_replications(REPS, DEALS, sigma=1.0, seed=3)
    rec = stats.Records.from_frames(g, c)
    naive = stats.Records.from_frames(g.assign(deal=np.arange(len(g))), c)  # each game a deal
    return rec, naive, truth


def _coverage(lo, hi, truth) -> float:
    lo, hi, truth = (np.asarray(x, dtype=float) for x in (lo, hi, truth))
    return float(np.mean((lo <= truth) & (truth <= hi)))


def test_army_win_rate_intervals_cover_93_to_97_percent(replications):
    rec, naive, truth = replications
    cover = {}
    for name, r in (("clustered", rec), ("naive", naive)):
        at = stats.army_table(r, by=("rep", "variant"), min_games=1)
        oda = at[at.army == "oda"]
        assert len(oda) == 2 * REPS
        cover[name] = _coverage(
            oda.win_rate_lo, oda.win_rate_hi, oda.variant.map(truth["win_rate"])
        )
    assert 0.93 <= cover["clustered"] <= 0.97
    assert cover["naive"] < cover["clustered"] - 0.01  # the test can fail: pooling deals does


def test_paired_change_intervals_cover_93_to_97_percent(replications):
    rec, _, truth = replications
    cmp = stats.compare_variants(rec, "v0", "v1", by=("rep",), min_games=1)
    oda = cmp[(cmp.kind == "army") & (cmp.army == "oda")]
    assert len(oda) == REPS and (oda.deals == DEALS).all()
    assert 0.93 <= _coverage(oda.change_lo, oda.change_hi, truth["change"]) <= 0.97


def test_opening_hand_effect_intervals_cover_93_to_97_percent(replications):
    rec, naive, truth = replications
    cover = {}
    for name, r in (("clustered", rec), ("naive", naive)):
        oh = opening_hand_effect(r, by=("rep", "variant"), min_games=1)
        oh = oh[oh.variant == "v0"]
        assert len(oh) == REPS
        cover[name] = _coverage(oh.effect_lo, oh.effect_hi, truth["opening_hand"])
    assert 0.93 <= cover["clustered"] <= 0.97
    assert cover["naive"] < cover["clustered"]


def test_bradley_terry_intervals_cover_93_to_97_percent():
    g, _, _ = clustered_replications(200, 60, sigma=1.0, seed=11)
    g = g[g.variant == "v0"]
    # the population value of oda's rating: the same model fitted on a large run (its own SE
    # is a twentieth of one replication's)
    big, _, _ = clustered_replications(1, 30_000, sigma=1.0, seed=12)
    true = stats.bradley_terry(big[big.variant == "v0"], by=None)
    true = true[true.army == "oda"]["rating"].iloc[0]
    bt = stats.bradley_terry(g, by=("rep",))
    oda = bt[bt.army == "oda"]
    assert len(oda) == 200
    assert 0.93 <= _coverage(oda.rating_lo, oda.rating_hi, true) <= 0.97
