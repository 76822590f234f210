"""Rumble Nation scenarios (docs/rumble_nation.md): every shipped scenario passes, cites its RN id
and names its game; the runner reports a wrong expectation, a missing roll and a step that should
have been illegal; and a malformed scenario stops with one clear line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from lab.errors import LabError
from lab.games.rumble_nation import run_scenario
from lab.games.rumble_nation.scenario import load, run

FOLDER = Path(__file__).parent / "scenarios_rn"
FILES = sorted(FOLDER.glob("*.toml"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path):
    outcomes = run_scenario(path)
    assert outcomes
    for o in outcomes:
        assert o.passed, f"{o.scenario.name}: {o.message}"


def test_at_least_25_scenarios_each_citing_its_rule_and_game():
    assert len(FILES) >= 25
    cited = set()
    for path in FILES:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        assert data.get("game") == "rumble_nation", path.name
        ids = re.findall(r"RN(\d)", data["name"])
        assert ids, f"{path.name}: the name cites no RN id"
        cited.update(int(i) for i in ids)
    assert {2, 3, 4, 5, 6, 7} <= cited  # every rule with behaviour (RN1 is components, RN8 bots)


def _write(tmp_path, text: str, name: str = "sc.toml") -> Path:
    p = tmp_path / name
    p.write_text('game = "rumble_nation"\n' + text, encoding="utf-8")
    return p


BASE = 'name = "RN3.3: t"\nrules = "base_2p"\n'


def test_several_scenarios_in_one_file(tmp_path):
    p = tmp_path / "two.toml"
    p.write_text(
        '''
[[scenario]]
game = "rumble_nation"
name = "RN3.3: one"
steps = ["P1 roll 1 1 2", "P1 place 2 with 2"]
[scenario.expect.P1]
stock = 17

[[scenario]]
name = "RN3.3: two"
steps = ["P1 roll 5 5 6", "P1 place 10 with 6"]
[scenario.expect.P1]
stock = 15
''',
        encoding="utf-8",
    )
    outs = run_scenario(p)
    assert [o.passed for o in outs] == [True, True]
    assert outs[1].scenario.source.endswith("[[scenario]] #2")


def test_a_wrong_expectation_fails_naming_the_difference(tmp_path):
    p = _write(
        tmp_path,
        BASE + 'steps = ["P1 roll 1 1 2", "P1 place 2 with 2"]\n'
        '[expect.P1]\nsoldiers = { "徳山館" = 2 }\n',
    )
    (o,) = run_scenario(p)
    assert not o.passed and o.message == "P1.soldiers 徳山館: expected 2, got 1"


def test_a_step_before_its_roll_fails(tmp_path):
    p = _write(tmp_path, BASE + 'steps = ["P1 place 2 with 2"]\n')
    (o,) = run_scenario(p)
    assert not o.passed and "a scenario gives every roll" in o.message


def test_an_illegal_step_lists_the_legal_ones(tmp_path):
    p = _write(tmp_path, BASE + 'steps = ["P1 roll 1 2 3", "P1 place 12 with 1"]\n')
    (o,) = run_scenario(p)
    assert not o.passed
    assert "P1 reroll, P1 place 5 with 1, P1 place 4 with 2, P1 place 3 with 3" in o.message


def test_expect_illegal_on_a_legal_step_fails(tmp_path):
    p = _write(
        tmp_path,
        BASE + 'steps = ["P1 roll 1 2 3", { do = "P1 place 5 with 1", expect_illegal = true }]\n',
    )
    (o,) = run_scenario(p)
    assert not o.passed and "was expected to be illegal but was accepted" in o.message


@pytest.mark.parametrize(
    "body, fragment",
    [
        (BASE + 'steps = []\ncolour = "red"\n', "unknown key(s) colour"),
        (BASE + 'steps = ["P1 jump"]\n', "cannot read step \"P1 jump\""),
        (BASE + 'steps = ["P1 roll 1 2 7"]\n', "a roll is three dice 1–6"),
        (BASE + 'steps = ["P5 roll 1 2 3"]\n', "write `P1…P4 roll D D D`"),
        (BASE + 'steps = ["P1 place 大阪城 with 3"]\n', "unknown area \"大阪城\""),
        (
            BASE + 'steps = []\n[tokens]\n"京" = 13\n',
            "[tokens] \"京\" = 13: a token number is 2–12",
        ),
        (
            BASE + 'steps = []\n[tokens]\n"京" = 3\n"首里城" = 3\n',
            "token 3 is given to both \"京\" and \"首里城\"",
        ),
        (BASE + 'steps = []\n[P1]\nsoldiers = { "清州城" = 2 }\n', "did you mean 清洲城?"),
        (
            BASE + 'steps = []\n[P1]\nstock = 0\n',
            "[P1] chip = 0: a seat holds a sword chip (1–2) exactly when its stock is empty",
        ),
        (BASE + 'steps = []\n[P1]\nstock = 0\nchip = 1\n', "chips are taken biggest first"),
        (BASE + 'steps = []\n[P1]\nstock = 19\n', "exceed the rules' soldiers = 18"),
        (BASE + 'steps = []\n[P1]\ndaimyo = "京"\n', "needs daimyo = true (RN6)"),
        (BASE + 'steps = []\n[P3]\nstock = 1\n', "[P3]: not a seat; seats: P1, P2"),
        (BASE + 'steps = []\nfirst = "P3"\n', "first = 'P3'; allowed: P1, P2"),
        (BASE + 'steps = []\n[overrides]\nplayers = 7\n', "players = 7 is not allowed"),
        (BASE + 'steps = []\n[expect]\nscore = 3\n', "[expect]: unknown key(s) score"),
        (BASE + 'steps = []\n[expect.P1]\ngold = 3\n', "[expect.P1]: unknown key(s) gold"),
    ],
)
def test_malformed_scenarios_are_one_line_errors(tmp_path, body, fragment):
    p = _write(tmp_path, body)
    with pytest.raises(LabError) as e:
        for sc in load(p):
            run(sc)
    msg = str(e.value)
    assert "\n" not in msg and str(p) in msg and fragment in msg, msg


def test_a_scenario_of_another_game_is_refused(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('game = "daitenka"\nname = "x"\nsteps = []\n', encoding="utf-8")
    with pytest.raises(LabError, match="this runner plays game = \"rumble_nation\""):
        load(p)


def test_run_scenario_refuses_a_broken_position_instead_of_failing_it(tmp_path):
    """A position the rules cannot hold makes the file malformed (issue 27: one line, exit 2),
    not a scenario that failed."""
    p = _write(tmp_path, BASE + 'steps = []\n[P1]\nsoldiers = { "清州城" = 2 }\n')
    with pytest.raises(LabError, match="did you mean 清洲城?"):
        run_scenario(p)
