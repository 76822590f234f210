"""Dead and rare abilities: every ability of the pool with held / acted counts and its flag."""

from __future__ import annotations

import json

import pytest

from _support.frames import cards_frame, games_frame
from lab import stats
from lab.games.daitenka.cards.pool import load_pool
from lab.errors import LabError
from lab.stats.intervals import wilson

N = 200


def records(variant_of=lambda i: "v", kooriyama=None):
    """N games, mouri (A) against oda (B).

    mouri: 郡山城 held every game, its 籠城 acting in every other game and 百万一心 never;
    毛利秀元 (宰相殿の空弁当, no effect rows) held every game.
    oda: 刺客 held every game and its 暗殺 acting once (0.5%: rare); 鉄砲足軽 acting in half;
    犬山城 in every deck but never reaching the hand.
    """
    games = games_frame(
        [
            {
                "game_id": i,
                "variant": variant_of(i),
                "army_a": "mouri",
                "army_b": "oda",
                "winner": "AB"[i % 2],
            }
            for i in range(N)
        ]
    )
    rows = []
    for i in range(N):
        ko = (kooriyama or (lambda i: {"hyakuman_isshin": 0, "roujou": i % 2}))(i)
        rows += [
            {
                "game_id": i,
                "army": "mouri",
                "card": "郡山城",
                "opening": 1,
                "triggers": sum(ko.values()),
                "triggers_by_ability": json.dumps(ko),
            },
            {"game_id": i, "army": "mouri", "card": "毛利秀元", "drawn": 1},
            {
                "game_id": i,
                "player": "B",
                "card": "刺客",
                "opening": 1,
                "triggers": 1 if i == 0 else 0,
            },
            {
                "game_id": i,
                "player": "B",
                "card": "鉄砲足軽",
                "copies": 2,
                "drawn": 1,
                "triggers": 2 * (i % 2),
            },
            {
                "game_id": i,
                "player": "B",
                "card": "犬山城",
                "triggers_by_ability": json.dumps({"shirowari": 0, "roujou": 0}),
            },
        ]
    return stats.Records.from_frames(games, cards_frame(rows))


@pytest.fixture(scope="module")
def table():
    return stats.ability_table(records()).set_index(["card", "ability_id"])


def test_every_ability_of_the_pool_is_listed(table):
    pool = load_pool()
    expected = {(c.name, a.id) for c in pool for a in c.abilities}
    assert set(table.index) == expected


def test_an_ability_that_never_acted_is_flagged(table):
    r = table.loc[("郡山城", "hyakuman_isshin")]
    assert (r["decks"], r["held"], r["fired"]) == (N, N, 0)
    assert r["status"] == "never" and r["flag"]
    assert r["fired_rate"] == 0 and r["fired_rate_hi"] > 0  # Wilson: never a zero-width interval


