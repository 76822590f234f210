"""Count, per card and ability, how often an ability changed the state in random play.

Used by the trigger-coverage test and by the statistics' dead-ability table: it turns the engine's
per-local-id, per-effect-row trigger counters into (card name, ability id) counts.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from lab.games.daitenka.cards.pool import CardPool, Deck
from lab.games.daitenka.engine import nb_play
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.layout import C_GTYPE, C_NLOC, N_ST, NL, ST_TRIG
from lab.games.daitenka.rules import RuleSet


def ability_rows(card) -> list[str]:
    """The ability id owning each effect row of a card, in row order."""
    return [a.id for a in card.abilities for _ in a.rows]


def random_triggers(
    pool: CardPool, rules: RuleSet, deck_a: Deck, deck_b: Deck, games: int, seed: int
) -> tuple[Counter, Counter]:
    """(triggers, games holding) per (card name, ability id) over ``games`` random games."""
    c = matchup_context(pool, rules, deck_a, deck_b)
    seeds = np.random.default_rng(seed).integers(1, 2**32, size=(games, 12)).astype(np.int64)
    res = np.zeros((games, nb_play.N_RES), np.int64)
    stats = np.zeros((games, N_ST * NL), np.int32)
    nb_play.run_random(c, seeds, res, stats)
    trig = stats.reshape(games, N_ST, NL)[:, ST_TRIG : ST_TRIG + 4, :].sum(axis=0)  # [row, local]
    fired: Counter = Counter()
    held: Counter = Counter()
    for i in range(int(c[C_NLOC])):
        card = pool.cards[int(c[C_GTYPE + i])]
        for row, aid in enumerate(ability_rows(card)):
            fired[(card.name, aid)] += int(trig[row, i])
        for a in card.abilities:
            held[(card.name, a.id)] += games
    return fired, held
