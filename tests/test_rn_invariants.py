"""Random-play conformance for Rumble Nation (RN2–RN5): every invariant holds after set-up and
after every roll and decision of thousands of games per preset, every rule path occurs, the
checker itself catches each kind of corruption, and the batch's record columns agree with the
rules when recomputed independently in numpy."""

from __future__ import annotations

import numpy as np
import pytest

from lab.errors import LabError
from lab.games.rumble_nation import PRESETS, play_batch, seeds_for
from lab.games.rumble_nation import nb_layout as L
from lab.games.rumble_nation.nb_check import (
    INVARIANTS,
    K_DAIMYO,
    K_GAMES,
    K_PLACE,
    K_POWER_TIE,
    K_REINF,
    K_REROLL,
    K_SCORE_TIE,
    K_SET_ASIDE,
    K_SHORT,
    K_SMALL,
    N_K,
    check,
    play_random_checked,
)
from lab.games.rumble_nation.nb_core import setup

GAMES = 2000


def run_checked(preset: str, games: int, seed: int):
    rules = PRESETS[preset]
    c = rules.context()
    s = np.zeros(L.S_SIZE, np.int64)
    words = seeds_for(games, seed)
    errors = np.zeros(games, np.int64)
    kinds = np.zeros(N_K, np.int64)
    play_random_checked(s, c, words, np.zeros(L.NACT, np.int64), errors, kinds)
    failures = [(words[g].tolist(), INVARIANTS[int(errors[g])]) for g in np.flatnonzero(errors)]
    return rules, kinds, failures


def _assert_conformant(preset: str, games: int, seed: int):
    rules, kinds, failures = run_checked(preset, games, seed)
    assert not failures, f"{len(failures)} games broke an invariant, first: {failures[0]}"
    assert kinds[K_GAMES] == games
    # every rule path this preset allows occurs, and none it forbids
    for k in (K_REROLL, K_PLACE, K_SHORT, K_SET_ASIDE, K_REINF, K_POWER_TIE, K_SCORE_TIE):
        assert kinds[k] > 0, (preset, k)
    assert (kinds[K_DAIMYO] > 0) == rules.daimyo
    assert (kinds[K_SMALL] > 0) == rules.second_place


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_play_keeps_every_invariant(preset):
    _assert_conformant(preset, GAMES, seed=7)


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_play_keeps_every_invariant_50000(preset):
    _assert_conformant(preset, 50_000, seed=8)


# ------------------------------------------------------------------ the checker catches breakage
def _finished(preset="base_3p", seed=3):
    rules = PRESETS[preset]
    c = rules.context()
    s = np.zeros(L.S_SIZE, np.int64)
    kinds = np.zeros(N_K, np.int64)
    errors = np.zeros(1, np.int64)
    play_random_checked(s, c, seeds_for(1, seed), np.zeros(L.NACT, np.int64), errors, kinds)
    assert errors[0] == 0
    return s, c


def _seat(f, p):
    return L.S_P + f * L.MAXP + p


def _won(s, p):
    return next(t for t in range(L.NA) if s[L.S_LARGE + t] == p)


CORRUPTIONS = {
    "meeple conservation": lambda s: s.__setitem__(
        L.S_MEN + 5 * L.MAXP + 0, s[L.S_MEN + 5 * L.MAXP + 0] + 1
    ),
    "sword chips distinct and biggest first": lambda s: s.__setitem__(
        _seat(L.P_CHIP, 1), s[_seat(L.P_CHIP, 0)]
    ),
    "areas resolved in ascending order": lambda s: s.__setitem__(L.S_ORDER + 3, 9),
    "war: the large token to the highest power (ties: bigger chip)": lambda s: s.__setitem__(
        L.S_LARGE + _won(s, 0), 1 if s[L.S_SMALL + _won(s, 0)] != 1 else 2
    ),
    "reinforcements from won adjacent areas": lambda s: s.__setitem__(
        L.S_REINF + _won(s, 1) * L.MAXP + 1, s[L.S_REINF + _won(s, 1) * L.MAXP + 1] + 2
    ),
    "scores = sum of tokens": lambda s: s.__setitem__(
        _seat(L.P_SCORE, 2), s[_seat(L.P_SCORE, 2)] + 1
    ),
    "tokens taken once": lambda s: s.__setitem__(
        _seat(L.P_LARGE_N, 0), s[_seat(L.P_LARGE_N, 0)] + 1
    ),
}


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_checker_catches_a_broken_finished_game(name):
    s, c = _finished()
    assert check(s, c) == 0
    CORRUPTIONS[name](s)
    got = INVARIANTS[int(check(s, c))]
    # a corruption may trip an earlier invariant first; it must never pass unnoticed
    assert got != "", name
    assert INVARIANTS.index(got) <= INVARIANTS.index(name), (name, got)


