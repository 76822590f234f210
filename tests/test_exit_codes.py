"""Exit codes as documented (issue 27, item 4): a malformed scenario file — bad TOML, an
unknown key, a position the rules cannot hold, a step outside the grammar — is a bad input (one
line, exit 2, before any scenario plays), while a scenario whose expectations fail stays
``FAIL`` with exit 1; `lab ladder --games 40` rounds up to a whole round with a note."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from test_cli import assert_one_line_error, invoke

SCENARIOS = Path(__file__).parent / "scenarios"
GOOD = SCENARIOS / "ab_monomi.toml"  # one scenario that passes
WALLS = '["足軽1", "足軽1", "足軽1", "足軽1", "足軽1", "足軽1", "足軽1"]'


def variant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = GOOD.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


MALFORMED = {
    "bad_toml": ('first = "A"', 'first = "A', ["not valid TOML"]),
    "unknown_key": (
        "seed = 1",
        "seed = 1\nseeed = 2",
        ['unknown key "seeed"', "did you mean seed"],
    ),
    "unknown_card": (
        '"朝倉義景", "足軽2"]',
        '"朝倉義景", "足軽99"]',
        ['entry "[A]": unknown card "足軽99"', "did you mean 足軽9"],
    ),
    "too_many_walls": (
        f"walls = {WALLS}",
        "walls = " + WALLS.replace("]", ', "足軽1"]'),
        ["[A] holds 8 walls", "the rules allow 7"],
    ),
    "bad_step": ('"B pass",', '"B jump",', ['step 2: cannot read step "B jump"']),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_scenario_file_is_one_line_and_exit_2(tmp_path, case):
    old, new, fragments = MALFORMED[case]
    path = variant(tmp_path, f"{case}.toml", old, new)
    line = assert_one_line_error(invoke("scenario", str(path)), str(path), *fragments)
    assert "FAIL" not in line


def test_a_malformed_file_in_a_folder_stops_the_run_before_any_scenario_plays(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(GOOD, folder / "a_good.toml")  # sorted first: it would have printed "pass"
    old, new, _ = MALFORMED["unknown_card"]
    variant(folder, "z_bad.toml", old, new)
    result = invoke("scenario", str(folder))
    assert_one_line_error(result, "z_bad.toml", 'unknown card "足軽99"')  # stdout stays empty


def test_a_scenario_whose_expectation_fails_stays_fail_and_exit_1(tmp_path):
    path = variant(tmp_path, "fails.toml", "deck_count = 1 ", "deck_count = 2 ")
    result = invoke("scenario", str(path))
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("FAIL ") and "A.deck_count: expected 2, got 1" in " ".join(
        result.stdout.split()
    )
    assert result.stdout.rstrip().endswith("0 passed, 1 failed")
    assert result.stderr == ""


def test_an_illegal_step_a_scenario_expects_to_be_legal_is_a_failure_not_an_error(tmp_path):
    path = variant(tmp_path, "illegal.toml", '"B pass",', '"B lead 足軽3",')
    result = invoke("scenario", str(path))
    assert result.exit_code == 1 and "FAIL " in result.stdout and "step 2:" in result.stdout


def test_a_rumble_nation_position_the_rules_cannot_hold_is_exit_2(tmp_path):
    path = tmp_path / "rn.toml"
    path.write_text(
        'game = "rumble_nation"\nname = "x"\nsteps = []\n[P1]\nsoldiers = { "清州城" = 2 }\n',
        encoding="utf-8",
    )
    assert_one_line_error(invoke("scenario", str(path)), str(path), "did you mean 清洲城?")


def test_ladder_games_below_a_round_is_rounded_up_with_a_note():
    result = invoke("ladder", "--games", "40", "--bots", "random", "--bots", "heuristic")
    assert result.exit_code == 0, result.stderr
    notes = [x for x in result.stderr.splitlines() if x.startswith("note: ")]
    assert notes == [
        "note: --games 40 rounded up to 162: each pair of bots plays every "
        "ordered pair of the 9 armies with the seats exchanged, a multiple of 162 "
        "games"
    ]
    assert "162 games a pair" in " ".join(result.stdout.split())


def test_ladder_games_on_a_whole_round_has_no_note():
    result = invoke("ladder", "--games", "162", "--bots", "random", "--bots", "heuristic", "--json")
    assert result.exit_code == 0 and "note:" not in result.stderr
