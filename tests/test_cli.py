"""The `lab` command line: cards, decks, rules, help, and the one-line error contract (exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import lab.cli as cli
from deck_cases import BAD_DECKS, ODA, WEAK_DECK, write_deck
from lab.games.daitenka.cards.pool import load_armies, load_deck
from lab.errors import LabError

runner = CliRunner()


def invoke(*args: str, columns: int = 200):
    """Run the app in-process; COLUMNS pins rich's width (small widths prove errors never wrap)."""
    return runner.invoke(cli.app, list(args), env={"COLUMNS": str(columns)})


def assert_one_line_error(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])
    return lines[0]


def lab_command() -> list[str]:
    """The installed console script next to this Python, else the module itself."""
    script = Path(sys.executable).parent / "lab"
    return [str(script)] if script.exists() else [sys.executable, "-m", "lab.cli"]


def write_case(tmp_path: Path, case: str) -> Path:
    cards, _ = BAD_DECKS[case]
    path = tmp_path / f"{case}.toml"
    return write_deck(path, raw=cards) if isinstance(cards, str) else write_deck(path, cards)


# ------------------------------------------------------------------------------------ help


def test_app_is_a_typer_app():
    assert isinstance(cli.app, typer.Typer)


def test_root_help_lists_the_commands():
    result = invoke("--help")
    assert result.exit_code == 0
    for name in ("cards", "decks", "rules", "exit code 2"):
        assert name in result.stdout


@pytest.mark.parametrize(
    "command, words",
    [
        ("cards", ["--kind", "--army", "unit", "warlord", "general", "tactic", "castle", "軍略"]),
        ("decks", ["NAME", "--check", "PATH", "5%"]),
        (
            "rules",
            [
                "PRESET",
                "--config",
                "second_edition",
                "sekigahara_trial",
                "legacy_testlab",
                "conflict",
            ],
        ),
    ],
)
def test_each_command_has_help(command, words):
    result = invoke(command, "--help")
    assert result.exit_code == 0
    for word in words:
        assert word in result.stdout, word


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0 and "0.1.0" in result.stdout


# ----------------------------------------------------------------------------------- cards


def test_cards_lists_the_whole_pool():
    result = invoke("cards")
    assert result.exit_code == 0
    out = result.stdout
    assert "80 cards" in out
    for text in (
        "明智光秀（謀反）",
        "akechi_mitsuhide_muhon",
        "〈天下布武〉",
        "∞",
        "総大将",
        "〈築城の名手〉(支城網)",
        "〈不焼〉 〈籠城〉",
        "城",
    ):
        assert text in out, text


def test_cards_filtered_by_kind():
    result = invoke("cards", "--kind", "castle")
    assert result.exit_code == 0
    assert "7 cards" in result.stdout and "姫路城" in result.stdout
    assert "足軽1" not in result.stdout and "殺し間" not in result.stdout


def test_kind_may_be_given_as_the_printed_label():
    assert invoke("cards", "-k", "軍略").stdout == invoke("cards", "--kind", "tactic").stdout


def test_tactics_show_their_legacy_cost():
    out = invoke("cards", "--kind", "tactic").stdout
    row = next(line for line in out.splitlines() if "殺し間" in line)
    assert row.rstrip(" │").endswith("2")


def test_cards_of_an_army_with_copies():
    result = invoke("cards", "--army", "oda")
    assert result.exit_code == 0
    assert "21 cards, 30 copies" in result.stdout and "copies" in result.stdout
    assert "顕如" not in result.stdout
    row = next(line for line in result.stdout.splitlines() if "足軽8" in line)
    assert " 3 " in row


def test_cards_of_an_army_and_a_kind():
    result = invoke("cards", "--army", "武田", "--kind", "general")
    assert result.exit_code == 0
    assert "武田信玄" in result.stdout and "1 cards, 1 copies" in result.stdout


