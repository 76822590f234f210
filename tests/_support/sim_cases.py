"""Small experiment files and helpers for the lab.sim tests (lab run, resume, replay)."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from lab.sim import read_cards, read_games

# three armies, two variants from a grid, two bot tiers, every deal played in both seat orders,
# and chunks of 7 games, so chunks end inside cells: 2 × 2 × 6 × 12 × 2 = 576 games in 96 chunks
SMALL = """
name = "small"
seed = 11
games = 12
rules = "second_edition"
armies = ["oda", "takeda", "uesugi"]
tiers = [["random", "random"], ["heuristic", "random"]]
seat_swap = true
chunk_size = 7
[grid]
hand_cap = [0, 7]
"""

# many small chunks of random games for the kill-and-resume test: 81 × 5 games in 81 chunks
KILL = """
name = "kill"
seed = 5
games = 5
rules = "second_edition"
armies = "all"
bots = "random"
"""


def write_config(folder: Path, text: str, name: str = "exp.toml") -> Path:
    path = Path(folder) / name
    path.write_text(text, encoding="utf-8")
    return path


def lab_command() -> list[str]:
    """The installed console script next to this Python, else the module itself."""
    script = Path(sys.executable).parent / "lab"
    return [str(script)] if script.exists() else [sys.executable, "-m", "lab.cli"]


def records(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    return read_games(out), read_cards(out)


def assert_same_records(a: Path, b: Path) -> None:
    ga, ca = records(a)
    gb, cb = records(b)
    assert len(ga) > 0 and len(ca) > 0
    pd.testing.assert_frame_equal(ga, gb)
    pd.testing.assert_frame_equal(ca, cb)
