"""大天下's twelve engine seed words of a recorded game (``engine.layout.N_SEED_WORDS``), taken
from the deal and play streams of ``lab.sim.seeding`` (architecture.md principle 5): seat A's
deal words, seat B's deal words, the play words."""

from __future__ import annotations

import numpy as np

from lab.games.daitenka.engine.layout import N_SEED_WORDS
from lab.sim.seeding import deal_key, play_key, stream_words


def game_seeds(
    seed: int,
    pair: tuple[str, str],
    seat_a_slot: int,
    variant_id: str,
    bot_a: str,
    bot_b: str,
    lo: int,
    hi: int,
) -> np.ndarray:
    """The engine seed words of deals [lo, hi): int64[hi - lo, 12]."""
    deal = stream_words(deal_key(seed, pair), lo, hi)
    play = stream_words(play_key(seed, pair, variant_id, bot_a, bot_b, seat_a_slot), lo, hi)
    a = 4 * seat_a_slot
    b = 4 - a
    words = np.concatenate([deal[:, a : a + 4], deal[:, b : b + 4], play[:, :4]], axis=1)
    words = words.astype(np.int64)
    assert words.shape[1] == N_SEED_WORDS
    for k in (0, 4, 8):  # a generator state of four zero words never leaves zero
        zero = ~words[:, k : k + 4].any(axis=1)
        words[zero, k] = 1
    return words
