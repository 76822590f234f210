"""Seed words for recorded games: the deal and play streams of architecture.md principle 5.

A game's seed words (大天下's twelve: seat A's deal stream, seat B's deal stream, the play
stream, four 32-bit words each, assembled by ``lab.games.daitenka.seeds``) come from two keys, each turned
by ``numpy.random.SeedSequence`` into the key of a counter-based ``numpy.random.Philox``
generator whose counter is the deal index (so the words of deal d cost one Philox block, and
consecutive deals come out of one vectorised call):

- the **deal key** (experiment seed, matchup as an unordered pair of armies) and the deal index
  give eight words: four for each army of the pair. No variant, bot, seat order, worker or chunk
  is in it, so every variant and bot tier of a matchup deals the same shuffles, and a seat swap
  gives each army the same shuffle it had in the other seat;
- the **play key** (the deal key plus the rule set's id, both seats' bot labels and which army of
  the pair sits in seat A) and the deal index give the four play words (random effects and bot
  choices). The card patch of a variant is not in it (the runner passes the rule set's id): every
  patch plays on the same words as the unpatched cards, common random numbers across patches.

A game's words depend only on its own keys: any worker count, chunk size or backend gives the same
records. This module only derives numbers; it knows no rule.
"""

from __future__ import annotations

import hashlib

import numpy as np

DEAL_STREAM = 0
PLAY_STREAM = 1
_LOW = np.uint64(0xFFFFFFFF)


def text_key(text: str) -> int:
    """A stable 64-bit integer for a name (army key, rule set id, bot label)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def deal_key(seed: int, pair: tuple[str, str]) -> tuple[int, tuple[int, ...]]:
    """(entropy, spawn key) of a matchup's deal stream; ``pair``: the two army keys, sorted."""
    return seed, (DEAL_STREAM, text_key(pair[0]), text_key(pair[1]))


def play_key(
    seed: int, pair: tuple[str, str], variant_id: str, bot_a: str, bot_b: str, seat_a_slot: int
) -> tuple[int, tuple[int, ...]]:
    _, dk = deal_key(seed, pair)
    return seed, (PLAY_STREAM,) + dk[1:] + (
        text_key(variant_id),
        text_key(bot_a),
        text_key(bot_b),
        int(seat_a_slot),
    )


def stream_words(key: tuple[int, tuple[int, ...]], lo: int, hi: int) -> np.ndarray:
    """Eight 32-bit words per deal index in [lo, hi): the Philox block at counter d under the
    key's SeedSequence state. uint64[hi - lo, 8] holding 32-bit values."""
    entropy, spawn = key
    state = np.random.SeedSequence(entropy, spawn_key=spawn).generate_state(2, dtype=np.uint64)
    raw = np.random.Philox(key=state, counter=lo).random_raw(4 * (hi - lo)).reshape(-1, 4)
    return np.stack([raw & _LOW, raw >> np.uint64(32)], axis=2).reshape(-1, 8)
