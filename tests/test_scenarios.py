"""Every rules scenario in tests/scenarios/ passes (scenarios.md), and the scenario runner itself
notices a wrong expectation, an unexpected refusal and an unexpected acceptance."""

from pathlib import Path

import pytest

from lab.games.daitenka.scenario import load, run

DIR = Path(__file__).parent / "scenarios"
SCENARIOS = [sc for f in sorted(DIR.glob("*.toml")) for sc in load(f)]


def test_there_are_scenarios_for_every_core_rule():
    names = [sc.name for sc in SCENARIOS]
    for rule in ("R4", "R5", "R6", "R7", "R13"):
        assert any(n.startswith(rule) for n in names), rule
    assert len(SCENARIOS) >= 150


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda sc: f"{Path(sc.source).stem}:{sc.name[:50]}")
def test_scenario(sc):
    out = run(sc)
    assert out.passed, f"{sc.source}: {out.message}"


def _write(tmp_path, body):
    p = tmp_path / "s.toml"
    p.write_text(body, encoding="utf-8")
    return load(p)[0]


BASE = """
name = "R5: probe"
first = "A"
steps = [{steps}]
[A]
hand = ["足軽3", "足軽5"]
walls = ["足軽1", "足軽1"]
[B]
hand = ["足軽4"]
walls = ["足軽1", "足軽1"]
[expect]
{expect}
"""


def test_runner_reports_a_wrong_expectation(tmp_path):
    sc = _write(
        tmp_path, BASE.format(steps='"A lead 足軽3", "B pass"', expect='[expect.B]\nwalls = 2')
    )
    out = run(sc)
    assert not out.passed and "B.walls" in out.message and "got 1" in out.message


def test_runner_reports_an_illegal_step_with_the_legal_ones(tmp_path):
    sc = _write(tmp_path, BASE.format(steps='"A lead 足軽3", "B answer 足軽3"', expect=""))
    out = run(sc)
    assert not out.passed and "B pass" in out.message and "B answer 足軽4" in out.message


def test_runner_reports_an_expected_refusal_that_was_accepted(tmp_path):
    sc = _write(
        tmp_path,
        BASE.format(
            steps='"A lead 足軽3", { do = "B answer 足軽4", expect_illegal = true }', expect=""
        ),
    )
    out = run(sc)
    assert not out.passed and "expected to be illegal" in out.message


def test_several_scenarios_in_one_file(tmp_path):
    p = tmp_path / "many.toml"
    one = BASE.format(steps='"A lead 足軽3", "B pass"', expect='[expect.B]\nwalls = 1')
    body = "\n".join(
        "[[scenario]]"
        + one.replace("[A]", "[scenario.A]")
        .replace("[B]", "[scenario.B]")
        .replace("[expect]", "[scenario.expect]")
        .replace("[expect.B]", "[scenario.expect.B]")
        for _ in range(2)
    )
    p.write_text(body, encoding="utf-8")
    scs = load(p)
    assert len(scs) == 2 and all(run(sc).passed for sc in scs)
