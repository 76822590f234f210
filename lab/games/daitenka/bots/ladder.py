"""The bot ladder: every pair of bots over every ordered pair of armies, each deal played twice
with the seats exchanged, then Bradley–Terry ratings with 95% intervals and a head-to-head table.

It plays through the compiled match loop (``lab.games.daitenka.bots.match``) and fits the ratings with a
binomial GLM (statsmodels); it writes nothing.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import stats

from lab.games.daitenka.bots.match import Batch, BotSpec, parse_bot
from lab.games.daitenka.cards.pool import load_armies, load_pool
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.nb_play import RES_WINNER
from lab.errors import LabError
from lab.games.daitenka.rules import RuleSet

# the default ladder: every tier a designer can name; the expert pairs take most of its time
# (about ten minutes on one quiet core at 324 games a pair)
DEFAULT_BOTS = ("random", "heuristic", "tuned", "strong", "search", "expert")
ELO = 400 / np.log(10)  # Elo points per unit of log-odds


@dataclass
class LadderResult:
    ratings: pd.DataFrame  # bot, rating, low, high (log-odds against the first bot)
    head_to_head: pd.DataFrame  # a, b, games, a_wins, b_wins, draws
    gaps: pd.DataFrame | None = None  # bot, below, gap, low, high: each bot over the next weaker

    def matrix(self) -> pd.DataFrame:
        """Score (wins + half the draws) of the row bot against the column bot, strongest first."""
        order = list(self.ratings.sort_values("rating", ascending=False).bot)
        m = pd.DataFrame(np.nan, index=order, columns=order)
        for r in self.head_to_head.itertuples():
            score = (r.a_wins + 0.5 * r.draws) / r.games
            m.loc[r.a, r.b] = score
            m.loc[r.b, r.a] = 1 - score
        return m

    def as_json(self) -> dict:
        return {
            "ratings": {
                r.bot: {"rating": r.rating, "low": r.low, "high": r.high}
                for r in self.ratings.itertuples()
            },
            "head_to_head": [
                {
                    "a": r.a,
                    "b": r.b,
                    "games": int(r.games),
                    "a_wins": int(r.a_wins),
                    "draws": int(r.draws),
                }
                for r in self.head_to_head.itertuples()
            ],
            "gaps": []
            if self.gaps is None
            else [
                {"bot": r.bot, "below": r.below, "gap": r.gap, "low": r.low, "high": r.high}
                for r in self.gaps.itertuples()
            ],
        }


def _winners(
    a: BotSpec, b: BotSpec, games: int, rules: RuleSet, seed: int, batch: Batch | None, progress
) -> tuple[np.ndarray, np.ndarray]:
    """Winners (0 A, 1 B, 2 draw) of each deal with a in seat A, and again with a in seat B:
    about ``games`` games over deals spread over all ordered army pairs."""
    pool = load_pool()
    armies = load_armies(pool)
    batch = batch or Batch()
    pairs = [(x, y) for x in armies for y in armies]
    deals = games_per_pair(games, len(armies)) // (2 * len(pairs))
    rng = np.random.default_rng(seed)
    first, second = [], []
    for x, y in pairs:
        c = matchup_context(pool, rules, x, y)
        seeds = rng.integers(1, 2**32, size=(deals, 12)).astype(np.int64)
        first.append(batch.play(c, seeds, a, b)[0][:, RES_WINNER])
        second.append(batch.play(c, seeds, b, a)[0][:, RES_WINNER])
        if progress:
            progress(2 * deals)
    return np.concatenate(first), np.concatenate(second)


def play_pair(
    a: BotSpec,
    b: BotSpec,
    games: int,
    rules: RuleSet,
    seed: int,
    batch: Batch | None = None,
    progress=None,
) -> tuple[int, int, int]:
    """(a wins, b wins, draws): every deal played with a in seat A and again in seat B."""
    w1, w2 = _winners(a, b, games, rules, seed, batch, progress)
    draws = int((w1 == 2).sum() + (w2 == 2).sum())
    a_wins = int((w1 == 0).sum() + (w2 == 1).sum())
    return a_wins, 2 * len(w1) - a_wins - draws, draws


def deal_points(
    a: BotSpec,
    b: BotSpec,
    games: int,
    rules: RuleSet,
    seed: int,
    batch: Batch | None = None,
    progress=None,
) -> np.ndarray:
    """a's points on each deal of ``play_pair`` (0–2: a win 1, a draw ½, from each seat); an
    interval over these respects the pairing (it is clustered by deal)."""
    w1, w2 = _winners(a, b, games, rules, seed, batch, progress)
    return (w1 == 0).astype(float) + (w2 == 1) + 0.5 * (w1 == 2) + 0.5 * (w2 == 2)


def _fit(h2h: pd.DataFrame, bots: list[str]):
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
        return sm.GLM(
            y.to_numpy(), X, family=sm.families.Binomial(), var_weights=h2h["games"].to_numpy()
        ).fit()


def bradley_terry(h2h: pd.DataFrame, bots: list[str], alpha: float = 0.05) -> pd.DataFrame:
    """Ratings (log-odds, the first bot fixed at 0) with Wald intervals; a draw is half a win."""
    fit = _fit(h2h, bots)
    ci = np.asarray(fit.conf_int(alpha))
    rows = [{"bot": bots[0], "rating": 0.0, "low": 0.0, "high": 0.0}]
    for j, bot in enumerate(bots[1:]):
        rows.append(
            {
                "bot": bot,
                "rating": float(fit.params[j]),
                "low": float(ci[j, 0]),
                "high": float(ci[j, 1]),
            }
        )
    return pd.DataFrame(rows)


def rating_gaps(h2h: pd.DataFrame, bots: list[str], alpha: float = 0.05) -> pd.DataFrame:
    """Each bot's rating minus the next weaker bot's, with a Wald interval from the fit's
    covariance (so "separated" means this interval excludes 0, not that two intervals miss)."""
    fit = _fit(h2h, bots)
    theta = np.concatenate([[0.0], np.asarray(fit.params)])
    cov = np.zeros((len(bots), len(bots)))
    cov[1:, 1:] = np.asarray(fit.cov_params())
    z = stats.norm.ppf(1 - alpha / 2)
    order = np.argsort(-theta, kind="stable")
    rows = []
    for hi, lo in zip(order[:-1], order[1:]):
        gap = theta[hi] - theta[lo]
        se = np.sqrt(max(cov[hi, hi] + cov[lo, lo] - 2 * cov[hi, lo], 0.0))
        rows.append(
            {
                "bot": bots[hi],
                "below": bots[lo],
                "gap": gap,
                "low": gap - z * se,
                "high": gap + z * se,
            }
        )
    return pd.DataFrame(rows)


def render(result: LadderResult, console) -> None:
    """Print the ratings (strongest first, with Elo and the gap to the next bot) and the
    head-to-head matrix as rich tables; short bot names keep five bots on one screen."""
    from rich.table import Table

    first = result.ratings.bot[0]
    gaps = {} if result.gaps is None else {r.bot: r for r in result.gaps.itertuples()}
    table = Table(
        title=f"bot ratings: log-odds vs {first}, 95% intervals",
        title_justify="left",
        caption=f"Bradley–Terry fit; Elo = {ELO:.0f} × log-odds; separated: the lead "
        "over the next bot has an interval above 0",
        caption_justify="left",
    )
    for col in ("#", "bot", "rating", "95% interval", "Elo", "over next bot", "separated"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for k, r in enumerate(result.ratings.sort_values("rating", ascending=False).itertuples(), 1):
        g = gaps.get(r.bot)
        over = f"{g.gap:+.2f} [{g.low:+.2f}, {g.high:+.2f}]" if g is not None else ""
        sep = ("yes" if g.low > 0 else "no") if g is not None else ""
        interval = "reference" if r.bot == first else f"[{r.low:+.2f}, {r.high:+.2f}]"
        table.add_row(
            str(k), r.bot, f"{r.rating:+.2f}", interval, f"{ELO * r.rating:+.0f}", over, sep
        )
    console.print(table)
    m = result.matrix()
    games = int(result.head_to_head.games.max()) if len(result.head_to_head) else 0
    h2h = Table(
        title="head to head: the row bot's score against the column bot",
        title_justify="left",
        caption=f"wins + ½ draws, {games} games a pair",
        caption_justify="left",
    )
    h2h.add_column("")
    for k, b in enumerate(m.columns, 1):
        h2h.add_column(f"{k} {b}", justify="right")
    for k, b in enumerate(m.index, 1):
        h2h.add_row(f"{k} {b}", *("—" if a == b else f"{m.loc[b, a]:.1%}" for a in m.columns))
    console.print(h2h)


def games_per_pair(games: int, n_armies: int) -> int:
    """The games a pair of bots plays for ``--games``: whole deals over every ordered army pair,
    each deal in both seat orders — ``games`` rounded up to a multiple of 2 × armies²."""
    unit = 2 * n_armies * n_armies
    return -(-games // unit) * unit


def check(specs: list[BotSpec], games: int) -> None:
    """One-line errors for a ladder that cannot rate anything."""
    labels = [s.label for s in specs]
    if len(specs) < 2:
        raise LabError(
            f"--bots: the ladder rates bots against each other and needs at least "
            f"two (e.g. --bots random --bots heuristic); got {', '.join(labels)}"
        )
    twice = sorted({x for x in labels if labels.count(x) > 1})
    if twice:
        raise LabError(f"--bots: {', '.join(twice)} is named twice; name each bot once")
    if games < 1:  # fewer than a whole round is rounded up (games_per_pair), not refused
        unit = games_per_pair(1, len(load_armies()))
        raise LabError(
            f"--games {games} is not allowed; allowed values: whole numbers ≥ 1 "
            f"(rounded up to a multiple of {unit}: each pair of bots plays every "
            f"ordered pair of armies with the seats exchanged; the default is "
            f"{2 * unit})"
        )


def run_ladder(
    bots=DEFAULT_BOTS, games: int = 324, rules: RuleSet | None = None, seed: int = 0, progress=None
) -> LadderResult:
    specs = [parse_bot(b) for b in bots]
    check(specs, games)
    labels = [s.short for s in specs]
    rules = rules or RuleSet()
    batch = Batch()
    rows = []
    for (i, a), (j, b) in combinations(enumerate(specs), 2):
        aw, bw, d = play_pair(a, b, games, rules, seed + 1000 * i + j, batch, progress)
        rows.append(
            {
                "a": labels[i],
                "b": labels[j],
                "games": aw + bw + d,
                "a_wins": aw,
                "b_wins": bw,
                "draws": d,
            }
        )
    h2h = pd.DataFrame(rows)
    return LadderResult(bradley_terry(h2h, labels), h2h, rating_gaps(h2h, labels))
