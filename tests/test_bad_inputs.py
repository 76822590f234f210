"""Every bad input of issue 13 ends in one clear line and exit code 2, never a traceback: TOML
files (a byte-order mark, a key or table set twice), decks (a missing file, full-width names),
rules and card files (unknown tables), scenarios (a bad preset, mistyped expectations), replay
files, and the options of `lab match`, `lab replay`, `lab ladder`, `lab bench` and `lab play`.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from _support.sim_cases import lab_command
from lab.games.daitenka import scenario as sc
from lab.games.daitenka.cards.pool import load_army, load_deck, load_pool
from lab.errors import LabError
from lab.schema.base import parse_assignments
from lab.games.daitenka.play.record import FORMAT, VERSION, load_record
from lab.games.daitenka.rules import RuleSet
from test_cli import assert_one_line_error, invoke

ODA = "oda"


def write(path, text: str | bytes):
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def lab(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"} | {"COLUMNS": "60"}
    return subprocess.run(
        lab_command() + list(args), capture_output=True, text=True, input=stdin, env=env
    )


def assert_one_line(proc: subprocess.CompletedProcess, *fragments: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])
    return lines[0]


# ------------------------------------------------------------------------------ TOML files


def test_a_byte_order_mark_is_named(tmp_path):
    path = write(tmp_path / "r.toml", b"\xef\xbb\xbfwalls = 10\n")
    assert_one_line_error(invoke("rules", "-c", str(path)), "byte-order mark (BOM)", "without BOM")


def test_a_key_set_twice_is_named(tmp_path):
    path = write(tmp_path / "r.toml", "walls = 10\nhand_cap = 7\nwalls = 9\n")
    assert_one_line_error(invoke("rules", "-c", str(path)), "key walls is set twice", "line 3")


def test_a_table_declared_twice_is_named(tmp_path):
    path = write(tmp_path / "r.toml", "[rules]\nwalls = 10\n[rules]\nhand_cap = 7\n")
    assert_one_line_error(invoke("rules", "-c", str(path)), "table [rules] is declared twice")


def test_other_toml_mistakes_keep_tomllib_s_words(tmp_path):
    path = write(tmp_path / "r.toml", "walls = [\n")
    assert_one_line_error(invoke("rules", "-c", str(path)), "not valid TOML")


# ----------------------------------------------------------------------- decks and card names


def test_a_missing_deck_file_is_not_an_unknown_army(tmp_path):
    missing = str(tmp_path / "my_deck.toml")
    for args in (("match", missing, "seigun"), ("cards", "--army", missing)):
        line = assert_one_line_error(invoke(*args), missing, "deck file not found")
        assert "unknown army" not in line


def test_card_names_are_nfkc_normalised_before_lookup(tmp_path):
    pool = load_pool()
    assert pool.get("足軽２") is pool.get("足軽2")  # full-width digit
    assert pool.get(" 足軽２ ") is pool.get("足軽2")
    entries = {c.name: n for c, n in load_army(ODA, pool).entries}
    ashigaru = next(name for name in entries if name.startswith("足軽"))
    wide = ashigaru.translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    text = "".join(f'"{wide if k == ashigaru else k}" = {n}\n' for k, n in entries.items())
    deck = load_deck(write(tmp_path / "d.toml", f'name = "mine"\n[cards]\n{text}'), pool)
    assert deck.size == 30 and pool.get(ashigaru) in dict(deck.entries)


def test_an_unknown_card_still_gets_the_closest_names():
    with pytest.raises(LabError, match="unknown card \"足軽99\""):
        load_pool().get("足軽99")


# ------------------------------------------------------------------------- unknown tables


def test_a_rules_file_with_an_unknown_table_is_refused(tmp_path):
    path = write(tmp_path / "r.toml", "[rules]\nwalls = 10\n[extra]\nx = 1\n")
    assert_one_line_error(invoke("rules", "-c", str(path)), "extra beside [rules]")
    with pytest.raises(LabError, match="extra beside"):
        RuleSet.from_toml(path)


def test_a_card_file_with_an_unknown_table_is_refused(tmp_path):
    path = write(tmp_path / "c.toml", "cards = []\n[abilities.x]\nname = 'x'\n")
    with pytest.raises(
        LabError,
        match='unknown key "abilities"; did you mean ability\\? allowed keys: cards, ability',
    ):
        load_pool(extra=(path,))


def test_a_scenario_file_with_a_table_beside_its_scenarios_is_refused(tmp_path):
    path = write(
        tmp_path / "s.toml", "[[scenario]]\nname = 'a'\nsteps = []\n[expect]\nwinner = 'A'\n"
    )
    with pytest.raises(
        LabError,
        match='unknown key "expect"; a file of several scenarios holds only '
        '\\[\\[scenario\\]\\] tables',
    ):
        sc.load(path)


# ------------------------------------------------------------------------------- scenarios

SCENARIO = """name = "x"
rules = {rules}
steps = []
[expect]
{expect}
[expect.A]
{expect_a}
"""


@pytest.mark.parametrize(
    "rules, expect, expect_a, fragments",
    [
        ('"nope"', "", "", ["rules = 'nope' is not allowed", "second_edition"]),
        ('"second_edition"', "winner = 1", "", ["[expect] winner = 1 is not allowed", "'draw'"]),
        ('"second_edition"', "end_reason = 'castle'", "", ["end_reason = 'castle'", "castle_fell"]),
        ('"second_edition"', "", 'walls = "7"', ["[expect.A] walls = '7'", "whole number"]),
        ('"second_edition"', "", "hand = '足軽1'", ["[expect.A] hand = '足軽1'", "a list"]),
        ('"second_edition"', "", "castle_damaged = 1", ["castle_damaged = 1", "true or false"]),
    ],
)
def test_scenario_mistakes_are_errors_not_failures(tmp_path, rules, expect, expect_a, fragments):
    path = write(
        tmp_path / "s.toml", SCENARIO.format(rules=rules, expect=expect, expect_a=expect_a)
    )
    result = invoke("scenario", str(path))
    line = assert_one_line_error(result, str(path), *fragments)
    assert "preset = " not in line and "FAIL" not in result.stdout


# ------------------------------------------------------------------------------ replay files


def test_a_replay_file_with_a_negative_seed_is_one_line(tmp_path):
    deck = load_army(ODA)
    army = {
        "key": ODA,
        "name": deck.name,
        "path": "",
        "cards": [[c.name, n] for c, n in deck.entries],
    }
    data = {
        "format": FORMAT,
        "version": VERSION,
        "rules": {"preset": "second_edition", "toggles": RuleSet().as_dict()},
        "armies": {"A": army, "B": army},
        "players": {"A": "human", "B": "bot"},
        "bot": "random",
        "seed": -1,
        "steps": [],
    }
    path = write(tmp_path / "r.json", json.dumps(data, ensure_ascii=False))
    with pytest.raises(LabError, match="seed = -1 is not allowed"):
        load_record(path)
    assert_one_line_error(invoke("replay", str(path)), str(path), "seed = -1")


# ---------------------------------------------------------------------------- command options


def test_lab_replay_with_a_negative_game_id_is_one_line(tmp_path):
    assert_one_line_error(invoke("replay", str(tmp_path), "-1"), "GAME_ID -1 is not allowed")


@pytest.mark.parametrize(
    "args, fragments",
    [
        (
            ["match", "oda", "seigun", "--seed", "-1"],
            ["--seed", "greater than or equal to 0", "lab match --help"],
        ),
        (["bench", "--games", "0"], ["--games", "lab bench --help"]),
        (["replay", "results/x", "--bogus"], ["GAME_ID"]),
        (["rules", "--nope"], ["No such option: --nope"]),
        (
            ["ladder", "--games", "0", "--bots", "random", "--bots", "heuristic"],
            ["--games 0 is not allowed", "whole numbers ≥ 1", "162"],
        ),
        (["ladder", "--bots", "random", "--games", "2"], ["at least two"]),
    ],
)
def test_bad_options_are_one_line_and_exit_2(args, fragments):
    assert_one_line(lab(*args), *fragments)


def test_an_unknown_command_is_one_line():
    proc = lab("nocommand")
    assert_one_line(proc, "No such command")


def test_set_with_spaces_around_the_equals_sign():
    assert parse_assignments(["walls= 10", "hand_cap =7", "logistics = on"]) == {
        "walls": "10",
        "hand_cap": "7",
        "logistics": "on",
    }
    with pytest.raises(LabError, match='--set "walls=" is not KEY=VALUE'):
        parse_assignments(["walls="])
