"""Paired comparisons: variant changes, the ranked "what moved" table, card-swap analysis."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from _support.frames import games_frame
from _support.synthetic import synthetic_records
from lab import stats
from lab.errors import LabError

# (deal, swapped, winner under v, winner under w); oda vs takeda, A moves first throughout
DEALS = [
    (0, False, "A", "A"),
    (1, False, "B", "A"),
    (2, False, "A", "draw"),
    (3, False, "B", "B"),
    (0, True, "A", "B"),
]
# oda's score change per pair: 0, +1, −½, 0, +1 (in the swapped deal oda sits in seat B)
ODA_DIFFS = np.array([0, 1, -0.5, 0, 1])


def paired_games():
    rows = []
    for deal, swapped, wv, ww in DEALS:
        a, b = ("takeda", "oda") if swapped else ("oda", "takeda")
        for variant, winner in (("v", wv), ("w", ww)):
            rows.append(
                {
                    "variant": variant,
                    "army_a": a,
                    "army_b": b,
                    "deal": deal,
                    "swapped": swapped,
                    "winner": winner,
                    "first": "A",
                    "leader_turns": 10 if variant == "v" else 12,
                }
            )
    rows.append({"variant": "w", "deal": 9, "winner": "A"})  # no partner under v
    rows.append(
        {
            "variant": "v",
            "army_a": "oda",
            "army_b": "oda",
            "deal": 5,
            "winner": "A",
            "leader_turns": 10,
        }
    )
    rows.append(
        {
            "variant": "w",
            "army_a": "oda",
            "army_b": "oda",
            "deal": 5,
            "winner": "B",
            "leader_turns": 12,
        }
    )
    return games_frame(rows)


ODA_DEALS = np.array([0, 1, 2, 3, 0])  # the deal of each pair: deal 0 in both seat orders


def test_army_change_is_the_mean_paired_difference_clustered_by_deal():
    cmp = stats.compare_variants(paired_games(), "v", "w", min_games=1)
    oda = cmp[(cmp.kind == "army") & (cmp.army == "oda")].iloc[0]
    # statsmodels: OLS of the differences on a constant, errors clustered by deal, t(G − 1)
    ref = sm.OLS(ODA_DIFFS, np.ones(5)).fit(
        cov_type="cluster", use_t=True, cov_kwds={"groups": ODA_DEALS}
    )
    lo, hi = ref.conf_int()[0]
    assert oda["pairs"] == 5 and oda["deals"] == 4  # the mirror pair is left out
    assert oda["change"] == pytest.approx(ODA_DIFFS.mean())
    assert oda["se"] == pytest.approx(ref.bse[0])
    assert hi > 1  # four deals: the t interval overshoots, and is clipped to the range
    assert (oda["change_lo"], oda["change_hi"]) == (pytest.approx(lo), 1.0)
    assert oda["p"] == pytest.approx(ref.pvalues[0])
    # the two seat orders of deal 0 as independent pairs would claim a narrower interval
    naive = sps.ttest_1samp(ODA_DIFFS, 0).confidence_interval()
    assert naive.low > lo
    assert oda["base"] == pytest.approx(np.mean([1, 0, 1, 0, 0]))
    assert oda["other"] == pytest.approx(np.mean([1, 1, 0.5, 0, 1]))
    takeda = cmp[(cmp.kind == "army") & (cmp.army == "takeda")].iloc[0]
    assert takeda["change"] == pytest.approx(-ODA_DIFFS.mean())


def test_overall_rows_first_player_and_draws():
    cmp = stats.compare_variants(paired_games(), "v", "w").set_index("item")
    # first player's score per pair: v 1,0,1,0,1,(mirror)1 → w 1,1,½,0,0,(mirror)0
    first = np.array([0, 1, -0.5, 0, -1, -1])
    assert cmp.loc["first player score", "change"] == pytest.approx(first.mean())
    assert cmp.loc["first player score", "pairs"] == 6
    assert cmp.loc["draw rate", "change"] == pytest.approx(1 / 6)


def test_unpaired_games_are_counted_not_used():
    cmp = stats.compare_variants(paired_games(), "v", "w")
    assert cmp.attrs["unpaired"] == {"v": 0, "w": 1}


def test_unknown_or_equal_variants_are_refused():
    with pytest.raises(LabError, match=r"unknown variant \"x\"; the run has: v, w"):
        stats.compare_variants(paired_games(), "v", "x")
    with pytest.raises(LabError, match="two different variants"):
        stats.compare_variants(paired_games(), "v", "v")
    g = games_frame([{"variant": "v", "deal": 1}, {"variant": "w", "deal": 2}])
    with pytest.raises(LabError, match="no paired deals"):
        stats.compare_variants(g, "v", "w")


def test_a_repeated_deal_key_is_refused():
    g = games_frame([{"variant": "v"}, {"variant": "v"}, {"variant": "w"}])
    with pytest.raises(LabError, match="repeat a deal key"):
        stats.compare_variants(g, "v", "w")


def test_what_moved_includes_length_and_ranks_moved_rows_first():
    t = stats.what_moved(paired_games(), "v", "w", min_games=1)
    turns = t[t["item"] == "leader turns (mean)"].iloc[0]
    assert turns["change"] == 2 and turns["change_lo"] == 2  # every pair +2 turns
    assert turns["moved"] and turns["rank"] == 1
    assert list(t["rank"]) == list(range(1, len(t) + 1))
    assert t["moved"].is_monotonic_decreasing


@pytest.fixture(scope="module")
def synthetic():
    g, _ = synthetic_records(deals=40, mirrors=False)
    return g


def test_what_moved_finds_the_built_in_change(synthetic):
    # walls6 gives takeda +0.5 log-odds and the first player a bigger edge
    t = stats.what_moved(synthetic, "base", "walls6")
    takeda = t[(t.kind == "army") & (t.army == "takeda")].iloc[0]
    assert takeda["moved"] and takeda["change"] > 0.05
    assert takeda["rank"] <= 3
    tested = t[~t["thin"]]
    reject, ref_q, _, _ = multipletests(tested["p"], method="fdr_bh")
    assert tested["q"].to_numpy() == pytest.approx(ref_q)
    assert list(tested["moved"]) == list(reject)
    assert t.loc[t["thin"], "q"].isna().all()
    oda = t[(t.kind == "army") & (t.army == "oda")].iloc[0]
    assert oda["change_lo"] < 0.05  # oda was not changed: no large move claimed


def test_compare_by_tier(synthetic):
    cmp = stats.compare_variants(synthetic, "base", "walls6", by="tier")
    assert set(cmp["tier"]) == set(pd.unique(synthetic["tier"]))
    per = cmp[cmp.kind == "army"].groupby("tier")["pairs"].sum()
    whole = stats.compare_variants(synthetic, "base", "walls6")
    assert per.sum() == whole[whole.kind == "army"]["pairs"].sum()


def test_swap_effect_pairs_two_runs_and_maps_the_modified_army():
    base = paired_games()
    base = base[base.variant == "v"]
    alt = paired_games()
    alt = alt[alt.variant == "w"].copy()
    for col in ("army_a", "army_b"):
        alt[col] = alt[col].replace({"oda": "oda+赤備え"})
    alt["variant"] = "v"  # same rules, different deck
    res = stats.swap_effect(base, alt, "oda", alt_army="oda+赤備え")
    overall = res[res.kind == "army"].iloc[0]
    assert overall["change"] == pytest.approx(ODA_DIFFS.mean())
    assert overall["pairs"] == 5
    per_opp = res[res.kind == "matchup"].set_index("opponent")
    assert per_opp.loc["takeda", "change"] == pytest.approx(ODA_DIFFS.mean())
    assert res.attrs["unpaired"]["alt"] == 1  # the alt game of deal 9 had no partner
    with pytest.raises(LabError, match="army \"uesugi\" does not play in the base arm"):
        stats.swap_effect(base, alt, "uesugi")


def test_thin_rows_are_shown_but_never_moved_and_intervals_stay_in_range():
    t = stats.what_moved(paired_games(), "v", "w")  # 6 pairs < 100
    assert t["thin"].all() and not t["moved"].any() and t["q"].isna().all()
    shares = t[t.kind != "length"]
    assert (shares["change_lo"] >= -1).all() and (shares["change_hi"] <= 1).all()
    # the same data with a low threshold: the +2 turns per pair is found
    assert stats.what_moved(paired_games(), "v", "w", min_games=5)["moved"].any()
    # five pairs flipping from loss to win: the raw t interval would pass +1
    g = games_frame(
        [
            {"variant": v, "deal": d, "winner": w}
            for d in range(5)
            for v, w in (("v", "B"), ("w", "A"))
        ]
    )
    oda = stats.compare_variants(g, "v", "w")
    oda = oda[oda.kind == "army"].set_index("army").loc["oda"]
    assert oda["change"] == 1 and oda["change_hi"] == 1 and oda["thin"]


def test_a_change_whose_pairs_all_tie_gets_a_conservative_interval_not_a_zero_width_one():
    # 150 deals × 2 seat orders, the same winner under v and w in every pair: nothing differs
    rows = []
    for deal in range(150):
        for swapped in (False, True):
            a, b = ("takeda", "oda") if swapped else ("oda", "takeda")
            for variant in ("v", "w"):
                rows.append(
                    {
                        "variant": variant,
                        "army_a": a,
                        "army_b": b,
                        "deal": deal,
                        "swapped": swapped,
                        "winner": "A" if deal % 3 else "B",
                    }
                )
    cmp = stats.compare_variants(games_frame(rows), "v", "w")
    oda = cmp[(cmp.kind == "army") & (cmp.army == "oda")].iloc[0]
    assert oda["change"] == 0 and oda["se"] == 0 and oda["p"] == 1 and not oda["moved"]
    # the exact bound on the share of deals that could differ when 0 of 150 did, at 95%
    # two-sided: (1 − u)^150 = 2.5%, about 3.7 / 150 (the rule of three: 3 / 150 one-sided)
    u = 1 - 0.025 ** (1 / 150)
    assert (oda["change_lo"], oda["change_hi"]) == (pytest.approx(-u), pytest.approx(u))
    assert 0.02 < u < 3.7 / 150 + 1e-3
    # the same in a card swap's analysis (swap_effect) and for the shares of the overall rows
    g = games_frame(rows)
    sw = stats.swap_effect(g[g.variant == "v"], g[g.variant == "w"].assign(variant="v"), "oda")
    assert sw.iloc[0]["change_lo"] == pytest.approx(-u)
    draws = cmp[cmp["item"] == "draw rate"].iloc[0]
    assert draws["change_hi"] == pytest.approx(u) and draws["change_lo"] == pytest.approx(-u)


def test_a_tie_interval_around_a_constant_nonzero_change_stays_in_range():
    from lab.stats.clustered import tie_interval

    t = tie_interval([0.0, 1.0, 0.5, 0.2], [0.0, 0.0, 0.0, 0.01], [20, 20, 1, 20])
    u = 1 - 0.025 ** (1 / 20)
    assert list(t["tied"]) == [True, True, True, False]
    assert (t["lo"][1], t["hi"][1]) == (pytest.approx(1 - 2 * u), 1.0)
    assert t["p"][1] == pytest.approx(2 * 0.5**20)  # every deal moved up: the sign test
    assert (t["lo"][2], t["hi"][2]) == (
        pytest.approx(0.5 - 0.975 * 1.5),
        pytest.approx(0.5 + 0.975 * 0.5),
    )  # one deal
    assert np.isnan(t["lo"][3])  # a row with variation keeps its t interval
