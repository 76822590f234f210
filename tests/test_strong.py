"""Issue 29: the strong bot (lab.games.daitenka.bots.nb_strong) and its training (lab.games.daitenka.bots.distill) — the shipped
weights are what the command writes, the policy with the heuristic's weight alone is the
heuristic, it beats the heuristic, its lookahead only reorders the policy's close calls and
plays stronger than the policy alone, and it plays the same compiled and uncompiled. Its
no-peeking check is tests/test_bots.py's (it is one of BOTS there, lookahead and all)."""

from _support.jit_run import run_support
import json
from pathlib import Path

import numpy as np
import pytest

from lab.games.daitenka.bots.distill import DATA, DEFAULTS, SMALL, _learner, document, train
from lab.games.daitenka.bots.match import parse_bot, strong_weights
from lab.games.daitenka.bots.nb_buffer import SB_H, SB_HT, SB_SIZE
from lab.games.daitenka.bots.nb_heuristic import heuristic_choose
from lab.games.daitenka.bots.nb_params import N_W
from lab.games.daitenka.bots import nb_params as P
from lab.games.daitenka.bots.nb_strong import (
    FEATURE_NAMES,
    N_BASE,
    SCALE,
    action_features,
    context,
    heuristic_scores,
    strong_choose,
)
from lab.games.daitenka.engine.layout import AW, MAXA
from lab.games.daitenka.engine.nb_actions import legal_actions
from lab.errors import LabError
from lab.games.daitenka.rules import RuleSet

from _support.hidden import positions as _random_positions

HERE = Path(__file__).parent
PLAIN = {"kind": "strong", "candidates": 0}  # the distilled policy without its lookahead


def _choose(g, spec) -> int:
    """The strong bot's row at position ``g`` (on a copy: the lookahead draws from the game's
    play stream, as the search does)."""
    h = g.copy()
    n = legal_actions(h.s, h.c, h._acts, h._wk)
    sb = np.zeros(SB_SIZE, np.int64)
    sacts = np.zeros((MAXA, AW), np.int64)
    bot = spec if isinstance(spec, np.ndarray) else parse_bot(spec).pack()
    return strong_choose(h.s, h.c, h.lg, h._acts, n, h._wk, bot, sb, sacts)


def test_the_reduced_training_run_reproduces_its_shipped_weights():
    """`python -m lab.games.daitenka.bots.distill --small` (the full command's settings at a reduced size): the
    same positions and games, bit for bit, as lab/bots/data/strong_weights_small.json, and the
    same fit — the full weights come from the same code at DEFAULTS. A weight may sit one unit
    (10⁻⁵) off: L-BFGS sums in the order of the installed numpy and scipy, and a release moved
    one of the 126 weights across a rounding edge (6,115 → 6,116 with scipy 1.17 / numpy 2.4)."""
    shipped = json.loads((DATA / "strong_weights_small.json").read_text(encoding="utf-8"))
    fresh = document(SMALL, train(**SMALL, jobs=1))
    assert fresh["positions"] > 2000
    assert fresh.keys() == shipped.keys()
    rest = [k for k in shipped if k != "weights"]
    assert {k: fresh[k] for k in rest} == {k: shipped[k] for k in rest}
    off = [abs(a - b) for a, b in zip(fresh["weights"], shipped["weights"], strict=True)]
    assert max(off) <= 1 and sum(off) <= 3, off


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
        expected = heuristic_choose(g.s, g.c, g._acts, n, heuristic)
        assert _choose(g, learner) == expected
        differ += _choose(g, PLAIN) != expected
    assert differ >= 3  # the distilled weights do not merely copy the heuristic


