"""Causal card value: the opening-hand effect on hand-built games with known answers, the reader
of `lab value`'s table, and the ranked card value the report leads with."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from _support.frames import cards_frame, games_frame
from lab import stats
from lab.errors import LabError
from lab.stats.causal import OPENING, RANDOMISED, UP_TO_MULLIGAN, VALUE_TYPES


def opening_games(mulligan: bool = False):
    """oda (seat A) against takeda and uesugi, 8 deals each, each deal in both seat orders.

    赤備え is in oda's opening hand in deals 0–3 (the same hand in both seat orders of a deal).
    Against takeda oda wins 3 of 4 deals with the card (both seat orders) and 1 of 4 without:
    +0.5; against uesugi 4 of 4 with and 2 of 4 without: +0.5. A mirror game (oda–oda) and a
    draw (scored ½) are there to be handled: the mirror left out, the draw counted.
    """
    games, cards = [], []
    gid = 0
    for opp, wins_with, wins_without in (("takeda", 3, 1), ("uesugi", 4, 2)):
        for deal in range(8):
            in_hand = deal < 4
            wins = (deal < wins_with) if in_hand else (deal - 4 < wins_without)
            for swapped in (False, True):
                oda_seat = "B" if swapped else "A"
                other = "A" if swapped else "B"
                games.append(
                    {
                        "game_id": gid,
                        "army_a": opp if swapped else "oda",
                        "army_b": "oda" if swapped else opp,
                        "deal": deal,
                        "swapped": swapped,
                        "winner": oda_seat if wins else other,
                        "mulligan": mulligan,
                    }
                )
                cards.append(
                    {
                        "game_id": gid,
                        "player": oda_seat,
                        "army": "oda",
                        "card": "赤備え",
                        "copies": 3,
                        "opening": 2 if in_hand else 0,
                    }
                )
                gid += 1
    games.append(
        {
            "game_id": gid,
            "army_a": "oda",
            "army_b": "oda",
            "deal": 0,
            "winner": "A",
            "mulligan": mulligan,
        }
    )
    cards.append({"game_id": gid, "army": "oda", "card": "赤備え", "copies": 3, "opening": 1})
    return stats.Records.from_frames(games_frame(games), cards_frame(cards))


def test_opening_hand_effect_known_answer_and_statsmodels_errors():
    oh = stats.opening_hand_effect(opening_games(), min_games=1)
    r = oh.set_index(["army", "card"]).loc[("oda", "赤備え")]
    assert r["effect"] == pytest.approx(0.5)
    assert r["games"] == 32 and r["in_opening"] == 16  # the mirror game is left out
    assert r["opening_share"] == 0.5
    assert r["with_score"] == pytest.approx(14 / 16) and r["without_score"] == pytest.approx(0.375)
    assert r["deals"] == 16  # (opponent, deal): the two seat orders are one cluster
    # statsmodels: score on (in opening hand) + one dummy per opponent, clustered by deal
    score = np.array([1.0] * 6 + [0] * 2 + [1] * 2 + [0] * 6 + [1] * 8 + [1] * 4 + [0] * 4)
    hand = np.repeat([1.0, 0, 1, 0], 8)
    opp = np.repeat([1.0, 0], 16)
    deal = np.repeat(np.arange(16), 2)
    ref = sm.OLS(score, np.column_stack([hand, opp, 1 - opp])).fit(
        cov_type="cluster", use_t=True, cov_kwds={"groups": deal}
    )
    assert r["se"] == pytest.approx(ref.bse[0])
    assert (r["effect_lo"], r["effect_hi"]) == tuple(pytest.approx(x) for x in ref.conf_int()[0])
    assert r["p"] == pytest.approx(ref.pvalues[0])
    assert r["design"] == RANDOMISED
    assert r["tier"] == "t" and r["variant"] == "v"


def test_strata_keep_a_matchup_mix_from_posing_as_card_value():
    # within each matchup the card does nothing; but it sits in hand mostly against the weak
    # opponent: the raw difference would credit it with the matchup
    rows, cards = [], []
    gid = 0
    for opp, wins, in_hand in (("takeda", 4, [1] * 6 + [0] * 2), ("uesugi", 1, [1] * 2 + [0] * 6)):
        for deal in range(40):  # the hand follows deal % 8, the win deal // 8: independent
            hand = in_hand[deal % 8]
            win = deal // 8 < wins  # 80% against takeda, 20% against uesugi
            rows.append(
                {"game_id": gid, "army_b": opp, "deal": deal, "winner": "A" if win else "B"}
            )
            cards.append({"game_id": gid, "card": "赤備え", "opening": hand})
            gid += 1
    rec = stats.Records.from_frames(games_frame(rows), cards_frame(cards))
    r = stats.opening_hand_effect(rec, min_games=1).iloc[0]
    raw = r["with_score"] - r["without_score"]
    assert raw == pytest.approx(0.8 * 0.75 + 0.2 * 0.25 - (0.8 * 0.25 + 0.2 * 0.75))
    assert r["effect"] == pytest.approx(0.0, abs=1e-12)


def test_mulligan_variants_say_the_design_is_randomised_up_to_the_redraw():
    oh = stats.opening_hand_effect(opening_games(mulligan=True), min_games=1)
    assert (oh["design"] == UP_TO_MULLIGAN).all()


def test_thin_cards_are_shown_not_tested():
    oh = stats.opening_hand_effect(opening_games())  # 16 games with, 16 without: < 100
    assert oh["thin"].all() and oh["p"].isna().all() and not oh["flag"].any()
    assert np.isfinite(oh["effect_lo"]).all()


def test_bh_runs_within_each_variant_and_tier():
    g, c = opening_games().games, opening_games().cards
    g2 = g.assign(game_id=g.game_id + 1000, variant="w")
    c2 = c.assign(game_id=c.game_id + 1000)
    rec = stats.Records.from_frames(pd.concat([g, g2]), pd.concat([c, c2]))
    oh = stats.opening_hand_effect(rec, min_games=1)
    assert len(oh) == 2 and oh["q"].tolist() == pytest.approx(oh["p"].tolist())  # one per family


# -------------------------------------------------------------------------------- lab value


def value_frame(**over) -> pd.DataFrame:
    rows = []
    for card, v_av, v_off in (
        ("赤備え", 0.06, 0.01),
        ("足軽7", -0.01, 0.0),
        ("武田信玄", -0.04, -0.05),
    ):
        for contrast, v in (("above_vanilla", v_av), ("ability_off", v_off)):
            rows.append(
                {
                    "variant": "v",
                    "tier": "t",
                    "army": "oda",
                    "army_name": "織田",
                    "card_id": card,
                    "card": card,
                    "copies": 1,
                    "contrast": contrast,
                    "replacement": "足軽5" if contrast == "above_vanilla" else "",
                    "value": v,
                    "lo": v - 0.02,
                    "hi": v + 0.02,
                    "se": 0.01,
                    "p": 0.001 if abs(v) > 0.03 else 0.5,
                    "q": 0.003 if abs(v) > 0.03 else 0.6,
                    "games": 400,
                    "deals": 200,
                    "base_rate": 0.5,
                }
            )
    df = pd.DataFrame(rows)
    for k, v in over.items():
        df[k] = v
    return df


def test_read_value_finds_the_table_in_the_folder_or_its_value_subfolder(tmp_path):
    assert stats.read_value(tmp_path) is None
    (tmp_path / "value").mkdir()
    value_frame().to_parquet(tmp_path / "value" / "value.parquet")
    v = stats.read_value(tmp_path)
    assert len(v) == 6 and list(v.columns) == list(VALUE_TYPES)
    value_frame().head(2).to_parquet(tmp_path / "value.parquet")
    assert len(stats.read_value(tmp_path)) == 6  # value/value.parquet first, as lab value reads
    assert len(stats.read_value(tmp_path / "value")) == 6  # the value folder itself


def test_a_malformed_value_table_is_one_clear_error(tmp_path):
    value_frame().drop(columns=["q"]).to_parquet(tmp_path / "value.parquet")
    with pytest.raises(LabError, match="value table lacks column.s. q"):
        stats.read_value(tmp_path)
    value_frame(games="many").to_parquet(tmp_path / "value.parquet")
    with pytest.raises(LabError, match="value column \"games\" must hold int values"):
        stats.read_value(tmp_path)
    value_frame(contrast="swap").to_parquet(tmp_path / "value.parquet")
    with pytest.raises(
        LabError,
        match=r"\"contrast\" has value\(s\) 'swap'; allowed: "
        r"above_vanilla, ability_off",
    ):
        stats.read_value(tmp_path)


def test_card_value_uses_lab_value_where_it_covers_the_group_else_the_opening_hand():
    rec = opening_games()
    g2 = rec.games.assign(game_id=rec.games.game_id + 1000, variant="w")
    c2 = rec.cards.assign(game_id=rec.cards.game_id + 1000)
    rec = stats.Records.from_frames(pd.concat([rec.games, g2]), pd.concat([rec.cards, c2]))
    cv = stats.card_value(rec, value_frame(), min_games=1)
    v = cv[cv.variant == "v"]
    assert (v["measure"] == "above vanilla").all()
    assert list(v["card"]) == ["赤備え", "足軽7", "武田信玄"]  # largest value first
    assert list(v["flag"]) == [True, False, True]
    assert v.iloc[0]["detail"] == "ability off: +1.0"
    w = cv[cv.variant == "w"]
    assert list(w["measure"]) == [OPENING] and w.iloc[0]["value"] == pytest.approx(0.5)


def test_card_value_says_how_many_cards_lab_value_measured():
    rec = opening_games()
    cv = stats.card_value(rec, value_frame(), min_games=1)
    assert cv.attrs["coverage"] == {("v", "t"): (3, 1)}  # 3 valued cards; the run knows 赤備え
    rec2 = stats.Records.from_frames(rec.games, rec.cards.assign(card="足軽7"))
    cv2 = stats.card_value(rec2, value_frame(), min_games=1)
    assert cv2.attrs["coverage"] == {("v", "t"): (3, 0)}  # a vanilla 足軽 is never valued
    assert stats.card_value(rec, None, min_games=1).attrs["coverage"] == {}