def test_bad_kind_lists_the_allowed_values():
    assert_one_line_error(
        invoke("cards", "--kind", "samurai", columns=40),
        '"samurai"',
        "unit (兵)",
        "warlord (武将)",
        "general (総大将)",
        "tactic (軍略)",
        "castle (城)",
    )


def test_unknown_army_lists_the_armies():
    assert_one_line_error(
        invoke("cards", "--army", "伊賀", columns=40),
        'unknown army "伊賀"',
        "oda (織田)",
        "seigun (西軍)",
    )


# ----------------------------------------------------------------------------------- decks


def test_decks_lists_the_nine_armies_without_warnings():
    result = invoke("decks")
    assert result.exit_code == 0 and result.stderr == ""
    for key, name, general in (
        ("oda", "織田", "織田信長"),
        ("tougun", "東軍", "徳川家康"),
        ("seigun", "西軍", "石田三成"),
    ):
        assert key in result.stdout and name in result.stdout and general in result.stdout
    rows = [line for line in result.stdout.splitlines() if " 165 " in line]
    assert len(rows) == 9


def test_decks_prints_balance_warnings_but_succeeds(tmp_path, monkeypatch):
    weak = load_deck(write_deck(tmp_path / "weak.toml", WEAK_DECK))
    from lab.games.daitenka import cards_commands

    monkeypatch.setattr(cards_commands, "load_armies", lambda pool: [*load_armies(pool), weak])
    result = invoke("decks")
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert any(str(tmp_path / "weak.toml") in w and "-20.0%" in w for w in warnings), warnings


def test_decks_name_shows_the_card_list_and_strength_curve():
    result = invoke("decks", "東軍")
    assert result.exit_code == 0
    out = result.stdout
    assert "東軍 (tougun)" in out and "total strength 165" in out
    assert "井伊直政" in out and "strength curve" in out
    curve = {
        line.split()[0]: line.split()[1:]
        for line in out.split("strength curve")[1].splitlines()
        if line.strip()
    }
    assert curve["∞"][0] == "1" and curve["∞"][1].startswith("█")
    assert set(curve) >= {"1", "10", "∞", "軍略", "城"}


def test_decks_check_ok(tmp_path):
    path = write_deck(tmp_path / "mine.toml", ODA)
    result = invoke("decks", "--check", str(path))
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.startswith("OK ")
    assert "30 cards" in result.stdout and "total strength 165" in result.stdout
    assert "general 織田信長" in result.stdout


def test_decks_check_warns_about_a_weak_deck_but_succeeds(tmp_path):
    path = write_deck(tmp_path / "weak.toml", WEAK_DECK)
    result = invoke("decks", "--check", str(path), columns=40)
    assert result.exit_code == 0
    assert result.stdout.startswith("OK ")
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: ")
    assert "total strength 132" in lines[0] and "-20.0%" in lines[0] and "165.0" in lines[0]


@pytest.mark.parametrize("case", sorted(BAD_DECKS))
def test_decks_check_bad_deck_is_one_line_and_exit_2(tmp_path, case):
    path = write_case(tmp_path, case)
    assert_one_line_error(
        invoke("decks", "--check", str(path), columns=40), f"error: {path}: ", *BAD_DECKS[case][1]
    )


def test_decks_check_missing_file(tmp_path):
    assert_one_line_error(
        invoke("decks", "--check", str(tmp_path / "no.toml")), "no.toml: file not found"
    )


def test_decks_name_and_check_together_is_refused(tmp_path):
    path = write_deck(tmp_path / "mine.toml", ODA)
    assert_one_line_error(invoke("decks", "oda", "--check", str(path)), "not both")


# ----------------------------------------------------------------------------------- rules


