"""Card patches (lab.games.daitenka.cards.patch): the edit vocabulary, TOML and Python forms that round-trip,
what a patch does to a matchup's pool and decks (and what it leaves alone), and the one-line
errors for bad patches (rules.md R2 for deck legality)."""

from __future__ import annotations

import pytest

from lab.games.daitenka.cards.patch import (
    BASE,
    Patch,
    ability_off,
    add_ability,
    parse_patch,
    replace_card,
    set_amount,
    set_strength,
)
from lab.games.daitenka.cards.pool import load_army, load_pool
from lab.games.daitenka.cards.vocab import INF, Effect, Trigger
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.layout import C_GTYPE, C_NLOC, C_STR
from lab.errors import LabError
from lab.games.daitenka.rules import RuleSet

POOL = load_pool()


def decks(*keys):
    return {k: load_army(k) for k in keys}


def toml(*edits, name="p"):
    return parse_patch({"name": name, "edit": list(edits)}, "cfg.toml")


# ------------------------------------------------------------------------------ forms


def test_toml_and_python_forms_give_the_same_patch_and_round_trip():
    from_toml = toml(
        {"card": "赤備え", "strength": 8},
        {"card": "荷駄隊", "amount": 3},
        {"card": "鉄砲足軽", "off": "鉄砲", "army": "oda"},
        {"card": "斥候", "add": "一番槍"},
        {"card": "足軽5", "add": [{"trigger": "on_win", "effect": "draw", "amount": 1}]},
        {"card": "赤備え", "army": "takeda", "replace": "足軽7"},
    )
    from_python = Patch(
        "p",
        (
            set_strength("akazonae", 8),
            set_amount("nidatai", 3),
            ability_off("teppou_ashigaru", "teppou", army="oda"),
            add_ability("sekkou", "ichibanyari"),
            add_ability("足軽5", [{"trigger": "on_win", "effect": "draw", "amount": 1}]),
            replace_card("takeda", "赤備え", "足軽7"),
        ),
    )
    assert from_toml == from_python
    assert parse_patch(from_toml.as_dict()) == from_toml  # the manifest's form rebuilds it
    assert from_toml.as_dict()["edit"][1] == {
        "card": "nidatai",
        "ability": "shichou",
        "row": 0,
        "amount": 3,
    }


def test_the_base_patch_changes_nothing():
    oda, tk = load_army("oda"), load_army("takeda")
    pool, a, b = Patch(BASE).apply((("oda", oda), ("takeda", tk)))
    assert pool is POOL and a is oda and b is tk


# ------------------------------------------------------------------------------ applying


def test_a_strength_edit_changes_that_card_only_and_not_the_shared_pool():
    tk, oda = load_army("takeda"), load_army("oda")
    pool, a, _ = toml({"card": "赤備え", "strength": 8}).apply((("takeda", tk), ("oda", oda)))
    aka = POOL.get("赤備え")
    assert pool.tables().strength[aka.index] == 8 and POOL.get("赤備え").strength == 7
    changed = [
        i for i, (x, y) in enumerate(zip(pool.tables().strength, POOL.tables().strength)) if x != y
    ]
    assert changed == [aka.index]
    assert [c.strength for c, _ in a.entries if c.id == "akazonae"] == [8]


def test_an_amount_edit_changes_one_row_of_one_card():
    tk, oda = load_army("takeda"), load_army("oda")
    p = toml({"card": "斥候", "amount": 2})  # 斥候 and 忍び share 〈物見〉 (draw 1)
    pool, a, _ = p.apply((("takeda", tk), ("oda", oda)))
    rows = pool.tables().rows
    assert rows[POOL.get("斥候").index, 0, 2] == 2
    assert rows[POOL.get("忍び").index, 0, 2] == 1  # the ability itself is not edited


