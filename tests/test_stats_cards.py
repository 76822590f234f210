"""Per-card metrics: each definition pinned on a hand-built run; BH flags on a larger one."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests
import statsmodels.api as sm
from scipy import stats as sps

from _support.frames import cards_frame, games_frame
from _support.synthetic import synthetic_records
from lab import stats
from lab.stats.clustered import CLUSTER
from lab.stats.intervals import wilson
from lab.stats.views import card_rows

# Seat A is oda in every game. Winner per game; game 6 is a draw (left out of every win rate).
WINNERS = {1: "A", 2: "B", 3: "B", 4: "A", 5: "A", 6: "draw", 7: "A", 8: "B"}
# 刺客 (one copy, one ability):
#   1 opening → OH, GIH; win            2 drawn → GD, GIH; loss
#   3 gained from a wall only → gained column, GNS (not GD, not GIH); loss
#   4 never seen → GNS; win             5 not in the deck this game (decks vary); win
#   6 the draw                          7 drawn and gained → GD, GIH and gained; win
#   8 never seen → GNS; loss
ASSASSIN = {
    1: {"opening": 1, "played": 1, "won": 1, "triggers": 1},
    2: {"drawn": 1, "played": 1},
    3: {"gained": 1, "triggers": 2},
    4: {},
    6: {"opening": 1, "triggers": 1},
    7: {"drawn": 1, "gained": 1, "played": 1},
    8: {},
}
# 足軽7 (three copies, no ability): counted in games, not copies
ASHIGARU = {
    1: {"copies": 3, "opening": 2, "drawn": 1, "played": 3, "won": 2},
    2: {"copies": 3, "drawn": 2},
    3: {"copies": 3},
    4: {"copies": 3},
    5: {"copies": 3},
    6: {"copies": 3},
    7: {"copies": 3},
    8: {"copies": 3},
}


# Each game its own deal, except games 1 and 2: the two seat orders of deal 1 (one cluster)
DEALS = {1: 1, 2: 1, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8}


@pytest.fixture(scope="module")
def hand_built():
    games = games_frame(
        [
            {"game_id": i, "winner": w, "deal": DEALS[i], "swapped": i == 2}
            for i, w in WINNERS.items()
        ]
    )
    rows = [{"game_id": i, "card": "刺客", **r} for i, r in ASSASSIN.items()]
    rows += [{"game_id": i, "card": "足軽7", **r} for i, r in ASHIGARU.items()]
    # seat B (takeda) holds 斥候 in the opening hand of games 1 and 4, both lost by B
    rows += [
        {
            "game_id": i,
            "player": "B",
            "army": "takeda",
            "card": "斥候",
            "opening": 1 if i in (1, 4) else 0,
        }
        for i in WINNERS
    ]
    rec = stats.Records.from_frames(games, cards_frame(rows))
    return stats.card_table(rec, min_games=1).set_index(["army", "card"])


def test_games_count_decisive_games_with_the_card_in_the_deck(hand_built):
    assert hand_built.loc[("oda", "刺客"), "games"] == 6  # 7 decks held it, one was a draw
    assert hand_built.loc[("oda", "足軽7"), "games"] == 7
    assert hand_built.loc[("oda", "足軽7"), "copies"] == 3


def test_opening_hand(hand_built):
    r = hand_built.loc[("oda", "刺客")]
    assert (r["oh"], r["oh_n"]) == (1.0, 1)
    lo, hi = wilson(1, 1)
    assert (r["oh_lo"], r["oh_hi"]) == (pytest.approx(lo), pytest.approx(hi))


def test_drawn_counts_deck_draws_only(hand_built):
    r = hand_built.loc[("oda", "刺客")]
    assert (r["gd"], r["gd_n"]) == (0.5, 2)  # games 2 and 7; the wall-gained game 3 is not GD


def test_gained_from_walls_is_its_own_column(hand_built):
    r = hand_built.loc[("oda", "刺客")]
    assert (r["gained"], r["gained_n"]) == (0.5, 2)  # games 3 (loss) and 7 (win)


def test_games_in_hand_is_opening_or_drawn(hand_built):
    r = hand_built.loc[("oda", "刺客")]
    assert (r["gih"], r["gih_n"]) == (pytest.approx(2 / 3), 3)  # 1, 2, 7


def test_not_seen_is_the_rest_of_the_games(hand_built):
    r = hand_built.loc[("oda", "刺客")]
    assert (r["gns"], r["gns_n"]) == (pytest.approx(1 / 3), 3)  # 3 (wall-gained only), 4, 8


def test_improvement_when_drawn_with_its_interval_clustered_by_deal(hand_built):
    r = hand_built.loc[("oda", "刺客")]
    assert r["iwd"] == pytest.approx(2 / 3 - 1 / 3)
    # statsmodels: OLS of "won" on GIH over 刺客's decisive games 1, 2, 3, 4, 7, 8; errors
    # clustered by deal (games 1 and 2 share deal 1), Student's t on deals − 1
    won = np.array([1, 0, 0, 1, 1, 0.0])
    gih = np.array([1, 1, 0, 0, 1, 0.0])
    deal = np.array([1, 1, 3, 4, 7, 8])
    ref = sm.OLS(won, sm.add_constant(gih)).fit(
        cov_type="cluster", use_t=True, cov_kwds={"groups": deal}
    )
    lo, hi = ref.conf_int()[1]
    assert r["iwd_se"] == pytest.approx(ref.bse[1])
    assert (r["iwd_lo"], r["iwd_hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert r["iwd_n"] == 3


def test_copies_are_counted_once_per_game(hand_built):
    r = hand_built.loc[("oda", "足軽7")]
    assert (r["oh_n"], r["gd_n"], r["gih_n"], r["gns_n"]) == (1, 1, 2, 5)  # game 1 is OH only
    assert r["gih"] == 0.5 and r["gns"] == pytest.approx(3 / 5)


def test_played_win_rate_and_winning_sets(hand_built):
    r = hand_built.loc[("oda", "刺客")]
    assert (r["played"], r["played_n"]) == (pytest.approx(2 / 3), 3)  # 1 win, 2 loss, 7 win
    assert (r["won_set"], r["won_set_n"]) == (pytest.approx(1 / 3), 3)  # only game 1


def test_trigger_rate_over_games_that_held_the_card(hand_built):
    r = hand_built.loc[("oda", "刺客")]
    # held: 1, 2, 3 (from a wall), 7; acted: 1, 3
    assert (r["trigger"], r["trigger_n"]) == (0.5, 4)
    assert math.isnan(hand_built.loc[("oda", "足軽7"), "trigger"])  # no ability to act


def test_seat_b_cards_use_seat_b_results(hand_built):
    r = hand_built.loc[("takeda", "斥候")]
    assert (r["oh"], r["oh_n"]) == (0.0, 2)


def test_army_baselines(hand_built):
    r = hand_built.loc[("oda", "刺客")]
    # pooled GIH over oda's cards: 刺客 2/3, 足軽7 1/2 → 3/5; IWD weighted by GIH games:
    # (3 · 1/3 + 2 · (1/2 − 3/5)) / 5
    assert r["gih_base"] == pytest.approx(3 / 5)
    assert r["iwd_base"] == pytest.approx((3 * (1 / 3) + 2 * (0.5 - 0.6)) / 5)


def test_thin_cells_are_marked_and_left_out_of_the_tests():
    games = games_frame([{"game_id": i, "winner": w} for i, w in WINNERS.items()])
    rows = [{"game_id": i, "card": "刺客", **r} for i, r in ASSASSIN.items()]
    t = stats.card_table(stats.Records.from_frames(games, cards_frame(rows)))  # min 100
    assert t["thin"].all()
    assert t["gih_p"].isna().all() and t["iwd_p"].isna().all()
    assert not t["gih_flag"].any() and not t["iwd_flag"].any()


@pytest.fixture(scope="module")
def big_records():
    g, c = synthetic_records(
        ("oda", "takeda"),
        deals=60,
        variants={"base": {"walls": 7, "first_edge": 0.1, "shift": {}}},
        tiers={"t": ("heuristic", 1.0, 1.0)},
        card_effects={"織田信長": 1.2},
    )
    return stats.Records.from_frames(g, c)


@pytest.fixture(scope="module")
def big_table(big_records):
    return stats.card_table(big_records, min_games=50)


def test_a_strong_card_is_flagged_by_bh(big_table):
    nobunaga = big_table[big_table.card == "織田信長"].iloc[0]
    assert nobunaga["iwd"] > nobunaga["iwd_base"] + 0.1
    assert nobunaga["iwd_flag"] and nobunaga["gih_flag"]
    assert big_table["iwd_flag"].sum() <= 4  # the other 30-odd cards have no built-in effect


def test_bh_flags_are_statsmodels_fdr_bh_over_the_tested_cards(big_table):
    for kind in ("gih", "iwd"):
        tested = big_table[big_table[f"{kind}_p"].notna()]
        assert len(tested) == (~big_table["thin"]).sum()
        reject, q, _, _ = multipletests(tested[f"{kind}_p"], alpha=0.05, method="fdr_bh")
        assert tested[f"{kind}_q"].to_numpy() == pytest.approx(q)
        assert list(tested[f"{kind}_flag"]) == list(reject)


def test_iwd_test_is_against_the_army_baseline(big_records, big_table):
    r = big_table[big_table.card == "織田信長"].iloc[0]
    rows = card_rows(big_records.cards, big_records.games, [])
    rows = rows[(rows.card == "織田信長") & ~rows.draw]
    gih = ((rows.opening > 0) | (rows.drawn > 0)).to_numpy(float)
    ref = sm.OLS(rows.won_game.to_numpy(float), sm.add_constant(gih)).fit(
        cov_type="cluster", use_t=True, cov_kwds={"groups": rows[CLUSTER].to_numpy()}
    )
    test = ref.t_test(([0.0, 1.0], r["iwd_base"]))
    assert r["iwd"] == pytest.approx(ref.params[1])
    assert r["iwd_p"] == pytest.approx(float(test.pvalue))


def test_card_table_by_tier_has_a_row_per_tier():
    g, c = synthetic_records(("oda", "takeda"), deals=3)
    t = stats.card_table(stats.Records.from_frames(g, c), by=("variant", "tier"))
    per_card = t.groupby(["variant", "army", "card"]).size()
    assert (per_card == 2).all()
    assert set(t["tier"]) == set(pd.unique(g["tier"]))
    assert np.isfinite(t["gih"]).any()


def test_draw_bias_is_the_winners_extra_deck_draws():
    # three decisive games and a draw; the winner drew 6, 4, 9 deck cards, the loser 2, 4, 3
    games = games_frame(
        [
            {"game_id": 1, "winner": "A", "deal": 1},
            {"game_id": 2, "winner": "B", "deal": 2},
            {"game_id": 3, "winner": "A", "deal": 3},
            {"game_id": 4, "winner": "draw", "deal": 4},
        ]
    )
    drawn = {
        (1, "A"): 6,
        (1, "B"): 2,
        (2, "A"): 4,
        (2, "B"): 4,
        (3, "A"): 9,
        (3, "B"): 3,
        (4, "A"): 10,
        (4, "B"): 0,
    }
    rows = []
    for (gid, seat), n in drawn.items():  # split over two card types: draws are summed
        army = "oda" if seat == "A" else "takeda"
        rows += [
            {"game_id": gid, "player": seat, "army": army, "card": "足軽7", "drawn": n // 2},
            {"game_id": gid, "player": seat, "army": army, "card": "足軽5", "drawn": n - n // 2},
        ]
    t = stats.draw_bias(stats.Records.from_frames(games, cards_frame(rows))).iloc[0]
    assert t["games"] == 3  # the draw has no winner
    assert (t["winner_draws"], t["loser_draws"]) == (pytest.approx(19 / 3), pytest.approx(3))
    assert t["extra_draws"] == pytest.approx(10 / 3)
    diffs = np.array([4, 0, 6.0])
    half = sps.t.ppf(0.975, 2) * diffs.std(ddof=1) / np.sqrt(3)
    assert (t["extra_draws_lo"], t["extra_draws_hi"]) == (
        pytest.approx(10 / 3 - half),
        pytest.approx(10 / 3 + half),
    )
