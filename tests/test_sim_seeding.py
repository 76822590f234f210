"""Paired deals (architecture.md principle 5): the deal stream holds no variant, bot or seat
order, so the same deal index deals the same cards in every variant and bot tier, and a seat
swap gives each army the same shuffle; the play stream differs wherever the game does."""

from __future__ import annotations

import numpy as np
import pytest

from _support.sim_cases import records, write_config
from lab.games.daitenka.cards.pool import load_army
from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.rules import RuleSet
from lab.sim.config import load_experiment
from lab.games.daitenka.records import TOGGLE_TYPES
from lab.sim.runner import run
from lab.games.daitenka.seeds import game_seeds
from lab.sim.seeding import deal_key, play_key

PAIRED = """
name = "paired"
seed = 3
games = 6
armies = [["oda", "takeda"], ["uesugi", "oda"]]
tiers = ["random", ["heuristic", "random"]]
seat_swap = true
[grid]
walls = [6, 7]
hand_cap = [0, 7]
"""
ZONES = ("deck", "walls", "hand", "castle")


@pytest.fixture(scope="module")
def paired(tmp_path_factory):
    folder = tmp_path_factory.mktemp("paired")
    exp = load_experiment(write_config(folder, PAIRED))
    run(exp, folder / "out", jobs=1)
    games, cards = records(folder / "out")
    words = np.stack(games["seed_words"].to_numpy())
    return exp, games, cards, words


def initial(row, words) -> dict:
    """Each army's dealt zones at the start of a recorded game, rebuilt by the engine."""
    rules = RuleSet(**{k: row[k] for k in TOGGLE_TYPES})
    game = Game(rules, load_army(row["army_a"]), load_army(row["army_b"]), seed=words)
    return {
        row["army_a"]: {z: game.zone("A", z) for z in ZONES},
        row["army_b"]: {z: game.zone("B", z) for z in ZONES},
    }


def test_deal_words_are_shared_by_every_variant_and_tier_play_words_are_not(paired):
    exp, games, _, words = paired
    for (pair, deal), idx in games.groupby(
        [games[["army_a", "army_b"]].apply(lambda r: tuple(sorted(r)), axis=1), "deal"]
    ).groups.items():
        block = words[idx]
        assert len(block) == 4 * 2 * 2  # variants × tiers × seat orders
        # seat A's and seat B's deal words, per army: identical in every game of the deal
        by_army = {}
        for i, row in zip(idx, games.loc[idx].itertuples()):
            for army, w in ((row.army_a, words[i, 0:4]), (row.army_b, words[i, 4:8])):
                by_army.setdefault(army, set()).add(tuple(w))
        assert all(len(s) == 1 for s in by_army.values()), (pair, deal)
        assert len({tuple(w) for w in block[:, 8:12]}) == len(block)  # play words all differ


def test_the_same_deal_deals_the_same_cards_in_every_variant(paired):
    _, games, _, words = paired
    for _, group in games.groupby(["army_a", "army_b", "deal", "tier"]):
        states = {(r["walls"], r["hand_cap"]): initial(r, words[i]) for i, r in group.iterrows()}
        for walls in (6, 7):  # hand_cap does not touch set-up: the whole deal is the same
            assert states[(walls, 0)] == states[(walls, 7)]
        for army in states[(6, 0)]:  # six walls are the first six of seven
            six, seven = states[(6, 0)][army], states[(7, 0)][army]
            assert six["walls"] == seven["walls"][:6] and len(seven["walls"]) == 7


def test_recorded_opening_hands_agree_across_variants_and_tiers(paired):
    _, games, cards, _ = paired
    merged = cards.merge(
        games[["game_id", "walls", "deal", "swapped", "army_a", "army_b"]], on="game_id"
    )
    key = ["army_a", "army_b", "deal", "swapped", "walls", "player", "card_id"]
    spread = merged.groupby(key)["opening"].nunique()
    assert (spread == 1).all()
    assert merged["opening"].sum() > 0


def test_a_seat_swap_gives_each_army_the_same_shuffle(paired):
    _, games, _, words = paired
    rows = games[(games["variant"] == "second_edition") & (games["tier"] == "random-vs-random")]
    checked = 0
    for _, pair in rows.groupby(rows["game_id"] // 2):  # a deal's two seat orders
        assert list(pair["swapped"]) == [False, True]
        (i, a), (j, b) = pair.iterrows()
        assert (a["army_a"], a["army_b"]) == (b["army_b"], b["army_a"])
        first, second = initial(a, words[i]), initial(b, words[j])
        assert first == second  # per army: same deck order, walls, hand and castle
        assert first[a["army_a"]] != first[a["army_b"]]
        checked += 1
    assert checked == 2 * 6


def test_keys_hold_what_principle_5_says():
    pair = ("oda", "takeda")
    seed, deal = deal_key(9, pair)
    assert seed == 9 and len(deal) == 3  # stream, the two armies: no variant, bot or seat
    a = play_key(9, pair, "second_edition", "random", "random", 0)
    assert a[1][1:3] == deal[1:]  # the play key extends the deal key
    others = [
        play_key(9, pair, "sekigahara_trial", "random", "random", 0),
        play_key(9, pair, "second_edition", "heuristic", "random", 0),
        play_key(9, pair, "second_edition", "random", "random", 1),
    ]
    assert len({a} | set(others)) == 4


def seeds(slot, lo, hi, variant="second_edition"):
    return game_seeds(5, ("oda", "seigun"), slot, variant, "random", "random", lo, hi)


def test_game_seeds_do_not_depend_on_how_deals_are_grouped():
    whole = seeds(1, 0, 10)
    assert np.array_equal(whole, np.concatenate([seeds(1, 0, 3), seeds(1, 3, 10)]))
    assert np.array_equal(whole[7], seeds(1, 7, 8)[0])
    assert len({tuple(w) for w in whole}) == 10 and (whole >= 0).all() and (whole < 2**32).all()


def test_seat_order_exchanges_the_deal_words_and_changes_the_play_words():
    whole, swapped = seeds(1, 0, 10), seeds(0, 0, 10)
    assert np.array_equal(whole[:, 0:4], swapped[:, 4:8])
    assert np.array_equal(whole[:, 4:8], swapped[:, 0:4])
    assert not np.array_equal(whole[:, 8:], swapped[:, 8:])
    other = seeds(1, 0, 10, "sekigahara_trial")
    assert np.array_equal(whole[:, :8], other[:, :8]) and not np.array_equal(whole, other)