def test_off_keeps_strength_and_drops_rows_add_appends_rows():
    tk, oda = load_army("takeda"), load_army("oda")
    p = toml(
        {"card": "斥候", "off": "all"},
        {"card": "足軽5", "add": [{"trigger": "on_win", "effect": "draw", "amount": 1}]},
    )
    pool, _, _ = p.apply((("takeda", tk), ("oda", oda)))
    t = pool.tables()
    sk, a5 = POOL.get("斥候").index, POOL.get("足軽5").index
    assert t.strength[sk] == 3 and not t.rows[sk].any()
    assert tuple(t.rows[a5, 0]) == (int(Trigger.ON_WIN), int(Effect.DRAW), 1, 0)


def test_a_replacement_keeps_each_position_of_the_deck_list():
    tk = load_army("takeda")
    p = toml({"card": "赤備え", "army": "takeda", "replace": "足軽7"})
    patched = p.deck("takeda", tk)
    assert [n for _, n in patched.entries] == [n for _, n in tk.entries]
    assert [c.id for c, _ in patched.entries] == [
        "ashigaru7" if c.id == "akazonae" else c.id for c, _ in tk.entries
    ]
    assert p.deck("oda", load_army("oda")).entries == load_army("oda").entries


def test_an_army_edit_on_a_card_both_seats_hold_gives_that_seat_its_own_card_type():
    """鉄砲足軽 without 鉄砲 in 織田's deck only: 雑賀's 鉄砲足軽 keeps its gun, and each seat's
    cards keep their order (the patched copy sits right after the original)."""
    oda, saika = load_army("oda"), load_army("saika")
    p = toml({"card": "鉄砲足軽", "off": "all", "army": "oda"})
    for sides in ((("oda", oda), ("saika", saika)), (("saika", saika), ("oda", oda))):
        pool, a, b = p.apply(sides)
        patched = dict(zip((sides[0][0], sides[1][0]), (a, b)))
        mine = next(c for c, _ in patched["oda"].entries if c.id == "teppou_ashigaru")
        theirs = next(c for c, _ in patched["saika"].entries if c.id == "teppou_ashigaru")
        assert mine.index != theirs.index and not mine.abilities and theirs.abilities
        assert pool.cards[mine.index] == mine and pool.cards[theirs.index] == theirs
        base = matchup_context(POOL, RuleSet(), sides[0][1], sides[1][1])
        ctx = matchup_context(pool, RuleSet(), a, b)
        n = int(base[C_NLOC])
        assert int(ctx[C_NLOC]) == n
        ids = lambda c, p_: [p_.cards[int(c[C_GTYPE + i])].id for i in range(n)]  # noqa: E731
        assert ids(ctx, pool) == ids(base, POOL)  # same local ids, same order
        assert list(ctx[C_STR : C_STR + n]) == list(base[C_STR : C_STR + n])


def test_an_army_edit_in_a_mirror_changes_both_seats():
    oda = load_army("oda")
    pool, a, b = toml({"card": "赤備え", "army": "takeda", "strength": 8}).apply(
        (("takeda", load_army("takeda")), ("takeda", load_army("takeda")))
    )
    assert {c.strength for d in (a, b) for c, _ in d.entries if c.id == "akazonae"} == {8}
    assert len(pool.cards) == len(POOL.cards)
    _, x, _ = toml({"card": "赤備え", "army": "takeda", "strength": 8}).apply(
        (("oda", oda), ("oda", oda))
    )
    assert x.entries == oda.entries


def test_affected_armies_are_the_ones_holding_a_patched_card():
    d = decks("oda", "takeda", "uesugi", "saika")
    assert toml({"card": "赤備え", "strength": 8}).affected(d) == {"takeda"}
    assert toml({"card": "鉄砲足軽", "off": "all"}).affected(d) == {"oda", "saika"}
    assert toml({"card": "鉄砲足軽", "off": "all", "army": "oda"}).affected(d) == {"oda"}
    assert toml({"card": "足軽7", "army": "oda", "replace": "赤備え"}).affected(d) == {"oda"}
    # a card brought in by a replacement and edited: only the army that now holds it
    assert toml(
        {"card": "足軽4", "army": "uesugi", "replace": "大筒"}, {"card": "大筒", "strength": 8}
    ).affected(d) == {"uesugi", "saika"}


