"""The games registry (lab.games, issue 17 item 1): a config names its game, 大天下 stays the
default with its experiment fingerprint unchanged, and Rumble Nation runs through the same
runner — deterministic records for any chunk size or worker count, deals shared across variants,
per-seat columns null for the seats not in play, `lab run`/`lab report`/`lab play`."""

from __future__ import annotations


import numpy as np
import pytest
from typer.testing import CliRunner

import lab.cli as cli
from lab import games
from lab.errors import LabError
from lab.sim import runner
from lab.sim.config import from_dict, load_experiment
from lab.records import kinds, read_games

RN = {
    "game": "rumble_nation",
    "seed": 5,
    "games": 40,
    "chunk_size": 16,
    "rules": ["base_2p", "base_3p", "base_4p"],
    "bots": "random",
    "grid": {"reroll": [True, False]},
}


def test_registry_names_both_games_and_refuses_others_in_one_line():
    assert games.get(None).name == "daitenka"
    assert games.get(None).display == "大天下"
    assert games.get("rumble_nation").RECORD_KINDS == ("games",)
    with pytest.raises(LabError) as e:
        games.of_config({"game": "rumble_natoin"}, "x.toml")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("x.toml: game = 'rumble_natoin'")
    assert "did you mean rumble_nation" in msg and "daitenka, rumble_nation" in msg


def test_daitenka_experiment_keeps_its_fingerprint_inputs(tmp_path):
    exp = load_experiment("configs/default.toml")
    assert exp.game == "daitenka"
    assert "game" not in exp.resolved()  # old results folders still resume
    named = from_dict({"game": "daitenka", "seed": 1, "games": 3}, "x.toml")
    plain = from_dict({"seed": 1, "games": 3}, "x.toml")
    assert named.fingerprint() == plain.fingerprint()


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"rules": "base_5p"}, "unknown Rumble Nation preset \"base_5p\""),
        ({"grid": {"rerol": [True]}}, "[grid] unknown rules key \"rerol\"; did you mean reroll"),
        ({"bots": ["random", "random"]}, "names 2 bots but variant base_3p seats 3"),
        ({"bots": "alphazero"}, "a Rumble Nation bot is one of random, heuristic, search"),
        ({"armies": "all"}, "unknown key \"armies\""),
        (
            {"grid": {"players": [5]}},
            "players = 5 is not allowed; allowed values: whole numbers 2–4",
        ),
    ],
)
def test_bad_rumble_nation_configs_are_one_line(change, fragment):
    with pytest.raises(LabError) as e:
        from_dict(RN | change, "rn.toml")
    assert fragment in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith("rn.toml")


def test_rumble_nation_config_resolves_variants_and_cells():
    exp = from_dict(RN, "rn.toml")
    assert exp.game == "rumble_nation"
    assert [v.id for v in exp.variants] == [
        "base_2p",
        "base_2p+reroll=off",
        "base_3p",
        "base_3p+reroll=off",
        "base_4p",
        "base_4p+reroll=off",
    ]
    assert exp.total_games == 6 * 40
    assert exp.resolved()["game"] == "rumble_nation"
    assert from_dict(RN | {"seed": 6}, "rn.toml").fingerprint() != exp.fingerprint()


@pytest.fixture(scope="module")
def rn_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("rn") / "run"
    result = runner.run(from_dict(RN, "rn.toml"), out, jobs=1)
    assert result.played == 240
    return out


def test_rumble_nation_records_are_one_row_per_game_with_seat_columns(rn_run):
    assert kinds(rn_run) == ("games",)
    assert not (rn_run / "cards").exists()
    g = read_games(rn_run)
    assert len(g) == 240 and g["game_id"].is_unique
    two = g[g["players"] == 2]
    assert two["score_p3"].isna().all() and two["bot_p3"].isna().all()
    assert two["small_7"].isna().all()  # no second place at 2 players
    four = g[g["players"] == 4]
    assert four["score_p4"].notna().all() and four["small_7"].notna().all()
    scores = np.stack([g[f"score_p{k}"].fillna(-1) for k in range(1, 5)], axis=1)
    winner_score = scores[np.arange(len(g)), g["winner"].to_numpy() - 1]
    assert (winner_score == scores.max(axis=1)).all()  # RN5: the winner has the top score


def test_variants_of_a_player_count_play_the_same_deals(rn_run):
    g = read_games(rn_run)
    for players in (2, 3, 4):
        part = g[g["players"] == players]
        on, off = (
            part[part["reroll"] == flag].set_index("deal").sort_index() for flag in (True, False)
        )
        cols = [f"area_{v}" for v in range(2, 13)] + ["first"]
        assert (on[cols] == off[cols]).all().all()
        assert not (on["seed_words"].map(tuple) == off["seed_words"].map(tuple)).all()
    # the token layout is one deal for every player count
    a = g[(g["players"] == 2) & g["reroll"]].set_index("deal")["area_7"]
    b = g[(g["players"] == 4) & g["reroll"]].set_index("deal")["area_7"]
    assert (a.sort_index() == b.sort_index()).all()


def test_records_do_not_depend_on_chunks_or_workers(rn_run, tmp_path):
    other = runner.run(from_dict(RN | {"chunk_size": 40}, "rn.toml"), tmp_path / "b", jobs=2)
    assert other.played == 240
    a, b = read_games(rn_run), read_games(tmp_path / "b")
    assert a.drop(columns="seed_words").equals(b.drop(columns="seed_words"))
    assert (a["seed_words"].map(tuple) == b["seed_words"].map(tuple)).all()


