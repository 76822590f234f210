"""One effect interpreter for every trigger (issue 15 item 1; architecture.md principle 2).

Every state-changing (trigger, effect) pair the support table (``lab.games.daitenka.cards.vocab.SUPPORT``)
allows is put on a card of a designer's own card file, played in random games with every
invariant checked after every step (``nb_check``), and must change the state at least once —
so the table promises only what the engine runs, and an effect written once works under every
trigger that may carry it.
"""

from __future__ import annotations

import numpy as np
import pytest

from lab.games.daitenka.cards.pool import deck_from, load_army, pool_from
from lab.games.daitenka.cards.vocab import STATE_EFFECTS, SUPPORT, Effect, Trigger
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.nb_actions import WK_SIZE
from lab.games.daitenka.engine.nb_check import INVARIANTS, play_random_checked
from lab.games.daitenka.rules import PRESETS

# triggers with a controller, whose state effects run through nb_effects.apply_effect
RUN_BY_INTERPRETER = (
    Trigger.ON_WIN,
    Trigger.ON_LEAD,
    Trigger.ON_DEATH,
    Trigger.ON_BUILD,
    Trigger.ON_ATTACKED,
)
CASES = [
    (t, e)
    for t in RUN_BY_INTERPRETER
    for e in SUPPORT[t]
    if e in STATE_EFFECTS or e == Effect.SELF_BREAK
]
GAMES = 300
# run, but can never change anything: the builder's camp has just turned face up (ruling L3)
NEVER_ACTS = {(Trigger.ON_BUILD, Effect.FLIP_ALL)}


def _pool_and_deck(trigger: Trigger, effect: Effect):
    """A card file with one test card carrying the row, and 織田 with three copies of it (a
    unit in place of the three 足軽7) or, for a castle trigger, with it in place of 岐阜城."""
    castle = trigger in (Trigger.ON_BUILD, Trigger.ON_ATTACKED)
    kind = 'kind = "castle"' if castle else 'kind = "unit", strength = 7'
    text = (
        f'cards = [{{ id = "test_card", name = "試験札", {kind}, abilities = ["test"] }}]\n'
        f'[ability.test]\nname = "試験"\ntext = ""\n'
        f'effects = [{{ trigger = "{trigger.name.lower()}", '
        f'effect = "{effect.name.lower()}", amount = 1 }}]\n'
    )
    # uncached: 36 one-off pools must not push the package pool out of pool_from's cache
    pool = pool_from.__wrapped__((("test_cards.toml", text),))
    oda = load_army("oda", pool)
    cards = {c.name: n for c, n in oda.entries}
    if castle:
        cards["試験札"] = cards.pop("岐阜城")
    else:
        del cards["足軽7"]  # three copies
        cards["試験札"] = 3
    deck = deck_from({"name": "織田(試験)", "description": "", "cards": cards}, "test.toml", pool)
    return pool, deck, load_army("seigun", pool)


@pytest.mark.parametrize(
    "trigger, effect", CASES, ids=[f"{t.name.lower()}-{e.name.lower()}" for t, e in CASES]
)
def test_every_supported_state_effect_runs_under_its_trigger(trigger, effect):
    pool, deck, other = _pool_and_deck(trigger, effect)
    rng = np.random.default_rng(int(trigger) * 100 + int(effect))
    fired = 0
    for rules in (PRESETS["second_edition"], PRESETS["legacy_testlab"]):
        for a, b in ((deck, other), (other, deck)):
            c = matchup_context(pool, rules, a, b)
            test_ids = [
                i
                for i in range(int(c[L.C_NLOC]))
                if pool.cards[int(c[L.C_GTYPE + i])].id == "test_card"
            ]
            seeds = rng.integers(1, 2**32, size=(GAMES, 12)).astype(np.int64)
            errors = np.zeros(GAMES, np.int64)
            s = np.zeros(L.S_SIZE, np.int64)
            play_random_checked(
                s,
                c,
                np.zeros((1, L.LW), np.int64),
                np.zeros((L.MAXA, L.AW), np.int64),
                np.zeros(WK_SIZE, np.int64),
                seeds,
                np.zeros(GAMES, np.int64),
                np.zeros(L.N_ACTION_KINDS, np.int64),
                np.zeros(len(L.END_NAMES), np.int64),
                errors,
                np.zeros(1, np.int64),
                np.zeros(1, np.int64),
            )
            broken = [INVARIANTS[int(e)] for e in errors if e]
            assert not broken, f"{len(broken)} games broke an invariant, first: {broken[0]}"
            # the statistics block of the last game only: count triggers over fresh games
            fired += _triggers(pool, rules, a, b, test_ids, seeds)
    if (trigger, effect) in NEVER_ACTS:
        assert fired == 0
    else:
        assert fired > 0, f"{trigger.name} × {effect.name} never changed the state in random play"


def _triggers(pool, rules, a, b, test_ids, seeds) -> int:
    from lab.games.daitenka.engine import nb_play

    c = matchup_context(pool, rules, a, b)
    res = np.zeros((len(seeds), nb_play.N_RES), np.int64)
    stats = np.zeros((len(seeds), L.N_ST * L.NL), np.int32)
    nb_play.run_random(c, seeds, res, stats)
    trig = stats.reshape(len(seeds), L.N_ST, L.NL)[:, L.ST_TRIG, :]
    return int(trig[:, test_ids].sum())
