"""The Python API (lab.games.daitenka.engine.api): the step grammar round trip, illegal steps, observations
(rules.md R1 visibility), the event log, whole random games for every matchup and preset, the
decision counter and determinism."""

from __future__ import annotations

import random
import re
from itertools import product

import numpy as np
import pytest

from lab.games.daitenka.cards.pool import ARMIES, load_pool
from lab.games.daitenka.engine.api import Action, Game, IllegalAction, play_random_game
from lab.games.daitenka.engine.layout import (
    END_NAMES,
    G_ERROR,
    G_LOG_N,
    G_LOG_ON,
    G_PHASE,
    PH_MULLIGAN,
)
from lab.games.daitenka.engine.text import parse_step, row_to_step
from lab.errors import LabError
from lab.games.daitenka.rules import PRESETS, RuleSet

SEATS = ("A", "B")
END_REASONS = {n for n in END_NAMES if n}
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def pool():
    return load_pool()


def walls(card="足軽1", n=7):
    return [card] * n


def position(pool, zones, first="A", rules=None, log=False, seed=0) -> Game:
    return Game.from_position(rules or RuleSet(), zones, first, seed=seed, pool=pool, log=log)


def random_walk(g: Game, rng: random.Random, limit=2000):
    """Yield (game, legal actions) before each decision, then play a random one."""
    for _ in range(limit):
        if g.is_over:
            return
        acts = g.legal_actions()
        yield g, acts
        g.step(rng.randrange(len(acts)))


# ------------------------------------------------------------------ the step grammar

WALKS = [
    ("second_edition", "oda", "seigun", 1),
    ("second_edition", "tougun", "uesugi", 2),
    ("legacy_testlab", "houjou", "takeda", 3),
    ("legacy_testlab", "honganji", "saika", 4),
    ("sekigahara_trial", "mouri", "houjou", 5),
    ("legacy_testlab", "tougun", "oda", 6),
]


def test_every_legal_text_parses_back_and_steps_the_same_row(pool):
    """Every legal action's text parses back to that action, the texts are distinct, and
    step(text), step(index) and step(row) reach exactly the state step(action) reaches."""
    verbs = set()
    sample = random.Random(99)
    for preset, a, b, seed in WALKS:
        g = Game(preset, a, b, seed=seed, pool=pool)
        for game, acts in random_walk(g, random.Random(seed)):
            texts = [x.text for x in acts]
            assert len(set(texts)) == len(texts), texts
            seat = SEATS.index(game.to_move)
            chosen = acts if len(acts) <= 25 else sample.sample(acts, 25)
            for act in chosen:
                assert isinstance(act, Action) and str(act) == act.text
                assert act.text.startswith(game.to_move + " ")
                assert parse_step(act.text).key() == row_to_step(act.row, seat, game.names).key()
                verbs.add(act.text.split()[1])
                ref = game.copy()
                ref.step(act)
                for how in (act.text, acts.index(act), act.row):
                    other = game.copy()
                    other.step(how)
                    assert np.array_equal(other.s, ref.s), (act.text, how)
    # the walks exercised the grammar well beyond plain leads
    assert {
        "lead",
        "answer",
        "pass",
        "miokuri",
        "return",
        "tactic",
        "build",
        "siege",
        "keep",
        "mulligan",
        "logistics",
    } <= verbs, verbs


