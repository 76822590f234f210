"""Random-play conformance (rules.md R1, R13): every invariant holds after every step of
thousands of random games per preset, over all nine armies, and every kind of action and end
reason the preset allows actually occurs."""

from pathlib import Path

import numpy as np
import pytest

from lab.games.daitenka.cards.pool import ARMIES, load_army, load_deck, load_pool
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.layout import *  # noqa: F403
from lab.games.daitenka.engine.nb_actions import WK_SIZE
from lab.games.daitenka.engine.nb_check import INVARIANTS, play_random_checked
from lab.games.daitenka.engine.text import VERBS
from lab.games.daitenka.rules import PRESETS

GAMES = 2000

# What each preset must show in random play. turn_limit needs a small max_turns, which a quarter
# of the games draw; stalemate exists only where 見送り is free (legacy_testlab). The nine armies
# never run out of units in random play (broken walls keep feeding hands), so a test-only deck
# that starts with every unit in its walls is added to reach exhaustion.
TINY = Path(__file__).parent / "data" / "decks" / "tiny_walled.toml"
ALLOWED = {
    "second_edition": (
        {A_RETURN, A_LEAD, A_ANSWER, A_PASS, A_MIOKURI, A_BUILD, A_SIEGE, A_TACTIC},
        {"castle_fell", "turn_limit", "exhaustion"},
    ),
    "sekigahara_trial": (
        {A_RETURN, A_LEAD, A_ANSWER, A_PASS, A_MIOKURI, A_BUILD, A_SIEGE, A_TACTIC},
        {"castle_fell", "turn_limit", "exhaustion"},
    ),
    "legacy_testlab": (
        {
            A_RETURN,
            A_LEAD,
            A_ANSWER,
            A_PASS,
            A_MIOKURI,
            A_BUILD,
            A_SIEGE,
            A_TACTIC,
            A_LOGISTICS,
            A_FORTIFY,
            A_MULLIGAN,
            A_KEEP,
        },
        {"castle_fell", "turn_limit", "stalemate", "exhaustion"},
    ),
}
NEVER = {
    "second_edition": {A_LOGISTICS, A_FORTIFY, A_MULLIGAN, A_KEEP},
    "sekigahara_trial": {A_LOGISTICS, A_FORTIFY, A_MULLIGAN, A_KEEP},
    "legacy_testlab": set(),
}


def run_checked(preset: str, games: int, seed: int):
    pool = load_pool()
    rules = PRESETS[preset]
    armies = [load_army(a, pool) for a in ARMIES]
    tiny = load_deck(TINY, pool, size=None)
    rng = np.random.default_rng(seed)
    kinds = np.zeros(N_ACTION_KINDS, np.int64)
    ends = np.zeros(len(END_NAMES), np.int64)
    fired = np.zeros(1, np.int64)
    special = np.zeros(1, np.int64)
    failures = []
    s = np.zeros(S_SIZE, np.int64)
    lg = np.zeros((1, LW), np.int64)
    acts = np.zeros((MAXA, AW), np.int64)
    wk = np.zeros(WK_SIZE, np.int64)
    pairs = [(a, b) for a in range(len(armies)) for b in range(len(armies))]
    per_pair = -(-games // len(pairs))
    for a, b in pairs + [(-1, -1)]:
        da = tiny if a < 0 else armies[a]
        db = tiny if b < 0 else armies[b]
        c = matchup_context(pool, rules, da, db)
        seeds = rng.integers(1, 2**32, size=(per_pair, 12)).astype(np.int64)
        turns = np.where(rng.random(per_pair) < 0.25, rng.integers(3, 60, per_pair), 0)
        errors = np.zeros(per_pair, np.int64)
        play_random_checked(
            s, c, lg, acts, wk, seeds, turns.astype(np.int64), kinds, ends, errors, fired, special
        )
        for g in np.flatnonzero(errors):
            failures.append((da.key, db.key, seeds[g].tolist(), INVARIANTS[int(errors[g])]))
    return kinds, ends, fired[0], special[0], failures, per_pair * len(pairs)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_play_keeps_every_invariant(preset):
    kinds, ends, fired, special, failures, played = run_checked(preset, GAMES, seed=7)
    report = {VERBS[k]: int(kinds[k]) for k in VERBS if kinds[k]}
    report.update({f"end:{END_NAMES[r]}": int(ends[r]) for r in range(1, len(END_NAMES))})
    report.update({"fire": int(fired), "answers to ∞": int(special)})
    print(f"\n{preset}: {played} games; {report}")
    assert played >= GAMES
    assert not failures, f"{len(failures)} games broke an invariant, first: {failures[0]}"
    allowed_kinds, allowed_ends = ALLOWED[preset]
    missing = [VERBS[k] for k in allowed_kinds if kinds[k] == 0]
    assert not missing, f"{preset}: these actions never occurred: {missing}"
    unexpected = [VERBS[k] for k in NEVER[preset] if kinds[k] != 0]
    assert not unexpected, f"{preset}: actions the preset forbids occurred: {unexpected}"
    missing_ends = [e for e in allowed_ends if ends[END_NAMES.index(e)] == 0]
    assert not missing_ends, f"{preset}: end reasons never reached: {missing_ends}"
    assert fired > 0 and special > 0
