"""Terminal play (issue 27, item 6): a refused step says why (rules.md R4–R11), sets show their
strength, the narration is offered in English (`--lang en`) with the card names as printed, and
Rumble Nation's `quit` saves a replay that `lab replay FILE` reproduces, as 大天下's does."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from io import StringIO

import pytest
from rich.console import Console
from typer.testing import CliRunner

import lab.cli as cli
from lab.games.daitenka.cards.pool import ARMIES, load_pool
from lab.games.daitenka.engine.api import Game, IllegalAction
from lab.games.daitenka.engine.text import PHRASES, parse_step
from lab.games.daitenka.play import PlaySession, PlaySettings
from lab.games.daitenka.play.options import parse_bot_option
from lab.games.daitenka.play.view import actions_view
from lab.games.daitenka.play.why import explain, set_strength
from lab.games.daitenka.rules import RuleSet
from test_cli import assert_one_line_error

POOL = load_pool()
WALLS = ["足軽1"] * 7
RUNNER = CliRunner()


def position(rules="second_edition", a=None, b=None, steps=(), **toggles) -> Game:
    """A 大天下 position (the scenario format's zones); A leads, then ``steps`` are played."""
    zones = {
        "A": {"deck": ["足軽2"] * 5, "walls": WALLS, **(a or {})},
        "B": {"deck": ["足軽2"] * 5, "walls": WALLS, **(b or {})},
    }
    ruleset = RuleSet.preset(rules).with_overrides(toggles) if toggles else RuleSet.preset(rules)
    g = Game.from_position(ruleset, zones, "A", seed=1)
    for s in steps:
        g.step(s)
    return g


def refused_because(game: Game, text: str) -> str:
    """The engine refuses ``text``; the reason ``lab play`` shows for it."""
    with pytest.raises(IllegalAction):
        game.copy().step(text)
    return explain(game, text, POOL)


# -------------------------------------------------------------------------- why, case by case


def test_an_answer_of_the_wrong_size_says_how_many_cards_it_needs():
    g = position(
        a={"hand": ["足軽5", "足軽5"]},
        b={"hand": ["足軽9", "足軽9", "足軽8"]},
        steps=["A lead 足軽5,足軽5"],
    )
    assert refused_because(g, "B answer 足軽9") == "a set answering 2 cards must have 2 cards"
    assert refused_because(g, "B answer 足軽9,足軽9,足軽8").startswith(
        "a set is 1–4 units of equal strength"
    )


def test_a_set_beyond_the_logistics_says_how_much_logistics_it_needs():
    # legacy logistics (R5): a set's highest strength may not exceed the logistics count
    g = position(
        "legacy_testlab",
        a={"hand": ["足軽8", "足軽3"], "logistics": ["足軽1"] * 5, "walls": ["足軽1"] * 10},
        b={"walls": ["足軽1"] * 10},
    )
    g.legal_actions()  # the leader turn's draw
    why = refused_because(g, "A lead 足軽8")
    assert why.startswith("needs logistics ≥ 8") and "you have 5" in why


@pytest.mark.parametrize(
    "a, b, steps, text, reason",
    [
        # R5: an answer needs a higher strength, a run answers only a run
        (
            {"hand": ["足軽5"]},
            {"hand": ["足軽5", "足軽3"]},
            ["A lead 足軽5"],
            "B answer 足軽5",
            "足軽5 [5] does not beat 足軽5 [5]: an answer needs a higher strength (more than 5)",
        ),
        (
            {"hand": ["足軽2", "足軽3", "足軽4"]},
            {"hand": ["足軽9", "足軽9", "足軽9"]},
            ["A lead 足軽2,足軽3,足軽4"],
            "B answer 足軽9,足軽9,足軽9",
            "a run (連隊) is answered only by a run of the same length",
        ),
        # R2/R7: a general only alone; nothing but 暗殺 etc. answers an ∞
        (
            {"hand": ["織田信長", "足軽3"]},
            {},
            [],
            "A lead 織田信長,足軽3",
            "a general (∞) is played only alone (単騎)",
        ),
        (
            {"hand": ["顕如"]},
            {"hand": ["足軽10"]},
            ["A lead 顕如"],
            "B answer 足軽10",
            "a numbered unit does not beat an ∞",
        ),
        # R4: leader-turn actions and answers in the wrong turn
        (
            {"hand": ["足軽5"]},
            {"hand": ["足軽9"]},
            ["A lead 足軽5"],
            "B lead 足軽9",
            "`lead` is a leader-turn action; now you respond to A's 足軽5",
        ),
        ({"hand": ["足軽5"]}, {}, [], "A answer 足軽5", "there is nothing to answer"),
        # cards the player does not hold; tactics and castles are not units
        ({"hand": ["足軽5"]}, {}, [], "A lead 足軽5,足軽5", "the step uses 2 足軽5; you hold 1"),
        ({"hand": ["足軽5"]}, {}, [], "A lead 足軽9", "足軽9 is not in your hand"),
        (
            {"hand": ["火計", "足軽5"]},
            {},
            [],
            "A lead 火計",
            "火計 is a tactic (軍略), not a unit: use it with `tactic 火計`",
        ),
        # R9: a tactic against the wrong set
        (
            {"hand": ["足軽5", "足軽5"]},
            {"hand": ["殺し間", "足軽2"]},
            ["A lead 足軽5,足軽5"],
            "B tactic 殺し間",
            "殺し間 answers a set of 3 or more units; the top set is 2×5",
        ),
        # R10: only a gun unit fires
        (
            {"hand": ["足軽5"]},
            {"hand": ["足軽9"]},
            ["A lead 足軽5"],
            "B answer 足軽9 fire",
            "none of these cards is a gun unit (鉄砲) that may fire now",
        ),
        # R4 帰陣: a face-up camp unit only
        (
            {"hand": ["足軽5"], "camp_down": ["足軽7"]},
            {},
            [],
            "A return 足軽7",
            "帰陣 returns a face-up camp unit; 足軽7 is face down (resting) in your camp",
        ),
    ],
)
def test_each_refused_step_says_why(a, b, steps, text, reason):
    g = position(a=a, b=b, steps=steps)
    g.legal_actions()
    assert reason in refused_because(g, text)


def test_random_refused_steps_almost_always_get_a_reason_and_never_an_accepted_one():
    """Steps a player might type (legal ones changed a little) in random games: the engine
    refuses each one explained, and the reason is rarely the bare fallback."""
    rng = random.Random(7)
    reasons = Counter()
    for k in range(3):
        g = Game(
            RuleSet.preset(("second_edition", "legacy_testlab", "second_edition")[k]),
            *rng.sample(list(ARMIES), 2),
            seed=k,
        )
        while not g.is_over:
            legal = g.legal_actions()
            seat, hand = g.to_move, sorted(set(g.zone(g.to_move, "hand")))
            tries = {f"{seat} {v} {h}" for v in ("lead", "answer") for h in hand}
            for x in legal:
                st = parse_step(x.text)
                if st.cards:
                    tries |= {
                        f"{seat} {v} {','.join(st.cards + (h,))}"
                        for v in ("lead", "answer")
                        for h in hand
                    }
            keys = {parse_step(x.text).key() for x in legal}
            for text in sorted(tries):
                if parse_step(text).key() in keys:
                    continue
                copy = g.copy()
                try:
                    copy.step(text)
                    continue  # the engine took it (another order of the same set)
                except IllegalAction:
                    pass
                reasons[explain(g, text, POOL, legal)] += 1
            g.step(rng.choice(legal))
    total = sum(reasons.values())
    assert total > 500
    assert reasons["not legal now"] / total < 0.02, reasons.most_common(5)


def test_a_refused_step_in_a_session_shows_its_reason(tmp_path):
    typed = iter(["lead 足軽99", "answer 足軽2", "q"])
    console = Console(file=StringIO(), width=200, color_system=None)
    s = PlaySession(
        PlaySettings(army="oda", vs="takeda", bot=parse_bot_option("random"), seed=5),
        replay_dir=tmp_path,
        console=console,
        ask=lambda prompt: "q" if prompt.startswith("again") else next(typed),
    )
    s.run()
    shown = console.file.getvalue()
    assert "✗ \"A lead 足軽99\" is not legal now: there is no card 足軽99" in shown
    (refused,) = [x for x in shown.splitlines() if x.startswith("✗ \"A answer 足軽2\"")]
    assert (
        refused.startswith("✗ \"A answer 足軽2\" is not legal now: ")
        and "not legal now —" not in refused
    )  # a reason, not the bare fallback


# ------------------------------------------------------------------------ sets and strength


def test_sets_show_their_strength():
    assert [
        set_strength(POOL, s)
        for s in (
            ["足軽9"],
            ["足軽9", "足軽9"],
            ["前田利家"],
            ["足軽6", "前田利家", "足軽8"],
            ["織田信長"],
        )
    ] == ["9", "2×9", "7", "run 6–8", "∞"]
    g = position(a={"hand": ["足軽9", "足軽9", "前田利家"]})
    text = StringIO()
    Console(file=text, width=120, color_system=None).print(actions_view(g.legal_actions(), POOL))
    assert "A lead 足軽9,足軽9 [2×9]" in text.getvalue()
    assert "A lead 前田利家 [7]" in text.getvalue()


def test_the_board_shows_the_strength_of_the_sets_on_the_field(tmp_path):
    console = Console(file=StringIO(), width=200, color_system=None)
    typed = iter(["1"] * 200)
    s = PlaySession(
        PlaySettings(army="oda", vs="takeda", bot=parse_bot_option("heuristic"), seed=3),
        replay_dir=tmp_path,
        console=console,
        ask=lambda prompt: "q" if prompt.startswith("again") else next(typed),
    )
    s.run()
    shown = console.file.getvalue()
    assert "◀ top" in shown
    top_lines = [x for x in shown.splitlines() if "◀ top" in x]
    assert all("[" in x for x in top_lines), top_lines  # e.g. 足軽9・足軽9 [2×9]
    assert re.search(r"response \(応戦\) to B's \S+ \[(\d+|∞|\d×\d+|run \d+–\d+)\]: answer", shown)


# ------------------------------------------------------------------------------- --lang en


def test_every_event_has_an_english_line_with_the_same_fields():
    assert PHRASES["ja"].keys() == PHRASES["en"].keys()
    import string

    fields = lambda t: {f for _, f, _, _ in string.Formatter().parse(t) if f}  # noqa: E731
    for key in PHRASES["ja"]:
        assert fields(PHRASES["ja"][key]) == fields(PHRASES["en"][key]), key


def test_lang_en_narrates_in_english_with_japanese_card_names(tmp_path):
    def play(lang):
        console = Console(file=StringIO(), width=200, color_system=None)
        typed = iter(["1"] * 300)
        s = PlaySession(
            PlaySettings(army="oda", vs="takeda", bot=parse_bot_option("random"), seed=4),
            replay_dir=tmp_path / lang,
            console=console,
            ask=lambda prompt: "q" if prompt.startswith("again") else next(typed),
            lang=lang,
        )
        s.run()
        return [line.text for line in s.transcript]

    ja, en = play("ja"), play("en")
    assert len(ja) == len(en) > 20
    assert any(" 出陣: " in x for x in ja) and not any(" 出陣: " in x for x in en)
    assert any(x.startswith("A (織田) leads (出陣): ") for x in en)
    assert any(x.startswith("── leader turn 1: ") for x in en)
    assert not any("徴兵" in x or "非公開" in x for x in en)
    assert any("draws a card (hidden)" in x for x in en)  # B's draws stay hidden (R1)
    cards = {c.name for c in POOL.cards}
    named = [c for x in en for c in cards if c in x]
    assert named  # card names as printed


def test_lang_option_on_match_and_bad_values():
    r = RUNNER.invoke(
        cli.app, ["match", "織田", "西軍", "--seed", "2", "--lang", "en"], env={"COLUMNS": "200"}
    )
    assert r.exit_code == 0 and " leads (出陣): " in r.stdout and "出陣:" not in r.stdout
    assert_one_line_error(
        RUNNER.invoke(cli.app, ["match", "織田", "西軍", "--lang", "fr"]),
        "--lang fr is not allowed; allowed values: ja, en",
    )
    assert_one_line_error(
        RUNNER.invoke(cli.app, ["play", "--game", "rumble_nation", "--lang", "ja"], input=""),
        "Rumble Nation is narrated in English only",
    )


# ---------------------------------------------------------------- Rumble Nation replays


def rn_play(tmp_path, stdin: str):
    return RUNNER.invoke(
        cli.app,
        ["play", "--game", "rumble_nation", "--seed", "4", "--replay-dir", str(tmp_path)],
        input=stdin,
        env={"COLUMNS": "200"},
    )


def test_rumble_nation_quit_saves_a_replay_that_lab_replay_reproduces(tmp_path):
    r = rn_play(tmp_path, "1\n2\nquit\n")
    assert r.exit_code == 0, r.output
    (path,) = tmp_path.glob("play-rn-*.json")
    assert f"replay saved: {path}" in " ".join(r.stdout.split())
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["status"] == "abandoned" and data["seed"] == 4
    assert data["players"] == {"P1": "human", "P2": "bot"}
    assert any(" roll " in s for s in data["steps"]) and data["steps"]
    shown = RUNNER.invoke(cli.app, ["replay", str(path)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "reproduces the recorded match" in shown.stdout
    for step in data["steps"]:
        assert step in shown.stdout


def test_rumble_nation_finished_and_end_of_input_matches_are_saved_too(tmp_path):
    r = rn_play(tmp_path, "1\n" * 400)  # plays whole matches until the input runs out
    assert r.exit_code == 0, r.output
    saved = sorted(
        json.loads(p.read_text(encoding="utf-8"))["status"] for p in tmp_path.glob("play-rn-*.json")
    )
    assert "finished" in saved and saved.count("abandoned") <= 1


def test_an_edited_rumble_nation_replay_does_not_reproduce(tmp_path):
    rn_play(tmp_path, "1\n2\nquit\n")
    (path,) = tmp_path.glob("play-rn-*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["final"]["board"]["seats"]["P1"]["stock"] += 1
    path.write_text(json.dumps(data), encoding="utf-8")
    shown = RUNNER.invoke(cli.app, ["replay", str(path)], env={"COLUMNS": "200"})
    assert shown.exit_code == 1 and "does not reproduce" in shown.stderr + shown.stdout
