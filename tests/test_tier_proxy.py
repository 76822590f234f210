"""benchmarks/tier_proxy.py measures how closely a bot rates the armies as search(400) does. Its
noise share and its bot parsing are checked here, and the shipped targets file loads (its
figures are measurements, not asserted)."""

from __future__ import annotations

import numpy as np
import pytest

from _support.benchmarks import load

ARMIES = ("oda", "honganji", "saika", "takeda", "mouri", "houjou", "uesugi", "tougun", "seigun")


@pytest.fixture(scope="module")
def proxy():
    return load("tier_proxy")


def test_the_noise_share_is_the_two_binomial_errors(proxy, tmp_path):
    rates = "\n".join(f"{a} = 0.5" for a in ARMIES)
    targets = tmp_path / "t.toml"
    targets.write_text(
        f"[[set]]\ngames_per_army = 1600\n[set.rates]\n{rates}\n"
        f"[[set]]\ngames_per_army = 400\n[set.rates]\n{rates}\n",
        encoding="utf-8",
    )
    # 100 deals per ordered pair: 1,600 games per army of nine; the targets 1,600 and 400
    own, theirs = 0.25 / 1600, (0.25 / 1600 + 0.25 / 400) / 2
    assert proxy.noise_points(targets, 100, 9) == pytest.approx(100 * np.sqrt(own + theirs))


def test_bots_are_named_as_a_config_names_them(proxy):
    from lab.games.daitenka.bots.match import parse_bot

    assert proxy.bot_from_text("tuned") == parse_bot("tuned")
    assert proxy.bot_from_text('{ kind = "search", simulations = 25 }') == parse_bot(
        {"kind": "search", "simulations": 25}
    )


def test_the_shipped_targets_load_with_every_patch(proxy):
    from lab.games.daitenka.bots.tune import load_targets

    sets = load_targets(proxy.TARGETS)
    assert len(sets) == 12 and sets[-1].name == "as written"
    for s in sets:
        assert s.armies == ARMIES and len(s.contexts) == 72
        assert abs(s.rates.mean() - 0.5) < 0.005  # every game counts for both sides