def test_a_complete_rumble_nation_folder_is_not_played_again(rn_run):
    again = runner.run(from_dict(RN, "rn.toml"), rn_run, jobs=1)
    assert again.already_complete and again.played == 0


def test_lab_run_and_lab_report_on_rumble_nation(tmp_path):
    cfg = tmp_path / "rn.toml"
    cfg.write_text(
        'game = "rumble_nation"\nseed = 3\ngames = 60\nrules = ["base_2p", '
        '"base_4p"]\nbots = "random"\n[grid]\nreinforcements = [1, 2]\n',
        encoding="utf-8",
    )
    cli_runner = CliRunner()
    r = cli_runner.invoke(
        cli.app,
        ["run", str(cfg), "--out", str(tmp_path / "out"), "-j", "1"],
        env={"COLUMNS": "120"},
    )
    assert r.exit_code == 0, r.stderr
    assert "start player's win rate" in r.stdout and "base_4p+reinforcements=1" in r.stdout
    r = cli_runner.invoke(cli.app, ["report", str(tmp_path / "out"), "-f", "md"])
    assert r.exit_code == 0, r.stderr
    page = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    heads = [line for line in page.splitlines() if line.startswith("## ")]
    assert heads[0] == "## At a glance"
    for h in (
        "## Win rate by seat position",
        "## Scores and margins",
        "## Token values",
        "## What each toggle changes",
    ):
        assert h in heads
    assert "How big is the start player's advantage?" in page
    assert "Which toggle shrinks it?" in page and "reinforcements: 1 → 2" in page
    r = cli_runner.invoke(cli.app, ["report", str(tmp_path / "out")])
    assert r.exit_code == 0 and (tmp_path / "out" / "report.html").exists()


def test_lab_play_rumble_nation_from_piped_input():
    r = CliRunner().invoke(
        cli.app,
        [
            "play",
            "--game",
            "rumble_nation",
            "--seed",
            "3",
            "--players",
            "3",
            "--seat",
            "P2",
            "--bot",
            "random",
        ],
        input="help\nplace 13 with 1\n" + "1\n" * 120 + "q\n",
        env={"COLUMNS": "120"},
    )
    assert r.exit_code == 0, r.stderr
    assert "you are P2" in r.stdout
    assert "Type the number of a decision" in r.stdout
    assert "not a legal decision" in r.stdout
    assert "war phase (RN4)" in r.stdout and "result: " in r.stdout


def test_lab_play_refuses_rumble_nation_options_for_daitenka():
    r = CliRunner().invoke(cli.app, ["play", "--players", "3"])
    assert r.exit_code == 2 and "--players and --seat are for --game rumble_nation" in r.stderr


def test_lab_replay_reproduces_a_recorded_rumble_nation_game(rn_run):
    g = read_games(rn_run)
    gid = int(g.loc[g["players"] == 3, "game_id"].iloc[5])
    r = CliRunner().invoke(cli.app, ["replay", str(rn_run), str(gid)], env={"COLUMNS": "120"})
    assert r.exit_code == 0, r.stderr
    assert "reproduces the recorded game" in r.stdout and "war" not in r.stderr
    assert "P3" in r.stdout


def test_lab_replay_names_a_tampered_rumble_nation_record(rn_run, monkeypatch):
    import lab.records as records_io
    from lab.games.rumble_nation.experiment import replay

    real = records_io.read_record

    def tampered(out, game_id):
        man, row = real(out, game_id)
        return man, row | {"score_p2": row["score_p2"] + 1}

    gid = int(read_games(rn_run)["game_id"].iloc[0])
    assert replay(rn_run, gid).reproduced
    monkeypatch.setattr(records_io, "read_record", tampered)
    r = replay(rn_run, gid)
    assert not r.reproduced and r.mismatches[0].startswith("score_p2: recorded ")


def test_lab_match_ladder_bench_and_scenario_take_rumble_nation():
    run = CliRunner().invoke
    r = run(cli.app, ["match", "--game", "rumble_nation", "--rules", "base_4p", "--seed", "2"])
    assert r.exit_code == 0, r.stderr
    assert "P4" in r.stdout and "result: " in r.stdout and "rules base_4p" in r.stdout
    r = run(cli.app, ["match", "--game", "rumble_nation", "oda"])
    assert r.exit_code == 2 and "Rumble Nation has no armies" in r.stderr
    r = run(cli.app, ["ladder", "--game", "rumble_nation", "--games", "40", "--json"])
    assert r.exit_code == 0, r.stderr
    import json

    rows = json.loads(r.stdout)
    assert {(x["bot"], x["against"]) for x in rows} == {
        ("random", "heuristic"),
        ("heuristic", "random"),
    }
    assert all(x["games"] == 80 for x in rows)
    r = run(
        cli.app,
        [
            "bench",
            "--game",
            "rumble_nation",
            "--games",
            "50",
            "--runs",
            "1",
            "--preset",
            "base_3p",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["base_3p"]["players"] == 3
    r = run(cli.app, ["scenario", "tests/scenarios_rn/rn2_default_token_layout.toml"])
    assert r.exit_code == 0 and "1 passed, 0 failed" in r.stdout


@pytest.mark.parametrize(
    "command", [["value"], ["swap", "--card", "足軽3", "--with", "足軽4"], ["balance"]]
)
def test_card_commands_refuse_a_rumble_nation_config(command):
    r = CliRunner().invoke(cli.app, [command[0], "configs/rumble_nation.toml", *command[1:]])
    assert r.exit_code == 2 and "edits 大天下's cards" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
