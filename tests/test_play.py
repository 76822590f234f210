"""`lab play` (issue 8): a terminal game against a bot, replay files, scenario export, the
play-again loop, bad input, Ctrl-C and end of input.

The loop is driven in-process through an injected input function (``ask``) and, for the real
command, through piped standard input of a subprocess (SIGINT included).
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

import lab.cli as cli
from lab.games.daitenka import scenario as scen
from lab.games.daitenka.bots.match import parse_bot
from lab.games.daitenka.bots.play import BotPlayer, bot_action
from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.engine.layout import G_PHASE, PH_LEADER_START
from lab.games.daitenka.engine.text import parse_step
from lab.errors import LabError
from lab.games.daitenka.play import (
    PlaySession,
    PlaySettings,
    load_record,
    replay_game,
    show_replay_file,
)
from lab.games.daitenka.play.narrate import Narrator
from lab.games.daitenka.play.options import parse_bot_option
from lab.schema.base import parse_assignments
from lab.games.daitenka.play.record import final_state, scenario_toml
from lab.games.daitenka.play.session import EXIT_INTERRUPTED
from lab.games.daitenka.play.view import FieldTrack

HEURISTIC = parse_bot("heuristic")


# ------------------------------------------------------------------------------ helpers


class Driver:
    """The player at the keyboard: answers prompts from a script, then by a rule.

    ``script`` items are typed first at the match prompt; after that ``mode`` picks: "first"
    types 1, "random" a random legal number, "mixed" alternates numbers and step texts (without
    the seat). ``again`` lists the answers to the play-again prompts (then "q"). ``stop_after``
    raises ``interrupt`` (KeyboardInterrupt or EOFError) at that human decision.
    """

    def __init__(
        self,
        mode="first",
        script=(),
        again=(),
        seed=0,
        stop_after=None,
        interrupt=KeyboardInterrupt,
    ):
        self.session: PlaySession | None = None
        self.mode, self.script, self.again = mode, list(script), list(again)
        self.rng = np.random.default_rng(seed)
        self.stop_after, self.interrupt = stop_after, interrupt
        self.decisions = 0
        self.typed: list[str] = []

    def __call__(self, prompt: str) -> str:
        if prompt.startswith("again"):
            text = self.again.pop(0) if self.again else "q"
        elif self.script:
            text = self.script.pop(0)
        else:
            if self.stop_after is not None and self.decisions >= self.stop_after:
                raise self.interrupt()
            self.decisions += 1
            legal = self.session.game.legal_actions()
            if self.mode == "first":
                text = "1"
            elif self.mode == "random":
                text = str(int(self.rng.integers(len(legal))) + 1)
            else:
                a = legal[int(self.rng.integers(len(legal)))]
                text = str(legal.index(a) + 1) if self.decisions % 2 else a.text[2:]
        self.typed.append(text)
        return text


def session(tmp_path, driver, settings=None, scenario=None):
    console = Console(file=StringIO(), width=120, highlight=False, color_system=None)
    s = PlaySession(
        settings or PlaySettings(army="oda", vs="takeda", bot=HEURISTIC, seed=5),
        replay_dir=tmp_path / "replays",
        save_scenario=scenario,
        console=console,
        ask=driver,
    )
    driver.session = s
    return s


def output(s: PlaySession) -> str:
    return s.console.file.getvalue()


def replay_files(tmp_path) -> list[Path]:
    return sorted((tmp_path / "replays").glob("*.json"))


def lab_command() -> list[str]:
    script = Path(sys.executable).parent / "lab"
    return [str(script)] if script.exists() else [sys.executable, "-m", "lab.cli"]


ENV = {**os.environ, "COLUMNS": "120"}


# ------------------------------------------------------------------------------ a full game


def test_full_game_against_the_heuristic_bot_typing_numbers_and_steps(tmp_path):
    d = Driver(mode="mixed", seed=1)
    s = session(tmp_path, d)
    assert s.run() == 0
    game, rec = s.game, s.records[0]
    assert game.is_over and rec.status == "finished"
    assert any(t.isdigit() for t in d.typed) and any(not t.isdigit() for t in d.typed)
    assert {by for _, by, _ in rec.steps} == {"human", "bot"}
    text = output(s)
    assert re.search(r"You (win|lose)|Draw", text)
    assert "decided by:" in text and "leader turns" in text and "walls: A" in text
    assert "Traceback" not in text
    # the saved replay reproduces the match
    (path,) = replay_files(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["status"] == "finished" and data["seed"] == 5 and data["bot"] == "heuristic"
    assert [st["step"] for st in data["steps"]] == [t for _, _, t in rec.steps]
    assert data["final"] == final_state(game)
    again = replay_game(load_record(path))
    assert final_state(again) == final_state(game)
    assert again.winner == game.winner and again.decisions == game.decisions


@pytest.mark.parametrize(
    "preset,toggles",
    [
        ("legacy_testlab", ()),  # mulligan, logistics, fortify
        ("sekigahara_trial", (("gun", "retreat"),)),
        ("second_edition", (("damage", "last_set_size"), ("broken_walls", "to_graveyard"))),
    ],
)
@pytest.mark.parametrize("seed", [2, 9])
def test_replay_and_scenario_reproduce_every_variant(tmp_path, preset, toggles, seed):
    """Random human choices against a search bot (whose own randomness must not leak into the
    game's stream): the replay and the scenario both end in the played final state."""
    bot = parse_bot_option("search:simulations=16") if seed == 2 else HEURISTIC
    st = PlaySettings(
        army="uesugi", vs="saika", bot=bot, preset=preset, overrides=toggles, seed=seed
    )
    out = tmp_path / "m.toml"
    s = session(tmp_path, Driver(mode="random", seed=seed), st, scenario=out)
    assert s.run() == 0
    rec = s.records[0]
    assert s.game.is_over
    assert final_state(replay_game(load_record(replay_files(tmp_path)[0]))) == final_state(s.game)
    (sc,) = scen.load(out)
    assert sc.rules == s.game.rules
    outcome = scen.run(sc)
    assert outcome.passed, outcome.message
    assert sc.expect["winner"] == (s.game.winner or "")
    assert len(sc.steps) == len(rec.scenario_steps) > 0


def test_saved_scenario_passes_lab_scenario(tmp_path):
    out = tmp_path / "played.toml"
    s = session(tmp_path, Driver(mode="random", seed=3), scenario=out)
    assert s.run() == 0
    r = subprocess.run(
        lab_command() + ["scenario", str(out)], capture_output=True, text=True, env=ENV, timeout=600
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 0 failed" in r.stdout


def test_scenario_expectations_are_checked(tmp_path):
    """The written expectations are the real final state: a changed one makes it fail."""
    s = session(tmp_path, Driver(mode="first"))
    s.run()
    rec = s.records[0]
    rec.final["A"]["walls"] += 1
    path = tmp_path / "wrong.toml"
    path.write_text(scenario_toml([rec]), encoding="utf-8")
    (sc,) = scen.load(path)
    outcome = scen.run(sc)
    assert not outcome.passed and "A.walls" in outcome.message


def test_a_whole_game_through_piped_stdin(tmp_path):
    """The real command, typing numbers on standard input: same match as in-process."""
    d = Driver(mode="first")
    probe = session(
        tmp_path / "probe", d, PlaySettings(army="oda", vs="mouri", bot=HEURISTIC, seed=21)
    )
    probe.run()
    typed = [t for t in d.typed]
    stdin = "\n".join(typed[:-1] + ["q"]) + "\n"  # the last typed answer was the again "q"
    r = subprocess.run(
        lab_command()
        + [
            "play",
            "--army",
            "oda",
            "--vs",
            "mouri",
            "--seed",
            "21",
            "--replay-dir",
            str(tmp_path / "cli"),
        ],
        input=stdin,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and r.stderr == ""
    assert re.search(r"You (win|lose)|Draw", r.stdout)
    assert "Goodbye." in r.stdout
    (path,) = sorted((tmp_path / "cli").glob("*.json"))
    steps = [st["step"] for st in json.loads(path.read_text(encoding="utf-8"))["steps"]]
    assert steps == [t for _, _, t in probe.records[0].steps]
    # `lab replay FILE` shows the saved match and confirms it reproduces; a GAME_ID is refused
    shown = subprocess.run(
        lab_command() + ["replay", str(path), "--no-log"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=600,
    )
    assert shown.returncode == 0 and "reproduces the recorded match" in shown.stdout
    wrong = subprocess.run(
        lab_command() + ["replay", str(path), "3"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=600,
    )
    assert wrong.returncode == 2 and "give no GAME_ID" in wrong.stderr


# ------------------------------------------------------------------------------ bad input


def test_bad_input_is_answered_with_the_legal_options(tmp_path):
    script = [
        "xyz",
        "99",
        "0",
        "B pass",
        "lead 存在しない札",
        "answer",
        "",
        "help",
        "g",
        "info 足軽3",
        "info 存在しない札",
        "rules",
        "board",
        "log",
        "quit",
    ]
    s = session(tmp_path, Driver(script=script))
    assert s.run() == 0
    text = output(s)
    assert "Traceback" not in text
    assert '"xyz" is not an action number, a step or a command' in text
    assert "there is no action 99" in text and "there is no action 0" in text
    assert "you play seat A; B is the bot" in text
    assert text.count("Legal now") == 6  # after each refused line
    assert "Commands:" in text and "討死 graveyards" in text and "unknown card" in text
    assert "rule toggles" in text
    rec = s.records[0]
    assert rec.status == "abandoned"
    assert not [1 for _, by, _ in rec.steps if by == "human"]  # nothing bad was played
    assert "Left the session: quit." in text
    # the listed options are the game's legal actions, numbered from 1
    legal = s.game.legal_actions()
    assert f" 1 {legal[0].text}" in text


def test_an_illegal_step_suggests_the_nearest_legal_ones(tmp_path):
    s = session(tmp_path, Driver(script=["quit"]))
    g = Game(None, "oda", "takeda", seed=5)
    legal = g.legal_actions()
    lead = next(a for a in legal if " lead " in a.text)
    s.refuse("not legal", legal, lead.text + "x")
    assert f"{legal.index(lead) + 1} ({lead.text})" in output(s)


def test_a_step_keeps_the_card_order_typed(tmp_path):
    """The step grammar may list a set in any order; the replay keeps the order typed."""
    g = Game(None, "oda", "oda", seed=0, first="A")
    pair = next(a for a in g.legal_actions() if a.text.startswith("A lead") and "," in a.text)
    cards = pair.text.split(" ", 2)[2].split(",")
    typed = "lead " + ",".join(reversed(cards))
    s = session(
        tmp_path,
        Driver(script=[typed, "quit"]),
        PlaySettings(
            army="oda", vs="oda", bot=HEURISTIC, seed=0, overrides=(("first_player", "A"),)
        ),
    )
    s.run()
    assert s.records[0].steps[0] == ("A", "human", "A " + typed)


# ------------------------------------------------------------------------------ play again


def test_play_again_with_a_changed_toggle(tmp_path):
    d = Driver(
        mode="first",
        again=["walls=99", "nonsense=1", "logistics", "bot=nobot", "walls=10 logistics=on"],
        stop_after=None,
    )
    s = session(tmp_path, d)
    # second match: quit at its first decision (the driver keeps typing 1 until then)
    played = []

    def ask(prompt):
        if prompt.startswith("[A]") and len(s.records) == 2:
            played.append(s.game.rules)
            return "quit"
        return d(prompt)

    s.ask = ask
    assert s.run() == 0
    text = output(s)
    assert "walls = 99 is not allowed" in text
    assert 'unknown rules key "nonsense"' in text
    assert '"logistics" is not KEY=VALUE' in text
    assert "is not a bot" in text
    assert "Traceback" not in text
    first, second = s.records
    assert first.status == "finished" and second.status == "abandoned"
    assert (first.rules.walls, first.rules.logistics) == (7, False)
    assert (second.rules.walls, second.rules.logistics) == (10, True)
    assert played[0].walls == 10
    assert second.start is not None and len(second.start["A"]["walls"]) == 10
    files = replay_files(tmp_path)
    assert len(files) == 2
    toggles = [json.loads(f.read_text(encoding="utf-8"))["rules"]["toggles"] for f in files]
    assert sorted(t["walls"] for t in toggles) == [7, 10]


def test_play_again_same_settings_and_session_keys(tmp_path):
    d = Driver(mode="first", again=["", "army=takeda vs=random seed=4 bot=aggressive"])
    s = session(tmp_path, d)
    assert s.run() == 0
    a, b, c = s.records
    assert (a.seed, b.seed) == (5, 5) and a.steps == b.steps  # same settings, same deal
    assert c.decks["A"].key == "takeda" and c.seed == 4 and c.decks["B"].key != "takeda"
    assert c.bot == "heuristic:persona=aggressive"
    assert "Goodbye." in output(s)


# ------------------------------------------------------------------------------ leaving


@pytest.mark.parametrize(
    "interrupt,code,why",
    [(KeyboardInterrupt, EXIT_INTERRUPTED, "interrupted (Ctrl-C)"), (EOFError, 0, "end of input")],
)
def test_ctrl_c_and_eof_save_the_replay(tmp_path, interrupt, code, why):
    out = tmp_path / "cut.toml"
    s = session(tmp_path, Driver(mode="first", stop_after=3, interrupt=interrupt), scenario=out)
    assert s.run() == code
    text = output(s)
    assert f"Left the session: {why}." in text and "Traceback" not in text
    (path,) = replay_files(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["status"] == "abandoned"
    assert sum(st["by"] == "human" for st in data["steps"]) == 3
    assert final_state(replay_game(load_record(path))) == final_state(s.game)
    assert not s.game.is_over
    outcome = scen.run(scen.load(out)[0])
    assert outcome.passed, outcome.message


def test_eof_at_the_play_again_prompt_leaves_cleanly(tmp_path):
    d = Driver(mode="first")

    def ask(prompt):
        if prompt.startswith("again"):
            raise EOFError
        return d(prompt)

    s = session(tmp_path, d)
    s.ask = ask
    assert s.run() == 0
    assert "Left the session: end of input." in output(s)
    assert len(replay_files(tmp_path)) == 1


def _read_until(proc, needle: bytes, timeout: float) -> bytes:
    buf = b""
    end = time.time() + timeout
    while needle not in buf:
        left = end - time.time()
        assert left > 0, buf.decode(errors="replace")
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 65536)
            assert chunk, buf.decode(errors="replace")  # the process ended early
            buf += chunk
    return buf


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_at_the_prompt_saves_and_exits_130(tmp_path):
    proc = subprocess.Popen(
        lab_command() + ["play", "--seed", "8", "--replay-dir", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        # as a terminal starts it: a suite started in the background (`pytest … &` from a
        # script) ignores SIGINT, and a child keeps an ignored signal ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        _read_until(proc, b"[A] > ", 600)
        proc.send_signal(signal.SIGINT)
        # stdin stays open until it has exited: communicate() would close it at once, and the
        # end of input could then reach the prompt before the signal does (a clean exit 0)
        proc.wait(timeout=120)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == EXIT_INTERRUPTED
    assert b"Traceback" not in err and err == b""
    assert "Left the session: interrupted (Ctrl-C)." in out.decode()
    (path,) = tmp_path.glob("*.json")
    assert json.loads(path.read_text(encoding="utf-8"))["status"] == "abandoned"


def test_end_of_piped_input_saves_and_exits_0(tmp_path):
    r = subprocess.run(
        lab_command() + ["play", "--seed", "8", "--replay-dir", str(tmp_path)],
        input="1\n",
        capture_output=True,
        text=True,
        env=ENV,
        timeout=600,
    )
    assert r.returncode == 0 and r.stderr == ""
    assert "Left the session: end of input." in r.stdout
    (path,) = tmp_path.glob("*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["status"] == "abandoned"
    assert sum(st["by"] == "human" for st in data["steps"]) == 1


# ------------------------------------------------------------------------------ what is shown


def test_narration_hides_the_bots_cards_and_names_yours(tmp_path):
    s = session(tmp_path, Driver(mode="random", seed=4))
    s.run()
    lines = [ln.text for ln in s.transcript]
    bot_draws = [t for t in lines if t.startswith("B（") and "徴兵" in t]
    my_draws = [t for t in lines if t.startswith("A（") and "徴兵" in t]
    assert bot_draws and my_draws
    assert all(t.endswith("徴兵: 1枚引く（非公開）") for t in bot_draws)
    assert all("非公開" not in t for t in my_draws)
    assert not [t for t in lines if re.match(r"B（.*） の城壁が破られる: .*（手札へ）", t)]
    # the full log of the same game names every card (what the replay viewer shows)
    full = [ln.text for ln in Narrator(s.game, None).take()]
    assert not any("非公開" in t for t in full)
    assert len([t for t in full if "徴兵" in t]) == len(bot_draws) + len(my_draws)


def test_board_shows_hand_camps_walls_field_and_whose_decision(tmp_path):
    s = session(
        tmp_path,
        Driver(mode="first", stop_after=4, interrupt=EOFError),
        PlaySettings(army="oda", vs="takeda", bot=HEURISTIC, seed=5, preset="legacy_testlab"),
    )
    s.run()
    text = output(s)
    for part in (
        "手札 hand",
        "陣 camp",
        "表 ",
        "裏 ",
        "城壁 walls",
        "/10",
        "兵站",
        "deck ",
        "your decision",
        "討死",
    ):
        assert part in text, part
    hand = s.game.zone("A", "hand")
    assert any(name in text for name in hand)


def test_field_track_follows_the_engine(tmp_path):
    """The stack of sets shown is consistent with the engine's top set, in many games."""
    checked = 0
    for seed in range(6):
        g = Game("second_edition", "oda", "saika", seed=seed)
        bots = {"A": BotPlayer("random", seed), "B": BotPlayer(HEURISTIC, seed)}
        track = FieldTrack()
        while not g.is_over:
            a = bots[g.to_move].choose(g)
            g.step(a)
            track.after(parse_step(a.text), g)
            f = g.field()
            if f["open"]:
                checked += 1
                assert Counter(track.top.cards) == Counter(f["top"])
                assert track.top.seat == f["top_owner"]
            elif not g.is_over:
                assert track.sets == []
    assert checked > 20


# ------------------------------------------------------------------------------ the bot


def test_the_bot_does_not_touch_the_games_random_stream():
    g = Game(None, "oda", "takeda", seed=3)
    g.legal_actions()
    before = g.s.copy()
    act = bot_action(g, {"kind": "search", "simulations": 8}, rng=1)
    assert act in g.legal_actions()
    assert np.array_equal(before, g.s)


def test_bot_action_is_the_batch_policy_for_a_deterministic_bot():
    """The heuristic bot picks the same action as the batch loop's policy on the real state."""
    from lab.games.daitenka.bots import nb_policy
    from lab.games.daitenka.bots.nb_search import SB_SIZE
    from lab.games.daitenka.engine import nb_actions
    from lab.games.daitenka.engine.layout import AW, MAXA

    g = Game(None, "houjou", "mouri", seed=2)
    for _ in range(12):
        if g.is_over:
            break
        legal = g.legal_actions()
        mine = bot_action(g, "heuristic")
        n = nb_actions.legal_actions(g.s, g.c, g._acts, g._wk)
        k = nb_policy.choose(
            g.s,
            g.c,
            g.lg,
            g._acts,
            n,
            g._wk,
            parse_bot("heuristic").pack(),
            np.zeros(SB_SIZE, np.int64),
            np.zeros((MAXA, AW), np.int64),
        )
        assert mine.row == tuple(int(x) for x in g._acts[k])
        g.step(mine)
        assert legal  # a decision was asked


@pytest.mark.parametrize(
    "text,kind,params",
    [
        ("heuristic", "heuristic", ()),
        ("search", "search", ()),
        ("random", "random", ()),
        ("aggressive", "heuristic", (("persona", "aggressive"),)),
        ("defensive", "heuristic", (("persona", "defensive"),)),
        ("search:simulations=200", "search", (("simulations", 200),)),
        (
            "heuristic:persona=defensive,card=30",
            "heuristic",
            (("card", 30), ("persona", "defensive")),
        ),
    ],
)
def test_bot_option_forms(text, kind, params):
    spec = parse_bot_option(text)
    assert (spec.kind, spec.params) == (kind, params)


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("foo", "is not a bot"),
        ("search:simulations=abc", "must be a whole number"),
        ("search:simulations", "is not KEY=VALUE"),
        ("random:persona=aggressive", "takes no parameters"),
        ("heuristic:simulations=5", "unknown parameter"),
        ("search:simulations=0", "1–100000"),
    ],
)
def test_bad_bot_options_are_one_line_errors(text, fragment):
    with pytest.raises(LabError, match=re.escape(fragment)):
        parse_bot_option(text)


def test_assignments():
    assert parse_assignments(["walls=10", "logistics=on,gun=retreat"]) == {
        "walls": "10",
        "logistics": "on",
        "gun": "retreat",
    }
    with pytest.raises(LabError, match="not KEY=VALUE"):
        parse_assignments(["walls"])


# ------------------------------------------------------------------------------ replay files


def _one_game(tmp_path) -> Path:
    s = session(tmp_path, Driver(mode="random", seed=6))
    s.run()
    (path,) = replay_files(tmp_path)
    return path


def test_show_replay_file_replays_and_checks(tmp_path):
    path = _one_game(tmp_path)
    console = Console(file=StringIO(), width=120, color_system=None)
    sc = tmp_path / "from_replay.toml"
    assert show_replay_file(path, console=console, save_scenario=sc) == 0
    text = console.file.getvalue()
    assert "reproduces the recorded match" in text
    assert "▶ A " in text and "▶ B " in text and "徴兵: " in text and "非公開" not in text
    assert scen.run(scen.load(sc)[0]).passed


def test_show_replay_file_reports_a_changed_record(tmp_path):
    path = _one_game(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["final"]["B"]["walls"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    console = Console(file=StringIO(), width=120, color_system=None)
    assert show_replay_file(bad, console=console, log=False) == 1
    assert "does not reproduce" in console.file.getvalue()
    data["final"]["B"]["walls"] -= 1
    data["steps"][0]["step"] = data["steps"][0]["step"].split()[0] + " lead 足軽1"
    bad.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    console = Console(file=StringIO(), width=120, color_system=None)
    assert show_replay_file(bad, console=console, log=False) == 1
    assert "step 1" in console.file.getvalue()


@pytest.mark.parametrize(
    "content,fragment",
    [
        ("not json", "not a replay file"),
        ('{"format": "other"}', "not a replay file written by `lab play`"),
        (None, "file not found"),
    ],
)
def test_bad_replay_files_are_one_line_errors(tmp_path, content, fragment):
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(LabError, match=re.escape(fragment)):
        show_replay_file(path, console=Console(file=StringIO()))


# ------------------------------------------------------------------------------ the command

runner = CliRunner()


def test_play_help():
    r = runner.invoke(cli.app, ["play", "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0
    for opt in (
        "--army",
        "--vs",
        "--bot",
        "--rules",
        "--set",
        "--seed",
        "--save-scenario",
        "--replay-dir",
        "search:simulations=200",
    ):
        assert opt in r.stdout, opt


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--army", "nosuch"], 'unknown army "nosuch"'),
        (["--vs", "nosuch"], 'unknown army "nosuch"'),
        (["--set", "walls=99"], "walls = 99 is not allowed"),
        (["--set", "odawara=fortify"], "needs logistics = true"),
        (["--set", "walls"], "is not KEY=VALUE"),
        (["--rules", "nosuch"], 'unknown rules preset "nosuch"'),
        (["--bot", "nosuch"], "is not a bot"),
        (["--save-scenario", "/nonexistent/dir/x.toml"], "does not exist"),
    ],
)
def test_bad_options_are_one_line_errors(tmp_path, args, fragment):
    r = runner.invoke(
        cli.app, ["play", "--replay-dir", str(tmp_path)] + args, input="", env={"COLUMNS": "200"}
    )
    assert r.exit_code == 2, r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], r.stderr
    assert not list(tmp_path.glob("*.json"))  # nothing was played


def test_start_position_is_after_set_up(tmp_path):
    """The scenario's position is the one before the first leader turn's draw."""
    s = session(tmp_path, Driver(mode="first", stop_after=0, interrupt=EOFError))
    s.run()
    rec = s.records[0]
    g = Game(rec.rules, rec.decks["A"], rec.decks["B"], seed=rec.seed)
    assert int(g.s[G_PHASE]) == PH_LEADER_START
    for seat in "AB":
        assert rec.start[seat]["deck"] == g.zone(seat, "deck")
        assert rec.start[seat]["walls"] == g.zone(seat, "walls")
        assert Counter(rec.start[seat]["hand"]) == Counter(g.zone(seat, "hand"))
