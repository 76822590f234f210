"""Issue 29: the strong bot (lab.games.daitenka.bots.nb_strong) and its training (lab.games.daitenka.bots.distill) — the shipped
weights are what the command writes, the policy with the heuristic's weight alone is the
heuristic, it beats the heuristic, and it plays the same compiled and uncompiled. Its no-peeking
check is tests/test_bots.py's (it is one of BOTS there)."""

from _support.jit_run import run_support
import json
from pathlib import Path

import numpy as np
import pytest

from lab.games.daitenka.bots.distill import DATA, DEFAULTS, SMALL, _learner, document, train
from lab.games.daitenka.bots.match import parse_bot, strong_weights
from lab.games.daitenka.bots.nb_heuristic import heuristic_choose
from lab.games.daitenka.bots.nb_params import N_W
from lab.games.daitenka.bots.nb_strong import FEATURE_NAMES, SCALE, strong_choose
from lab.games.daitenka.engine.nb_actions import legal_actions
from lab.errors import LabError
from lab.games.daitenka.rules import RuleSet

from _support.hidden import positions as _random_positions

HERE = Path(__file__).parent


def test_the_reduced_training_run_reproduces_its_shipped_weights():
    """`python -m lab.games.daitenka.bots.distill --small` (the full command's settings at a reduced size): the
    same positions, fit and weights, bit for bit, as lab/bots/data/strong_weights_small.json —
    the full weights come from the same code at DEFAULTS."""
    shipped = json.loads((DATA / "strong_weights_small.json").read_text(encoding="utf-8"))
    fresh = document(SMALL, train(**SMALL, jobs=1))
    assert fresh["positions"] > 2000
    assert fresh == shipped


def test_the_shipped_weights_name_the_default_command_and_the_features():
    doc = json.loads((DATA / "strong_weights.json").read_text(encoding="utf-8"))
    assert doc["args"] == DEFAULTS and doc["features"] == list(FEATURE_NAMES)
    assert tuple(doc["weights"]) == strong_weights() and len(doc["weights"]) == N_W
    assert "python -m lab.games.daitenka.bots.distill" in doc["command"]
    # the distilled policy agrees with the teacher more often than the heuristic does
    assert doc["held_out_agreement"] > doc["held_out_heuristic_agreement"] + 0.02


def test_the_heuristic_weight_alone_chooses_as_the_heuristic_does():
    """Round 0 of the training plays the heuristic: weight 1 on heuristic_best, 0 elsewhere."""
    w = np.zeros(N_W, np.int64)
    w[0] = int(SCALE)
    learner = _learner(w)
    heuristic = parse_bot("heuristic").pack()
    differ = 0
    for g in _random_positions(count=40, seed=4):
        n = legal_actions(g.s, g.c, g._acts, g._wk)
        assert strong_choose(g.s, g.c, g._acts, n, learner) == heuristic_choose(
            g.s, g.c, g._acts, n, heuristic
        )
        shipped = parse_bot("strong").pack()
        differ += strong_choose(g.s, g.c, g._acts, n, shipped) != heuristic_choose(
            g.s, g.c, g._acts, n, heuristic
        )
    assert differ >= 3  # the distilled weights do not merely copy the heuristic


def test_strong_beats_the_heuristic():
    """A fit with a wrong sign or a feature read from the wrong seat plays below the heuristic."""
    from lab.games.daitenka.bots.ladder import play_pair

    aw, bw, d = play_pair(parse_bot("strong"), parse_bot("heuristic"), 648, RuleSet(), seed=7)
    assert (aw + 0.5 * d) / (aw + bw + d) > 0.55


def test_strong_takes_no_parameters_and_names_itself():
    s = parse_bot("strong")
    assert s.kind == "strong" and s.short == "strong" and s.pack()[0] == 4
    with pytest.raises(LabError, match="takes no parameters"):
        parse_bot({"kind": "strong", "simulations": 40})


def test_strong_plays_the_same_compiled_and_under_numba_disable_jit():
    """architecture.md principle 1, for the strong bot's floating-point scores."""
    runs = [run_support("strong_games", jit=jit) for jit in (True, False)]
    assert len(runs[0]) == 2 and runs[0] == runs[1]
