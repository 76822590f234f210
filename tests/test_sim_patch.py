"""Card patches as experiment dimensions: [[patch]] tables and [grid] patch give variants =
rules × patches; the patch is in the variant id, the manifest, the fingerprint and the records;
paired deals and play words hold across patches (common random numbers), so a patch that changes
nothing replays the base games exactly; matchups a patch leaves unchanged are played once and
recorded for every patch; records are the same for any worker count or chunk size; resume and
replay work on patched runs."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import assert_same_records, records, write_config
from lab.errors import LabError
from lab.sim import manifest
from lab.games.daitenka.experiment import with_patches
from lab.sim.config import load_experiment
from lab.games.daitenka.plan import cells, chunks, jobs
from lab.records import CARDS, GAMES, chunk_path
from lab.games.daitenka.replay import replay
from lab.sim.runner import run

BASE = 'seed = 3\ngames = 4\narmies = ["oda", "takeda", "uesugi"]\nbots = "random"\n'
PATCHES = '''
[[patch]]
name = "akazonae8"
description = "赤備え at strength 8"
[[patch.edit]]
card = "赤備え"
strength = 8

[[patch]]
name = "same"
description = "斥候's 物見 draws 1, as printed: changes nothing"
edit = [{ card = "斥候", amount = 1 }]
'''
# 斥候 is in takeda and uesugi: "same" is played on every matchup but oda's mirror
RUN = (
    '''
name = "patched"
seed = 9
games = 5
rules = "second_edition"
armies = ["oda", "takeda", "uesugi"]
bots = "random"
seat_swap = true
chunk_size = 3
[grid]
hand_cap = [0, 7]
'''
    + PATCHES
)
ARM_ONLY = ["game_id", "cell", "variant", "patch"]
KEY = ["variant", "army_a", "army_b", "deal", "swapped"]


def load(tmp_path, text, **kw):
    return load_experiment(write_config(tmp_path, text), **kw)


# ------------------------------------------------------------------------------- configs


def test_variants_are_rules_times_patches(tmp_path):
    exp = load(
        tmp_path, BASE + '[grid]\nhand_cap = [0, 7]\npatch = ["base", "akazonae8"]\n' + PATCHES
    )
    assert [p.name for p in exp.patches] == ["base", "akazonae8"]
    ids = list(
        dict.fromkeys(
            f"{c.variant.id}{'' if c.patch.is_base else '@' + c.patch.name}" for c in cells(exp)
        )
    )
    assert ids == [
        "second_edition",
        "second_edition@akazonae8",
        "second_edition+hand_cap=7",
        "second_edition+hand_cap=7@akazonae8",
    ]
    assert exp.total_games == 2 * 2 * 9 * 4


def test_default_grid_is_base_and_every_patch(tmp_path):
    exp = load(tmp_path, BASE + PATCHES)
    assert [p.name for p in exp.patches] == ["base", "akazonae8", "same"]


def test_an_unpatched_config_keeps_its_fingerprint_and_cells(tmp_path):
    plain = load(tmp_path, BASE)
    with_tables = load(tmp_path, BASE + '[grid]\npatch = ["base"]\n' + PATCHES)
    assert with_tables.fingerprint() == plain.fingerprint()
    assert "patches" not in plain.resolved()
    assert [j.id for j in jobs(with_tables)] == [j.id for j in jobs(plain)]


def test_the_patch_is_part_of_the_fingerprint(tmp_path):
    a = load(tmp_path, BASE + PATCHES)
    b = load(tmp_path, BASE + PATCHES.replace("strength = 8", "strength = 9"))
    assert a.fingerprint() != b.fingerprint()
    assert a.resolved()["patches"][1] == {
        "name": "akazonae8",
        "description": "赤備え at strength 8",
        "edit": [{"card": "akazonae", "strength": 8}],
    }


def test_affected_mode_plays_only_the_patched_armies_matchups(tmp_path):
    exp = load(tmp_path, BASE + '[grid]\npatch = ["base", "akazonae8"]\n' + PATCHES)
    narrow = with_patches(exp, exp.patches, patched_matchups="affected")
    patched = [c.matchup for c in cells(narrow) if not c.patch.is_base]
    assert patched == [m for m in exp.matchups if "takeda" in m]
    assert narrow.total_games == (9 + 5) * 4 and narrow.fingerprint() != exp.fingerprint()


BAD = {
    "unknown grid patch": (
        '[grid]\npatch = ["base", "akazone8"]\n' + PATCHES,
        ['[grid] patch: unknown patch "akazone8"', "did you mean akazonae8"],
    ),
    "grid patch not a list": ('[grid]\npatch = "akazonae8"\n' + PATCHES, ["a list of patch"]),
    "patch listed twice": ('[grid]\npatch = ["base", "base"]\n', ['"base" is listed twice']),
    "patch in overrides": (
        '[overrides]\npatch = "akazonae8"\n' + PATCHES,
        ["patch goes in [grid]"],
    ),
    "duplicate name": (PATCHES + PATCHES, ['the name "akazonae8" is used twice']),
    "patch not a table": (
        'patch = 3\n',
        ["patch = 3 is not allowed", "a list of tables: [[patch]]"],
    ),
    "bad edit": (
        '[[patch]]\nname = "x"\nedit = [{ card = "赤備え", strength = 12 }]\n',
        ['patch "x" edit[0]: strength = 12', "1–10"],
    ),
    "army not in experiment": (
        '[[patch]]\nname = "x"\nedit = [{ card = "鉄砲足軽", army = "saika", off = "all" }]\n',
        ['army "saika" is not in this experiment', "oda, takeda"],
    ),
    "card no deck holds": (
        '[[patch]]\nname = "x"\nedit = [{ card = "大筒", strength = 8 }]\n',
        ["no deck of this experiment holds 大筒"],
    ),
    "deck made illegal": (
        '[[patch]]\nname = "x"\nedit = [{ card = "足軽7", army = "oda", replace = "織田信長" }]\n',
        ["織田 (oda) deck illegal", "unique"],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_patch_config_is_one_line_naming_the_file(tmp_path, case):
    text, fragments = BAD[case]
    path = write_config(tmp_path, BASE + text)
    with pytest.raises(LabError) as e:
        load_experiment(path)
    message = str(e.value)
    assert message.startswith(str(path)) and "\n" not in message, message
    for frag in fragments:
        assert frag in message, (frag, message)


def test_lab_run_stops_on_a_bad_patch_with_exit_2(tmp_path):
    path = write_config(tmp_path, BASE + BAD["bad edit"][0])
    r = CliRunner().invoke(cli.app, ["run", str(path), "--out", str(tmp_path / "out")])
    assert r.exit_code == 2 and "strength = 12" in r.output and "Traceback" not in r.output


# ----------------------------------------------------------------------------------- runs


@pytest.fixture(scope="module")
def patched(tmp_path_factory):
    cfg = write_config(tmp_path_factory.mktemp("cfg"), RUN)
    exp = load_experiment(cfg)
    out = tmp_path_factory.mktemp("run") / "out"
    result = run(exp, out, jobs=1)
    return exp, out, result


def arm(games, patch):
    g = games[games["patch"] == patch].copy()
    g["variant"] = g["variant"].str.split("@").str[0]
    return g.sort_values(KEY, ignore_index=True)


def test_records_hold_every_variant_and_matchup(patched):
    exp, out, _ = patched
    games, cards = records(out)
    assert len(games) == exp.total_games == 2 * 3 * 6 * 5 * 2  # 6 matchups with seat_swap
    assert set(games["patch"]) == {"base", "akazonae8", "same"}
    assert set(games["variant"]) == {
        f"second_edition{h}{p}" for h in ("", "+hand_cap=7") for p in ("", "@akazonae8", "@same")
    }
    assert games.groupby("variant").size().nunique() == 1  # every variant: every matchup
    assert set(cards["game_id"]) == set(games["game_id"])


def test_unchanged_matchups_are_played_once_and_recorded_for_every_patch(patched):
    exp, out, result = patched
    per_cell = exp.games * exp.orders
    takeda = sum("takeda" in m for m in exp.matchups)  # akazonae8 touches these
    same = sum(bool({"takeda", "uesugi"} & set(m)) for m in exp.matchups)
    assert result.played == 2 * (len(exp.matchups) + takeda + same) * per_cell
    games = records(out)[0]
    base, aka = arm(games, "base"), arm(games, "akazonae8")
    plain = lambda g: g[(g["army_a"] != "takeda") & (g["army_b"] != "takeda")]  # noqa: E731
    pd.testing.assert_frame_equal(
        plain(base).drop(columns=ARM_ONLY), plain(aka).drop(columns=ARM_ONLY)
    )
    assert len(plain(base)) > 0


def test_a_patch_that_changes_nothing_replays_the_base_games_exactly(patched):
    """Common random numbers: the play words hold the rule set, not the patch."""
    _, out, _ = patched
    games, cards = records(out)
    base, same = arm(games, "base"), arm(games, "same")
    pd.testing.assert_frame_equal(base.drop(columns=ARM_ONLY), same.drop(columns=ARM_ONLY))

    def per(g):
        return (
            cards[cards["game_id"].isin(g["game_id"])]
            .drop(  # noqa: E731
                columns="game_id"
            )
            .reset_index(drop=True)
        )

    key = dict(zip(base["game_id"], same["game_id"]))
    cb = cards[cards["game_id"].isin(key)].assign(game_id=lambda c: c["game_id"].map(key))
    cs = cards[cards["game_id"].isin(same["game_id"])]
    pd.testing.assert_frame_equal(
        cb.sort_values(["game_id", "player", "card"], ignore_index=True),
        cs.sort_values(["game_id", "player", "card"], ignore_index=True),
    )
    assert len(per(base)) > 0


def test_a_real_patch_plays_the_same_deals_and_changes_games(patched):
    _, out, _ = patched
    games = records(out)[0]
    base, aka = arm(games, "base"), arm(games, "akazonae8")
    pd.testing.assert_frame_equal(
        base[KEY + ["first", "seed_words"]], aka[KEY + ["first", "seed_words"]]
    )
    takeda = (base["army_a"] == "takeda") | (base["army_b"] == "takeda")
    moved = (base["decisions"] != aka["decisions"]) | (base["winner"] != aka["winner"])
    assert moved[takeda].any() and not moved[~takeda].any()


def test_same_records_on_two_workers_and_another_chunk_size(patched, tmp_path):
    exp, out, _ = patched
    run(exp, tmp_path / "two", jobs=2)
    assert_same_records(out, tmp_path / "two")
    from dataclasses import replace

    run(replace(exp, chunk_size=4), tmp_path / "four", jobs=1)
    g1, g2 = records(out)[0], records(tmp_path / "four")[0]
    pd.testing.assert_frame_equal(g1.drop(columns="seed_words"), g2.drop(columns="seed_words"))


def test_resume_rewrites_a_lost_copy(patched, tmp_path):
    import shutil

    exp, out, _ = patched
    folder = tmp_path / "copy"
    shutil.copytree(out, folder)
    job = next(j for j in jobs(exp) if j.copies)
    lost = job.copies[-1].id
    chunk_path(folder, GAMES, lost).unlink()
    assert len(manifest.read(folder)["chunks"]) == len(chunks(exp))
    result = run(exp, folder, resume=True, jobs=1)
    assert result.chunks_played == 1 and result.played == job.size
    assert chunk_path(folder, GAMES, lost).exists() and chunk_path(folder, CARDS, lost).exists()
    assert_same_records(out, folder)


def test_replay_rebuilds_a_patched_game(patched):
    _, out, _ = patched
    games = records(out)[0]
    row = games[(games["patch"] == "akazonae8") & (games["army_a"] == "takeda")].iloc[0]
    r = replay(out, int(row["game_id"]))
    assert r.reproduced and not r.warnings
    assert [c.strength for c in r.game.pool.cards if c.id == "akazonae"] == [8]


def test_an_edits_army_may_be_its_printed_name_as_in_armies(tmp_path):
    """An army-scoped edit names its army as `armies` may: 織田 is oda (the same patch, the same
    fingerprint); a name that is neither is still refused in one line naming both forms' keys."""
    edit = '[[patch]]\nname = "p"\n[[patch.edit]]\ncard = "奇襲"\narmy = "{}"\noff = "奇襲"\n'
    base = 'name = "t"\nseed = 3\ngames = 4\narmies = ["oda", "takeda"]\nbots = "random"\n'
    by_key = load_experiment(write_config(tmp_path, base + edit.format("oda"), "key.toml"))
    by_name = load_experiment(write_config(tmp_path, base + edit.format("織田"), "name.toml"))
    assert by_name.patches == by_key.patches
    assert by_name.patches[-1].edits[0].army == "oda"
    assert by_name.fingerprint() == by_key.fingerprint()
    with pytest.raises(LabError, match='army "尾張" is not in this experiment'):
        load_experiment(write_config(tmp_path, base + edit.format("尾張"), "bad.toml"))
