"""Tuning the heuristic's parameters by self-play with CMA-ES (the `tune` extra: ``cma``).

A candidate is a parameter set of the heuristic (``lab.games.daitenka.bots.personas.PARAMS``, the search ones
excepted); its fitness is its score (wins + half the draws, over games) against a fixed pool of
opponents on *paired deals*: every candidate of a generation plays the same deals (common random
numbers), each deal once from each seat, over every ordered army pair — so differences between
candidates are not deal luck. Each generation draws new deals, so the optimiser cannot fit the
luck of one set. The state is saved after every generation (``state``), and a run given the same
file resumes where it stopped. Nothing here is needed to *play* a tuned bot: the result ships as
the constants of the ``tuned`` persona.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lab.games.daitenka.bots.match import Batch, BotSpec, parse_bot
from lab.games.daitenka.bots.personas import PERSONAS
from lab.games.daitenka.cards.pool import load_armies, load_pool
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.nb_play import RES_WINNER
from lab.errors import LabError
from lab.games.daitenka.rules import RuleSet

# the tuned parameters: name → (lowest, highest) value; mulligan is 0/1
SPACE = {
    "wall_gain": (0, 2000),
    "wall_loss": (0, 2000),
    "card": (0, 200),
    "inf_reserve": (0, 1000),
    "tactic": (-1000, 2000),
    "miokuri": (-1500, 1000),
    "fire": (-1000, 2000),
    "mulligan": (0, 1),
    "return_min": (0, 13),
    "build": (-1000, 2000),
    "big": (-600, 600),
}
# opponents and the deals each gets per ordered army pair (each played from both seats): the
# three heuristic personas, and a small search so that the optimiser cannot win by exploiting
# the heuristic's blind spots alone (a passive bot that beats the personas loses to search)
DEFAULT_POOL = (
    ("balanced", 3),
    ("aggressive", 3),
    ("defensive", 3),
    ({"kind": "search", "simulations": 25}, 1),
)


def to_params(x: np.ndarray, start: dict) -> dict:
    """Parameters from a CMA-ES point: coordinate k moves parameter k from its start value by
    x[k] quarters of its range, clipped to the range and rounded."""
    out = {}
    for k, (name, (lo, hi)) in enumerate(SPACE.items()):
        v = start[name] + x[k] * (hi - lo) / 4.0
        out[name] = int(round(min(hi, max(lo, v))))
    return out


@dataclass
class Evaluator:
    """Scores parameter sets against the opponent pool on shared deals."""

    pool: tuple = DEFAULT_POOL
    scale: int = 1  # multiplies every opponent's deals
    rules: RuleSet = field(default_factory=RuleSet)

    def __post_init__(self):
        cards = load_pool()
        armies = load_armies(cards)
        self.contexts = [matchup_context(cards, self.rules, a, b) for a in armies for b in armies]
        self.opponents = [(parse_bot(p), deals * self.scale) for p, deals in self.pool]
        self.batch = Batch()

    @property
    def games(self) -> int:
        return sum(2 * deals * len(self.contexts) for _, deals in self.opponents)

    def scores(self, params: dict, seed: int) -> list[float]:
        """Share of points of the heuristic with ``params`` against each opponent of the pool
        (wins + half the draws; the deals come from ``seed``)."""
        me = BotSpec("heuristic", tuple(sorted(params.items())))
        rng = np.random.default_rng(seed)
        out = []
        for opp, deals in self.opponents:
            points = 0.0
            for c in self.contexts:
                seeds = rng.integers(1, 2**32, size=(deals, 12)).astype(np.int64)
                w1 = self.batch.play(c, seeds, me, opp)[0][:, RES_WINNER]
                w2 = self.batch.play(c, seeds, opp, me)[0][:, RES_WINNER]
                points += (
                    (w1 == 0).sum() + (w2 == 1).sum() + 0.5 * ((w1 == 2).sum() + (w2 == 2).sum())
                )
            out.append(points / (2 * deals * len(self.contexts)))
        return out

    def score(self, params: dict, seed: int) -> float:
        """The mean of ``scores``: every opponent weighs the same, whatever its deal count."""
        return float(np.mean(self.scores(params, seed)))


@dataclass
class RateEvaluator:
    """Scores parameter sets by how closely their self-play puts each army where a stronger tier
    does: for each deck set of ``targets`` (a TOML file, ``load_targets``), the heuristic with the
    candidate's parameters in both seats plays ``deals`` deals per ordered pair of different
    armies, and the score is minus the mean squared difference, in points², between its army win
    rates and the set's target rates, averaged over the sets. Every candidate of a generation
    plays the same deals; each generation draws new ones. The same interface as ``Evaluator``, so
    ``tune`` takes either."""

    targets: Path
    deals: int = 300

    def __post_init__(self):
        self.sets = load_targets(Path(self.targets))
        self.batch = Batch()

    @property
    def games(self) -> int:
        return sum(self.deals * len(s.contexts) for s in self.sets)

    def rates(self, params: dict | BotSpec, seed: int) -> list[np.ndarray]:
        """Each set's army win rates (game order, fractions) with the heuristic of ``params`` —
        or any bot — in both seats."""
        me = (
            params
            if isinstance(params, BotSpec)
            else BotSpec("heuristic", tuple(sorted(params.items())))
        )
        rng = np.random.default_rng(seed)
        out = []
        for s in self.sets:
            points = np.zeros(len(s.armies))
            for (a, b), ctx in s.contexts.items():
                seeds = rng.integers(1, 2**32, size=(self.deals, 12)).astype(np.int64)
                w = self.batch.play(ctx, seeds, me, me)[0][:, RES_WINNER]
                won = (w == 0).sum() + 0.5 * (w == 2).sum()
                points[a] += won
                points[b] += self.deals - won
            out.append(points / (2 * self.deals * (len(s.armies) - 1)))
        return out

    def errors(self, params: dict | BotSpec, seed: int) -> list[np.ndarray]:
        """Each set's rates minus its targets, in points."""
        return [100 * (r - s.rates) for r, s in zip(self.rates(params, seed), self.sets)]

    def score(self, params: dict, seed: int) -> float:
        return -float(np.mean([np.mean(e**2) for e in self.errors(params, seed)]))