def test_rules_default_preset():
    result = invoke("rules")
    assert result.exit_code == 0
    out = result.stdout
    for text in (
        "walls",
        "logistics",
        "odawara",
        "first_player",
        "wall_to_hand",
        "opening hand size (R3)",
    ):
        assert text in out, text
    assert "0 toggle(s) differ from second_edition" in out
    assert out.rstrip().endswith("rule set id: second_edition")


def test_rules_named_preset():
    out = invoke("rules", "legacy_testlab").stdout
    assert "last_set_size" in out and "fortify" in out
    assert out.rstrip().endswith("rule set id: legacy_testlab")


def test_rules_config_on_top_of_a_preset(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text("walls = 8\nmulligan = \"on\"\n", encoding="utf-8")
    out = invoke("rules", "--config", str(path)).stdout
    walls = next(line for line in out.splitlines() if line.startswith("│ walls"))
    assert "8" in walls and "changed, was 7" in walls
    assert "2 toggle(s) differ from second_edition" in out
    assert out.rstrip().endswith("rule set id: second_edition+walls=8+mulligan=on")
    out = invoke("rules", "legacy_testlab", "-c", str(path)).stdout
    assert out.rstrip().endswith("rule set id: legacy_testlab+walls=8")


def test_rules_config_naming_its_preset(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text('preset = "legacy_testlab"\ngun = "kill"\n', encoding="utf-8")
    out = invoke("rules", "--config", str(path)).stdout
    assert "rules (preset legacy_testlab)" in out
    assert out.rstrip().endswith("rule set id: legacy_testlab+gun=kill")
    same = invoke("rules", "legacy_testlab", "--config", str(path))
    assert same.exit_code == 0 and same.stdout == out
    assert_one_line_error(
        invoke("rules", "second_edition", "--config", str(path), columns=40),
        str(path),
        'preset = "legacy_testlab"',
        '"second_edition"',
        "drop one",
    )


def test_rules_unknown_preset_lists_presets():
    assert_one_line_error(
        invoke("rules", "third_edition", columns=40),
        "third_edition",
        "second_edition, sekigahara_trial, legacy_testlab",
    )


def test_rules_bad_config_is_one_line(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text("wals = 6\n", encoding="utf-8")
    assert_one_line_error(
        invoke("rules", "-c", str(path), columns=40),
        f"{path}: ",
        'unknown rules key "wals"',
        "walls, logistics",
    )
    path.write_text('odawara = "fortify"\n', encoding="utf-8")
    assert_one_line_error(invoke("rules", "-c", str(path), columns=40), "needs logistics = true")
    path.write_text("gun = 'laser'\n", encoding="utf-8")
    assert_one_line_error(
        invoke("rules", "-c", str(path), columns=40), "allowed values: kill, retreat"
    )


# ----------------------------------------------------------------------- the error contract


def test_main_turns_any_lab_error_into_one_line_and_exit_2(monkeypatch, capsys):
    def boom(**_):
        raise LabError("something the user can fix", source="x.toml")

    monkeypatch.setattr(cli, "app", boom)
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == ["error: x.toml: something the user can fix"]


def test_main_leaves_bugs_alone(monkeypatch):
    def bug(**_):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(cli, "app", bug)
    with pytest.raises(ZeroDivisionError):
        cli.main()


@pytest.mark.parametrize(
    "args",
    [
        ["decks", "--check", "{same_person}"],
        ["decks", "--check", "{bad_toml}"],
        ["cards", "--kind", "ninja"],
        ["rules", "fourth"],
    ],
)
def test_installed_command_prints_one_line_and_exits_2(tmp_path, args):
    paths = {case: write_case(tmp_path, case) for case in ("same_person", "bad_toml")}
    argv = [a.format(**paths) for a in args]
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"} | {"COLUMNS": "40"}
    proc = subprocess.run(
        lab_command() + argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("error: ")


def test_installed_command_runs():
    proc = subprocess.run(
        lab_command() + ["decks"], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 0, proc.stderr
    assert "本願寺" in proc.stdout and proc.stderr == ""
