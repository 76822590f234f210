"""Skill split: tier order, values per tier and the skill-sensitivity column."""

from __future__ import annotations

import numpy as np
import pytest

from _support.frames import games_frame
from _support.synthetic import synthetic_records
from lab import stats
from lab.errors import LabError
from lab.stats.intervals import diff_interval


def tier_games():
    """oda vs takeda under two tiers: oda wins 6 of 10 at 'low', 9 of 10 at 'high'."""
    rows = []
    for tier, oda_wins in (("low", 6), ("high", 9)):
        for i in range(10):
            rows.append({"tier": tier, "deal": i, "winner": "A" if i < oda_wins else "B",
                         "bot_a": tier, "bot_b": tier})
    return games_frame(rows)


def test_skill_split_of_army_win_rates_with_given_order():
    at = stats.army_table(tier_games(), by=("variant", "tier"))
    sp = stats.skill_split(at, "win_rate", order=["low", "high"], min_games=5)
    oda = sp[sp.army == "oda"].iloc[0]
    assert oda["win_rate@low"] == 0.6 and oda["win_rate@high"] == 0.9
    assert oda["win_rate_n@low"] == 10
    assert oda["skill_sensitivity"] == pytest.approx(0.3)
    lo, hi = diff_interval(9, 10, 6, 10)
    assert (oda["skill_sensitivity_lo"], oda["skill_sensitivity_hi"]) == (
        pytest.approx(lo), pytest.approx(hi))
    assert (oda["weaker"], oda["stronger"]) == ("low", "high")
    assert not oda["thin"]
    takeda = sp[sp.army == "takeda"].iloc[0]
    assert takeda["skill_sensitivity"] == pytest.approx(-0.3)


def test_reversed_order_flips_the_sign():
    at = stats.army_table(tier_games(), by=("variant", "tier"))
    sp = stats.skill_split(at, "win_rate", order=["high", "low"])
    assert sp[sp.army == "oda"]["skill_sensitivity"].iloc[0] == pytest.approx(-0.3)
    assert sp["thin"].all()  # 10 games per tier is below the default 100


def test_tier_order_from_cross_bot_games():
    rows = [{"tier": "a-vs-a", "bot_a": "a", "bot_b": "a", "deal": i} for i in range(4)]
    rows += [{"tier": "b-vs-b", "bot_a": "b", "bot_b": "b", "deal": i} for i in range(4)]
    # in the mixed tier, bot b wins 7 of 8 whichever seat it has: b is the stronger bot
    for i in range(8):
        b_seat = "A" if i % 2 == 0 else "B"
        a_seat = "B" if b_seat == "A" else "A"
        rows.append({"tier": "a-vs-b", "bot_a": "b" if b_seat == "A" else "a",
                     "bot_b": "a" if b_seat == "A" else "b", "deal": i,
                     "winner": a_seat if i == 0 else b_seat})
    assert stats.tier_order(games_frame(rows)) == ["a-vs-a", "a-vs-b", "b-vs-b"]


def test_tier_order_by_bot_kind_without_cross_games():
    rows = [{"tier": t, "bot_a": b, "bot_b": b, "deal": 0}
            for t, b in (("s", "search(simulations=400)"), ("h", "heuristic"), ("r", "random"),
                         ("s2", "search(simulations=50)"))]
    assert stats.tier_order(games_frame(rows)) == ["r", "h", "s2", "s"]


def test_a_given_order_is_checked():
    with pytest.raises(LabError, match=r"names middle, not a tier of this run \(allowed: low, "
                                       r"high\)"):
        stats.tier_order(tier_games(), ["low", "middle"])
    at = stats.army_table(tier_games(), by=("variant", "tier"))
    with pytest.raises(LabError, match="give order="):
        stats.skill_split(at, "win_rate")
    with pytest.raises(LabError, match="compute the table with by="):
        stats.skill_split(stats.army_table(tier_games()), "win_rate", order=["low", "high"])


def test_iwd_uses_the_normal_approximation():
    g, c = synthetic_records(("oda", "takeda"), deals=10)
    rec = stats.Records.from_frames(g, c)
    ct = stats.card_table(rec, by=("variant", "tier"))
    sp = stats.skill_split(ct, "iwd", records=rec)
    order = stats.tier_order(rec)
    assert order == ["random-vs-random", "heuristic-vs-heuristic"]
    row = sp.iloc[0]
    key = ct[(ct.variant == row["variant"]) & (ct.army == row["army"]) & (ct.card == row["card"])]
    weak = key.set_index("tier").loc[order[0]]
    strong = key.set_index("tier").loc[order[1]]
    z = 1.959963984540054
    se = np.hypot((weak.iwd_hi - weak.iwd_lo) / (2 * z), (strong.iwd_hi - strong.iwd_lo) / (2 * z))
    assert row["skill_sensitivity"] == pytest.approx(strong.iwd - weak.iwd)
    assert row["skill_sensitivity_lo"] == pytest.approx(strong.iwd - weak.iwd - z * se)
    assert len(sp) == len(ct) // 2
    assert {"skill_q", "skill_flag"} <= set(sp.columns)
