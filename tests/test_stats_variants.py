"""Per-variant table on hand-built games with known answers."""

from __future__ import annotations

import math

import pytest

from _support.frames import games_frame
from lab import stats
from lab.stats.intervals import wilson


def four_games():
    return games_frame(
        [
            # first A, A wins, A was 3 walls behind once: a comeback; margin 3 − 0
            {
                "first": "A",
                "winner": "A",
                "max_deficit_a": 3,
                "walls_a": 3,
                "walls_b": 0,
                "leader_turns": 10,
                "battles": 8,
            },
            # first B, A wins (first player lost); A never behind by 3: no comeback; margin 1
            {
                "first": "B",
                "winner": "A",
                "max_deficit_a": 2,
                "walls_a": 1,
                "walls_b": 0,
                "leader_turns": 20,
                "battles": 12,
            },
            # a draw at the turn limit
            {
                "first": "A",
                "winner": "draw",
                "end_reason": "turn_limit",
                "walls_a": 2,
                "walls_b": 2,
                "leader_turns": 30,
                "battles": 20,
            },
            # first B, B wins, B was 4 behind: comeback; margin 2; ended by exhaustion
            {
                "first": "B",
                "winner": "B",
                "max_deficit_b": 4,
                "walls_a": 0,
                "walls_b": 2,
                "end_reason": "exhaustion",
                "leader_turns": 40,
                "battles": 24,
            },
            # another variant, to check grouping
            {"variant": "w", "first": "A", "winner": "B"},
        ]
    )


def test_variant_table_known_answers():
    vt = stats.variant_table(four_games()).set_index("variant")
    v = vt.loc["v"]
    assert v["games"] == 4
    # first player won 2 of the 3 decisive games
    assert (v["first_win"], v["first_win_n"]) == (pytest.approx(2 / 3), 3)
    lo, hi = wilson(2, 3)
    assert (v["first_win_lo"], v["first_win_hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert (v["draw"], v["draw_n"]) == (0.25, 4)
    assert (v["comeback"], v["comeback_n"]) == (pytest.approx(2 / 3), 3)
    assert v["wall_margin"] == pytest.approx((3 + 1 + 2) / 3)
    assert v["wall_margin_n"] == 3
    assert v["leader_turns"] == 25 and v["leader_turns_median"] == 25
    assert v["battles"] == 16
    assert v["end_castle_fell"] == 0.5 and v["end_turn_limit"] == 0.25
    assert v["end_exhaustion"] == 0.25
    w = vt.loc["w"]
    assert w["games"] == 1 and w["first_win"] == 0.0
    assert math.isnan(w["leader_turns_lo"])  # one game: no interval
    assert w["end_turn_limit"] == 0.0  # a reason absent from a variant counts 0, not missing


def test_comeback_threshold_is_a_parameter():
    vt = stats.variant_table(four_games(), comeback_walls=4).set_index("variant")
    assert vt.loc["v", "comeback"] == pytest.approx(1 / 3)


def test_variant_table_without_grouping_is_one_row():
    vt = stats.variant_table(four_games(), by=None)
    assert len(vt) == 1 and vt["games"].iloc[0] == 5


def test_end_reason_table_shares_sum_to_one_per_variant():
    t = stats.end_reason_table(four_games())
    assert t.groupby("variant")["share"].sum().tolist() == pytest.approx([1.0, 1.0])
    row = t[(t.variant == "v") & (t.end_reason == "turn_limit")].iloc[0]
    assert (row["share"], row["games"]) == (0.25, 4)


def test_length_values_per_variant_and_tier():
    vals = stats.length_values(four_games(), column="battles")
    assert sorted(vals[("v", "t")]) == [8, 12, 20, 24]
    assert list(vals[("w", "t")]) == [8]
    assert list(stats.length_values(four_games(), by="variant", column="battles")["w"]) == [8]


def test_first_player_edge_needs_the_interval_off_50_and_enough_games():
    # three variants of 120 decisive games each (one deal per game): the first player wins 84
    # (70%), 66 (55%) and, in the thin third, 84 of only 30 games counted at min_games = 100
    rows = []
    for variant, wins, n in (("edge", 84, 120), ("even", 66, 120), ("thin", 24, 30)):
        rows += [
            {"variant": variant, "deal": i, "first": "A", "winner": "A" if i < wins else "B"}
            for i in range(n)
        ]
    vt = stats.variant_table(games_frame(rows)).set_index("variant")
    lo, hi = wilson(66, 120)
    assert lo < 0.5 < hi  # 55% of 120: the interval reaches 50%
    edge = dict(zip(vt.index, stats.first_player_edge(vt, min_games=100)))
    assert edge == {"edge": True, "even": False, "thin": False}
    assert vt.loc["thin", "first_win_lo"] > 0.5  # its interval excludes 50%, yet thin: no flag
    assert stats.first_player_edge(vt, min_games=30).tolist() == [True, False, True]
