"""benchmarks/polish_replay.py replays a finished search's polishing with other settings. Rolled
back to where the polishing began, the same settings must walk the same path: else a replay
compares polishing paths, not settings (docs/balancing.md, "One calibration for every polished
set")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from _support.benchmarks import load
from _support.sim_cases import write_config
from lab.design import balance
from lab.design.balance_search import POLISH, Search
from lab.sim.config import load_experiment
from test_balance import BUDGET, CONFIG, SMALL

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def replay():
    return load("polish_replay")  # it imports its sibling correction_check


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replaycfg")
    p = balance.plan(load_experiment(write_config(folder, CONFIG)), **SMALL)
    out = tmp_path_factory.mktemp("replay") / "balance"
    result = balance.run(p, out, games=BUDGET, jobs=2)
    return p, out, result


def _load(p, folder: Path) -> Search:
    s = Search(p.exp, p.moves, p.settings, folder, tiers=p.tiers, jobs=2)
    assert s.load()
    return s


def _polished(history) -> list[list[int]]:
    return [h["polished"][0] for h in history if h.get("phase") == POLISH]


def test_a_replay_with_the_same_settings_walks_the_original_polishing_path(
    replay, finished, tmp_path
):
    p, out, result = finished
    original = _polished(result["search"]["history"])
    assert len(original) >= 3  # the anchor and two neighbours at least
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    s = _load(p, copy)
    replay.forget_polishing(s)
    assert not _polished(s.history) and not any(c.polish or c.fresh for c in s.cands.values())
    # what the polishing rounds screened is forgotten too: their records are gone
    first = s.round
    assert all(int(f.stem.split("-")[1]) < first for f in (copy / "units").glob("*.parquet"))
    assert all(c.born < first for c in s.cands.values())
    s._polishing(None)  # a games budget: the original's rounds
    assert _polished(s.history) == original
    assert s.polish_best().moves == _load(p, out).polish_best().moves
