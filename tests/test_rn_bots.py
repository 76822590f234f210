"""Rumble Nation bots (RN8): a small ladder (the full figures are in benchmarks/rumble_nation.py),
the search never reads the game's future dice, bots leave the state as they found it, and bot
specs are validated with one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

from lab.errors import LabError
from lab.games.rumble_nation import PRESETS, new_game, parse_bot, play_batch, seed_words, seeds_for
from lab.games.rumble_nation import nb_layout as L
from lab.games.rumble_nation.batch import Buffers
from lab.games.rumble_nation.ladder import head_to_head
from lab.games.rumble_nation.nb_bots import choose
from lab.games.rumble_nation.nb_core import legal


def test_ladder_heuristic_beats_random_2p():
    h = head_to_head(PRESETS["base_2p"], "heuristic", "random", deals=200, seed=1)
    assert h.games == 400
    assert h.rate >= 0.80 and h.low > 0.75, str(h)


def test_ladder_search_beats_heuristic_2p():
    h = head_to_head(PRESETS["base_2p"], "search", "heuristic", deals=50, seed=2)
    assert h.games == 100
    assert h.low > 0.5, str(h)


@pytest.mark.parametrize("preset", ["base_3p", "base_4p", "advanced_4p"])
def test_ladder_heuristic_beats_random_multiplayer(preset):
    rules = PRESETS[preset]
    h = head_to_head(rules, "heuristic", "random", deals=60, seed=3)
    assert h.low > 2 / rules.players, str(h)  # at least twice its fair share


def _position(preset="base_2p", turns=6, seed=4):
    g = new_game(PRESETS[preset], seed_words(seed))
    for _ in range(turns):
        g.step(g.legal_actions()[-1])
    g.legal_actions()  # roll: a decision is due
    return g


def _choose(g, bot):
    b = Buffers()
    n = legal(g.s, g.c, b.acts)
    return int(choose(g.s, g.c, b.acts, n, parse_bot(bot).pack(), b.wf, b.ts, b.tot, b.pacts))


@pytest.mark.parametrize("bot", ["heuristic", {"kind": "search", "simulations": 8}])
def test_bots_leave_the_state_alone_and_ignore_the_dice_to_come(bot):
    g = _position()
    before = g.s.copy()
    k = _choose(g, bot)
    changed = np.flatnonzero(g.s != before)
    assert set(changed) <= set(range(L.S_BOT_RNG, L.S_BOT_RNG + 4))  # only its own generator
    for words in ([1, 2, 3, 4], [99, 98, 97, 96]):  # other future dice: the same decision
        g.s[:] = before
        g.s[L.S_DICE_RNG : L.S_DICE_RNG + 4] = words
        assert _choose(g, bot) == k


def test_heuristic_rerolls_sometimes_not_always():
    cols = play_batch(PRESETS["base_2p"], ["heuristic", "random"], seeds_for(300, 6))
    rerolls, turns = cols["rerolls_p1"].sum(), cols["turns_p1"].sum()
    assert 0.05 * turns < rerolls < 0.6 * turns


def test_search_budget_changes_decisions_and_labels():
    assert parse_bot({"kind": "search", "simulations": 8}).label == "search(simulations=8)"
    assert parse_bot("search").pack()[L.BP_SIMS] == 64
    a = play_batch(
        PRESETS["base_2p"], [{"kind": "search", "simulations": 1}, "heuristic"], seeds_for(20, 7)
    )
    b = play_batch(
        PRESETS["base_2p"], [{"kind": "search", "simulations": 16}, "heuristic"], seeds_for(20, 7)
    )
    assert (a["decisions"] != b["decisions"]).any() or (a["score_p1"] != b["score_p1"]).any()


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("genius", "a Rumble Nation bot is one of random, heuristic, search"),
        (
            {"kind": "random", "simulations": 3},
            "bot \"random\": unknown parameter \"simulations\"; allowed: none",
        ),
        ({"kind": "heuristic", "simulations": 3}, "allowed: lookahead, uncertainty, reroll_edge"),
        ({"kind": "search", "simulations": 0}, "simulations = 0 must be a whole number 1–100000"),
        ({"kind": "search", "lookahead": True}, "lookahead = True must be a whole number 0–1"),
    ],
)
def test_bad_bot_specs_are_one_line_errors(spec, fragment):
    with pytest.raises(LabError) as e:
        parse_bot(spec, source="cfg.toml")
    assert "\n" not in str(e.value) and fragment in str(e.value)


def test_one_bot_per_seat():
    with pytest.raises(LabError, match="3 bots for 2 seats"):
        play_batch(PRESETS["base_2p"], ["random"] * 3, seeds_for(1))
