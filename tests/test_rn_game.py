"""The Rumble Nation facade: set-up from seed words (RN2), readable legal steps, step by text,
index or action, what a seat sees, the result, and the batch columns — each agreeing with the
compiled loop."""

from __future__ import annotations

import numpy as np
import pytest

from lab.games.rumble_nation import (
    AREAS,
    PRESETS,
    Game,
    IllegalAction,
    new_game,
    play_batch,
    record_columns,
    seats,
    seed_words,
    seeds_for,
)
from lab.games.rumble_nation import nb_layout as L
from lab.games.rumble_nation.batch import columns, finish, frame, play_rows


def test_seats_and_setup_from_seed_words():
    rules = PRESETS["base_3p"]
    assert seats(rules) == ("P1", "P2", "P3")
    firsts = {new_game(rules, seed_words(k)).to_move for k in range(40)}
    assert firsts == {"P1", "P2", "P3"}  # RN2: a random start player, from the words
    layouts = {tuple(new_game(rules, seed_words(k)).s[L.S_AREA : L.S_AREA + 11]) for k in range(40)}
    assert len(layouts) == 40 and all(sorted(x) == list(range(11)) for x in layouts)
    g = new_game(rules, seed_words(5), first_seat="P3")
    assert g.to_move == "P3"
    same = new_game(rules, seed_words(5), first_seat=2)
    assert (g.s == same.s).all()


def test_legal_steps_are_readable_and_each_one_applies():
    g = new_game(PRESETS["advanced_4p"], seed_words(2))
    assert g.dice is None
    acts = g.legal_actions()  # rolls first
    assert g.dice is not None and g.history[-1].startswith(f"{g.to_move} roll ")
    assert acts[0].text == f"{g.to_move} reroll"
    for a in acts[1:]:
        assert a.text.startswith(f"{g.to_move} place ") and " with " in a.text
        assert any(area in a.label for area in AREAS)
    assert any(a.text.endswith("+daimyo") for a in acts)
    g.step(acts[-1].text)  # by text
    g.step(0)  # by index (reroll)
    g.step(g.legal_actions()[1])  # by Action
    verbs = [h.split()[1] for h in g.history]
    assert verbs == ["roll", "place", "roll", "reroll", "roll", "place"]


def test_illegal_steps_say_what_is_legal():
    g = new_game(PRESETS["base_2p"], seed_words(1), first_seat="P1")
    g.step("P1 roll 2 2 5")
    with pytest.raises(IllegalAction) as e:
        g.step("P1 place 9 with 2")
    assert str(e.value) == (
        "\"P1 place 9 with 2\" is not legal with the dice (2, 2, 5); legal: "
        "P1 reroll, P1 place 7 with 2, P1 place 4 with 5"
    )
    with pytest.raises(IllegalAction, match="P1 is to move"):
        g.step("P2 reroll")
    with pytest.raises(IllegalAction, match="no roll is due"):
        g.step("P1 roll 1 1 1")
    with pytest.raises(IllegalAction, match="京 holds token 8, not 7"):
        Game.from_position(PRESETS["base_2p"]).step("P1 place 7 京 with 2")


def test_history_replays_the_game_from_its_deal():
    rules = PRESETS["base_4p"]
    g = new_game(rules, seed_words(9))
    k = 0
    while not g.is_over:
        acts = g.legal_actions()
        g.step(acts[k % len(acts)])
        k += 1
    deal = {g.area_of(t): t for t in range(2, 13)}
    replay = Game.from_position(rules, deal, first=f"P{g.s[L.S_FIRST] + 1}", seed=123)
    for text in g.history:  # the rolls are in the history: another dice stream changes nothing
        replay.step(text)
    assert replay.result() == g.result() and (replay.s[L.S_MEN :] == g.s[L.S_MEN :]).all()


def test_observation_shows_the_board_and_hides_the_dice_to_come():
    g = new_game(PRESETS["base_3p"], seed_words(4))
    for _ in range(5):
        g.step(g.legal_actions()[-1])
    obs = g.observation("P2")
    assert obs["seat"] == "P2" and obs["phase"] == "placement" and obs["to_move"] == g.to_move
    assert [a["token"] for a in obs["areas"]] == list(range(2, 13))
    assert {a["area"] for a in obs["areas"]} == set(AREAS)
    placed = sum(sum(a["soldiers"].values()) for a in obs["areas"])
    assert placed == sum(18 - seat["stock"] for seat in obs["seats"].values())
    assert "rng" not in repr(obs) and int(g.s[L.S_DICE_RNG]) not in _ints(obs)
    with pytest.raises(Exception, match="P4"):
        g.observation("P4")


def _ints(x):
    if isinstance(x, dict):
        return [i for v in x.values() for i in _ints(v)]
    if isinstance(x, (list, tuple)):
        return [i for v in x for i in _ints(v)]
    return [x] if isinstance(x, int) and not isinstance(x, bool) else []


def test_result_and_finish_agree_with_the_batch():
    rules = PRESETS["base_3p"]
    words = seeds_for(5, 3)
    rows = play_rows(rules, ["heuristic", "random", "random"], words)
    for w, row in zip(words, rows):
        g = new_game(rules, w)
        assert g.result() is None
        finish(g, ["heuristic", "random", "random"])
        r = g.result()
        assert r["winner"] == f"P{row[L.R_WINNER] + 1}"
        assert list(r["scores"].values()) == [
            row[L.R_SEAT + L.RS_SCORE * L.MAXP + p] for p in range(3)
        ]
        assert sorted(r["ranks"].values()) == [1, 2, 3]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_record_columns_name_and_type_every_batch_column(preset):
    rules = PRESETS[preset]
    cols = play_batch(rules, ["random"] * rules.players, seeds_for(50, 1))
    spec = record_columns(rules)
    assert [n for n, _, _ in spec] == list(cols)
    for name, dtype, meaning in spec:
        assert cols[name].dtype == np.dtype(dtype) and len(cols[name]) == 50 and meaning
    assert ("small_7" in cols) == rules.second_place and ("daimyo_p1" in cols) == rules.daimyo
    df = frame(
        rules, columns(rules, play_rows(rules, ["random"] * rules.players, seeds_for(50, 1)))
    )
    assert set(df["area_2"].cat.categories) == set(AREAS)