def test_legal_texts_cover_kuruma_and_fire_tokens(pool):
    """`+車懸り` and `fire` steps round-trip too (R9 車懸り, R10 fire)."""
    g = position(
        pool,
        {
            "A": {"hand": ["鉄砲足軽", "車懸り", "足軽5"], "walls": walls(), "deck": ["足軽2"]},
            "B": {"hand": ["足軽3", "足軽7"], "walls": walls(), "deck": ["足軽2"]},
        },
    )
    texts = {a.text for a in g.legal_actions()}
    assert "A lead 足軽5 +車懸り" in texts
    ref = g.copy()
    ref.step([a for a in g.legal_actions() if a.text == "A lead 足軽5 +車懸り"][0])
    g.step("A lead 足軽5 +車懸り")
    assert np.array_equal(g.s, ref.s)
    assert g.field()["top_kurumagakari"] and g.field()["top"] == ["足軽5"]
    h = position(
        pool,
        {
            "A": {"hand": ["足軽3"], "walls": walls(), "deck": ["足軽2"]},
            "B": {"hand": ["鉄砲足軽", "足軽6"], "walls": walls(), "deck": ["足軽2"]},
        },
    )
    h.step("A lead 足軽3")
    texts = {a.text for a in h.legal_actions()}
    assert {"B answer 鉄砲足軽", "B answer 鉄砲足軽 fire"} <= texts
    ref = h.copy()
    ref.step([a for a in h.legal_actions() if a.text == "B answer 鉄砲足軽 fire"][0])
    h.step("B answer 鉄砲足軽 fire")
    assert np.array_equal(h.s, ref.s)
    assert h.zone("B", "camp_down") == {"鉄砲足軽": 1}  # R10: the firer rests in camp


@pytest.mark.parametrize(
    "written", ["足軽5,足軽3,足軽4", "足軽4,足軽5,足軽3", "足軽3、足軽5、足軽4"]
)
def test_set_written_in_another_order_is_accepted_and_keeps_that_order(pool, written):
    """S6: the legal list names each set once (card-data order), but a step may list the
    cards in any order; the set is played in the order written."""
    g = position(
        pool,
        {
            "A": {"hand": ["足軽3", "足軽4", "足軽5"], "walls": walls(), "deck": ["足軽1"]},
            "B": {"hand": ["足軽6"], "walls": walls(), "deck": ["足軽1"]},
        },
    )
    texts = [a.text for a in g.legal_actions()]
    assert texts.count("A lead 足軽3,足軽4,足軽5") == 1
    assert (
        sum(
            t.startswith("A lead ") and sorted(t[7:].split(",")) == ["足軽3", "足軽4", "足軽5"]
            for t in texts
        )
        == 1
    )
    g.step(f"A lead {written}")
    assert g.field()["top"] == re.split("[,、]", written)
    assert g.zone("A", "field") == {"足軽3": 1, "足軽4": 1, "足軽5": 1}
    assert g.to_move == "B"


def test_same_strength_set_of_different_cards_in_any_order(pool):
    """S6: a pair of different cards of one strength (一番槍, 足軽5) in either order."""
    zones = {
        "A": {"hand": ["足軽5", "一番槍"], "walls": walls(), "deck": ["足軽1"]},
        "B": {"hand": ["足軽6"], "walls": walls(), "deck": ["足軽1"]},
    }
    for written in (["一番槍", "足軽5"], ["足軽5", "一番槍"]):
        g = position(pool, zones)
        g.step("A lead " + ",".join(written))
        assert g.field()["top"] == written


# ------------------------------------------------------------------ illegal steps


def _leader_position(pool):
    return position(
        pool,
        {
            "A": {"hand": ["足軽3", "足軽4"], "walls": walls(), "deck": ["足軽8"]},
            "B": {"hand": ["足軽6"], "walls": walls(), "deck": ["足軽1"]},
        },
    )


@pytest.mark.parametrize(
    "bad",
    [
        "A answer 足軽3",
        "B lead 足軽6",
        "A lead 足軽9",
        "A lead 足軽3,足軽4",
        "A return 足軽3",
        "A dance",
        "lead 足軽3",
        "A pass",
        "A build 姫路城",
        "A tactic 火計",
    ],
)
def test_illegal_step_raises_and_lists_the_legal_steps(pool, bad):
    """An illegal or unreadable step raises IllegalAction (a LabError) naming every legal
    step, and leaves the game unchanged."""
    g = _leader_position(pool)
    legal = [a.text for a in g.legal_actions()]
    assert "A lead 足軽3" in legal and "A miokuri" in legal
    before = g.s.copy()
    with pytest.raises(IllegalAction) as e:
        g.step(bad)
    assert isinstance(e.value, LabError)
    for text in legal:
        assert text in str(e.value)
    assert np.array_equal(g.s, before)
    assert [a.text for a in g.legal_actions()] == legal
    g.step("A lead 足軽3")  # still playable afterwards
    assert g.to_move == "B"


