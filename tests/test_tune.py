"""Issue 14: tuning the heuristic — the fitness is paired (a bot against itself scores exactly
one half), parameters stay in their ranges, and a run resumes from its saved state."""

import numpy as np
import pytest

from lab.games.daitenka.bots.personas import PERSONAS
from lab.games.daitenka.bots.tune import SPACE, Evaluator, to_params, tune


def test_paired_deals_give_a_mirror_match_exactly_one_half():
    ev = Evaluator(pool=(("balanced", 1),))
    assert ev.score(PERSONAS["balanced"], seed=3) == 0.5
    assert ev.games == 2 * 81


def test_points_are_clipped_to_the_ranges_and_start_at_the_persona():
    start = PERSONAS["balanced"]
    assert to_params(np.zeros(len(SPACE)), start) == {k: start[k] for k in SPACE}
    far = to_params(np.full(len(SPACE), 100.0), start)
    assert far == {k: hi for k, (lo, hi) in SPACE.items()}


def test_a_run_saves_its_state_and_resumes(tmp_path):
    pytest.importorskip("cma", reason="the tune extra (pip install '.[tune]') is not installed")
    ev = Evaluator(pool=(("random", 1),))
    state = tmp_path / "state.pkl"
    lines = []
    first = tune(state, generations=1, popsize=4, evaluator=ev, report=lines.append)
    assert state.exists() and len(first["history"]) == 1
    second = tune(state, generations=2, popsize=4, evaluator=ev, report=lines.append)
    assert any("resuming" in line for line in lines)
    assert [h["generation"] for h in second["history"]] == [0, 1]
    assert all(h["best_score"] > 0.7 for h in second["history"])  # anything beats random


ARMIES = ("oda", "honganji", "saika", "takeda", "mouri", "houjou", "uesugi", "tougun", "seigun")


def targets_file(path, sets):
    """A targets file: sets = [(name, patch file name or None, {army: rate})]."""
    lines = []
    for name, patch, rates in sets:
        lines += ["[[set]]", f'name = "{name}"'] + ([f'patch = "{patch}"'] if patch else [])
        lines += ["[set.rates]"] + [f"{a} = {r!r}" for a, r in rates.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_matching_rates_scores_the_bot_whose_rates_they_are_best(tmp_path):
    """--match-rates: a persona's own rates, measured on the same deals, are matched exactly (the
    deals are paired, the engine deterministic); another persona's are not; a patch is played."""
    from lab.games.daitenka.bots.tune import RateEvaluator

    flat = {a: 0.5 for a in ARMIES}
    (tmp_path / "buff.toml").write_text(
        '[[patch]]\nname = "buff"\n[[patch.edit]]\ncard = "赤備え"\nstrength = 10\n',
        encoding="utf-8",
    )
    first = targets_file(
        tmp_path / "t.toml", [("as written", None, flat), ("buff", "buff.toml", flat)]
    )
    probe = RateEvaluator(first, deals=3)
    assert probe.games == 2 * 3 * 72
    written, buffed = probe.rates(PERSONAS["aggressive"], seed=5)
    from lab.games.daitenka.bots.match import parse_bot

    named = probe.rates(parse_bot({"kind": "heuristic", "persona": "aggressive"}), seed=5)
    assert all((x == y).all() for x, y in zip(named, (written, buffed)))  # any bot, by its spec
    assert written.mean() == pytest.approx(0.5)  # every game counts once for each side
    assert buffed[ARMIES.index("takeda")] > written[ARMIES.index("takeda")]  # 赤備え 7 → 10
    own = targets_file(
        tmp_path / "own.toml",
        [
            ("as written", None, dict(zip(ARMIES, map(float, written)))),
            ("buff", "buff.toml", dict(zip(ARMIES, map(float, buffed)))),
        ],
    )
    ev = RateEvaluator(own, deals=3)
    assert ev.score(PERSONAS["aggressive"], seed=5) == pytest.approx(0.0, abs=1e-9)
    assert ev.score(PERSONAS["defensive"], seed=5) < -1.0  # points² away
    assert ev.score(PERSONAS["aggressive"], seed=6) < 0  # other deals, other rates


def test_a_targets_file_missing_an_army_is_one_line(tmp_path):
    from lab.errors import LabError
    from lab.games.daitenka.bots.tune import load_targets

    bad = targets_file(tmp_path / "bad.toml", [("x", None, {a: 0.5 for a in ARMIES[:-1]})])
    with pytest.raises(LabError, match="rates must name every army") as e:
        load_targets(bad)
    assert str(bad) in str(e.value.source or e.value)
    missing = targets_file(tmp_path / "m.toml", [("x", "nowhere.toml", {a: 0.5 for a in ARMIES})])
    with pytest.raises(LabError, match="cannot read set\\[0\\]'s patch") as e:
        load_targets(missing)
    assert "nowhere.toml" in str(e.value.source)