def test_the_lookahead_reorders_only_the_policys_close_calls():
    """A lookahead pick is among the policy's best ``candidates`` rows and within ``margin`` of
    its best score; with the margin at 0 only exact ties are looked at; and the lookahead
    overrules the policy somewhere (else it would cost time for nothing)."""
    spec = {"kind": "strong", "candidates": 3, "margin": 50, "simulations": 4}
    bot = parse_bot(spec).pack()
    alt = bot[P.BP_ALT : P.BP_ALT + P.BP_W]
    w = bot[P.BP_W : P.BP_W + N_W] / SCALE
    overruled = 0
    for g in _random_positions(count=60, seed=5):
        h = g.copy()
        n = legal_actions(h.s, h.c, h._acts, h._wk)
        sb = np.zeros(SB_SIZE, np.int64)
        _, _, hb, tb = heuristic_scores(h.s, h.c, h._acts, n, bot, alt, sb)
        hs = sb[SB_H : SB_H + n].view(np.float64)  # the kernel's scores (a compiled kernel
        hts = sb[SB_HT : SB_HT + n].view(np.float64)  # returns its buffer, not a view of it)
        ctx = context(h.s, h.c, bot)
        late = 1.0 if min(ctx[0], ctx[1]) <= 2 else 0.0
        z = np.zeros(n)
        for k in range(n):
            f = np.array(
                action_features(h.s, h.c, h._acts[k], hs[k], k == hb, hts[k], k == tb, ctx)
            )
            z[k] = w[:N_BASE] @ f + late * (w[N_BASE:] @ f)
        pick, plain = _choose(g, spec), _choose(g, PLAIN)
        assert plain == int(np.argmax(z))
        if pick != plain:
            overruled += 1
            rank = int((z > z[pick]).sum())
            assert rank < 3 and z[pick] >= z.max() - 0.5 - 1e-6
        assert _choose(g, dict(spec, margin=0)) in set(np.flatnonzero(z >= z.max() - 1e-6))
    assert overruled >= 3


def test_strong_beats_the_heuristic():
    """A fit with a wrong sign or a feature read from the wrong seat plays below the heuristic."""
    from lab.games.daitenka.bots.ladder import play_pair

    aw, bw, d = play_pair(parse_bot("strong"), parse_bot("heuristic"), 648, RuleSet(), seed=7)
    assert (aw + 0.5 * d) / (aw + bw + d) > 0.55


def test_strong_names_itself_and_checks_its_lookahead_parameters():
    s = parse_bot("strong")
    assert s.kind == "strong" and s.short == "strong" and s.pack()[0] == 4
    assert parse_bot({"kind": "strong", "simulations": 4}).label == "strong(simulations=4)"
    with pytest.raises(LabError, match='unknown parameter "exploration"; allowed: candidates, '):
        parse_bot({"kind": "strong", "exploration": 40})
    with pytest.raises(LabError, match='unknown parameter "margin"'):
        parse_bot({"kind": "search", "margin": 40})
    with pytest.raises(LabError, match="must be a whole number"):
        parse_bot({"kind": "strong", "candidates": 2.5})
    with pytest.raises(LabError, match="candidates = 9 must be 0 \\(no lookahead\\) to 8"):
        parse_bot({"kind": "strong", "candidates": 9})
    with pytest.raises(LabError, match="margin = -5 must be 0 or more"):
        parse_bot({"kind": "strong", "margin": -5})


def test_the_lookahead_plays_stronger_than_the_policy_alone():
    """The lookahead's imagined games are scored for the seat that looks (a sign or seat error
    there plays below the policy it reorders)."""
    from lab.games.daitenka.bots.ladder import play_pair

    aw, bw, d = play_pair(parse_bot("strong"), parse_bot(PLAIN), 648, RuleSet(), seed=11)
    assert (aw + 0.5 * d) / (aw + bw + d) > 0.53


def test_strong_plays_the_same_compiled_and_under_numba_disable_jit():
    """architecture.md principle 1, for the strong bot's floating-point scores."""
    runs = [run_support("strong_games", jit=jit) for jit in (True, False)]
    assert len(runs[0]) == 2 and runs[0] == runs[1]