@pytest.mark.parametrize("bad", [99, -1, (2, 1, 63, -1, -1, -1, -1, -1, 0, -1)])
def test_illegal_index_or_row_raises(pool, bad):
    """An action number out of range, or a row that is not legal now, raises IllegalAction."""
    g = _leader_position(pool)
    assert len(g.legal_actions()) < 50
    before = g.s.copy()
    with pytest.raises(IllegalAction):
        g.step(bad)
    assert np.array_equal(g.s, before)


def test_step_after_game_over_raises(pool):
    """Once the game is over there are no legal actions and any step raises IllegalAction."""
    g = position(
        pool,
        {
            "A": {"hand": ["足軽3"], "walls": ["足軽2"], "deck": ["足軽8"]},
            "B": {"hand": ["足軽6"], "walls": walls(), "deck": ["足軽1"]},
        },
    )
    legal = g.legal_actions()
    g.step("A miokuri")  # R4/R13: 見送り of the last wall → 落城
    assert g.is_over and g.winner == "B" and g.end_reason == "castle_fell"
    assert g.legal_actions() == []
    for step in ("A lead 足軽3", "B lead 足軽6", 0, legal[0], legal[0].row):
        with pytest.raises(IllegalAction):
            g.step(step)
    r = play_random_game("second_edition", "oda", "mouri", seed=11, pool=pool)
    assert r.is_over and r.legal_actions() == []
    with pytest.raises(IllegalAction):
        r.step(0)


# ------------------------------------------------------------------ observations (R1)


def _known_hand_position(pool, log=False):
    return position(
        pool,
        {
            "A": {
                "deck": ["足軽9", "足軽2"],
                "hand": ["足軽3"],
                "camp_up": ["足軽5"],
                "walls": walls("足軽8"),
            },
            "B": {"deck": ["足軽2"], "hand": ["足軽4", "足軽6"], "walls": walls("足軽7")},
        },
        log=log,
    )


def test_observation_shows_own_hand_not_opponents(pool):
    """R1: a player sees their own hand, only the count of the opponent's, and neither deck nor
    wall order (not even their own)."""
    g = _known_hand_position(pool)
    oa, ob = g.observation("A"), g.observation("B")
    assert oa["player"] == "A" and ob["player"] == "B"
    assert oa["players"]["A"]["hand"] == {"足軽3": 1}
    assert "hand" not in oa["players"]["B"]
    assert oa["players"]["B"]["hand_count"] == 2
    assert ob["players"]["B"]["hand"] == {"足軽4": 1, "足軽6": 1}
    assert "hand" not in ob["players"]["A"] and ob["players"]["A"]["hand_count"] == 1
    # nothing hidden leaks anywhere in the observation: B's hand (足軽4, 足軽6), the deck cards
    # (足軽9, 足軽2) and the walls (足軽8 / 足軽7) appear nowhere in A's view
    text = repr(oa)
    for hidden in ("足軽4", "足軽6", "足軽9", "足軽2", "足軽8", "足軽7"):
        assert hidden not in text, hidden
    assert "足軽5" in text  # the public camp is visible
    assert oa["players"]["A"]["camp_up"] == {"足軽5": 1}
    assert oa["players"]["A"]["wall_count"] == 7 and oa["players"]["A"]["deck_count"] == 2
    assert g.observation(0) == oa and g.observation(1) == ob


