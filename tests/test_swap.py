"""lab swap: the card-swap test — a card patch: two arms (patches base and CARD→WITH) of one
results folder on the same deals, the swapped deck position for position, matchups without the
card played once and recorded for both, paired analysis per affected army, one-line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import records, write_config
from lab.errors import LabError
from lab.design import swap
from lab.sim.config import load_experiment
from lab.games.daitenka.replay import replay

CONFIG = """
name = "swaptest"
seed = 7
games = 6
rules = "second_edition"
armies = ["oda", "takeda", "uesugi"]
bots = "random"
seat_swap = true
"""

PAIR_COLUMNS = ["army_a", "army_b", "tier", "deal", "swapped", "first", "seed_words"]
ARM_ONLY = ["game_id", "cell", "variant", "patch"]  # the columns in which two arms' games differ


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    return write_config(tmp_path_factory.mktemp("swapcfg"), CONFIG)


@pytest.fixture(scope="module")
def real_swap(config, tmp_path_factory):
    """赤備え → 足軽7 (武田 holds 3 赤備え and 2 足軽7), both arms played."""
    out = tmp_path_factory.mktemp("real")
    p = swap.plan(load_experiment(config), "赤備え", "足軽7")
    swap.run(p, out, jobs=1)
    return p, out


def split(out, p):
    """(base games, swapped games, base cards, swapped cards), each in deal order."""
    games, cards = records(out)
    base, alt = swap.arms(games, p)
    order = ["army_a", "army_b", "deal", "swapped"]
    cb, ca = (cards[cards["game_id"].isin(g["game_id"])] for g in (base, alt))
    return (
        base.sort_values(order, ignore_index=True),
        alt.sort_values(order, ignore_index=True),
        cb,
        ca,
    )


def test_swap_for_itself_changes_nothing(config, tmp_path):
    p = swap.plan(load_experiment(config), "赤備え", "赤備え")
    assert p.exp.fingerprint() != p.base.fingerprint()  # another experiment, same games
    swap.run(p, tmp_path, jobs=1)
    gb, ga, cb, ca = split(tmp_path, p)
    assert len(gb) == len(ga) == p.base.total_games
    pd.testing.assert_frame_equal(gb.drop(columns=ARM_ONLY), ga.drop(columns=ARM_ONLY))
    rows = swap.effects(p, tmp_path, min_games=1)
    assert (rows["change"] == 0).all() and (rows["base"] == rows["other"]).all()


def test_the_swap_is_a_patch_of_the_config_as_written(config, real_swap):
    p, _ = real_swap
    assert p.base.fingerprint() == load_experiment(config).fingerprint()
    assert "patches" not in json.dumps(p.base.resolved())
    assert [x.name for x in p.exp.patches] == ["base", "赤備え→足軽7"]
    [edit] = p.patch.edits
    assert (edit.op, edit.army, edit.card, edit.value) == (
        "replace",
        "takeda",
        "akazonae",
        "ashigaru7",
    )
    assert p.exp.affected(p.patch) == {"takeda"}


def test_arms_play_paired_deals(real_swap):
    p, out = real_swap
    gb, ga, _, _ = split(out, p)
    assert len(gb) == len(ga) == p.base.total_games
    assert set(ga["variant"]) == {"second_edition"}  # arms() gives the swapped arm its rule set
    pd.testing.assert_frame_equal(gb[PAIR_COLUMNS], ga[PAIR_COLUMNS])
    # oda vs uesugi holds no 赤備え: played once, recorded in both arms
    plain = lambda g: g[~g["army_a"].eq("takeda") & ~g["army_b"].eq("takeda")]  # noqa: E731
    pd.testing.assert_frame_equal(
        plain(gb).drop(columns=ARM_ONLY).reset_index(drop=True),
        plain(ga).drop(columns=ARM_ONLY).reset_index(drop=True),
    )


def test_unaffected_matchups_are_played_once(real_swap):
    from lab.sim import manifest

    p, out = real_swap
    man = manifest.read(out)
    session = man["sessions"][0]
    takeda = sum(1 for m in p.base.matchups if "takeda" in m)
    others = len(p.base.matchups) - takeda
    per_cell = p.base.games * p.base.orders
    assert session["games_played"] == (2 * takeda + others) * per_cell
    assert len(records(out)[0]) == 2 * len(p.base.matchups) * per_cell


def test_swapped_deck_keeps_positions(real_swap):
    """The replacement takes the card's place in the deck list: a deal's opening hand holds the
    same cards at every unswapped position, and 足軽7 where 赤備え was."""
    p, out = real_swap
    gb, ga, cb, ca = split(out, p)
    # index both arms' card rows by the deal instead of the game id
    deal = lambda g: g.set_index("game_id")[["army_a", "army_b", "deal", "swapped"]]  # noqa
    cb, ca = (c.join(deal(g), on="game_id") for c, g in ((cb, gb), (ca, ga)))
    key = ["army_a", "army_b", "deal", "swapped", "player", "card"]
    tb, ta = (c[c["army"] == "takeda"].set_index(key)["opening"] for c in (cb, ca))
    assert "赤備え" not in set(ca.loc[ca["army"] == "takeda", "card"])
    assert set(ca.loc[(ca["army"] == "takeda") & (ca["card"] == "足軽7"), "copies"]) == {5}
    others = tb.drop(index="赤備え", level="card").drop(index="足軽7", level="card")
    pd.testing.assert_series_equal(others.sort_index(), ta.reindex(others.index).sort_index())
    merged = (tb.xs("足軽7", level="card") + tb.xs("赤備え", level="card")).sort_index()
    pd.testing.assert_series_equal(merged, ta.xs("足軽7", level="card").sort_index())


def test_effects_report_affected_army_only(real_swap):
    p, out = real_swap
    assert p.copies == {"takeda": 3} and p.unaffected == ("oda", "uesugi")
    rows = swap.effects(p, out, min_games=1)
    assert set(rows["army"]) == {"takeda"}
    overall = rows[rows["kind"] == "army"].iloc[0]
    assert overall["pairs"] == 2 * 2 * 6  # 2 opponents × 2 seat orders × 6 deals
    assert overall["change_lo"] <= overall["change"] <= overall["change_hi"]
    line = swap.reading(p, overall, {"takeda": "武田"})
    assert line.startswith("removing 赤備え (for 足軽7)") and "武田" in line and "points" in line


def test_swapped_game_replays(real_swap):
    p, out = real_swap
    games = records(out)[0]
    alt = games[(games["patch"] == p.patch.name) & (games["army_a"] == "takeda")]
    assert alt["variant"].iloc[0] == "second_edition@赤備え→足軽7"
    assert replay(out, int(alt["game_id"].iloc[0])).reproduced


def test_cli_json_from_swap_table_and_resume(config, real_swap, tmp_path):
    p, out = real_swap
    cfg = write_config(tmp_path, CONFIG + '\n[swap]\ncard = "赤備え"\nwith = "足軽7"\n')
    r = CliRunner().invoke(
        cli.app, ["swap", str(cfg), "--out", str(out), "--resume", "--json", "--min-games", "1"]
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["card"] == "赤備え" and doc["with"] == "足軽7" and doc["records"] == str(out)
    assert doc["unaffected"] == ["oda", "uesugi"]
    [army] = doc["armies"]
    assert army["army"] == "takeda" and army["copies"] == 3 and army["pairs"] == 24
    assert {x["opponent"] for x in army["rows"]} == {"oda", "uesugi"}


def test_cli_table(config, real_swap):
    _, out = real_swap
    r = CliRunner().invoke(
        cli.app,
        ["swap", str(config), "--card", "赤備え", "--with", "足軽7", "--out", str(out), "--resume"],
    )
    assert r.exit_code == 0, r.output
    assert "武田" in r.stdout and "removing 赤備え (for 足軽7)" in r.stdout
    assert "unaffected" in r.stdout and "織田" in r.stdout
    assert "random-vs-random: conclusions at this tier may not hold" in r.stderr


def test_default_out(config):
    p = swap.plan(load_experiment(config), "赤備え", "足軽7")
    assert str(swap.default_out(p)) == "results/swaptest-swap-赤備え-足軽7"
    assert str(swap.default_out(p, games_option=True)).endswith("-games6")


# ----------------------------------------------------------------------------------- errors


def test_unknown_card_suggests(config):
    with pytest.raises(LabError, match="unknown card \"赤備\".*did you mean.*赤備え"):
        swap.plan(load_experiment(config), "赤備", "足軽7")
    with pytest.raises(LabError, match="--with.*unknown card \"足軽77\".*did you mean"):
        swap.plan(load_experiment(config), "赤備え", "足軽77")


def test_illegal_replacement(config):
    # 織田 holds 3 足軽7 and 織田信長 already: a unique warlord cannot come in three times
    with pytest.raises(LabError, match="織田 \\(oda\\) deck illegal.*織田信長.*unique"):
        swap.plan(load_experiment(config), "足軽7", "織田信長")
    # one unique for another the deck already holds (織田 has 柴田勝家 and 織田信長)
    with pytest.raises(LabError, match="illegal.*same person"):
        swap.plan(load_experiment(config), "柴田勝家", "織田信長")


def test_card_no_army_holds(config):
    with pytest.raises(LabError, match="no army .* holds it"):
        swap.plan(load_experiment(config), "大筒", "足軽7")


def test_cli_errors(config):
    run = CliRunner().invoke
    r = run(cli.app, ["swap", str(config), "--card", "赤備え"])
    assert r.exit_code == 2 and "missing --with" in r.output
    r = run(cli.app, ["swap", str(config)])
    assert r.exit_code == 2 and "missing --card" in r.output
    r = run(cli.app, ["swap", str(config), "--card", "赤備", "--with", "足軽7"])
    assert r.exit_code == 2 and "did you mean" in r.output and "Traceback" not in r.output


def test_bad_swap_table(tmp_path):
    cfg = write_config(tmp_path, CONFIG + '\n[swap]\ncard = "赤備え"\nwiht = "足軽7"\n')
    with pytest.raises(LabError, match="unknown key \"wiht\""):
        swap.read_table(cfg)
    assert (
        load_experiment(
            write_config(
                tmp_path, CONFIG + '\n[swap]\ncard = "赤備え"\nwith = "足軽7"\n', "ok.toml"
            )
        ).games
        == 6
    )  # lab run reads it


# ------------------------------------------------------------------- variants and tiers


def test_a_swap_over_two_variants_is_read_in_each_never_pooled(tmp_path):
    cfg = write_config(
        tmp_path,
        CONFIG.replace('armies = ["oda", "takeda", "uesugi"]', 'armies = ["takeda", "uesugi"]')
        + "\n[grid]\nwalls = [6, 7]\n",
    )
    p = swap.plan(load_experiment(cfg), "赤備え", "足軽7")
    swap.run(p, tmp_path / "out", jobs=1)
    rows = swap.effects(p, tmp_path / "out", min_games=1)
    variants = [v.id for v in p.base.variants]
    assert len(variants) == 2
    # one army row per (variant, tier), each labelled; no pooled row and no unlabelled one
    army = rows[rows["kind"] == "army"]
    assert list(zip(army["variant"], army["tier"])) == [(v, "random-vs-random") for v in variants]
    assert set(rows["kind"]) == {"army", "matchup"} and rows["variant"].notna().all()
    assert (army["pairs"] == 2 * 6).all()  # uesugi × 2 seat orders × 6 deals, per variant
    r = CliRunner().invoke(
        cli.app,
        [
            "swap",
            str(cfg),
            "--card",
            "赤備え",
            "--with",
            "足軽7",
            "--out",
            str(tmp_path / "out"),
            "--resume",
            "--min-games",
            "1",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "removing 赤備え" not in r.stdout  # no headline over two variants
    assert "no headline" in r.stdout and "never pooled" in r.stdout
    # a summary row per variant × tier, then each group's table, its title naming both
    assert "per variant and tier" in r.stdout
    assert all(f"— {v}, random" in r.stdout for v in variants)
    r = CliRunner().invoke(
        cli.app,
        [
            "swap",
            str(cfg),
            "--card",
            "赤備え",
            "--with",
            "足軽7",
            "--out",
            str(tmp_path / "out"),
            "--resume",
            "--json",
        ],
    )
    doc = json.loads(r.stdout)
    assert [(a["variant"], a["tier"]) for a in doc["armies"]] == list(
        zip(army["variant"], army["tier"])
    )
    assert all(
        "reading" not in a and {x["variant"] for x in a["rows"]} == {a["variant"]}
        for a in doc["armies"]
    )


def test_one_variant_and_tier_names_them_and_keeps_its_headline(config, real_swap):
    _, out = real_swap
    r = CliRunner().invoke(
        cli.app,
        ["swap", str(config), "--card", "赤備え", "--with", "足軽7", "--out", str(out), "--resume"],
    )
    assert r.exit_code == 0, r.output
    assert "— second_edition, random" in r.stdout  # the table names both
    assert "removing 赤備え (for 足軽7)" in r.stdout and "no headline" not in r.stdout


# ------------------------------------------------------------------------------ --army


def test_army_swaps_only_that_armys_copies_and_equals_its_lab_value(config, tmp_path):
    """奇襲 is held by 織田 and 武田. --army takeda replaces 武田's copies only (織田 keeps its
    own), which is lab value's above-vanilla arm for 武田's 奇襲: the same games, so the same
    number with the opposite sign (swap: swapped − base; value: as is − swapped)."""
    from lab.design import value

    exp = load_experiment(config)
    p = swap.plan(exp, "奇襲", "足軽4", army="武田")
    assert p.army == "takeda" and p.copies == {"takeda": 1}
    assert p.kept == ("oda",) and p.unaffected == ("oda", "uesugi")
    assert [e.army for e in p.patch.edits] == ["takeda"]
    assert str(swap.default_out(p)).endswith("swaptest-swap-奇襲-足軽4-takeda")
    whole = swap.plan(exp, "奇襲", "足軽4")
    assert whole.copies == {"oda": 1, "takeda": 1} and whole.kept == ()
    swap.run(p, tmp_path / "army", jobs=1)
    swap.run(whole, tmp_path / "whole", jobs=1)

    def oda_holds_kishuu_in_the_swapped_arm(out, plan):
        games, cards = records(out)
        alt = games[games["patch"] == plan.patch.name]
        c = cards[cards["game_id"].isin(alt["game_id"]) & (cards["army"] == "oda")]
        return "奇襲" in set(c["card"])

    assert oda_holds_kishuu_in_the_swapped_arm(tmp_path / "army", p)
    assert not oda_holds_kishuu_in_the_swapped_arm(tmp_path / "whole", whole)

    rows = swap.effects(p, tmp_path / "army", min_games=1)
    assert set(rows["army"]) == {"takeda"}
    sw = rows[rows["kind"] == "army"].iloc[0]
    vp = value.plan(exp, cards=["奇襲"])
    value.run(vp, tmp_path / "value", jobs=1)
    table = value.compute(vp, tmp_path / "value")
    v = table[(table["army"] == "takeda") & (table["contrast"] == "above_vanilla")].iloc[0]
    assert v["replacement"] == "足軽4" and v["games"] == sw["pairs"]
    assert v["value"] == pytest.approx(-sw["change"])
    assert (v["lo"], v["hi"]) == (pytest.approx(-sw["change_hi"]), pytest.approx(-sw["change_lo"]))
    assert "from 武田's deck only" in swap.reading(p, sw, {"takeda": "武田"})


def test_army_errors_are_one_line(config):
    exp = load_experiment(config)
    with pytest.raises(
        LabError,
        match=r"--army \"mori\" is not an army of .*armies: oda, "
        r"takeda, uesugi",
    ):
        swap.plan(exp, "奇襲", "足軽4", army="mori")
    with pytest.raises(
        LabError,
        match=r"--army uesugi: its deck holds no 奇襲 \(armies holding "
        r"it: oda, takeda\)",
    ):
        swap.plan(exp, "奇襲", "足軽4", army="uesugi")


def test_cli_army_option_and_swap_table(config, tmp_path):
    cfg = write_config(
        tmp_path, CONFIG + '\n[swap]\ncard = "奇襲"\nwith = "足軽4"\narmy = "takeda"\n'
    )
    r = CliRunner().invoke(
        cli.app, ["swap", str(cfg), "--out", str(tmp_path / "o"), "--min-games", "1"]
    )
    assert r.exit_code == 0, r.output
    assert "only 武田's copies swapped; 織田 keeps its 奇襲" in r.stdout
    assert "unaffected (no 奇襲 in the deck; decks unchanged): 上杉" in r.stdout
    r = CliRunner().invoke(
        cli.app,
        [
            "swap",
            str(cfg),
            "--army",
            "oda",
            "--out",
            str(tmp_path / "o2"),
            "--json",
            "--min-games",
            "1",
        ],
    )
    doc = json.loads(r.stdout)
    assert doc["army"] == "oda" and doc["kept"] == ["takeda"]
    assert [a["army"] for a in doc["armies"]] == ["oda"]
