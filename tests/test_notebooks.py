"""The notebooks run top to bottom (nbclient) on a small real run: `lab run` of three armies, two
wall counts and two bot tiers, a `lab swap` of 赤備え for 足軽7, and — for the cards notebook —
a `lab value` run of three cards in the results folder. Each section prints its answer."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from _support.sim_cases import write_config
from lab.design import value
from lab.design import swap
from lab.sim import runner
from lab.sim.config import load_experiment

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# 3 armies in a round robin with seat swaps (6 pairs × 2 seat orders), 2 variants, 2 tiers:
# 2 × 2 × 6 × 2 × 16 = 768 games
CONFIG = """
name = "nb"
seed = 11
games = 16
rules = "second_edition"
armies = ["takeda", "houjou", "oda"]
tiers = [["random", "random"], ["heuristic", "heuristic"]]
seat_swap = true

[grid]
walls = [7, 10]
"""
MIN_GAMES = "20"  # the run is small: judge rows from 20 games (the default is 100)


VALUED = ["赤備え", "殺し間", "鉄砲足軽"]  # one card of each army: a quick value run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """results/ (lab run), swap/ (lab swap 赤備え → 足軽7) and valued/ (results/ plus a
    `lab value` run of three cards in valued/value/, where `lab report` looks for it)."""
    root = tmp_path_factory.mktemp("nb")
    exp = load_experiment(write_config(root, CONFIG))
    runner.run(exp, root / "results", jobs=1)
    swap.run(swap.plan(exp, "赤備え", "足軽7"), root / "swap", jobs=1)
    shutil.copytree(root / "results", root / "valued")
    p = value.plan(exp, cards=VALUED)
    value.run(p, root / "valued" / "value", jobs=1)
    value.compute(p, root / "valued" / "value")
    return root


def run(name: str, results: Path, swap_dir: Path, monkeypatch) -> nbformat.NotebookNode:
    monkeypatch.setenv("LAB_RESULTS", str(results))  # the notebooks' RESULTS reads it
    monkeypatch.setenv("LAB_SWAP", str(swap_dir))
    monkeypatch.setenv("LAB_MIN_GAMES", MIN_GAMES)
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    assert "RESULTS = " in nb.cells[1].source  # the folder is chosen at the top
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    return nb


def outputs(nb, kind: str) -> list[str]:
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                found.append(out.text) if kind == "text" else None
            elif kind in out.get("data", {}):
                found.append(out["data"][kind])
    return found


def questions(nb) -> list[str]:
    """The notebook's question headings (## …)."""
    return [
        c.source.splitlines()[0][3:]
        for c in nb.cells
        if c.cell_type == "markdown" and c.source.startswith("## ")
    ]


def answered_sections(nb) -> list[str]:
    """The question headings whose code cell printed an answer."""
    done, heading = [], None
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.startswith("## "):
            heading = cell.source.splitlines()[0][3:]
        elif cell.cell_type == "code" and heading:
            text = "".join(o.get("text", "") for o in cell.get("outputs", []))
            if "Answer" in text:
                done.append(heading)
    return done


def test_variants_notebook_answers_each_question(runs, monkeypatch):
    nb = run("01_variants", runs / "results", runs / "swap", monkeypatch)
    assert len(questions(nb)) == 5 and answered_sections(nb) == questions(nb)
    text = "".join(outputs(nb, "text"))
    assert "reference second_edition" in text
    assert "second_edition → second_edition+walls=10" in text
    assert "random-vs-random" in text and "heuristic-vs-heuristic" in text
    assert "Spearman ρ" in text
    assert len(outputs(nb, "image/png")) >= 4  # first player, change, lengths, ratings


def test_cards_notebook_answers_each_question_and_runs_the_swap_test(runs, monkeypatch):
    nb = run("02_cards", runs / "valued", runs / "swap", monkeypatch)
    assert len(questions(nb)) == 6 and answered_sections(nb) == questions(nb)
    text = "".join(outputs(nb, "text"))
    assert "lab value table: yes" in text
    assert "Answer (swap test, second_edition / random-vs-random): patch 赤備え→足軽7" in text
    assert "武田 (takeda)" in text
    assert "IWD ranks its cards" in text
    assert len(outputs(nb, "image/png")) >= 2  # the opening-hand and IWD forest plots