def test_the_other_ability_of_a_multi_ability_card_is_counted_from_its_json(table):
    r = table.loc[("郡山城", "roujou")]
    assert (r["fired"], r["triggers"]) == (N // 2, N // 2)
    assert r["fired_rate"] == 0.5
    assert r["status"] == "ok" and not r["flag"]


def test_an_ability_acting_in_under_one_percent_is_rare(table):
    r = table.loc[("刺客", "ansatsu")]
    assert (r["held"], r["fired"]) == (N, 1)
    assert r["status"] == "rare" and r["flag"]


def test_counted_in_games_not_triggers(table):
    r = table.loc[("鉄砲足軽", "teppou")]
    assert (r["fired"], r["triggers"]) == (N // 2, N)  # two triggers per acting game
    assert r["status"] == "ok"


def test_no_effect_abilities_are_listed_not_flagged(table):
    r = table.loc[("毛利秀元", "karabentou")]
    assert r["ability"] == "宰相殿の空弁当"
    assert r["effects"] == 0 and r["held"] == N
    assert r["status"] == "no effect" and not r["flag"]


def test_cards_never_held_or_not_in_the_run_are_not_evidence(table):
    r = table.loc[("犬山城", "shirowari")]
    assert (r["decks"], r["held"]) == (N, 0)
    assert r["status"] == "not held" and not r["flag"]
    r = table.loc[("上杉謙信", "bishamonten")]
    assert r["decks"] == 0 and r["status"] == "not in run" and not r["flag"]


def test_flagged_rows_come_first(table):
    flags = table["flag"].to_numpy()
    assert flags[:2].all() and not flags[2:].any()


def test_thin_marks_rows_held_in_few_games_and_they_are_never_flagged():
    t = stats.ability_table(records(), min_games=N + 1)
    assert t.loc[t.held > 0, "thin"].all()
    assert not t["flag"].any()
    assert "never" in set(t["status"])  # the status stays: the table shows it, unflagged
    t = stats.ability_table(records(), min_games=N)
    assert not t.loc[t.held == N, "thin"].any()


def test_per_variant_split():
    rec = records(
        variant_of=lambda i: "v" if i < N // 2 else "w",
        kooriyama=lambda i: {"hyakuman_isshin": int(i >= N // 2), "roujou": 0},
    )
    t = stats.ability_table(rec, by="variant").set_index(["variant", "card", "ability_id"])
    assert t.loc[("v", "郡山城", "hyakuman_isshin"), "status"] == "never"
    assert t.loc[("w", "郡山城", "hyakuman_isshin"), "status"] == "ok"
    assert t.loc[("w", "郡山城", "hyakuman_isshin"), "held"] == N // 2


def test_the_acted_share_interval_is_clustered_by_deal():
    # 100 deals of oda vs takeda, each in both seat orders: oda holds the same deck order in
    # both, and 鉄砲足軽 acts in both seat orders of deals 0–39 and in neither of the rest
    deals = 100
    games, cards = [], []
    for deal in range(deals):
        for swapped in (False, True):
            gid = len(games) + 1
            games.append(
                {
                    "game_id": gid,
                    "deal": deal,
                    "swapped": swapped,
                    "army_a": "takeda" if swapped else "oda",
                    "army_b": "oda" if swapped else "takeda",
                }
            )
            cards.append(
                {
                    "game_id": gid,
                    "player": "B" if swapped else "A",
                    "army": "oda",
                    "card": "鉄砲足軽",
                    "opening": 1,
                    "triggers": int(deal < 40),
                }
            )
    t = stats.ability_table(stats.Records.from_frames(games_frame(games), cards_frame(cards)))
    r = t.set_index(["card", "ability_id"]).loc[("鉄砲足軽", "teppou")]
    assert (r["held"], r["fired"], r["fired_rate"]) == (200, 80, pytest.approx(0.4))
    # two identical seat-games per deal: CR1 gives var = p(1 − p)/(G − 1), a design effect of
    # 2G/(G − 1), so the interval is Wilson's on G − 1 = 99 effective games, not on 200
    lo, hi = wilson(0.4 * (deals - 1), deals - 1)
    assert (r["fired_rate_lo"], r["fired_rate_hi"]) == (pytest.approx(lo), pytest.approx(hi))
    naive_lo, _ = wilson(80, 200)
    assert r["fired_rate_lo"] < naive_lo  # the test can fail: independent games are narrower


@pytest.mark.parametrize(
    "json_text,message",
    [
        (
            '{"hyakuman_isshin": 1, "tenken": 1}',
            "names ability id\\(s\\) tenken; 郡山城's abilities",
        ),
        ("", "empty triggers_by_ability"),
        ("[1]", "expected a JSON object"),
        ("{oops", "not a JSON object"),
    ],
)
def test_bad_trigger_json_is_a_clear_error(json_text, message):
    games = games_frame([{"game_id": 1, "army_a": "mouri"}])
    cards = cards_frame(
        [
            {
                "game_id": 1,
                "army": "mouri",
                "card": "郡山城",
                "opening": 1,
                "triggers": 2,
                "triggers_by_ability": json_text,
            }
        ]
    )
    with pytest.raises(LabError, match=message):
        stats.ability_table(stats.Records.from_frames(games, cards))