def test_known_hand_holds_returned_card_not_drawn_ones(pool):
    """R1 / V2: a unit returned from the public camp (帰陣) is known to the opponent while it
    stays in hand; the card drawn at the leader turn and the original hand are not."""
    g = _known_hand_position(pool)
    assert g.observation("B")["players"]["A"]["known_hand"] == {}
    assert "A return 足軽5" in [a.text for a in g.legal_actions()]
    g.step("A return 足軽5")
    assert g.zone("A", "hand") == {"足軽3": 1, "足軽9": 1, "足軽5": 1}  # 足軽9 was drawn
    ob = g.observation("B")
    assert ob["players"]["A"]["known_hand"] == {"足軽5": 1}
    assert ob["players"]["A"]["hand_count"] == 3
    assert "足軽9" not in repr(ob) and "足軽3" not in repr(ob)
    # the player does not "know" their own returned card as an opponent's card
    assert g.observation("A")["players"]["B"]["known_hand"] == {}
    g.step("A lead 足軽5")  # V2: it leaves the hand, so it is no longer known to be there
    assert g.observation("B")["players"]["A"]["known_hand"] == {}


def test_a_stolen_card_is_known_to_both(pool):
    """R1 / V1: a card 謀聖 takes is known to the victim while the thief holds it (the thief
    holds it in hand; the victim saw it go), and it is known no more once it leaves that hand."""
    g = position(
        pool,
        {
            "A": {"deck": ["足軽2"], "hand": ["尼子晴久", "足軽7"], "walls": walls("足軽8")},
            "B": {"deck": ["足軽2"], "hand": ["足軽4"], "walls": walls("足軽7")},
        },
    )
    g.step("A lead 尼子晴久")
    g.step("B pass")  # A wins: 謀聖 takes B's only hand card
    assert g.zone("A", "hand") == {"足軽7": 1, "足軽2": 1, "足軽4": 1}
    assert g.observation("B")["players"]["A"]["known_hand"] == {"足軽4": 1}
    assert g.observation("A")["players"]["A"]["hand"]["足軽4"] == 1
    g.step("A lead 足軽4")
    assert g.observation("B")["players"]["A"]["known_hand"] == {}


def test_observation_shows_public_zones(pool):
    """R1: logistics, castles, graveyards and the field are public."""
    g = position(
        pool,
        {
            "A": {
                "hand": ["足軽1"],
                "walls": walls(n=9),
                "castle": "姫路城",
                "graveyard": ["足軽4"],
                "logistics": ["足軽6", "足軽7"],
                "deck": ["足軽1"],
            },
            "B": {"hand": ["足軽5"], "walls": walls(n=10), "deck": ["足軽1"]},
        },
        rules=RuleSet.preset("legacy_testlab"),
    )
    g.step("A lead 足軽1")
    ob = g.observation("B")["players"]["A"]
    assert ob["castle"] == "姫路城" and ob["wall_count"] == 10
    assert ob["graveyard"] == {"足軽4": 1}
    assert ob["logistics"] == ["足軽6", "足軽7"]
    assert g.observation("B")["field"]["top"] == ["足軽1"]


# ------------------------------------------------------------------ event log


def test_event_log_off_by_default(pool):
    """No events are recorded unless log=True."""
    g = Game("second_edition", "oda", "seigun", seed=3, pool=pool)
    for _, _acts in zip(range(30), random_walk(g, random.Random(3))):
        pass
    assert g.decisions > 0
    assert g.events().shape[0] == 0 and g.log_lines() == []
    r = play_random_game("second_edition", "oda", "seigun", seed=3, pool=pool)
    assert r.is_over and r.events().shape[0] == 0 and r.log_lines() == []


@pytest.mark.parametrize("log", [False, True])
def test_position_event_log_honours_log_flag(pool, log):
    """A game from an explicit position logs exactly like a dealt one: nothing when log=False,
    every event from the first one when log=True."""
    g = _known_hand_position(pool, log=log)
    assert int(g.s[G_LOG_ON]) == int(log) and int(g.s[G_LOG_N]) == 0
    g.step("A lead 足軽3")
    assert (len(g.events()) > 0) == log
    assert (g.log_lines()[:1] == ["── 第1手番 A の先手 ──"]) == log