# ------------------------------------------------------------------------------ errors

BAD = {
    "unknown card": ({"card": "赤備", "strength": 8}, ['unknown card "赤備"', "赤備え"]),
    "unknown key": (
        {"card": "赤備え", "strenght": 8},
        ['unknown key "strenght"', "did you mean strength"],
    ),
    "no action": ({"card": "赤備え"}, ["exactly one of strength, amount, off, add, replace"]),
    "two actions": ({"card": "赤備え", "strength": 8, "off": "all"}, ["it has strength, off"]),
    "no card": ({"strength": 8}, ['missing key "card"']),
    "strength 11": ({"card": "赤備え", "strength": 11}, ["strength = 11", "1–10"]),
    "strength 0": ({"card": "赤備え", "strength": 0}, ["strength = 0", "1–10"]),
    "inf unit": ({"card": "赤備え", "strength": "inf"}, ["∞ is only for generals"]),
    "general number": ({"card": "武田信玄", "strength": 9}, ["has strength ∞", "R2"]),
    "tactic strength": ({"card": "奇襲", "strength": 3}, ["tactic and has no strength"]),
    "ability not on card": ({"card": "赤備え", "off": "鉄砲"}, ['no ability "鉄砲"', "風林火山"]),
    "off on vanilla": ({"card": "足軽7", "off": "all"}, ["足軽7 has no ability to turn off"]),
    "amount negative": ({"card": "荷駄隊", "amount": -1}, ["amount = -1", "≥ 0"]),
    "amount on vanilla": ({"card": "足軽7", "amount": 1}, ["足軽7 has no ability"]),
    "which ability": ({"card": "姫路城", "amount": 1}, ["has 2 abilities", "籠城"]),
    "row out of range": ({"card": "荷駄隊", "amount": 1, "row": 3}, ["row = 3", "0–0"]),
    "ability with off": (
        {"card": "荷駄隊", "off": "all", "ability": "輜重"},
        ['"ability" goes with amount only'],
    ),
    "unknown ability": ({"card": "赤備え", "add": "物見x"}, ['unknown ability "物見x"', "物見"]),
    "already has": ({"card": "斥候", "add": "monomi"}, ["already has 〈物見〉"]),
    "vocabulary typo": (
        {"card": "足軽5", "add": {"trigger": "on_win", "effect": "drow"}},
        ["effect = 'drow' is not allowed", "did you mean draw"],
    ),
    "bad trigger": (
        {"card": "足軽5", "add": {"trigger": "onwin", "effect": "draw"}},
        ["trigger = 'onwin'", "on_win"],
    ),
    "unsupported pair": (
        {"card": "足軽5", "add": {"trigger": "on_build", "effect": "draw"}},
        ["on_build × effect draw works only on a castle, not on a unit"],
    ),
    "unsupported condition": (
        {"card": "足軽5", "add": {"trigger": "on_win", "effect": "draw", "condition": "vs_inf"}},
        ["draw with condition vs_inf is not supported", "single"],
    ),
    "castle ability on a unit": (
        {"card": "足軽5", "add": "籠城"},
        ["〈籠城〉 row 0", "works only on a castle, not on a unit"],
    ),
    "on-death kill": (
        {"card": "足軽5", "add": {"trigger": "on_death", "effect": "kill_hand"}},
        ["on_death × effect kill_hand is not supported", "draw"],
    ),
    "replace without army": ({"card": "赤備え", "replace": "足軽7"}, ["names its army"]),
    "replace unknown card": (
        {"card": "赤備え", "army": "takeda", "replace": "足軽77"},
        ['unknown card "足軽77"'],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_edit_is_one_line_naming_the_file_patch_and_edit(case):
    edit, fragments = BAD[case]
    with pytest.raises(LabError) as e:
        toml({"card": "足軽1", "strength": 2}, edit)
    message = str(e.value)
    assert message.startswith('cfg.toml: patch "p" edit[1]: ') and "\n" not in message, message
    for frag in fragments:
        assert frag in message, (frag, message)


def test_too_many_effect_rows():
    rows = [{"trigger": "on_win", "effect": "draw", "amount": k} for k in range(1, 6)]
    with pytest.raises(LabError, match="5 effect rows; the engine allows 4"):
        toml(*({"card": "足軽5", "add": [r]} for r in rows))


@pytest.mark.parametrize(
    "table, fragment",
    [
        ({"name": "base", "edit": [{"card": "赤備え", "strength": 8}]}, 'name "base" is reserved'),
        ({"name": "a b", "edit": [{"card": "赤備え", "strength": 8}]}, "without spaces"),
        ({"name": "x@y", "edit": [{"card": "赤備え", "strength": 8}]}, "@"),
        ({"name": "x"}, 'missing key "edit"; add at least one edit'),
        ({"edit": [{"card": "赤備え", "strength": 8}]}, 'missing key "name"'),
        ({"name": "x", "edits": []}, 'unknown key "edits"; did you mean edit'),
    ],
)
def test_bad_patch_tables(table, fragment):
    with pytest.raises(LabError) as e:
        parse_patch(table, "cfg.toml")
    assert str(e.value).startswith("cfg.toml: ") and fragment in str(e.value)


CHECK = [
    (
        {"card": "赤備え", "army": "takedaa", "strength": 8},
        ['army "takedaa" is not in this', "did you mean takeda"],
    ),
    ({"card": "大筒", "strength": 8}, ["no deck of this experiment holds 大筒", "oda, takeda"]),
    ({"card": "赤備え", "army": "oda", "strength": 8}, ["赤備え is not in the oda deck"]),
    ({"card": "大筒", "army": "oda", "replace": "足軽7"}, ["大筒 is not in the 織田 (oda) deck"]),
    (
        {"card": "足軽7", "army": "oda", "replace": "織田信長"},
        ["makes the 織田 (oda) deck illegal", "unique"],
    ),
    (
        {"card": "織田信長", "army": "oda", "replace": "足軽10"},
        ["makes the 織田 (oda) deck illegal", "exactly one general"],
    ),
    ({"card": "足軽7", "army": "oda", "replace": "奇襲"}, ["illegal", "at most 4"]),
]


@pytest.mark.parametrize("edit, fragments", CHECK)
def test_patches_are_checked_against_the_experiments_armies(edit, fragments):
    with pytest.raises(LabError) as e:
        toml(edit).check(decks("oda", "takeda"), "cfg.toml")
    message = str(e.value)
    assert message.startswith("cfg.toml: ") and "\n" not in message, message
    for frag in fragments:
        assert frag in message, (frag, message)


def test_a_general_may_leave_only_when_the_patch_allows_it():
    p = Patch("g", (replace_card("oda", "織田信長", "足軽10"),), allow_no_general=True)
    p.check(decks("oda", "takeda"))
    assert p.deck("oda", load_army("oda")).general() is None
    # every other deck rule still holds, with or without the general
    with pytest.raises(LabError, match="unique"):
        Patch("g", (replace_card("oda", "足軽7", "織田信長"),), allow_no_general=True).check(
            decks("oda")
        )
    with pytest.raises(LabError, match="at most 4"):
        Patch(
            "g",
            (replace_card("oda", "織田信長", "奇襲"), replace_card("oda", "足軽6", "火計")),
            allow_no_general=True,
        ).check(decks("oda"))


def test_strength_inf_for_a_general_is_its_printed_value():
    assert set_strength("武田信玄", "∞").value == INF
