"""Training the strong bot (``lab.bots.nb_strong``): the expert's choices, distilled by DAgger.

Round 0 plays with the heuristic's choice (weights: 1 on ``heuristic_best``, 0 elsewhere); each
round plays ``--games-per-pair`` games of every ordered army pair of the second edition with the
current weights in both seats, and at every decision with more than one legal action (and at
most ``--max-actions``) records the features of every legal action and the teacher's choice —
the expert at ``--simulations`` iterations, which sees the same position and nothing more. The
learner's own move is then played, so later rounds visit the positions the student reaches
(DAgger: Ross et al. 2011). After each round a conditional logit (softmax over one decision's
legal actions, linear in the features, a small ridge penalty) is fitted to every position so
far by L-BFGS; its weights ×10⁵, rounded, are the next round's player. Games whose number is a
multiple of five are held out to report how often the fit agrees with the teacher, beside how
often the heuristic does. Seeds are drawn per round and pair, so the result is the same for any
number of worker processes.

    python -m lab.games.daitenka.bots.distill [--games-per-pair 8] [--rounds 3] [--simulations 1000]
                               [--seed 1] [--jobs 2] [--out lab/games/daitenka/bots/data/strong_weights.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from lab.games.daitenka.bots.match import parse_bot
from lab.games.daitenka.bots.nb_buffer import SB_SIZE
from lab.games.daitenka.bots import nb_buffer as B
from lab.games.daitenka.bots.nb_expert import ROOT, action_key, expert_choose, find_child, nd
from lab.games.daitenka.bots.nb_params import BOT_STRONG, BP_ALT, BP_KIND, BP_W, N_W
from lab.games.daitenka.bots.nb_strong import FEATURE_NAMES, SCALE, fill_features, strong_choose
from lab.jit import kernel
from lab.games.daitenka.engine.layout import (
    AW,
    G_PHASE,
    G_TO_MOVE,
    LW,
    MAXA,
    PH_LEADER_START,
    PH_OVER,
    S_SIZE,
)
from lab.games.daitenka.engine.nb_actions import WK_SIZE, legal_actions
from lab.games.daitenka.engine.nb_play import setup
from lab.games.daitenka.engine.nb_resolve import apply, begin_turn

DATA = Path(__file__).parent / "data"
DEFAULTS = {
    "games_per_pair": 8,
    "rounds": 3,
    "simulations": 1000,
    "seed": 1,
    "max_actions": 400,
    "ridge": 0.001,
    "soft": 0.5,
}
# the test's reduced run (tests/test_distill.py): its weights ship beside the full ones
SMALL = {
    "games_per_pair": 1,
    "rounds": 2,
    "simulations": 40,
    "seed": 1,
    "max_actions": 400,
    "ridge": 0.001,
    "soft": 0.5,
}


@kernel
def _collect(
    s,
    c,
    lg,
    acts,
    wk,
    sb,
    sacts,
    seeds,
    learner,
    teacher,
    max_actions,
    X,
    starts,
    count,
    label,
    game,
    visits,
):
    """Play the games of ``seeds`` with ``learner`` in both seats; at each decision with 2…
    ``max_actions`` legal actions append their features to X, the teacher's choice to label
    and its root visits of each action to ``visits``. Returns (rows, decisions) written."""
    row = 0
    d = 0
    for g in range(seeds.shape[0]):
        setup(s, c, lg, seeds[g])
        while s[G_PHASE] != PH_OVER:
            if s[G_PHASE] == PH_LEADER_START:
                begin_turn(s, c, lg)
            n = legal_actions(s, c, acts, wk)
            if n == 1:
                apply(s, c, lg, acts[0])
                continue
            if n <= max_actions and row + n <= X.shape[0] and d < label.shape[0]:
                fill_features(s, c, acts, n, learner, sb, X, row)
                starts[d] = row
                count[d] = n
                game[d] = g
                label[d] = expert_choose(s, c, lg, acts, n, wk, teacher, sb, sacts)
                p = s[G_TO_MOVE]
                for k in range(n):
                    child = find_child(sb, ROOT, action_key(acts[k], p))
                    visits[row + k] = sb[nd(child, B.N_VISITS)] if child >= 0 else 0
                row += n
                d += 1
            apply(s, c, lg, acts[strong_choose(s, c, lg, acts, n, wk, learner, sb, sacts)])
    return row, d


def _learner(weights) -> np.ndarray:
    bot = parse_bot("heuristic").pack()
    bot[BP_KIND] = BOT_STRONG
    bot[BP_W : BP_W + N_W] = weights
    bot[BP_ALT : BP_ALT + BP_W] = parse_bot("tuned").pack()[:BP_W]
    return bot


def _chunk(
    army_a: str, army_b: str, seeds: np.ndarray, weights, simulations: int, max_actions: int
):
    """The labelled decisions of one pair's games: (features, first row, actions, label, game)."""
    from lab.games.daitenka.cards.pool import load_armies, load_pool
    from lab.games.daitenka.engine.context import matchup_context
    from lab.games.daitenka.rules import RuleSet

    pool = load_pool()
    armies = {a.name: a for a in load_armies(pool)}
    c = matchup_context(pool, RuleSet(), armies[army_a], armies[army_b])
    teacher = parse_bot({"kind": "expert", "simulations": simulations}).pack()
    n_dec = len(seeds) * 300
    X = np.zeros((len(seeds) * 8000, N_W))
    visits = np.zeros(len(X), np.int64)
    starts, count, label, game = (np.zeros(n_dec, np.int64) for _ in range(4))
    rows, d = _collect(
        np.zeros(S_SIZE, np.int64),
        c,
        np.zeros((1, LW), np.int64),
        np.zeros((MAXA, AW), np.int64),
        np.zeros(WK_SIZE, np.int64),
        np.zeros(SB_SIZE, np.int64),
        np.zeros((MAXA, AW), np.int64),
        np.ascontiguousarray(seeds, dtype=np.int64),
        _learner(weights),
        teacher,
        max_actions,
        X,
        starts,
        count,
        label,
        game,
        visits,
    )
    return (
        X[:rows].copy(),
        starts[:d],
        count[:d].copy(),
        label[:d].copy(),
        game[:d].copy(),
        visits[:rows].copy(),
    )


