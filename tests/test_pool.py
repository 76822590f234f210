"""The card pool and the nine armies (cards.md, rules.md R2): data, loader and validator."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from deck_cases import BAD_DECKS, ODA, WEAK_DECK, WEAK_TOTAL, write_deck
from lab.games.daitenka.cards.pool import (
    ARMIES,
    CARDS_FILE,
    DECK_SIZE,
    MAX_ABILITY_ROWS,
    army_path,
    balance_warnings,
    load_army,
    load_armies,
    load_deck,
    load_pool,
)
from lab.games.daitenka.cards.vocab import INF, Condition, Effect, Kind, Trigger
from lab.errors import LabError

TEST_CARDS = Path(__file__).parent / "data" / "test_cards.toml"

U, W, G, T, C = Kind.UNIT, Kind.WARLORD, Kind.GENERAL, Kind.TACTIC, Kind.CASTLE
# Every card of cards.md: printed name -> (kind, strength); ∞ = INF, tactics and castles 0.
EXPECTED_CARDS: dict[str, tuple[Kind, int]] = {
    **{f"足軽{s}": (U, s) for s in range(1, 11)},
    "農兵": (U, 2),
    "刺客": (U, 1),
    "忍び": (U, 2),
    "斥候": (U, 3),
    "荷駄隊": (U, 3),
    "鉄砲足軽": (U, 4),
    "村上水軍": (U, 5),
    "一番槍": (U, 5),
    "九鬼水軍": (U, 6),
    "破城槌": (U, 6),
    "赤備え": (U, 7),
    "大筒": (U, 9),
    "濃姫": (W, 1),
    "竹中半兵衛": (W, 3),
    "朝倉義景": (W, 4),
    "六角義賢": (W, 4),
    "木下藤吉郎": (W, 4),
    "斎藤龍興": (W, 5),
    "北畠具教": (W, 6),
    "黒田長政": (W, 6),
    "松永久秀": (W, 6),
    "藤堂高虎": (W, 6),
    "里見義堯": (W, 6),
    "尼子晴久": (W, 6),
    "前田利家": (W, 7),
    "最上義光": (W, 7),
    "小早川秀秋": (W, 7),
    "今川義元": (W, 7),
    "三好長慶": (W, 7),
    "毛利秀元": (W, 10),
    "大谷吉継": (W, 6),
    "浅井長政": (W, 7),
    "長宗我部元親": (W, 7),
    "大友宗麟": (W, 7),
    "明智光秀": (W, 8),
    "明智光秀（謀反）": (W, 8),
    "島津義弘": (W, 9),
    "柴田勝家": (W, 8),
    "本多忠勝": (W, 9),
    "島左近": (W, 8),
    "佐竹義重": (W, 7),
    "島津義久": (W, 8),
    "宇喜多秀家": (W, 8),
    "井伊直政": (W, 8),
    "伊達政宗": (W, 8),
    "龍造寺隆信": (W, 8),
    "福島正則": (W, 8),
    **{
        n: (G, INF)
        for n in (
            "織田信長",
            "顕如",
            "雑賀孫一",
            "武田信玄",
            "毛利元就",
            "北条氏康",
            "石田三成",
            "徳川家康",
            "上杉謙信",
        )
    },
    **{n: (T, 0) for n in ("殺し間", "奇襲", "殿軍", "火計", "影武者", "兵糧攻め", "車懸り")},
    **{
        n: (C, 0)
        for n in ("姫路城", "岐阜城", "墨俣一夜城", "小田原城", "犬山城", "大坂城", "郡山城")
    },
}
# Printed ability names from cards.md, a sample across every table.
EXPECTED_ABILITY = {
    "農兵": "年貢",
    "刺客": "暗殺",
    "荷駄隊": "輜重",
    "赤備え": "風林火山",
    "大谷吉継": "刎頸の交わり",
    "藤堂高虎": "築城の名手",
    "明智光秀": "鉄砲",
    "明智光秀（謀反）": "謀反",
    "毛利秀元": "宰相殿の空弁当",
    "織田信長": "天下布武",
    "武田信玄": "風林火山",
    "徳川家康": "問鉄砲",
    "上杉謙信": "毘沙門天",
    "殿軍": "殿軍",
}
# Army key -> (printed name, general).
EXPECTED_ARMIES = {
    "oda": ("織田", "織田信長"),
    "honganji": ("本願寺", "顕如"),
    "saika": ("雑賀", "雑賀孫一"),
    "takeda": ("武田", "武田信玄"),
    "mouri": ("毛利", "毛利元就"),
    "houjou": ("北条", "北条氏康"),
    "uesugi": ("上杉", "上杉謙信"),
    "tougun": ("東軍", "徳川家康"),
    "seigun": ("西軍", "石田三成"),
}


@pytest.fixture(scope="module")
def pool():
    return load_pool()


@pytest.fixture(scope="module")
def armies(pool):
    return load_armies(pool)


# ------------------------------------------------------------------------------------ the pool


def test_pool_holds_the_80_cards_of_cards_md(pool):
    """Every card of cards.md is in the package's pool; a card a designer adds to cards.toml
    (or loads from a file of their own) does not break this."""
    assert len(EXPECTED_CARDS) == 80
    assert set(EXPECTED_CARDS) <= {c.name for c in pool}


@pytest.mark.parametrize("name", sorted(EXPECTED_CARDS))
def test_card_kind_and_strength_match_cards_md(pool, name):
    card = pool.get(name)
    assert (card.kind, card.strength) == EXPECTED_CARDS[name]


def test_strength_labels_and_deck_strength(pool):
    assert pool.get("織田信長").strength_label == "∞"
    assert pool.get("織田信長").deck_strength == 10  # cards.md: ∞ counts as 10 in totals
    assert pool.get("大筒").strength_label == "9"
    assert pool.get("殿軍").strength_label == "—"
    assert pool.get("姫路城").deck_strength == 0


@pytest.mark.parametrize("name, ability", sorted(EXPECTED_ABILITY.items()))
def test_printed_ability_names(pool, name, ability):
    assert ability in [a.name for a in pool.get(name).abilities]


def test_castles_can_all_hold_out(pool):
    for card in pool:
        if card.kind == Kind.CASTLE:
            assert "籠城" in [a.name for a in card.abilities], card.name


def test_ids_and_names_are_unique(pool):
    ids = [c.id for c in pool]
    names = [c.name for c in pool]
    assert len(set(ids)) == len(ids) == len(pool)
    assert len(set(names)) == len(names) == len(pool)
    assert [c.index for c in pool] == list(range(len(pool)))


def test_cards_found_by_id_or_name(pool):
    assert pool.get("akechi_mitsuhide_muhon") is pool.get("明智光秀（謀反）")
    assert "刺客" in pool and "shikaku" in pool and "忍者" not in pool


def test_unknown_card_suggests_the_closest_names(pool):
    with pytest.raises(LabError) as e:
        pool.get("明智光")
    assert "unknown card \"明智光\"" in str(e.value)
    assert "did you mean" in str(e.value) and "明智光秀" in str(e.value)


def test_both_akechi_cards_share_one_person_and_no_one_else_does(pool):
    a, b = pool.get("明智光秀"), pool.get("明智光秀（謀反）")
    assert a.person == b.person != ""
    persons = [c.person for c in pool if c.kind in (Kind.WARLORD, Kind.GENERAL)]
    assert len(persons) == sum(k in (W, G) for k, _ in EXPECTED_CARDS.values()) == 35 + 9
    assert len(set(persons)) == len(persons) - 1  # only the 明智光秀 pair shares
    assert all(c.person == "" for c in pool if c.kind in (Kind.UNIT, Kind.TACTIC, Kind.CASTLE))


def test_every_ability_in_cards_toml_is_used_by_some_card(pool):
    with open(CARDS_FILE, "rb") as f:
        defined = set(tomllib.load(f)["ability"])
    used = {a.id for c in pool for a in c.abilities}
    assert defined == used
    assert set(pool.abilities) == defined


def test_ability_ids_are_unique_in_the_file():
    headers = re.findall(r"^\[ability\.([A-Za-z0-9_]+)\]", CARDS_FILE.read_text("utf-8"), re.M)
    assert len(headers) == 65
    assert len(set(headers)) == len(headers)


def test_furinkazan_is_two_abilities_with_distinct_ids_and_effects(pool):
    fk = {a.id: a for a in pool.abilities.values() if a.name == "風林火山"}
    assert set(fk) == {"furinkazan_faceup", "furinkazan_flip"}
    assert [r.effect for r in fk["furinkazan_faceup"].rows] == [Effect.WIN_SET_FACE_UP]
    assert [(r.effect, r.condition) for r in fk["furinkazan_flip"].rows] == [
        (Effect.FLIP_ALL, Condition.EXCEPT_SELF)
    ]
    assert pool.get("赤備え").abilities[0].id == "furinkazan_faceup"
    assert pool.get("武田信玄").abilities[0].id == "furinkazan_flip"


def test_tables_have_one_row_per_card_type(pool):
    t = pool.tables()
    n = len(pool)
    assert t.strength.shape == (n,) and t.rows.shape == (n, MAX_ABILITY_ROWS, 4)
    nobu = pool.get("織田信長").index
    assert t.strength[nobu] == INF and t.kind[nobu] == Kind.GENERAL
    assert t.rows[nobu, 0].tolist() == [Trigger.RESPONSE, Effect.TENKA_FUBU, 3, Condition.VS_INF]
    mamushi = pool.get("斎藤龍興").index  # 蝮: two rows, in data order
    assert t.rows[mamushi, :2].tolist() == [
        [Trigger.ON_WIN, Effect.KILL_HAND, 1, 0],
        [Trigger.ON_WIN, Effect.DRAW, 1, 0],
    ]
    assert not t.rows[mamushi, 2:].any()
    assert t.cost[pool.get("殺し間").index] == 2 and t.cost[pool.get("奇襲").index] == 1
    assert not t.rows[pool.get("足軽5").index].any()


# ------------------------------------------------------------------------- extra (test) cards


def test_test_only_card_loads_from_an_extra_file_with_existing_codes():
    n = len(load_pool())  # the extra file's cards come after the package's
    pool = load_pool(extra=(TEST_CARDS,))
    assert len(pool) == n + 1
    card = pool.get("試験兵")
    assert (card.index, card.id, card.kind, card.strength) == (n, "shikenhei", Kind.UNIT, 5)
    rows = pool.tables().rows[card.index]
    assert rows.tolist() == [
        [Trigger.ON_WIN, Effect.DRAW, 2, Condition.NONE],
        [Trigger.ON_WIN, Effect.EXTRA_DAMAGE, 1, Condition.NONE],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
    ]
    assert pool.tables().strength[n] == 5
    # the default pool is not touched by loading an extra file
    assert len(load_pool()) == n and "試験兵" not in load_pool()


def test_a_deck_with_the_test_card_needs_the_extra_pool(tmp_path):
    path = write_deck(tmp_path / "shiken.toml", dict(ODA, 足軽6=1, 試験兵=1))
    deck = load_deck(path, load_pool(extra=(TEST_CARDS,)))
    assert deck.size == 30 and len(load_pool()) in deck.card_indices()
    with pytest.raises(LabError, match="unknown card \"試験兵\""):
        load_deck(path)


@pytest.mark.parametrize(
    "body, fragments",
    [
        (
            '[ability.x]\nname = "X"\neffects = [{ trigger = "on_win", effect = "teleport" }]\n',
            ["[ability.x] effects[0]", "effect = 'teleport' is not allowed", "draw"],
        ),
        (
            'cards = [{ id = "x", name = "X", kind = "unit", strength = 5, abilities = ["monomy"] }]\n',
            ['cards[0] "X"', 'unknown ability "monomy"', "monomi"],
        ),
        (
            'cards = [{ id = "x", name = "X", kind = "soldier", strength = 5 }]\n',
            ["kind = 'soldier' is not allowed", "unit, warlord, general, tactic, castle"],
        ),
        (
            'cards = [{ id = "x", name = "X", kind = "unit", strength = 11 }]\n',
            ["strength = 11 is not allowed", "1–10"],
        ),
        (
            'cards = [{ id = "x", name = "X", kind = "unit", strength = true }]\n',
            ["strength = True is not allowed", "1–10"],
        ),
        (
            'cards = [{ id = "x", name = "X", kind = "tactic", cost = "two" }]\n',
            ["cost = 'two' is not allowed", "whole numbers ≥ 0"],
        ),
        (
            'cards = [{ id = "x", name = "X", kind = "castle", strength = 3 }]\n',
            ["has no strength", "remove `strength`"],
        ),
        (
            'cards = [{ id = "x", name = "刺客", kind = "unit", strength = 1 }]\n',
            ['"刺客" is already used'],
        ),
        (
            'cards = [{ id = "x", name = "X", kind = "general", strength = 9 }]\n',
            ["general (総大将) has strength \"inf\""],
        ),
    ],
)
def test_bad_extra_card_files_fail_with_one_line(tmp_path, body, fragments):
    path = tmp_path / "extra_cards.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(LabError) as e:
        load_pool(extra=(path,))
    msg = str(e.value)
    assert msg.startswith(str(path) + ": ") and "\n" not in msg
    for frag in fragments:
        assert frag in msg


# ---------------------------------------------------------------------------------- the armies


def test_nine_armies_in_canonical_order(armies):
    assert [d.key for d in armies] == list(ARMIES) == list(EXPECTED_ARMIES)
    assert [d.name for d in armies] == [v[0] for v in EXPECTED_ARMIES.values()]


@pytest.mark.parametrize("key", list(EXPECTED_ARMIES))
def test_each_army_is_30_legal_cards_with_its_one_general(armies, key):
    deck = next(d for d in armies if d.key == key)
    assert deck.size == DECK_SIZE == 30 == len(deck.card_indices())
    generals = [(c.name, n) for c, n in deck.entries if c.kind == Kind.GENERAL]
    assert generals == [(EXPECTED_ARMIES[key][1], 1)]
    assert sum(n for c, n in deck.entries if c.kind == Kind.TACTIC) <= 4
    assert sum(n for c, n in deck.entries if c.kind == Kind.CASTLE) <= 4
    persons = [c.person for c, n in deck.entries if c.person]
    assert len(persons) == len(set(persons))
    assert all(n == 1 for c, n in deck.entries if c.person)
    curve = deck.strength_curve()
    assert sum(curve.values()) == 30 and curve["∞"] == 1


def test_the_nine_armies_together_use_every_card(pool, armies):
    used = {c.index for d in armies for c, _ in d.entries}
    assert used == set(range(len(pool)))


def test_armies_are_balanced_within_5_percent(armies):
    assert balance_warnings(armies) == []


def test_army_found_by_key_printed_name_or_path(pool):
    by_key = load_army("tougun", pool)
    assert load_army("東軍", pool).entries == by_key.entries
    assert load_army(str(army_path("tougun")), pool).entries == by_key.entries
    assert "井伊直政" in {c.name for c, _ in by_key.entries}


def test_unknown_army_lists_the_armies():
    with pytest.raises(LabError) as e:
        army_path("伊賀")
    assert "unknown army \"伊賀\"" in str(e.value)
    assert "oda (織田)" in str(e.value) and "seigun (西軍)" in str(e.value)


def test_strength_curve_counts_strengths_tactics_and_castles(pool):
    curve = load_army("oda", pool).strength_curve()
    assert list(curve) == [str(s) for s in range(1, 11)] + ["∞", "軍略", "城"]
    assert (curve["1"], curve["8"], curve["∞"], curve["軍略"], curve["城"]) == (2, 5, 1, 2, 3)


# ------------------------------------------------------------------------- deck validation (R2)


def test_a_copy_of_an_army_is_valid(tmp_path, pool):
    deck = load_deck(write_deck(tmp_path / "mine.toml", ODA), pool)
    assert deck.size == 30 and deck.total_strength == 165 and deck.general().name == "織田信長"


@pytest.mark.parametrize("case", sorted(BAD_DECKS))
def test_bad_deck_names_the_file_the_entry_and_the_fix(tmp_path, pool, case):
    cards, fragments = BAD_DECKS[case]
    path = tmp_path / f"{case}.toml"
    if isinstance(cards, str):
        write_deck(path, raw=cards)
    else:
        write_deck(path, cards)
    with pytest.raises(LabError) as e:
        load_deck(path, pool)
    msg = str(e.value)
    assert msg.startswith(f"{path}: "), msg
    assert "\n" not in msg
    for frag in fragments:
        assert frag in msg, (frag, msg)


def test_missing_deck_file(tmp_path):
    with pytest.raises(LabError, match="nowhere.toml: file not found"):
        load_deck(tmp_path / "nowhere.toml")


def test_a_directory_is_not_a_deck_file(tmp_path):
    with pytest.raises(LabError, match="is a directory"):
        load_deck(tmp_path)


def test_deck_size_check_can_be_switched_off(tmp_path, pool):
    path = write_deck(tmp_path / "small.toml", {"織田信長": 1, "足軽5": 4})
    assert load_deck(path, pool, size=None).size == 5
    with pytest.raises(LabError, match="add 25"):
        load_deck(path, pool)


def test_a_legal_deck_20_percent_weaker_is_warned_about(tmp_path, pool, armies):
    weak = load_deck(write_deck(tmp_path / "weak.toml", WEAK_DECK), pool)  # legal: no error
    assert weak.total_strength == WEAK_TOTAL
    warnings = balance_warnings([*armies, weak])
    mine = [w for w in warnings if w.startswith(str(tmp_path / "weak.toml"))]
    assert len(mine) == 1
    assert "-20.0%" in mine[0] and "165.0" in mine[0] and "±5%" in mine[0]


def test_balance_tolerance_edge(tmp_path, pool, armies):
    # 160 is 3.0% under 165: fine; 155 is 6.1% under: a warning.
    ok = load_deck(
        write_deck(tmp_path / "ok.toml", dict(ODA, 足軽10=1, 足軽5=1)), pool
    )  # 165 - 10 + 5
    no_tens = {k: v for k, v in ODA.items() if k != "足軽10"}
    low = load_deck(write_deck(tmp_path / "low.toml", no_tens | {"足軽5": 2}), pool)
    assert ok.total_strength == 160
    assert balance_warnings([*armies, ok]) == []
    assert low.total_strength == 155
    assert any(w.startswith(str(low.path)) for w in balance_warnings([*armies, low]))


def test_deck_card_indices_follow_file_order(pool):
    deck = load_army("oda", pool)
    idx = deck.card_indices()
    assert len(idx) == 30
    assert idx[:2] == [pool.get("足軽6").index] * 2
    assert np.bincount(idx, minlength=len(pool))[pool.get("足軽8").index] == 3
