"""Head-to-head strength of Rumble Nation bots: one bot against copies of another, on paired deals.

Each deal (token layout, start seat, dice and bot seed words) is played once with the bot in each
seat and the other bot in the rest, so seat and deal luck cancel; the win rate's interval treats
a deal's games as one cluster (the mean of per-deal win shares, a t interval from statsmodels).
The fair share is 1 / players. It plays through ``batch`` and writes nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from statsmodels.stats.weightstats import DescrStatsW

from lab.games.rumble_nation.batch import Buffers, parse_bot, play_rows, seeds_for
from lab.games.rumble_nation.nb_layout import R_WINNER
from lab.games.rumble_nation.rules import RNRules


@dataclass(frozen=True)
class HeadToHead:
    bot: str
    against: str
    rules: str
    deals: int
    games: int
    wins: int
    rate: float
    low: float
    high: float
    fair_share: float

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return (
            f"{self.bot} vs {self.against} ({self.rules}): {self.rate:.1%} of {self.games} "
            f"games [{self.low:.1%}, {self.high:.1%}] (fair share {self.fair_share:.0%})"
        )


def head_to_head(
    rules: RNRules,
    bot,
    against,
    deals: int,
    seed: int = 0,
    confidence: float = 0.95,
    buffers: Buffers | None = None,
) -> HeadToHead:
    """``bot`` in each seat in turn against ``against`` in every other seat, over ``deals``
    deals; the win rate with a ``confidence`` interval clustered by deal."""
    a, b = parse_bot(bot), parse_bot(against)
    n = rules.players
    words = seeds_for(deals, seed)
    buffers = buffers or Buffers()
    wins = np.zeros(deals)
    for seat in range(n):
        bots = [b] * n
        bots[seat] = a
        wins += play_rows(rules, bots, words, buffers=buffers)[:, R_WINNER] == seat
    share = wins / n
    low, high = (
        DescrStatsW(share).tconfint_mean(1 - confidence)
        if deals > 1 and share.std()
        else (share.mean(), share.mean())
    )
    return HeadToHead(
        a.label,
        b.label,
        rules.id,
        deals,
        deals * n,
        int(wins.sum()),
        float(share.mean()),
        float(max(0.0, low)),
        float(min(1.0, high)),
        1 / n,
    )