class Data:
    """Labelled decisions, appended chunk by chunk: features of every legal action (X), each
    decision's first row and number of actions, the teacher's choice, a global game number, and
    the teacher's root visits of every action."""

    def __init__(self):
        self.X, self.first, self.count, self.label, self.game, self.visits = [], [], [], [], [], []
        self.rows = 0
        self.games = 0

    def add(self, chunk, games: int):
        X, starts, count, label, game, visits = chunk
        self.visits.append(visits)
        self.X.append(X)
        self.first.append(starts + self.rows)
        self.count.append(count)
        self.label.append(label)
        self.game.append(game + self.games)
        self.rows += len(X)
        self.games += games

    def arrays(self):
        return (
            np.concatenate(self.X),
            np.concatenate(self.first),
            np.concatenate(self.count),
            np.concatenate(self.label),
            np.concatenate(self.game),
            np.concatenate(self.visits),
        )


def targets(first, count, label, visits, soft: float) -> np.ndarray:
    """Each action's share of the teacher's vote in its decision: ``soft`` of it spread as the
    root visits are, the rest on the teacher's choice (soft = 0: the choice alone). Visits tell
    a near tie from a clear best, so a blunder costs the fit more than a coin flip."""
    t = np.zeros(len(visits))
    t[first + label] = 1.0 - soft
    if soft > 0.0:
        tot = np.add.reduceat(visits.astype(float), first)
        share = visits / np.repeat(np.maximum(tot, 1.0), count)
        t += soft * share
        # a decision the search never expanded: its choice takes the whole vote
        t[(first + label)[tot == 0]] += soft
    return t


def _loss(w, X, first, count, target, ridge):
    """Mean cross-entropy of the teacher's vote (``targets``) under the softmax policy, plus
    the ridge penalty, and its gradient."""
    z = X @ w
    zmax = np.maximum.reduceat(z, first)
    e = np.exp(z - np.repeat(zmax, count))
    tot = np.add.reduceat(e, first)
    p = e / np.repeat(tot, count)
    n = len(first)
    logp = z - np.repeat(zmax + np.log(tot), count)
    nll = -float(target @ logp) / n + 0.5 * ridge * float(w @ w)
    grad = (X.T @ (p - target)) / n + ridge * w
    return nll, grad


def _take(X, first, count, keep, *per_row):
    """The decisions where ``keep`` holds, with their rows renumbered (and ``per_row`` arrays
    taken along)."""
    rows = np.concatenate([np.arange(f, f + k) for f, k in zip(first[keep], count[keep])])
    c = count[keep]
    starts = np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.int64)
    return (X[rows], starts, c) + tuple(a[rows] for a in per_row)


def agreement(weights, X, first, count, label) -> float:
    """How often the policy with these weights (×10⁵) takes the teacher's choice (the first best
    row, as ``strong_choose`` does)."""
    w = np.asarray(weights, float) / SCALE
    z = X @ w
    hits = 0
    for f, k, lab in zip(first, count, label):
        hits += int(np.argmax(z[f : f + k])) == lab
    return hits / max(1, len(first))


