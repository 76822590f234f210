"""Silent no-ops (issue 27, item 3): `lab swap` refuses a card swapped for itself before playing
(it played 3,240 games to report +0.0 [+0.0, +0.0]), and `lab run --fresh` does not leave the
report, value/ and balance/ made from the records it deletes beside the new ones."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import write_config
from lab.sim import runner
from test_cli import assert_one_line_error

TINY = """
name = "tiny"
seed = 3
games = 2
armies = ["oda", "takeda"]
bots = "random"
"""

SWAP = """
name = "swaptest"
seed = 7
games = 2
armies = ["oda", "takeda"]
bots = "random"
"""


def invoke(*args):
    return CliRunner().invoke(cli.app, list(args), env={"COLUMNS": "200"})


@pytest.fixture
def nothing_played(monkeypatch):
    def played(*args, **kwargs):
        raise AssertionError("games were played")

    monkeypatch.setattr(runner, "run", played)


@pytest.mark.parametrize(
    "card, with_, fragment",
    [
        (
            "赤備え",
            "赤備え",
            "--card 赤備え --with 赤備え: a card swapped for itself changes nothing",
        ),
        (
            "akazonae",
            "赤備え",
            "--card akazonae --with 赤備え: both are 赤備え; a card swapped for "
            "itself changes nothing",
        ),
    ],
)
def test_swap_of_a_card_for_itself_is_refused_before_playing(
    tmp_path, nothing_played, card, with_, fragment
):
    config = write_config(tmp_path, SWAP)
    assert_one_line_error(
        invoke("swap", str(config), "--card", card, "--with", with_, "--out", str(tmp_path / "r")),
        fragment,
        "give --with another card",
    )
    assert not (tmp_path / "r").exists()


def test_swap_table_naming_the_same_card_twice_is_refused(tmp_path, nothing_played):
    config = write_config(tmp_path, SWAP + '[swap]\ncard = "赤備え"\nwith = "赤備え"\n')
    assert_one_line_error(invoke("swap", str(config)), "a card swapped for itself")


def test_fresh_moves_what_was_made_from_the_old_records_aside(tmp_path):
    config = write_config(tmp_path, TINY)
    out = tmp_path / "r"
    assert invoke("run", str(config), "--out", str(out), "--jobs", "1").exit_code == 0
    assert invoke("report", str(out)).exit_code == 0
    assert invoke("report", str(out), "--format", "md").exit_code == 0
    (out / "value").mkdir()
    (out / "value" / "value.parquet").write_bytes(b"old value table")
    (out / "balance").mkdir()
    (out / "balance" / "balance.json").write_text("{}")
    (out / "notes.txt").write_text("mine")
    old_games = sorted((out / "games").iterdir())

    result = invoke("run", str(config), "--out", str(out), "--jobs", "1", "--fresh")
    assert result.exit_code == 0, result.stderr
    shown = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))  # not the lock
    assert shown == ["cards", "games", "manifest.json", "notes.txt", "stale"]  # the user's stays
    (moved,) = (out / "stale").iterdir()
    assert sorted(p.name for p in moved.iterdir()) == [
        "balance",
        "report.html",
        "report.md",
        "report_files",
        "value",
    ]
    assert (moved / "value" / "value.parquet").read_bytes() == b"old value table"  # kept
    note = next(x for x in result.stderr.splitlines() if x.startswith("note: --fresh"))
    assert (
        "report.html, report.md, report_files/, value/, balance/ came from the old records" in note
        and str(moved) in note
    )
    assert sorted(p.name for p in (out / "games").iterdir()) == [p.name for p in old_games]
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"

    # a report made now describes the new records; the stale folder is left alone next time
    assert invoke("report", str(out)).exit_code == 0
    again = invoke("run", str(config), "--out", str(out), "--jobs", "1", "--fresh")
    assert again.exit_code == 0, again.stderr
    assert len(list((out / "stale").iterdir())) == 2
    assert "note: --fresh: report.html came from the old records" in again.stderr


def test_fresh_on_a_folder_with_records_only_moves_nothing(tmp_path):
    config = write_config(tmp_path, TINY)
    out = tmp_path / "r"
    assert invoke("run", str(config), "--out", str(out), "--jobs", "1").exit_code == 0
    result = invoke("run", str(config), "--out", str(out), "--jobs", "1", "--fresh")
    assert result.exit_code == 0
    assert "note: --fresh" not in result.stderr
    assert not (out / "stale").exists()
