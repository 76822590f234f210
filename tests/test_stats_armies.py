"""Per-army win rates, matchups and Bradley–Terry ratings with a first-player term."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.special import expit

from _support.frames import games_frame
from lab import stats


def test_army_table_counts_decisive_non_mirror_games():
    g = games_frame(
        [
            {"army_a": "oda", "army_b": "takeda", "first": "A", "winner": "A"},
            {"army_a": "takeda", "army_b": "oda", "first": "A", "winner": "B"},  # oda second, wins
            {"army_a": "oda", "army_b": "takeda", "first": "B", "winner": "B"},
            {"army_a": "oda", "army_b": "takeda", "winner": "draw"},
            {"army_a": "oda", "army_b": "oda", "winner": "A"},  # mirror: left out
        ]
    )
    t = stats.army_table(g, min_games=3).set_index("army")
    oda = t.loc["oda"]
    assert oda["games"] == 4
    assert (oda["win_rate"], oda["win_rate_n"]) == (pytest.approx(2 / 3), 3)
    assert (oda["win_rate_first"], oda["win_rate_first_n"]) == (1.0, 1)
    assert (oda["win_rate_second"], oda["win_rate_second_n"]) == (0.5, 2)
    assert oda["draw"] == 0.25
    assert not oda["thin"]
    assert t.loc["takeda", "win_rate"] == pytest.approx(1 / 3)
    assert bool(stats.army_table(g, min_games=4).loc[0, "thin"])


def test_matchup_table_is_complementary():
    g, _ = synthetic_games(n=600, seed=3)
    mt = stats.matchup_table(g, by=None)
    m = stats.matchup_matrix(mt)
    n = stats.matchup_matrix(mt, "win_rate_n")
    for a in m.index:
        assert math.isnan(m.loc[a, a])
        for b in m.columns:
            if a != b:
                assert m.loc[a, b] + m.loc[b, a] == pytest.approx(1.0)
                assert n.loc[a, b] == n.loc[b, a]
    # canonical army order (lab.games.daitenka.cards.pool.ARMIES), not alphabetical
    assert list(m.index) == ["oda", "honganji", "takeda", "uesugi"]


def synthetic_games(n: int, seed: int, strengths=None, first_edge: float = 0.4):
    """Independent games (each its own deal) from a known Bradley–Terry model with a
    first-player edge."""
    strengths = strengths or {"oda": 0.6, "honganji": 0.1, "takeda": -0.2, "uesugi": -0.5}
    armies = list(strengths)
    rng = np.random.default_rng(seed)
    ia = rng.integers(0, len(armies), n)
    ib = (ia + rng.integers(1, len(armies), n)) % len(armies)  # never a mirror
    first_a = rng.random(n) < 0.5
    s = np.array([strengths[a] for a in armies])
    p = expit(s[ia] - s[ib] + np.where(first_a, first_edge, -first_edge))
    a_wins = rng.random(n) < p
    g = games_frame(
        [
            {
                "army_a": armies[x],
                "army_b": armies[y],
                "first": "A" if f else "B",
                "winner": "A" if w else "B",
                "deal": i,
            }
            for i, (x, y, f, w) in enumerate(zip(ia, ib, first_a, a_wins))
        ]
    )
    return g, strengths


def test_bradley_terry_recovers_known_strengths_and_first_player_edge():
    g, true = synthetic_games(n=12000, seed=11)
    bt = stats.bradley_terry(g, by=None)
    armies = bt[bt.term == "army"].set_index("army")
    assert armies["rating"].sum() == pytest.approx(0.0, abs=1e-9)  # sum-to-zero coding
    for a, s in true.items():
        r = armies.loc[a]
        assert r["rating"] == pytest.approx(s, abs=4 * r["se"]), a
        assert r["rating_lo"] < r["rating"] < r["rating_hi"]
    assert list(armies["rating"].sort_values().index) == ["uesugi", "takeda", "honganji", "oda"]
    fp = bt[bt.term == "first_player"].iloc[0]
    assert fp["rating"] == pytest.approx(0.4, abs=4 * fp["se"])
    assert fp["rating_lo"] > 0  # the edge is detected
    assert fp["vs_average"] == pytest.approx(expit(fp["rating"]))
    assert fp["games"] == 12000


def test_bradley_terry_intervals_cover_the_truth_most_of_the_time():
    covered = total = 0
    for seed in range(12):
        g, true = synthetic_games(n=1500, seed=100 + seed)
        armies = stats.bradley_terry(g, by=None).query("term == 'army'").set_index("army")
        for a, s in true.items():
            covered += armies.loc[a, "rating_lo"] <= s <= armies.loc[a, "rating_hi"]
            total += 1
    assert covered / total >= 0.85  # nominal 95%; 48 intervals


def test_bradley_terry_errors_are_clustered_by_deal_across_seat_orders():
    # oda vs takeda, 60 deals each played in both seat orders; a deal's two games share a
    # deal-level luck, so they are one cluster — statsmodels' GLM with the deal as the group
    rng = np.random.default_rng(8)
    rows = []
    for deal in range(60):
        luck = rng.normal(0, 1.0)  # the deal favours oda or takeda in both seat orders
        for swapped in (False, True):
            first = "AB"[rng.integers(2)]
            oda_a = not swapped
            p_oda = expit(0.3 + luck + (0.2 if (first == "A") == oda_a else -0.2))
            oda_wins = rng.random() < p_oda
            rows.append(
                {
                    "army_a": "takeda" if swapped else "oda",
                    "army_b": "oda" if swapped else "takeda",
                    "deal": deal,
                    "swapped": swapped,
                    "first": first,
                    "winner": ("A" if oda_a else "B") if oda_wins else ("B" if oda_a else "A"),
                }
            )
    g = games_frame(rows)
    bt = stats.bradley_terry(g, by=None).set_index(["term", "army"])
    # sum-to-zero coding: takeda's rating is −oda's, so the army term of seat A minus seat B's
    # is ±2 × oda's rating
    oda_a = np.where(g["army_a"] == "oda", 2.0, -2.0)
    x = np.column_stack([oda_a, np.where(g["first"] == "A", 1.0, -1.0)])
    y = (g["winner"] == "A").to_numpy(float)
    ref = sm.GLM(y, x, family=sm.families.Binomial()).fit(
        cov_type="cluster", cov_kwds={"groups": g["deal"].to_numpy()}
    )
    oda = bt.loc[("army", "oda")]
    assert oda["rating"] == pytest.approx(ref.params[0], rel=1e-6)
    assert oda["se"] == pytest.approx(ref.bse[0], rel=1e-6)
    assert bt.loc[("army", "takeda"), "rating"] == pytest.approx(-ref.params[0], rel=1e-6)
    lo, hi = ref.conf_int()[0]
    assert (oda["rating_lo"], oda["rating_hi"]) == (pytest.approx(lo), pytest.approx(hi))
    naive = sm.GLM(y, x, family=sm.families.Binomial()).fit()
    assert oda["se"] > naive.bse[0]  # the test can fail: the deal's luck is shared


def test_bradley_terry_per_group_and_separation():
    g1, _ = synthetic_games(n=800, seed=5)
    g2 = games_frame(
        [
            {"variant": "sep", "army_a": "oda", "army_b": "takeda", "winner": "A", "first": f}
            for f in "ABAB"
        ],
        start_id=10_000,
    )
    bt = stats.bradley_terry(pd.concat([g1, g2], ignore_index=True))
    assert set(bt["variant"]) == {"v", "sep"}
    sep = bt[bt.variant == "sep"]
    assert sep["rating"].isna().all()  # oda always wins: no finite estimate, shown as NaN
    assert bt[bt.variant == "v"]["rating"].notna().all()


def test_tables_are_per_tier_and_a_pooled_table_says_so():
    g = games_frame(
        [
            {"tier": t, "deal": i, "winner": "AB"[i % 2]}
            for t in ("random-vs-random", "heuristic-vs-heuristic")
            for i in range(6)
        ]
    )
    per_tier = stats.army_table(g)
    assert set(per_tier["tier"]) == {"random-vs-random", "heuristic-vs-heuristic"}
    pooled = stats.army_table(g, by=("variant",))
    assert list(pooled["tier"].unique()) == ["pooled: random-vs-random + heuristic-vs-heuristic"]
    for table in (
        stats.bradley_terry(g, by=None),
        stats.matchup_table(g, by="variant"),
        stats.variant_table(g, by="variant"),
    ):
        assert table["tier"].str.startswith("pooled: ").all()
    one_tier = stats.army_table(g[g.tier == "random-vs-random"], by=None)
    assert list(one_tier["tier"].unique()) == ["random-vs-random"]
