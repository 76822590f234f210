"""`lab balance` counts what its strong-tier correction does not know against the sets it
predicts (docs/balancing.md, "The search steers into the correction's errors"): the fit's
standard error of a set's summed edit shifts, small where many measured sets share its edits,
± PRIOR per edit no set measured."""

from types import SimpleNamespace

import numpy as np
import pytest

from lab.design.balance_search import Search, Settings
from lab.design.balance_tiers import PRIOR, TierCorrection, away, shrink
from lab.stats.balance import Rates


def test_the_fit_knows_how_well_it_measured_each_edit_and_each_set():
    rng = np.random.default_rng(3)
    base = np.zeros(3)
    rows = [((1,), rng.normal(0, 0.01, 3), 5000.0) for _ in range(10)]  # edit 1: 50,000 games
    rows += [((2, 3), rng.normal(0, 0.01, 3), 5000.0) for _ in range(10)]  # 2 and 3: only together
    fit = TierCorrection.fit(rows, 3, base=base)
    assert fit.se((9,)) == pytest.approx(PRIOR)  # never measured: the prior
    assert fit.se((9, 8)) == pytest.approx(PRIOR * np.sqrt(2))
    assert fit.se((1,)) < PRIOR / 5  # measured on many games
    # measured only together, each is nearly as unknown as the prior, their sum is known
    assert fit.se((2,)) > 0.6 * PRIOR and fit.se((3,)) > 0.6 * PRIOR
    assert fit.se((2, 3)) < PRIOR / 5
    # a change from a set: what the edits added and removed leave unknown
    assert fit.se((1, 2), removed=(1,)) == pytest.approx(fit.se((2,)))
    assert fit.se((1, 2, 3), removed=(1,)) == pytest.approx(fit.se((2, 3)))
    assert fit.se(()) == 0.0
    few = TierCorrection.fit([((1,), np.zeros(3), 128.0)], 3, base=base)
    assert fit.se((1,)) < few.se((1,)) < PRIOR  # one set's few games: a little known


def test_a_pulled_rate_is_counted_against_by_the_predictions_share_of_it():
    mean, se = np.array([0.56, 0.44, 0.50]), np.array([0.02, 0.02, 0.02])
    rates = Rates(mean, se, mean - 2 * se, mean + 2 * se, np.full(3, 640), np.full(3, 10))
    predicted, pse = np.array([0.52, 0.48, 0.50]), np.full(3, 0.02)
    plain, lo0, hi0 = shrink(rates, predicted, pse)
    out, lo, hi = shrink(rates, predicted, pse, target=0.5, doubt=0.03)
    assert plain == pytest.approx([0.54, 0.46, 0.50])  # equal precisions: halfway
    # half of each pulled rate is the prediction's, so half the doubt counts, away from 50%
    assert out == pytest.approx([0.555, 0.445, 0.50])
    assert np.all(lo <= out) and np.all(out <= hi)
    assert shrink(rates, predicted, pse, target=0.5)[0] == pytest.approx(plain)  # no doubt
    moved = away(np.array([0.53, 0.47]), np.array([0.5, 0.44]), np.array([0.56, 0.5]), 0.5, 0.04)
    assert moved[0] == pytest.approx([0.57, 0.43]) and moved[2][0] == pytest.approx(0.57)


def test_the_search_prefers_a_set_the_strong_tier_measured_to_one_it_guesses_alike():
    """Two sets predicted alike at the strong tier: the one whose edits' shifts the fit does not
    know scores worse by that much, so the search does not steer into its possible errors."""
    s = SimpleNamespace(settings=Settings())
    wr = np.array([[0.52, 0.48, 0.50], [0.52, 0.48, 0.50]])
    shift = np.array([[0.01, -0.01, 0.0], [0.01, -0.01, 0.0]])
    known, guessed = 0.002, 0.03
    plain = Search._score(s, wr, [shift])
    doubted = Search._score(s, wr, [shift], [np.array([known, guessed])])
    assert plain[0] == plain[1]
    assert doubted[0] < doubted[1]
    assert doubted[1] - plain[1] == pytest.approx(guessed * 1.2)  # worst + a tenth of the spread
    assert Settings().doubt > 0
