"""The notebooks run top to bottom on a small synthetic results folder (nbclient)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from _support.synthetic import synthetic_records, write_results

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    g, c = synthetic_records(deals=6)
    return write_results(tmp_path_factory.mktemp("nb") / "results", g, c)


def run(name: str, results: Path, monkeypatch) -> nbformat.NotebookNode:
    monkeypatch.setenv("LAB_RESULTS", str(results))  # the notebooks' RESULTS reads it
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    assert "RESULTS = " in nb.cells[1].source  # the folder is chosen at the top
    NotebookClient(nb, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
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


def test_variants_notebook_runs(results, monkeypatch):
    nb = run("01_variants", results, monkeypatch)
    text = "".join(outputs(nb, "text"))
    assert "variants ['base', 'walls6']" in text
    assert "base → walls6" in text
    html = "".join(outputs(nb, "text/html"))
    assert "first_win" in html and "skill_sensitivity" in html
    assert len(outputs(nb, "image/png")) >= 5  # first player, lengths, change, ratings, matchups


def test_cards_notebook_runs(results, monkeypatch):
    nb = run("02_cards", results, monkeypatch)
    html = "".join(outputs(nb, "text/html"))
    assert "iwd_base" in html and "hyakuman_isshin" in html and "karabentou" in html
    assert len(outputs(nb, "image/png")) >= 1  # the forest plot
