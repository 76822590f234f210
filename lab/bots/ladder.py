"""The bot ladder: every pair of bots over every ordered pair of armies, each deal played twice
with the seats exchanged, then Bradley–Terry ratings with 95% intervals and a head-to-head table.

It plays through the compiled match loop (``lab.bots.match``) and fits the ratings with a
binomial GLM (statsmodels); it writes nothing.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
import statsmodels.api as sm

from lab.bots.match import Batch, BotSpec, parse_bot
from lab.cards.pool import load_armies, load_pool
from lab.engine.context import matchup_context
from lab.engine.nb_play import RES_WINNER
from lab.errors import LabError
from lab.rules import RuleSet

DEFAULT_BOTS = ("random", "heuristic", "search")


@dataclass
class LadderResult:
    ratings: pd.DataFrame  # bot, rating, low, high (log-odds against the first bot)
    head_to_head: pd.DataFrame  # a, b, games, a_wins, b_wins, draws

    def as_json(self) -> dict:
        return {"ratings": {r.bot: {"rating": r.rating, "low": r.low, "high": r.high}
                            for r in self.ratings.itertuples()},
                "head_to_head": [{"a": r.a, "b": r.b, "games": int(r.games),
                                  "a_wins": int(r.a_wins), "draws": int(r.draws)}
                                 for r in self.head_to_head.itertuples()]}


def play_pair(a: BotSpec, b: BotSpec, games: int, rules: RuleSet, seed: int,
              batch: Batch | None = None, progress=None) -> tuple[int, int, int]:
    """(a wins, b wins, draws) over about ``games`` games: deals spread over all ordered army
    pairs, each played with a in seat A and again in seat B."""
    pool = load_pool()
    armies = load_armies(pool)
    batch = batch or Batch()
    pairs = [(x, y) for x in armies for y in armies]
    deals = games_per_pair(games, len(armies)) // (2 * len(pairs))
    rng = np.random.default_rng(seed)
    a_wins = b_wins = draws = 0
    for x, y in pairs:
        c = matchup_context(pool, rules, x, y)
        seeds = rng.integers(1, 2**32, size=(deals, 12)).astype(np.int64)
        r1, _ = batch.play(c, seeds, a, b)
        r2, _ = batch.play(c, seeds, b, a)
        w1, w2 = r1[:, RES_WINNER], r2[:, RES_WINNER]
        a_wins += int((w1 == 0).sum() + (w2 == 1).sum())
        b_wins += int((w1 == 1).sum() + (w2 == 0).sum())
        draws += int((w1 == 2).sum() + (w2 == 2).sum())
        if progress:
            progress(2 * deals)
    return a_wins, b_wins, draws


def bradley_terry(h2h: pd.DataFrame, bots: list[str], alpha: float = 0.05) -> pd.DataFrame:
    """Ratings (log-odds, the first bot fixed at 0) with Wald intervals; a draw is half a win."""
    X = np.zeros((len(h2h), len(bots) - 1))
    for k, r in enumerate(h2h.itertuples()):
        ia, ib = bots.index(r.a), bots.index(r.b)
        if ia > 0:
            X[k, ia - 1] += 1
        if ib > 0:
            X[k, ib - 1] -= 1
    y = (h2h["a_wins"] + 0.5 * h2h["draws"]) / h2h["games"]
    with warnings.catch_warnings():  # a saturated fit (one pair) has no residual scale
        warnings.simplefilter("ignore", RuntimeWarning)
        fit = sm.GLM(y.to_numpy(), X, family=sm.families.Binomial(),
                     var_weights=h2h["games"].to_numpy()).fit()
    ci = np.asarray(fit.conf_int(alpha))
    rows = [{"bot": bots[0], "rating": 0.0, "low": 0.0, "high": 0.0}]
    for j, bot in enumerate(bots[1:]):
        rows.append({"bot": bot, "rating": float(fit.params[j]), "low": float(ci[j, 0]),
                     "high": float(ci[j, 1])})
    return pd.DataFrame(rows)


def games_per_pair(games: int, n_armies: int) -> int:
    """The games a pair of bots plays for ``--games``: whole deals over every ordered army pair,
    each deal in both seat orders — ``games`` rounded up to a multiple of 2 × armies²."""
    unit = 2 * n_armies * n_armies
    return -(-games // unit) * unit


def check(specs: list[BotSpec], games: int) -> None:
    """One-line errors for a ladder that cannot rate anything."""
    labels = [s.label for s in specs]
    if len(specs) < 2:
        raise LabError(f"--bots: the ladder rates bots against each other and needs at least "
                       f"two (e.g. --bots random --bots heuristic); got {', '.join(labels)}")
    twice = sorted({x for x in labels if labels.count(x) > 1})
    if twice:
        raise LabError(f"--bots: {', '.join(twice)} is named twice; name each bot once")
    unit = games_per_pair(1, len(load_armies()))
    if games < unit:
        raise LabError(f"--games {games} is too few: each pair of bots plays every ordered pair "
                       f"of armies with the seats exchanged, so at least {unit} games (a "
                       f"multiple of {unit}; the default is {2 * unit})")


def run_ladder(bots=DEFAULT_BOTS, games: int = 324, rules: RuleSet | None = None,
               seed: int = 0, progress=None) -> LadderResult:
    specs = [parse_bot(b) for b in bots]
    labels = [s.label for s in specs]
    check(specs, games)
    rules = rules or RuleSet()
    batch = Batch()
    rows = []
    for (i, a), (j, b) in combinations(enumerate(specs), 2):
        aw, bw, d = play_pair(a, b, games, rules, seed + 1000 * i + j, batch, progress)
        rows.append({"a": labels[i], "b": labels[j], "games": aw + bw + d, "a_wins": aw,
                     "b_wins": bw, "draws": d})
    h2h = pd.DataFrame(rows)
    return LadderResult(bradley_terry(h2h, labels), h2h)
