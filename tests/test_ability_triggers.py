"""Issue 4: every ability of the pool acts in random play, and every effect code is pinned by a
scenario strong enough to notice it missing (mutation check)."""

from collections import Counter
from pathlib import Path

import pytest

from lab.games.daitenka.cards.pool import CardPool, PoolTables, load_armies, load_pool
from lab.games.daitenka.cards.vocab import EFFECT_NAMES, Effect
from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.engine.triggers import random_triggers
from lab.games.daitenka.rules import RuleSet
from lab.games.daitenka.scenario import load, run

# Abilities that can never change the state under rules.md, so random play must never see them act:
# 郡山城's 百万一心 flips face-down camp units when it is built, but 築城 is a leader action and
# 表返し (R4 step 3) has already turned every camp unit face up (docs/rulings.md L3).
PROVABLY_DEAD = {"hyakuman_isshin"}

SCENARIOS = [
    sc for f in sorted((Path(__file__).parent / "scenarios").glob("*.toml")) for sc in load(f)
]


@pytest.fixture(scope="module")
def coverage():
    pool = load_pool()
    armies = load_armies(pool)
    fired: Counter = Counter()
    held: Counter = Counter()
    k = 0
    for a in armies:
        for b in armies:
            f, h = random_triggers(pool, RuleSet(), a, b, games=124, seed=k)
            fired.update(f)
            held.update(h)
            k += 1
    return pool, fired, held


def test_every_ability_changes_the_state_in_10000_random_games(coverage):
    pool, fired, held = coverage
    assert (
        sum(held[(c.name, a.id)] for c in pool for a in c.abilities[:1] if c.name == "足軽1" or a)
        > 0
    )
    games = max(held.values())
    assert games * 1 >= 2232  # each card held by ≥ 2 armies × 9 opponents × 124 games
    silent = sorted(
        f"{card}〈{aid}〉"
        for (card, aid), n in fired.items()
        if n == 0 and aid not in PROVABLY_DEAD and pool.abilities[aid].rows
    )
    assert not silent, f"abilities that never acted: {silent}"


def test_provably_dead_abilities_really_never_act(coverage):
    _, fired, _ = coverage
    for (card, aid), n in fired.items():
        if aid in PROVABLY_DEAD:
            assert n == 0, f"{card}〈{aid}〉 acted {n} times: update docs/rulings.md L3"


def _without(effect: Effect):
    real = CardPool.tables

    def tables(self):
        t = real(self)
        rows = t.rows.copy()
        rows[rows[:, :, 1] == int(effect)] = 0
        return PoolTables(t.strength, t.kind, t.cost, rows)

    return tables


def _scenarios_fail() -> list[str]:
    failed = []
    for sc in SCENARIOS:
        try:
            if not run(sc).passed:
                failed.append(sc.name)
        except Exception as e:  # a disabled effect may make a scenario step unparsable
            failed.append(f"{sc.name} ({type(e).__name__})")
    return failed


def _opening_hand_with_miyoshi() -> int:
    g = Game(RuleSet(first_player="A"), "saika", "oda", seed=3)
    return g.zone("A", "hand_count")


@pytest.mark.parametrize("effect", list(EFFECT_NAMES.values()), ids=lambda e: e.name.lower())
def test_disabling_an_effect_code_fails_a_scenario(effect, monkeypatch):
    monkeypatch.setattr(CardPool, "tables", _without(effect))
    if effect == Effect.EXTRA_OPENING:
        # acts at set-up, which scenarios skip: the set-up probe must notice instead
        assert _opening_hand_with_miyoshi() == RuleSet().initial_hand
        return
    failed = _scenarios_fail()
    assert failed, f"no scenario notices {effect.name} missing"


def test_set_up_probe_sees_the_extra_opening_card():
    assert _opening_hand_with_miyoshi() == RuleSet().initial_hand + 1
