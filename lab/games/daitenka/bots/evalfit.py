"""Fitting the expert's position evaluation (``lab.games.daitenka.bots.nb_eval``) from self-play.

Games between balanced heuristics (the expert's playout policy), with a small share of random
moves so that the positions cover more than one line of play, over every ordered army pair of the
second edition; at the start of every leader turn after the first the features of seat A are
recorded, labelled with the game's result for seat A (win 1, draw ½, loss 0). Each row is also
used from seat B's side (features negated, label flipped), and a logistic regression without an
intercept (statsmodels' binomial GLM) gives ``nb_eval.WEIGHTS``. Games whose number is a multiple
of five are held out to report the fit's log-loss and accuracy. Nothing here is needed to play:
the weights ship as constants.

    python -m lab.games.daitenka.bots.evalfit [--games-per-pair 200] [--random-moves 0.05] [--seed 1]
"""

from __future__ import annotations

import argparse

import numpy as np

from lab.games.daitenka.bots.match import parse_bot
from lab.games.daitenka.bots.nb_eval import FEATURE_NAMES, N_FEAT, features
from lab.games.daitenka.bots.nb_heuristic import heuristic_pick
from lab.games.daitenka.cards.pool import load_armies, load_pool
from lab.games.daitenka.engine.context import matchup_context
from lab.jit import kernel
from lab.games.daitenka.engine.layout import (
    AW,
    G_PHASE,
    G_RNG,
    G_TURNS,
    G_WINNER,
    LW,
    MAXA,
    PH_LEADER_START,
    PH_OVER,
    S_SIZE,
)
from lab.games.daitenka.engine.nb_actions import WK_SIZE
from lab.games.daitenka.engine.nb_core import rand_below
from lab.games.daitenka.engine.nb_pick import random_pick
from lab.games.daitenka.engine.nb_play import setup
from lab.games.daitenka.engine.nb_resolve import apply, begin_turn
from lab.games.daitenka.rules import RuleSet


@kernel
def _collect(s, c, lg, acts, wk, seeds, bot, per_mille, f, X, y, gid, k, g0):
    """Play the games of ``seeds``; append seat A's features at each leader-turn start to X from
    row k on (and the game's number to gid, its result to y). Returns the next free row."""
    for g in range(seeds.shape[0]):
        setup(s, c, lg, seeds[g])
        start = k
        while s[G_PHASE] != PH_OVER:
            if s[G_PHASE] == PH_LEADER_START:
                if k < X.shape[0] and s[G_TURNS] > 0:
                    features(s, c, 0, f)
                    for j in range(f.shape[0]):
                        X[k, j] = f[j]
                    gid[k] = g0 + g
                    k += 1
                begin_turn(s, c, lg)
            if rand_below(s, G_RNG, 1000) < per_mille:
                random_pick(s, c, acts, wk)
            else:
                heuristic_pick(s, c, acts, wk, bot)
            apply(s, c, lg, acts[0])
        w = s[G_WINNER]
        for j in range(start, k):
            y[j] = 1.0 if w == 0 else (0.0 if w == 1 else 0.5)
    return k


def positions(games_per_pair: int, random_moves: float, seed: int):
    """(features, results, game numbers) of self-play positions over every ordered army pair."""
    pool = load_pool()
    armies = load_armies(pool)
    bot = parse_bot("heuristic").pack()
    s = np.zeros(S_SIZE, np.int64)
    lg = np.zeros((1, LW), np.int64)
    acts = np.zeros((MAXA, AW), np.int64)
    wk = np.zeros(WK_SIZE, np.int64)
    f = np.zeros(N_FEAT)
    cap = games_per_pair * len(armies) ** 2 * 60
    X, y, gid = np.zeros((cap, N_FEAT)), np.zeros(cap), np.zeros(cap, np.int64)
    rng = np.random.default_rng(seed)
    k = g0 = 0
    for a in armies:
        for b in armies:
            c = matchup_context(pool, RuleSet(), a, b)
            seeds = rng.integers(1, 2**32, size=(games_per_pair, 12)).astype(np.int64)
            k = _collect(
                s, c, lg, acts, wk, seeds, bot, int(random_moves * 1000), f, X, y, gid, k, g0
            )
            g0 += games_per_pair
    return X[:k], y[:k], gid[:k]


def fit(X: np.ndarray, y: np.ndarray, gid: np.ndarray) -> dict:
    """Weights of the logistic model (both seats' views of each row), and the held-out fit."""
    import statsmodels.api as sm

    XA = np.vstack([X, -X])
    yA = np.concatenate([y, 1 - y])
    held = np.concatenate([gid, gid]) % 5 == 0
    model = sm.GLM(yA[~held], XA[~held], family=sm.families.Binomial()).fit()
    p = model.predict(XA[held])
    yt = yA[held]
    logloss = float(-np.mean(yt * np.log(p) + (1 - yt) * np.log(1 - p)))
    accuracy = float(np.mean((p > 0.5) == (yt > 0.5)))
    walls_only = sm.GLM(yA[~held], XA[~held][:, :1], family=sm.families.Binomial()).fit()
    pw = walls_only.predict(XA[held][:, :1])
    return {
        "weights": [round(float(w), 5) for w in model.params],
        "se": [float(x) for x in model.bse],
        "rows": int(len(X)),
        "held_out_logloss": logloss,
        "held_out_accuracy": accuracy,
        "walls_only_logloss": float(-np.mean(yt * np.log(pw) + (1 - yt) * np.log(1 - pw))),
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games-per-pair", type=int, default=200)
    ap.add_argument("--random-moves", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    out = fit(*positions(a.games_per_pair, a.random_moves, a.seed))
    for name, w, se in zip(FEATURE_NAMES, out["weights"], out["se"]):
        print(f"{name:16s} {w:+.5f} ± {se:.5f}")
    print(
        f"{out['rows']} positions; held out: log-loss {out['held_out_logloss']:.4f} (walls "
        f"alone {out['walls_only_logloss']:.4f}), accuracy {out['held_out_accuracy']:.3f}"
    )
    print("WEIGHTS = (" + ", ".join(repr(w) for w in out["weights"]) + ")")