def test_checker_catches_a_broken_placement_state():
    rules = PRESETS["base_2p"]
    c = rules.context()
    s = np.zeros(L.S_SIZE, np.int64)
    setup(s, c, seeds_for(1, 1)[0], -1)
    assert check(s, c) == 0
    s[L.S_DIE] = 4  # dice on the table while the roll is still due
    assert INVARIANTS[check(s, c)] == "dice on the table"
    setup(s, c, seeds_for(1, 1)[0], -1)
    s[_seat(L.P_STOCK, 0)] = 0  # empty stock without a chip
    assert check(s, c) != 0


# ------------------------------------------------------------------ the record columns
@pytest.mark.parametrize("preset", list(PRESETS))
def test_record_columns_agree_with_the_rules(preset):
    rules = PRESETS[preset]
    n = rules.players
    cols = play_batch(rules, ["random"] * n, seeds_for(GAMES, 11))
    scores = np.stack([cols[f"score_p{k}"] for k in range(1, n + 1)], 1).astype(int)
    chips = np.stack([cols[f"chip_p{k}"] for k in range(1, n + 1)], 1).astype(int)
    ranks = np.stack([cols[f"rank_p{k}"] for k in range(1, n + 1)], 1).astype(int)
    want = np.zeros_like(scores)
    areas = np.stack([cols[f"area_{v}"] for v in range(2, 13)], 1)
    assert (np.sort(areas, 1) == np.arange(11)).all()  # RN2: a deal of the 11 tokens
    for v in range(2, 13):
        large, present = cols[f"large_{v}"].astype(int), cols[f"present_{v}"]
        assert ((large == 0) == (present == 0)).all()  # set aside exactly when empty
        assert ((cols[f"power_{v}"] > 0) == (present > 0)).all()
        for k in range(1, n + 1):
            want[:, k - 1] += v * (large == k)
        if rules.second_place:
            small = cols[f"small_{v}"].astype(int)
            assert ((small > 0) == (present >= 2)).all()
            assert not ((small == large) & (small > 0)).any()
            for k in range(1, n + 1):
                want[:, k - 1] += (v // 2) * (small == k)
    assert (scores == want).all()  # RN5: score = the tokens taken
    assert (np.sort(chips, 1) == np.arange(1, n + 1)).all()  # distinct chips 1…N
    assert (np.sort(ranks, 1) == np.arange(1, n + 1)).all()
    key = scores * 10 + chips  # RN5: score, then the bigger chip
    assert (np.argmax(key, 1) + 1 == cols["winner"]).all()
    assert (ranks[np.arange(len(ranks)), cols["winner"] - 1] == 1).all()
    turns = sum(cols[f"turns_p{k}"].astype(int) for k in range(1, n + 1))
    rerolls = sum(cols[f"rerolls_p{k}"].astype(int) for k in range(1, n + 1))
    assert (turns == cols["turns"]).all() and (turns + rerolls == cols["decisions"]).all()
    assert (cols["rolls"] == cols["decisions"]).all()  # one roll per decision
    assert set(np.unique(cols["first"])) == set(range(1, n + 1))
    if rules.daimyo:
        assert all((cols[f"daimyo_p{k}"] >= 2).all() for k in range(1, n + 1))


def test_same_seed_words_same_games_and_first_seat_honoured():
    rules = PRESETS["base_4p"]
    words = seeds_for(300, 5)
    a = play_batch(rules, ["random", "heuristic", "random", "heuristic"], words)
    b = play_batch(rules, ["random", "heuristic", "random", "heuristic"], words)
    assert all((a[k] == b[k]).all() for k in a)
    c = play_batch(rules, ["random"] * 4, words, first_seat=2)
    assert (c["first"] == 3).all()
    assert (play_batch(rules, ["random"] * 4, words, first_seat="P3")["first"] == 3).all()
    with pytest.raises(LabError, match="seat 4 is not one of P1, P2, P3, P4"):
        play_batch(rules, ["random"] * 4, words, first_seat=4)


def test_zero_seed_words_still_give_varied_dice():
    # four zero words would make xoshiro return 0 for ever: every roll 1 1 1, every soldier in
    # the area of token 2; the batch repairs such words as seed_words does
    cols = play_batch(PRESETS["base_2p"], ["random"] * 2, np.zeros((3, 12), np.int64))
    assert sum(int(cols[f"present_{v}"][0]) for v in range(3, 13)) > 0
    assert len(set(cols["decisions"].tolist())) == 1  # the same words: the same game
