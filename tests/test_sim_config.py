"""Experiment configs: variants by product, armies and matchups, bot tiers, and one-line errors
naming the file, the key and the allowed values (exit code 2 through `lab run`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import write_config
from lab.games.daitenka.cards.pool import ARMIES
from lab.errors import LabError
from lab.sim.config import load_experiment
from lab.games.daitenka.plan import cells, jobs

CONFIGS = Path(__file__).parent.parent / "configs"
BASE = 'seed = 1\ngames = 10\n'


def load(tmp_path, text, **kw):
    return load_experiment(write_config(tmp_path, text), **kw)


# ------------------------------------------------------------------------------ resolving


def test_grid_gives_the_product_of_its_lists_on_each_preset(tmp_path):
    exp = load(
        tmp_path,
        BASE + 'rules = ["second_edition", "legacy_testlab"]\n'
        '[overrides]\nmax_turns = 300\n'
        '[grid]\nwalls = [6, 10]\nhand_cap = [0, 7, 5]\n',
    )
    assert len(exp.variants) == 2 * 2 * 3
    assert all(v.max_turns == 300 for v in exp.variants)
    first = exp.variants[0]
    assert (first.walls, first.hand_cap, first.logistics) == (6, 0, False)
    legacy = exp.variants[6]
    assert (legacy.walls, legacy.hand_cap, legacy.logistics) == (6, 0, True)
    assert len({v.id for v in exp.variants}) == 12


def test_all_armies_is_every_ordered_pair_with_mirrors(tmp_path):
    exp = load(tmp_path, BASE + 'armies = "all"\n')
    assert len(exp.matchups) == 81
    assert ("oda", "oda") in exp.matchups and ("seigun", "oda") in exp.matchups
    assert [a.key for a in exp.armies] == list(ARMIES)
    assert exp.total_games == 810


def test_seat_swap_plays_each_pair_of_armies_once_in_both_orders(tmp_path):
    exp = load(tmp_path, BASE + 'armies = "all"\nseat_swap = true\n')
    assert len(exp.matchups) == 45  # 36 pairs + 9 mirrors; the other order is the swap
    assert exp.total_games == 45 * 10 * 2


def test_armies_by_printed_name_pairs_and_deck_file(tmp_path):
    deck = Path(__file__).parent.parent / "lab/games/daitenka/cards/decks/tougun.toml"
    (tmp_path / "mine.toml").write_bytes(deck.read_bytes())
    exp = load(tmp_path, BASE + 'armies = [["東軍", "西軍"], ["mine.toml", "oda"]]\n')
    assert exp.matchups == (("tougun", "seigun"), ("mine", "oda"))
    mine = exp.army("mine")
    assert not mine.builtin and mine.path == str(tmp_path / "mine.toml")
    assert mine.digest == exp.army("tougun").digest  # same cards


def test_bots_and_tiers_forms(tmp_path):
    one = load(tmp_path, BASE + 'bots = "heuristic"\n')
    assert [t.label for t in one.tiers] == ["heuristic-vs-heuristic"]
    pair = load(tmp_path, BASE + 'bots = ["heuristic", "random"]\n')
    assert [t.label for t in pair.tiers] == ["heuristic-vs-random"]
    several = load(
        tmp_path,
        BASE + 'tiers = ["random", ["heuristic"], '
        '[{kind = "heuristic", persona = "aggressive"}, "random"]]\n',
    )
    assert [t.label for t in several.tiers] == [
        "random-vs-random",
        "heuristic-vs-heuristic",
        "heuristic(persona=aggressive)-vs-random",
    ]


def test_games_option_overrides_the_file_and_changes_the_fingerprint(tmp_path):
    path = write_config(tmp_path, BASE)
    exp = load_experiment(path)
    quick = load_experiment(path, games=3)
    assert quick.games == 3 and quick.total_games == 81 * 3
    assert exp.fingerprint() == load_experiment(path).fingerprint()
    assert quick.fingerprint() != exp.fingerprint()


def test_chunks_cover_every_game_once(tmp_path):
    exp = load(
        tmp_path,
        BASE + 'armies = ["oda", "takeda"]\nseat_swap = true\nchunk_size = 3\n'
        '[grid]\nwalls = [6, 7]\n',
    )
    ids = [j.game_id(d) for j in jobs(exp) for d in range(j.lo, j.hi)]
    assert sorted(ids) == list(range(exp.total_games))
    assert len(cells(exp)) == 2 * 3
    assert max(j.size for j in jobs(exp)) == 3


@pytest.mark.parametrize(
    "name",
    ["default", "walls", "logistics", "hand_cap", "legacy_vs_second", "sekigahara", "patches"],
)
def test_shipped_configs_load(name):
    exp = load_experiment(CONFIGS / f"{name}.toml")
    assert exp.name == name
    if name == "default":
        assert exp.variants[0].id == "second_edition" and len(exp.matchups) == 81
        # the tier the README advises for balance work (issue 26)
        assert exp.games >= 200 and exp.tiers[0].a.short == exp.tiers[0].b.short == "tuned"
    if name == "walls":
        assert [v.walls for v in exp.variants] == [6, 7, 10]
    if name == "patches":
        assert exp.patches[0].is_base and len(exp.patches) == 6
        assert {a for p in exp.patches for a in exp.affected(p)} >= {"takeda", "oda"}
    if name == "sekigahara":
        assert exp.matchups == (("tougun", "seigun"),) and exp.seat_swap
        assert exp.variants[0].walls == 6


# ------------------------------------------------------------------------------ errors

BAD = {
    "unknown key": (BASE + 'armys = "all"\n', ['unknown key "armys"', "did you mean armies"]),
    "missing seed": ('games = 10\n', ['missing key "seed"']),
    "games zero": ('seed = 1\ngames = 0\n', ["games = 0", "whole numbers 1–"]),
    "seed text": ('seed = "x"\ngames = 1\n', ["seed = 'x'", "whole numbers"]),
    "bad preset": (
        BASE + 'rules = "third"\n',
        ["rules = 'third' is not allowed", "second_edition, sekigahara_trial"],
    ),
    "grid not a list": (BASE + '[grid]\nwalls = 6\n', ["[grid] walls = 6", "walls = [6, 7, 10]"]),
    "grid bad value": (
        BASE + '[grid]\nwalls = [6, 99]\n',
        ["walls = 99", "whole numbers 1–12", "variant"],
    ),
    "grid unknown toggle": (
        BASE + '[grid]\nwals = [6]\n',
        ['unknown rules key "wals"', "did you mean walls"],
    ),
    "grid and overrides": (
        BASE + '[overrides]\nwalls = 6\n[grid]\nwalls = [6, 7]\n',
        ['"walls" is in both [overrides] and [grid]'],
    ),
    "duplicate variant": (BASE + '[grid]\nwalls = [7, 7]\n', ["same rule set"]),
    "cross check": (BASE + '[grid]\nodawara = ["fortify"]\n', ["needs logistics = true"]),
    "bad override": (
        BASE + '[overrides]\ngun = "laser"\n',
        ["[overrides]", "gun = 'laser'", "kill, retreat"],
    ),
    "unknown army": (BASE + 'armies = ["oda", "odaa"]\n', ["armies[1]", 'unknown army "odaa"']),
    "armies number": (BASE + 'armies = 3\n', ["armies = 3", '"all"']),
    "bad pair": (BASE + 'armies = [["oda"]]\n', ["armies[0]", "[seat A, seat B]"]),
    "swap listed twice": (
        BASE + 'seat_swap = true\narmies = [["oda", "takeda"], ["takeda", "oda"]]\n',
        ["armies[1]", "seat swap"],
    ),
    "seat_swap text": (BASE + 'seat_swap = "yes"\n', ["seat_swap = 'yes'", "true, false"]),
    "bots and tiers": (BASE + 'bots = "random"\ntiers = ["random"]\n', ["not both"]),
    "unknown bot": (BASE + 'bots = "genius"\n', ['unknown bot kind "genius"', "heuristic"]),
    "three bots": (BASE + 'bots = ["random", "random", "random"]\n', ["bots", "[seat A, seat B]"]),
    "bad bot parameter": (
        BASE + 'bots = {kind = "heuristic", simulations = 5}\n',
        ['unknown parameter "simulations"'],
    ),
    "empty tiers": (BASE + 'tiers = []\n', ["tiers = []", "a list of tiers"]),
    "name with slash": (BASE + 'name = "a/b"\n', ["name = 'a/b'", "slashes"]),
    "chunk size": (BASE + 'chunk_size = 0\n', ["chunk_size = 0"]),
    "not toml": ('seed = = 1\n', ["not valid TOML"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_config_is_one_line_naming_file_and_key(tmp_path, case):
    text, fragments = BAD[case]
    path = write_config(tmp_path, text)
    with pytest.raises(LabError) as e:
        load_experiment(path)
    message = str(e.value)
    assert message.startswith(str(path)), message
    assert "\n" not in message
    for frag in fragments:
        assert frag in message, (frag, message)


def test_lab_run_reports_a_bad_config_as_one_line_exit_2(tmp_path):
    path = write_config(tmp_path, BASE + '[grid]\nwalls = [6, 99]\n')
    result = CliRunner().invoke(
        cli.app, ["run", str(path), "--out", str(tmp_path / "o")], env={"COLUMNS": "60"}
    )
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "walls = 99" in lines[0]
    assert "Traceback" not in result.stderr and not (tmp_path / "o").exists()


def test_missing_config_file(tmp_path):
    with pytest.raises(LabError, match="file not found"):
        load_experiment(tmp_path / "nope.toml")


def test_games_option_is_checked(tmp_path):
    with pytest.raises(LabError, match="--games = 0"):
        load_experiment(write_config(tmp_path, BASE), games=0)


@pytest.mark.parametrize(
    "command, words",
    [
        (
            "run",
            [
                "CONFIG",
                "--games",
                "--jobs",
                "--out",
                "--resume",
                "--backend",
                "--scheduler",
                "loky",
                "dask",
                "results/NAME",
            ],
        ),
        ("replay", ["RESULTS_DIR", "GAME_ID", "--log", "reproduces"]),
    ],
)
def test_run_and_replay_have_help(command, words):
    result = CliRunner().invoke(cli.app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for word in words:
        assert word in result.stdout, word
