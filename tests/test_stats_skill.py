"""Skill split: tier order, values per tier and the skill-sensitivity column."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats as sps

from _support.frames import cards_frame, games_frame
from _support.synthetic import synthetic_records
from lab import stats
from lab.errors import LabError
from lab.stats.clustered import CLUSTER
from lab.stats.skill import _sign_changes, _spearman, card_sign
from lab.stats.views import card_rows


def tier_games():
    """oda vs takeda under two tiers: oda wins 6 of 10 at 'low', 9 of 10 at 'high'."""
    rows = []
    for tier, oda_wins in (("low", 6), ("high", 9)):
        for i in range(10):
            rows.append(
                {
                    "tier": tier,
                    "deal": i,
                    "winner": "A" if i < oda_wins else "B",
                    "bot_a": tier,
                    "bot_b": tier,
                }
            )
    return games_frame(rows)


def test_skill_split_of_army_win_rates_is_clustered_by_the_deals_both_tiers_played():
    sp = stats.skill_split(tier_games(), "win_rate", order=["low", "high"], min_games=5)
    oda = sp[sp.army == "oda"].iloc[0]
    assert oda["value@low"] == 0.6 and oda["value@high"] == 0.9
    assert oda["value_n@low"] == 10
    assert oda["skill_sensitivity"] == pytest.approx(0.3)
    # statsmodels: OLS of oda's win on "high tier", errors clustered by deal (deal i was played
    # at both tiers), Student's t on deals − 1
    won = np.array([i < 6 for i in range(10)] + [i < 9 for i in range(10)], dtype=float)
    high = np.repeat([0.0, 1.0], 10)
    deal = np.tile(np.arange(10), 2)
    ref = sm.OLS(won, sm.add_constant(high)).fit(
        cov_type="cluster", use_t=True, cov_kwds={"groups": deal}
    )
    lo, hi = ref.conf_int()[1]
    assert (oda["skill_sensitivity_lo"], oda["skill_sensitivity_hi"]) == (
        pytest.approx(lo),
        pytest.approx(hi),
    )
    assert oda["skill_p"] == pytest.approx(ref.pvalues[1])
    assert (oda["weaker"], oda["stronger"]) == ("low", "high")
    assert not oda["thin"]
    takeda = sp[sp.army == "takeda"].iloc[0]
    assert takeda["skill_sensitivity"] == pytest.approx(-0.3)


def test_alpha_sets_the_interval():
    wide = stats.skill_split(tier_games(), order=["low", "high"], min_games=5, alpha=0.01)
    narrow = stats.skill_split(tier_games(), order=["low", "high"], min_games=5, alpha=0.2)
    w = (wide.skill_sensitivity_hi - wide.skill_sensitivity_lo).iloc[0]
    n = (narrow.skill_sensitivity_hi - narrow.skill_sensitivity_lo).iloc[0]
    assert w / n == pytest.approx(sps.t.ppf(0.995, 9) / sps.t.ppf(0.9, 9))


def test_reversed_order_flips_the_sign_and_thin_rows_are_never_flagged():
    sp = stats.skill_split(tier_games(), order=["high", "low"])
    assert sp[sp.army == "oda"]["skill_sensitivity"].iloc[0] == pytest.approx(-0.3)
    assert sp["thin"].all()  # 10 games per tier is below the default 100
    assert sp["skill_p"].isna().all() and not sp["skill_flag"].any()


def test_tier_order_from_cross_bot_games():
    rows = [{"tier": "a-vs-a", "bot_a": "a", "bot_b": "a", "deal": i} for i in range(4)]
    rows += [{"tier": "b-vs-b", "bot_a": "b", "bot_b": "b", "deal": i} for i in range(4)]
    # in the mixed tier, bot b wins 7 of 8 whichever seat it has: b is the stronger bot
    for i in range(8):
        b_seat = "A" if i % 2 == 0 else "B"
        a_seat = "B" if b_seat == "A" else "A"
        rows.append(
            {
                "tier": "a-vs-b",
                "bot_a": "b" if b_seat == "A" else "a",
                "bot_b": "a" if b_seat == "A" else "b",
                "deal": i,
                "winner": a_seat if i == 0 else b_seat,
            }
        )
    assert stats.tier_order(games_frame(rows)) == ["a-vs-a", "a-vs-b", "b-vs-b"]


def test_tier_order_by_bot_kind_without_cross_games():
    rows = [
        {"tier": t, "bot_a": b, "bot_b": b, "deal": 0}
        for t, b in (
            ("s", "search(simulations=400)"),
            ("h", "heuristic"),
            ("r", "random"),
            ("s2", "search(simulations=50)"),
        )
    ]
    assert stats.tier_order(games_frame(rows)) == ["r", "h", "s2", "s"]


def test_a_given_order_is_checked():
    with pytest.raises(
        LabError,
        match=r"names middle, not a tier of this run \(allowed: low, "
        r"high\)",
    ):
        stats.tier_order(tier_games(), ["low", "middle"])
    with pytest.raises(LabError, match="skill split metric \"iwd\" is not one of"):
        stats.skill_split(tier_games(), "iwd")
    one = tier_games()
    with pytest.raises(LabError, match="needs two tiers"):
        stats.skill_split(one[one.tier == "low"])


@pytest.fixture(scope="module")
def two_tiers():
    g, c = synthetic_records(
        ("oda", "takeda", "uesugi"),
        deals=30,
        mirrors=False,
        variants={"base": {"walls": 7, "first_edge": 0.1, "shift": {}}},
    )
    return stats.Records.from_frames(g, c)


def test_opening_hand_skill_split_is_the_fully_interacted_regression(two_tiers):
    sp = stats.skill_split(two_tiers, "opening_hand", min_games=1)
    assert sp.attrs["order"] == ["random-vs-random", "heuristic-vs-heuristic"]
    row = sp[(sp.army == "oda") & (sp.card == "織田信長")].iloc[0]
    # statsmodels: score on (in opening hand) × tier with one dummy per opponent × tier, errors
    # clustered by deal: the interaction is the change of the effect from the weak tier
    rows = card_rows(two_tiers.cards, two_tiers.games, ["tier"])
    rows = rows[(rows.army == "oda") & (rows.card == "織田信長") & ~rows.mirror]
    strong = (rows.tier == "heuristic-vs-heuristic").to_numpy(float)
    oh = (rows.opening > 0).to_numpy(float)
    cells = pd.get_dummies(rows.opponent + "/" + rows.tier).to_numpy(float)
    x = np.column_stack([oh, oh * strong, cells])
    ref = sm.OLS(rows.score.to_numpy(float), x).fit(
        cov_type="cluster", use_t=True, cov_kwds={"groups": rows[CLUSTER].to_numpy()}
    )
    assert row["skill_sensitivity"] == pytest.approx(ref.params[1])
    lo, hi = ref.conf_int()[1]
    assert (row["skill_sensitivity_lo"], row["skill_sensitivity_hi"]) == (
        pytest.approx(lo),
        pytest.approx(hi),
    )
    per_tier = stats.opening_hand_effect(two_tiers, min_games=1)
    weak = per_tier[
        (per_tier.tier == "random-vs-random")
        & (per_tier.army == "oda")
        & (per_tier.card == "織田信長")
    ].iloc[0]
    assert row["value@random-vs-random"] == pytest.approx(weak["effect"])


def test_tier_stability_names_the_armies_whose_band_changes():
    rows = []
    # oda: 60% at low (above the band), 50% at high (in band); 120 deals per tier
    for tier, oda_wins in (("low", 72), ("high", 60)):
        for i in range(120):
            rows.append(
                {
                    "tier": tier,
                    "deal": i,
                    "winner": "A" if i < oda_wins else "B",
                    "bot_a": tier,
                    "bot_b": tier,
                }
            )
    g = games_frame(rows)
    cards = cards_frame(
        [{"game_id": gid, "opening": int(d % 2 == 0)} for gid, d in zip(g.game_id, g.deal)]
    )
    ts = stats.tier_stability(
        stats.Records.from_frames(g, cards), order=["low", "high"], min_games=10
    )
    a = ts.armies.set_index("army")
    assert a.loc["oda", "band@low"] == "above" and a.loc["oda", "band@high"] == "in band"
    assert a.loc["oda", "changes"] and a.loc["takeda", "changes"]
    assert a.loc["oda", "skill_flag"]  # a band change counts only when the difference passes BH
    assert set(ts.changes["army"]) == {"oda", "takeda"}
    assert list(ts.cards["card"]) == ["足軽7"]
    corr = ts.correlation.iloc[0]
    assert corr["tiers"] == "low vs high" and corr["armies_n"] == 2


def test_card_signs_and_sign_changes():
    assert list(card_sign([0.1, -0.1, 0.1, 0.1], [True, True, False, None])) == ["+", "−", "0", "0"]
    cards = pd.DataFrame(
        {
            "value@a": [0.1, 0.1, 0.1],
            "sign@a": ["+", "+", "0"],
            "value@b": [-0.02, 0.05, -0.02],
            "sign@b": ["0", "0", "0"],
            "thin@a": False,
            "thin@b": False,
        }
    )
    # firm at a and of the opposite sign at b: changes; same sign: no; never firm: no
    assert list(_sign_changes(cards, ["a", "b"])) == [True, False, False]


def test_tier_stability_compares_one_measure_across_tiers(two_tiers):
    # a lab value table that covers only the strong tier: the variant falls back, whole, to the
    # opening-hand effect rather than set "above vanilla" beside "opening hand"
    value = pd.DataFrame(
        [
            {
                "variant": "base",
                "tier": "heuristic-vs-heuristic",
                "army": "oda",
                "army_name": "織田",
                "card_id": "x",
                "card": "織田信長",
                "copies": 1,
                "contrast": "above_vanilla",
                "replacement": "足軽5",
                "value": 0.1,
                "lo": 0.05,
                "hi": 0.15,
                "se": 0.02,
                "p": 0.001,
                "q": 0.01,
                "games": 500,
                "deals": 250,
                "base_rate": 0.5,
            }
        ]
    )
    ts = stats.tier_stability(two_tiers, value=value, min_games=1)
    measures = ts.cards[[c for c in ts.cards.columns if c.startswith("measure@")]]
    assert (measures == "opening hand").all().all()
    both = pd.concat([value, value.assign(tier="random-vs-random")])
    ts = stats.tier_stability(two_tiers, value=both, min_games=1)
    row = ts.cards[(ts.cards.army == "oda") & (ts.cards.card == "織田信長")].iloc[0]
    assert (
        row["measure@random-vs-random"]
        == row["measure@heuristic-vs-heuristic"]
        == ("above vanilla")
    )


def opening_records(low: tuple[float, float], high: tuple[float, float], n: int = 400):
    """oda vs takeda, n deals at tiers "low" and "high"; 足軽7 is in oda's opening hand in the
    even deals; oda wins a share ``w1`` of those and ``w0`` of the others at each tier."""
    rng = np.random.default_rng(1)
    rows = []
    for tier, (w1, w0) in (("low", low), ("high", high)):
        half = n // 2
        wins = {
            True: set(rng.permutation(half)[: round(w1 * half)]),
            False: set(rng.permutation(half)[: round(w0 * half)]),
        }
        for d in range(n):
            rows.append(
                {
                    "tier": tier,
                    "deal": d,
                    "bot_a": tier,
                    "bot_b": tier,
                    "winner": "A" if d // 2 in wins[d % 2 == 0] else "B",
                }
            )
    g = games_frame(rows)
    c = cards_frame(
        [{"game_id": gid, "opening": int(d % 2 == 0)} for gid, d in zip(g.game_id, g.deal)]
    )
    return stats.Records.from_frames(g, c)


def test_a_card_is_listed_as_changing_with_skill_only_when_the_between_tier_test_passes():
    # +12 points [+2, +22] at low (passes BH), −1 [−11, +9] at high: of opposite sign, yet the
    # difference −13 points [−27.5, +1.5] does not pass the between-tier test — the pattern of
    # 本願寺's 兵糧攻め (+11.3 [5.5, 17.1] vs −0.1 [−8.4, 8.2]) that the report listed
    rec = opening_records((0.56, 0.44), (0.49, 0.50))
    ts = stats.tier_stability(rec, order=["low", "high"], min_games=10)
    row = ts.cards.iloc[0]
    assert (row["sign@low"], row["sign@high"]) == ("+", "0") and row["value@high"] < 0
    sp = stats.skill_split(rec, "opening_hand", order=["low", "high"], min_games=10)
    assert not sp["skill_flag"].iloc[0]
    assert not row["changes"] and ts.changes.empty
    assert row["tier_q"] == pytest.approx(sp["skill_q"].iloc[0])
    # +30 at low, −10 at high: the difference passes, the card is listed with it
    ts = stats.tier_stability(
        opening_records((0.65, 0.35), (0.45, 0.55)), order=["low", "high"], min_games=10
    )
    row = ts.cards.iloc[0]
    assert row["changes"] and list(ts.changes["card"]) == ["足軽7"]
    assert row["tier_diff"] == pytest.approx(-0.4) and row["tier_hi"] < 0
    assert row["tier_pair"] == "low → high"


def test_lab_value_changes_with_skill_are_tested_between_tiers():
    rec = opening_records((0.5, 0.5), (0.5, 0.5))

    def value(tier, v, se):
        return {
            "variant": "v",
            "tier": tier,
            "army": "oda",
            "army_name": "織田",
            "card_id": "ashigaru7",
            "card": "足軽7",
            "copies": 1,
            "contrast": "ability_off",
            "replacement": "",
            "value": v,
            "lo": v - 2 * se,
            "hi": v + 2 * se,
            "se": se,
            "p": 0.001 if abs(v) > 2 * se else 0.5,
            "q": 0.001 if abs(v) > 2 * se else 0.5,
            "games": 800,
            "deals": 400,
            "base_rate": 0.5,
        }

    # firm at low, of the other sign at high, but the difference is within its error
    table = pd.DataFrame([value("low", 0.05, 0.02), value("high", -0.01, 0.03)])
    ts = stats.tier_stability(rec, order=["low", "high"], value=table, min_games=10)
    row = ts.cards.iloc[0]
    assert row["measure@low"] == "ability off" and row["sign@low"] == "+"
    se = np.hypot(0.02, 0.03)
    assert row["tier_diff"] == pytest.approx(-0.06)
    assert row["tier_p"] == pytest.approx(2 * sps.t.sf(0.06 / se, 399))
    assert not row["changes"]
    table = pd.DataFrame([value("low", 0.08, 0.015), value("high", -0.05, 0.02)])
    row = stats.tier_stability(rec, order=["low", "high"], value=table, min_games=10).cards.iloc[0]
    assert row["changes"] and row["tier_q"] < 0.05


def test_a_constant_column_has_no_rank_correlation_and_no_warning():
    """Two tiers that rate every army alike (e.g. one game each, all draws) give no Spearman
    rho: nan, counted, without scipy's ConstantInputWarning in a report."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rho, n = _spearman([0.5, 0.5, 0.5, np.nan], [0.1, 0.2, 0.3, 0.4])
    assert np.isnan(rho) and n == 3
    rho, n = _spearman([1, 2, 3, 4], [2, 4, 6, 9])
    assert rho == pytest.approx(1.0) and n == 4
