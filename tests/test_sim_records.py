"""Records: the written columns are the ones docs/records.md documents, card rows agree with the
decks and with their games, and the end-of-run summary counts what it says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import records, write_config
from lab.games.daitenka.cards.pool import load_army
from lab.games.daitenka.records import CARDS_SCHEMA, GAMES_SCHEMA
from lab.games.daitenka.summary import army_rates, variant_rates

DOC = Path(__file__).parent.parent / "docs" / "records.md"
TINY = """
name = "tiny"
seed = 2
games = 15
armies = ["honganji", "houjou"]
bots = ["heuristic", "random"]
chunk_size = 8
[grid]
mulligan = [false, true]
"""


def documented(section: str) -> list[str]:
    """Column names of one table of docs/records.md (a row may list several, comma-separated)."""
    text = DOC.read_text(encoding="utf-8").split(f"## {section}\n", 1)[1].split("\n## ")[0]
    names = []
    for line in text.splitlines():
        m = re.match(r"\| ([^|]+?) \|", line)
        if m and m.group(1) not in ("column", "---"):
            names += [n.strip() for n in m.group(1).split(",")]
    return names


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    config = write_config(folder, TINY)
    result = CliRunner().invoke(
        cli.app,
        ["run", str(config), "--out", str(folder / "out"), "--jobs", "1"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.stderr
    return folder / "out", result


def test_games_columns_are_the_documented_ones():
    assert set(GAMES_SCHEMA.names) == set(documented("games"))


def test_cards_columns_are_the_documented_ones():
    assert set(CARDS_SCHEMA.names) == set(documented("cards"))


def test_card_rows_hold_each_deck_and_agree_with_the_games(tiny):
    out, _ = tiny
    games, cards = records(out)
    assert len(games) == 2 * 4 * 15
    per_player = cards.groupby(["game_id", "player"])
    assert (per_player["copies"].sum() == 30).all()
    assert per_player.ngroups == 2 * len(games)
    merged = cards.merge(games[["game_id", "army_a", "army_b", "mulligan"]], on="game_id")
    seat_army = merged["army_a"].where(merged["player"] == "A", merged["army_b"])
    assert (merged["army"] == seat_army).all()
    deck = {c.id: n for c, n in load_army("honganji").entries}
    rows = merged[merged["army"] == "honganji"]
    assert (rows["copies"] == rows["card_id"].map(deck)).all()
    assert (per_player["opening"].sum() >= 5).all()
    drawn = cards[cards["drawn"] > 0]
    assert (drawn["first_draw_turn"] > 0).all()
    assert (cards.loc[cards["drawn"] == 0, "first_draw_turn"] == 0).all()


def test_triggers_by_ability_adds_up_to_triggers(tiny):
    _, cards = records(tiny[0])
    split = cards[cards["triggers_by_ability"] != ""]
    assert len(split) > 0
    totals = split["triggers_by_ability"].map(lambda s: sum(json.loads(s).values()))
    assert (totals == split["triggers"]).all()
    assert (split["triggers"] > 0).any()


def test_lab_run_prints_progress_summary_and_where_the_records_are(tiny):
    out, result = tiny
    assert "games" in result.stderr and "games/s" in result.stderr
    assert "per variant" in result.stdout and "per army" in result.stdout
    assert "second_edition+mulligan=on" in result.stdout
    assert f"records: {out}/games" in result.stdout.replace("\n", "")


def test_variant_rates_count_first_player_wins_draws_and_length():
    games = pd.DataFrame(
        {
            "variant": ["v"] * 4 + ["w"] * 2,
            "tier": ["t"] * 6,
            "first": ["A", "B", "A", "B", "A", "A"],
            "winner": ["A", "A", "draw", "B", "B", "B"],
            "leader_turns": [10, 20, 30, 40, 5, 7],
            "battles": [1, 2, 3, 4, 5, 6],
        }
    )
    rates = variant_rates(games).set_index("variant")
    assert rates.loc["v", "games"] == 4
    assert rates.loc["v", "first_player_win"] == pytest.approx(2 / 4)
    assert rates.loc["v", "draw"] == pytest.approx(1 / 4)
    assert rates.loc["v", "leader_turns"] == pytest.approx(25)
    assert rates.loc["w", "first_player_win"] == 0


def test_army_rates_leave_mirrors_out():
    games = pd.DataFrame(
        {
            "variant": ["v"] * 4,
            "army_a": ["oda", "takeda", "oda", "oda"],
            "army_b": ["takeda", "oda", "oda", "takeda"],
            "winner": ["A", "A", "A", "draw"],
        }
    )
    rates = army_rates(games)
    assert rates.loc["oda", "v"] == pytest.approx(1 / 3)  # won 1 of 3 non-mirror games
    assert rates.loc["takeda", "v"] == pytest.approx(1 / 3)


def test_summary_keeps_bot_tiers_apart(monkeypatch):
    # 織田 wins every game against random bots and none against heuristic bots: a pooled 50%
    # would describe no player, so the summary shows one army table per tier (issue 12).
    from rich.console import Console

    import lab.games.daitenka.summary as summary

    rows = []
    for tier, winner in (("random-vs-random", "A"), ("heuristic-vs-heuristic", "B")):
        for _ in range(4):
            rows.append(
                {
                    "variant": "second_edition",
                    "tier": tier,
                    "army_a": "oda",
                    "army_b": "takeda",
                    "first": "A",
                    "winner": winner,
                    "leader_turns": 10,
                    "battles": 5,
                    "error": False,
                }
            )
    monkeypatch.setattr(summary, "read_games", lambda out, columns=None: pd.DataFrame(rows))
    shown = summary.tables("unused")
    army_tables = [t for t in shown if str(t.title).startswith("per army")]
    assert [t.title for t in army_tables] == [
        "per army — win rate, bots random-vs-random",
        "per army — win rate, bots heuristic-vs-heuristic",
    ]
    console = Console(width=80, record=True)
    for t in army_tables:
        console.print(t)
    text = console.export_text()
    assert "100.0%" in text and "0.0%" in text and "50.0%" not in text
