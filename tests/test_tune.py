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