@dataclass(frozen=True)
class TargetSet:
    name: str
    armies: tuple[str, ...]  # army keys, in the game's order
    rates: np.ndarray  # the target win rate of each army (fractions)
    contexts: dict  # (seat A's index, seat B's index) → the matchup's context


def load_targets(path: Path, rules: RuleSet | None = None) -> list[TargetSet]:
    """The deck sets and target rates of a targets file: ``[[set]]`` tables with ``name``,
    ``patch`` (a file of ``[[patch]]`` tables, relative to the targets file; none: the decks as
    written) and ``rates`` (army key → win rate, as a fraction, of every army)."""
    import tomllib

    from lab.games.daitenka.cards.patch import parse_patch

    rules = rules or RuleSet()
    cards = load_pool()
    decks = load_armies(cards)
    keys = tuple(d.key for d in decks)

    def read(file: Path, what: str) -> dict:
        try:
            return tomllib.loads(file.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise LabError(f"cannot read {what}: {e}", source=str(file)) from None

    data = read(path, "the targets")
    out = []
    for k, table in enumerate(data.get("set", [])):
        where = f"set[{k}]"
        rates = table.get("rates", {})
        if set(rates) != set(keys):
            raise LabError(
                f"{where}: rates must name every army ({', '.join(keys)}) once", source=str(path)
            )
        patch = None
        if table.get("patch"):
            file = path.parent / table["patch"]
            patches = read(file, f"{where}'s patch").get("patch")
            if not patches:
                raise LabError("no [[patch]] table: the targets' set names it", source=str(file))
            patch = parse_patch(patches[0], str(file), pool=cards)
        contexts = {}
        for i, a in enumerate(decks):
            for j, b in enumerate(decks):
                if i != j:
                    pool, da, db = (
                        patch.apply(((a.key, a), (b.key, b)), cards) if patch else (cards, a, b)
                    )
                    contexts[(i, j)] = matchup_context(pool, rules, da, db)
        name = table.get("name", where)
        out.append(TargetSet(name, keys, np.array([rates[a] for a in keys]), contexts))
    if not out:
        raise LabError("no [[set]] tables: nothing to match", source=str(path))
    return out


def tune(
    state: Path,
    generations: int = 30,
    popsize: int = 12,
    sigma: float = 0.5,
    seed: int = 0,
    start: str = "balanced",
    evaluator: Evaluator | None = None,
    report=print,
) -> dict:
    """Run (or resume) CMA-ES for ``generations`` generations in all; returns the best parameters
    found so far with their score. ``state`` is a pickle written after every generation."""
    try:
        import cma
    except ModuleNotFoundError:
        raise LabError("tuning needs the cma package: pip install 'daitenka-lab[tune]'") from None
    ev = evaluator or Evaluator()
    state = Path(state)
    if state.exists():
        saved = pickle.loads(state.read_bytes())
        es, history, begin = saved["es"], saved["history"], saved["start"]
        report(f"resuming {state} at generation {len(history)}")
    else:
        begin = dict(PERSONAS[start])
        es = cma.CMAEvolutionStrategy(
            np.zeros(len(SPACE)), sigma, {"popsize": popsize, "seed": seed + 1, "verbose": -9}
        )
        history = []
    while len(history) < generations:
        g = len(history)
        xs = es.ask()
        deal_seed = seed * 100_003 + g
        scores = [ev.score(to_params(x, begin), deal_seed) for x in xs]
        es.tell(xs, [-s for s in scores])
        mean = to_params(es.mean, begin)
        best = int(np.argmax(scores))
        history.append(
            {
                "generation": g,
                "best_score": scores[best],
                "median_score": float(np.median(scores)),
                "best": to_params(xs[best], begin),
                "mean": mean,
            }
        )
        state.write_bytes(pickle.dumps({"es": es, "history": history, "start": begin}))
        report(
            f"generation {g + 1}/{generations}: best {scores[best]:.3f}, median "
            f"{np.median(scores):.3f} over {ev.games} games each; mean {json.dumps(mean)}"
        )
    return {"params": history[-1]["mean"], "history": history}
