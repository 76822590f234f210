"""lab value: the design (which arms, which matchups, which patches), the statistics (paired by
deal, clustered by deal, BH across cards, sign: as is − contrast), the value.parquet schema the
report reads, determinism, resume, and one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import write_config
from lab.games.daitenka.cards.patch import Patch, set_amount
from lab.games.daitenka.cards.pool import load_pool
from lab.design import value
from lab.errors import LabError
from lab.games.daitenka.experiment import BASE_PATCH, with_patches
from lab.sim.config import load_experiment
from lab.games.daitenka.plan import cells
from lab.stats.value import VALUE_COLUMNS, read_value, value_table

CONFIG = """
name = "valuetest"
seed = 13
games = 6
rules = "second_edition"
armies = ["oda", "takeda", "uesugi"]
bots = "random"
seat_swap = true
"""
CARDS = [
    "赤備え",
    "武田信玄",
    "奇襲",
    "足軽7",
]  # a unit, a general, a tactic (oda and takeda), a 足軽


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    return write_config(tmp_path_factory.mktemp("valuecfg"), CONFIG)


@pytest.fixture(scope="module")
def small(config):
    return value.plan(load_experiment(config), cards=CARDS)


# ------------------------------------------------------------------------------------ design


def rows_of(p):
    f = p.arms_frame()
    return {(r.army, r.card, r.contrast): (r.patch, r.replacement) for r in f.itertuples()}


def test_arms_by_kind_of_card(small):
    rows = rows_of(small)
    # a unit with an ability: one arm answers both contrasts (strength kept, no ability = 足軽7)
    assert rows[("takeda", "赤備え", "ability_off")] == ("takeda:akazonae:off", "")
    assert rows[("takeda", "赤備え", "above_vanilla")] == ("takeda:akazonae:off", "足軽7")
    # a general: ∞ without its ability, and 足軽10 in its place (the deck loses its general)
    assert rows[("takeda", "武田信玄", "ability_off")][0] == "takeda:takeda_shingen:off"
    assert rows[("takeda", "武田信玄", "above_vanilla")] == (
        "takeda:takeda_shingen:vanilla",
        "足軽10",
    )
    # a tactic: unplayable, or the army's weakest 足軽 — for each army holding it
    assert rows[("takeda", "奇襲", "above_vanilla")] == ("takeda:kishuu:vanilla", "足軽4")
    assert rows[("oda", "奇襲", "above_vanilla")] == ("oda:kishuu:vanilla", "足軽6")
    assert ("oda", "奇襲", "ability_off") in rows
    assert not any(card == "足軽7" for _, card, _ in rows)  # its own vanilla, no ability
    general = next(a.patch for a in small.arms if a.patch.name.endswith("shingen:vanilla"))
    assert general.allow_no_general


def test_every_arm_changes_only_its_own_armys_deck(small):
    exp = small.exp
    for arm in small.arms:
        assert exp.affected(arm.patch) == {arm.army}
        assert all(e.army == arm.army for e in arm.patch.edits)


def test_the_run_plays_no_mirror_and_each_arm_only_its_armys_matchups(small):
    exp = small.exp
    assert all(a != b for a, b in exp.matchups) and len(exp.matchups) == 3
    assert exp.patched_matchups == "affected" and exp.patches[0] == BASE_PATCH
    by_patch = {}
    for c in cells(exp):
        by_patch.setdefault(c.patch.name, []).append(c.matchup)
    assert len(by_patch["base"]) == 3
    assert all(len(ms) == 2 for name, ms in by_patch.items() if name != "base")
    assert all(
        name.split(":")[0] in m for name, ms in by_patch.items() if name != "base" for m in ms
    )


def test_tiers_and_armies_with_only_mirrors(tmp_path):
    cfg = write_config(
        tmp_path,
        CONFIG.replace('bots = "random"', 'tiers = ["random", "heuristic"]').replace(
            'armies = ["oda", "takeda", "uesugi"]',
            'armies = [["oda", "takeda"], ["uesugi", "uesugi"]]',
        ),
    )
    p = value.plan(load_experiment(cfg), cards=["刺客"], tiers=["heuristic"])
    assert [t.label for t in p.exp.tiers] == ["heuristic-vs-heuristic"]
    assert p.skipped == ("uesugi",) and {a.army for a in p.arms} == {"oda", "takeda"}


@pytest.mark.parametrize(
    "kwargs, fragments",
    [
        ({"cards": ["赤備"]}, ['--cards: unknown card "赤備"', "did you mean 赤備え"]),
        ({"cards": ["大筒"]}, ["no army of", "holds 大筒"]),
        ({"tiers": ["heuristc"]}, ['--tier: "heuristc" is not a bot tier', "random-vs-random"]),
    ],
)
def test_bad_options_are_one_line(config, kwargs, fragments):
    with pytest.raises(LabError) as e:
        value.plan(load_experiment(config), **kwargs)
    assert "\n" not in str(e.value)
    for frag in fragments:
        assert frag in str(e.value), (frag, str(e.value))


def test_a_config_with_patches_is_refused(config):
    exp = load_experiment(config)
    patched = with_patches(exp, (BASE_PATCH, Patch("x", (set_amount("斥候", 2),))))
    with pytest.raises(LabError, match="varies card patches"):
        value.plan(patched)


# -------------------------------------------------------------------------------- statistics


def synthetic(d_by_deal: list[tuple[int, int]], base_a_wins: list[bool]):
    """Games of army "x" (seat A) vs "y" in two seat orders per deal: base and one arm. Deal k
    has (arm score change in seat order 0, in seat order 1) = d_by_deal[k] for army x."""
    rows = []
    for deal, (d0, d1) in enumerate(d_by_deal):
        for swapped, d in ((False, d0), (True, d1)):
            a, b = ("y", "x") if swapped else ("x", "y")
            x_base = 1.0 if base_a_wins[deal] else 0.0
            x_arm = x_base - d
            for patch, xs in (("base", x_base), ("x:c:off", x_arm)):
                winner_is_x = xs == 1.0
                winner = ("B" if swapped else "A") if winner_is_x else ("A" if swapped else "B")
                rows.append(
                    {
                        "variant": "r" if patch == "base" else f"r@{patch}",
                        "patch": patch,
                        "tier": "t",
                        "army_a": a,
                        "army_b": b,
                        "deal": deal,
                        "swapped": swapped,
                        "winner": winner,
                        "error": False,
                    }
                )
    arms = pd.DataFrame(
        [["x:c:off", "x", "X", "c", "C", 1, "ability_off", ""]],
        columns=[
            "patch",
            "army",
            "army_name",
            "card_id",
            "card",
            "copies",
            "contrast",
            "replacement",
        ],
    )
    return pd.DataFrame(rows), arms


def test_value_is_as_is_minus_contrast_clustered_by_deal():
    rng = np.random.default_rng(4)
    wins = list(rng.random(40) < 0.6)
    # when the card helps, removing it turns x's wins into losses: positive value
    d = [(int(w and rng.random() < 0.5), int(w and rng.random() < 0.5)) for w in wins]
    games, arms = synthetic(d, wins)
    [row] = value_table(games, arms).to_dict("records")
    diffs = np.array(d, float).reshape(-1)
    assert row["value"] == pytest.approx(diffs.mean()) and row["value"] > 0
    assert row["games"] == 80 and row["deals"] == 40
    assert row["base_rate"] == pytest.approx(np.mean(wins))
    # the cluster-robust variance with the two seat orders of a deal as one cluster
    e = diffs - diffs.mean()
    g = 40
    se = np.sqrt(g / (g - 1) * (e.reshape(-1, 2).sum(axis=1) ** 2).sum() / len(e) ** 2)
    assert row["se"] == pytest.approx(se)
    half = sps.t.ppf(0.975, g - 1) * se
    assert (row["lo"], row["hi"]) == pytest.approx((row["value"] - half, row["value"] + half))
    assert row["p"] == pytest.approx(2 * sps.t.sf(row["value"] / se, g - 1))


def test_an_arm_that_changes_no_outcome_is_worth_zero_within_honest_bounds():
    games, arms = synthetic([(0, 0)] * 10, [True, False] * 5)
    [row] = value_table(games, arms).to_dict("records")
    assert (row["value"], row["se"], row["p"]) == (0, 0, 1)
    # not a zero-width [0, 0]: 0 of 10 deals changed bounds the share of deals an arm changes
    # by u with (1 − u)^10 = 2.5%, and a changed deal moves the score by at most 1
    u = 1 - 0.025 ** (1 / 10)
    assert (row["lo"], row["hi"]) == (pytest.approx(-u), pytest.approx(u))
    assert (1 - u) ** 10 == pytest.approx(0.025)


def test_q_is_benjamini_hochberg_within_one_contrast():
    games, arms = synthetic([(1, 1)] * 6 + [(0, 1)] * 6 + [(0, 0)] * 8, [True] * 20)
    extra = games[games["patch"] != "base"].copy()
    extra["patch"] = "x:d:vanilla"
    extra["variant"] = "r@x:d:vanilla"
    more = pd.DataFrame(
        [["x:d:vanilla", "x", "X", "d", "D", 1, "above_vanilla", "足軽1"]], columns=arms.columns
    )
    table = value_table(pd.concat([games, extra]), pd.concat([arms, more]))
    # one row per contrast: BH over a single p-value leaves it as it is
    assert (table["q"] == table["p"]).all() and len(table) == 2


# ------------------------------------------------------------------------------------ the run


@pytest.fixture(scope="module")
def played(small, tmp_path_factory):
    out = tmp_path_factory.mktemp("value")
    value.run(small, out, jobs=1)
    return out, value.compute(small, out)


def test_value_parquet_has_the_agreed_schema(small, played):
    out, table = played
    stored = read_value(out)
    assert list(stored.columns) == VALUE_COLUMNS
    pd.testing.assert_frame_equal(stored, table)
    assert len(table) == small.rows == 6 + 2  # 赤備え 2, 武田信玄 2, 奇襲 2 × 2 armies
    assert set(table["contrast"]) == {"ability_off", "above_vanilla"}
    assert (table["variant"] == "second_edition").all()
    assert (table["games"] == 2 * 2 * 6).all()  # 2 opponents × 2 seat orders × 6 deals
    assert (table["deals"] == 2 * 6).all()
    aka = table[table["card"] == "赤備え"]
    assert aka["value"].nunique() == 1  # one arm answers both of a unit's contrasts
    assert ((table["lo"] <= table["value"]) & (table["value"] <= table["hi"])).all()


def test_the_printed_tables_bold_what_passes_at_the_given_alpha(played):
    _, table = played
    t = table.assign(q=np.linspace(0.01, 0.3, len(table)))

    def bold(alpha):
        return [r.style == "bold" for tab in value.tables(t, alpha) for r in tab.rows]

    assert bold(0.05) == list(t["q"] < 0.05)  # the default level: ALPHA
    assert bold(0.2) == list(t["q"] < 0.2) and sum(bold(0.2)) > sum(bold(0.05))
    assert "bold: q < 0.2" in value.tables(t, 0.2)[0].caption


def test_a_no_op_arm_replays_base_exactly(config, tmp_path):
    """The pairing end to end: an arm that changes nothing (斥候's 物見 at its printed 1) plays
    the base games again, so its value is exactly 0 with no spread."""
    exp = load_experiment(config)
    arm = value.Arm(
        Patch("takeda:sekkou:same", (set_amount("斥候", 1, army="takeda"),)),
        "takeda",
        load_pool().get("斥候"),
        2,
        (("ability_off", ""),),
    )
    p = value.ValuePlan(
        exp, with_patches(exp, (BASE_PATCH, arm.patch), patched_matchups="affected"), (arm,)
    )
    value.run(p, tmp_path, jobs=1)
    [row] = value.compute(p, tmp_path).to_dict("records")
    assert row["games"] > 0 and (row["value"], row["se"], row["p"]) == (0, 0, 1)


def test_same_table_on_two_workers(small, played, tmp_path):
    _, table = played
    value.run(small, tmp_path, jobs=2)
    pd.testing.assert_frame_equal(value.compute(small, tmp_path), table)


def test_cli_json_resume_and_the_report_location(config, played, tmp_path, monkeypatch):
    out, table = played
    r = CliRunner().invoke(
        cli.app,
        [
            "value",
            str(config),
            "--cards",
            "赤備え,武田信玄",
            "--cards",
            "奇襲",
            "--cards",
            "足軽7",
            "--out",
            str(out),
            "--resume",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [list(x) for x in rows][0] == VALUE_COLUMNS and len(rows) == len(table)
    # random bots: one line on stderr says the conclusions may not hold for stronger play
    [note] = [line for line in r.stderr.splitlines() if line.startswith("note:")]
    assert "random-vs-random" in note and "may not hold for stronger play" in note
    monkeypatch.chdir(tmp_path)
    exp = load_experiment(config)
    assert str(value.default_out(exp)) == "results/valuetest/value"
    assert str(value.default_out(exp, games_option=True)) == "results/valuetest-games6/value"


def test_resume_after_lost_chunks_gives_the_same_table(small, played, tmp_path):
    import shutil

    from lab.records import GAMES, chunk_path

    out, table = played
    shutil.copytree(out, tmp_path / "v")
    for chunk in (0, 5, 9):
        chunk_path(tmp_path / "v" / value.RECORDS, GAMES, chunk).unlink()
    with pytest.raises(LabError, match="add --resume"):
        value.run(small, tmp_path / "v", jobs=1)
    assert value.run(small, tmp_path / "v", jobs=1, resume=True).chunks_played == 3
    pd.testing.assert_frame_equal(value.compute(small, tmp_path / "v"), table)
    # complete: the same command again plays nothing and needs no --resume
    assert value.run(small, tmp_path / "v", jobs=1).chunks_played == 0


def test_another_selection_in_the_same_folder_is_refused(config, played):
    out, _ = played
    other = value.plan(load_experiment(config), cards=["刺客"])
    with pytest.raises(LabError, match="holds a value run of another config or selection"):
        value.run(other, out, jobs=1)


def test_lab_run_accepts_a_results_folder_holding_value(config, tmp_path):
    from lab.sim.runner import run

    (tmp_path / "value").mkdir()
    (tmp_path / "value" / "value.parquet").write_bytes(b"")
    exp = load_experiment(config)
    assert run(exp, tmp_path, jobs=1).played == exp.total_games


def test_cli_bad_cards_is_one_line(config):
    r = CliRunner().invoke(cli.app, ["value", str(config), "--cards", "赤備"])
    assert r.exit_code == 2 and "did you mean 赤備え" in r.output and "Traceback" not in r.output


def test_read_value_without_a_table(tmp_path):
    with pytest.raises(LabError, match="no value.parquet"):
        read_value(tmp_path)