def fit(X, first, count, label, game, visits, ridge: float, soft: float) -> dict:
    """The conditional logit's weights ×10⁵ (fitted on the games not held out) and how often the
    fit and the heuristic agree with the teacher on the held-out games."""
    from scipy.optimize import minimize

    held = game % 5 == 0
    Xt, ft, ct, vt = _take(X, first, count, ~held, visits)
    lt = targets(ft, ct, label[~held], vt, soft)
    w0 = np.zeros(N_W)
    w0[0] = 1.0
    res = minimize(
        _loss,
        w0,
        args=(Xt, ft, ct, lt, ridge),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 500, "gtol": 1e-7},
    )
    weights = [round(float(x) * SCALE) for x in res.x]
    Xh, fh, ch = _take(X, first, count, held)
    heuristic = np.zeros(N_W, np.int64)
    heuristic[0] = int(SCALE)
    return {
        "weights": weights,
        "positions": len(first),
        "rows": len(X),
        "train_loss": float(res.fun),
        "held_out_agreement": agreement(weights, Xh, fh, ch, label[held]),
        "held_out_heuristic_agreement": agreement(heuristic, Xh, fh, ch, label[held]),
    }


def train(
    games_per_pair: int,
    rounds: int,
    simulations: int,
    seed: int,
    max_actions: int,
    ridge: float,
    soft: float = 0.0,
    jobs: int = 2,
    progress=None,
) -> dict:
    """The DAgger rounds; returns the last fit with the per-round record."""
    from joblib import Parallel, delayed

    from lab.games.daitenka.cards.pool import load_armies, load_pool

    names = [a.name for a in load_armies(load_pool())]
    pairs = [(a, b) for a in names for b in names]
    weights = [0] * N_W
    weights[0] = int(SCALE)
    # compile once here, so that the workers load the kernels from the cache
    _chunk(*pairs[0], np.zeros((0, 12), np.int64), weights, simulations, max_actions)
    data = Data()
    history = []
    out = {}
    for r in range(rounds):
        rng = np.random.default_rng([seed, r])
        seeds = [rng.integers(1, 2**32, size=(games_per_pair, 12)).astype(np.int64) for _ in pairs]
        t0 = time.perf_counter()
        chunks = Parallel(n_jobs=jobs)(
            delayed(_chunk)(a, b, sd, weights, simulations, max_actions)
            for (a, b), sd in zip(pairs, seeds)
        )
        for ch in chunks:
            data.add(ch, games_per_pair)
        out = fit(*data.arrays(), ridge, soft)
        history.append(
            {
                "round": r,
                "games": data.games,
                "positions": out["positions"],
                "held_out_agreement": round(out["held_out_agreement"], 4),
                "held_out_heuristic_agreement": round(out["held_out_heuristic_agreement"], 4),
            }
        )
        if progress:
            progress(
                f"round {r}: {data.games} games, {out['positions']} positions, "
                f"{out['rows']} rows; held out: fit agrees with the teacher "
                f"{out['held_out_agreement']:.3f}, the heuristic "
                f"{out['held_out_heuristic_agreement']:.3f} "
                f"({time.perf_counter() - t0:.0f} s)"
            )
        weights = out["weights"]
    out["rounds"] = history
    return out


def command(args: dict) -> str:
    flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in args.items())
    return f"python -m lab.games.daitenka.bots.distill {flags}"


def document(args: dict, out: dict) -> dict:
    """The weights file: the command that wrote it, the features, the weights, the fit."""
    return {
        "command": command(args),
        "args": args,
        "features": list(FEATURE_NAMES),
        "weights": out["weights"],
        "positions": out["positions"],
        "rows": out["rows"],
        "held_out_agreement": round(out["held_out_agreement"], 4),
        "held_out_heuristic_agreement": round(out["held_out_heuristic_agreement"], 4),
        "rounds": out["rounds"],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m lab.games.daitenka.bots.distill",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for k, v in DEFAULTS.items():
        ap.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (the result is the same)")
    ap.add_argument(
        "--small",
        action="store_true",
        help="the test's reduced run, written to strong_weights_small.json",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where to write the weights (default: lab/games/daitenka/bots/data/strong_weights.json)",
    )
    a = ap.parse_args(argv)
    args = dict(SMALL) if a.small else {k: getattr(a, k) for k in DEFAULTS}
    out_path = a.out or DATA / ("strong_weights_small.json" if a.small else "strong_weights.json")
    t0 = time.perf_counter()
    # run as ``python -m`` this file is __main__, whose kernels the worker processes would
    # receive by value and compile afresh; the imported module's come from the numba cache
    from lab.games.daitenka.bots.distill import train

    out = train(**args, jobs=a.jobs, progress=lambda m: print(m, file=sys.stderr, flush=True))
    doc = document(args, out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(
        f"{out['positions']} positions ({out['rows']} action rows) in "
        f"{time.perf_counter() - t0:.0f} s; weights written to {out_path}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