def test_event_log_on_in_japanese(pool):
    """With log=True the log has one Japanese line per event, naming cards by their Japanese
    names: the leader turn, the draw, the lead, the battle and the damage."""
    g = _known_hand_position(pool, log=True)
    g.step("A return 足軽5")
    g.step("A lead 足軽5")
    g.step("B answer 足軽6")
    g.step("A pass")
    lines = g.log_lines()
    assert len(g.events()) >= len(lines) > 0
    assert lines[0].startswith("── 第1手番 A")
    assert "A 徴兵: 足軽9" in lines
    assert "A 帰陣: 足軽5 を手札へ" in lines
    assert "A 出陣: 足軽5" in lines
    assert "B 応戦: 足軽6" in lines
    assert any(line.startswith("B 合戦に勝利") for line in lines)
    assert any("足軽5" in line and "討死" in line for line in lines)
    assert all(JAPANESE.search(line) for line in lines)


def test_random_game_log_lines(pool):
    """A whole logged random game: every line is Japanese, card names come from the pool, and
    the last line announces the end."""
    r = play_random_game("legacy_testlab", "honganji", "tougun", seed=5, log=True, pool=pool)
    lines = r.log_lines()
    assert len(lines) > 10
    assert all(JAPANESE.search(line) for line in lines)
    assert lines[-1].startswith("終局")
    names = {c.name for c in pool}
    assert sum(any(n in line for n in names) for line in lines) > len(lines) // 3


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_games_finish_for_every_matchup(pool, preset):
    """Every ordered pair of the nine armies plays to the end under each preset, with a winner
    or a draw and a known end reason, and no internal limit hit."""
    for k, (a, b) in enumerate(product(ARMIES, ARMIES)):
        g = play_random_game(preset, a, b, seed=1000 + k, pool=pool)
        where = (preset, a, b)
        assert g.is_over, where
        assert g.winner in ("A", "B", "draw"), where
        assert g.end_reason in END_REASONS, where
        if g.end_reason == "castle_fell":
            assert g.winner in ("A", "B"), where
        if g.end_reason == "stalemate":
            assert PRESETS[preset].leader_pass_cost == "none", where
        assert int(g.s[G_ERROR]) == 0, where
        assert g.decisions > 0
        assert "wins" in g.summary() or "draw" in g.summary()


def test_decisions_counts_steps(pool):
    """g.decisions counts the in-game decisions: exactly one per step after set-up (a new game
    starts at 0)."""
    assert Game("second_edition", "oda", "oda", seed=1, pool=pool).decisions == 0
    for preset, a, b, seed in WALKS:
        g = Game(preset, a, b, seed=seed, pool=pool)
        while int(g.s[G_PHASE]) == PH_MULLIGAN:  # whether set-up decisions count is open
            g.step(0)
        n = start = g.decisions
        assert start <= 2
        for game, _acts in random_walk(g, random.Random(seed + 50)):
            assert game.decisions == n
            n += 1
        assert g.is_over and g.decisions == n > start + 10


def test_determinism_same_seed_same_log(pool):
    """The same seed replays the same game: identical event logs and final state; another seed
    gives another game."""
    for preset, a, b, seed in WALKS:
        g1 = play_random_game(preset, a, b, seed=seed, log=True, pool=pool)
        g2 = play_random_game(preset, a, b, seed=seed, log=True, pool=pool)
        assert np.array_equal(g1.events(), g2.events())
        assert g1.log_lines() == g2.log_lines()
        assert np.array_equal(g1.s, g2.s)
        g3 = play_random_game(preset, a, b, seed=seed + 1, log=True, pool=pool)
        assert g1.log_lines() != g3.log_lines()


def test_determinism_api_walk(pool):
    """Stepping through the API with the same seed and the same choices gives the same log."""
    logs = []
    for _ in range(2):
        g = Game("legacy_testlab", "oda", "takeda", seed=8, log=True, pool=pool)
        for _g, _acts in random_walk(g, random.Random(8)):
            pass
        logs.append(g.log_lines())
    assert logs[0] == logs[1] and logs[0][-1].startswith("終局")
