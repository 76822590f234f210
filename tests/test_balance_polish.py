"""Polishing learns from what it measured on the polishing deals (lab.design.balance_polish,
docs/balancing.md "Polishing learns from its own measurements")."""

import numpy as np
import pytest

from lab.design.balance_polish import NONHOLDER, ResidualSplit
from lab.design.balance_tiers import TierCorrection

ARMIES = 3
HOLDERS = {1: [0], 2: [0], 3: [0], 4: [1]}  # edits 1–3: army 0's cards, 4: army 1's


def holds(edit: int) -> np.ndarray:
    return np.isin(np.arange(ARMIES), HOLDERS[edit])


def split(sets, residuals, noise=0.001, luck=0.001):
    prior = TierCorrection.fit([], ARMIES).covariance  # every edit ± PRIOR, independent
    residuals = np.asarray(residuals, dtype=float)
    return ResidualSplit.fit(
        sets, residuals, np.full(residuals.shape, noise), np.full(ARMIES, luck), prior, holds
    )


def test_without_measured_sets_a_change_is_as_uncertain_as_the_correction_says():
    got, doubt = split([], np.zeros((0, ARMIES))).change([1], [])
    assert got == pytest.approx(np.zeros(ARMIES))
    prior = TierCorrection.fit([], ARMIES).prior
    # army 0 holds edit 1; the others meet it in their games against army 0 only
    assert doubt == pytest.approx([prior, NONHOLDER * prior, NONHOLDER * prior])


def test_removing_an_edit_removes_its_share_of_the_anchors_residual():
    # the anchor holds two of army 0's edits alike; the strong tier read army 0 six points
    # above the correction's prediction
    s = split([(1, 2)], [[0.06, 0.0, 0.0]])
    got, doubt = s.change([], [1])
    assert got[0] == pytest.approx(-0.03, abs=1e-3)  # half of it, the deals' luck being small
    prior = TierCorrection.fit([], ARMIES).prior
    assert doubt[0] < prior  # the residual told something of edit 1


def test_the_deals_luck_keeps_what_the_edits_cannot_explain():
    # the same residual with luck as wide as both edits' errors together: a third goes to each
    prior = TierCorrection.fit([], ARMIES).prior
    s = split([(1, 2)], [[0.06, 0.0, 0.0]], luck=prior * np.sqrt(2))
    assert s.change([], [1])[0][0] == pytest.approx(-0.015, abs=1e-3)


def test_an_army_far_out_blames_its_own_edits_more_than_the_others():
    # army 1's residual, from a set holding army 0's edit 1 and army 1's edit 4
    s = split([(1, 4)], [[0.0, 0.05, 0.0]], luck=0.005)
    own = s.change([], [4])[0][1]
    other = s.change([], [1])[0][1]
    assert own < 0 and other < 0
    assert abs(own) > 10 * abs(other)


def test_a_measured_neighbour_tells_what_its_swap_does():
    # anchor (1, 2) read +6 on army 0; the neighbour swapping 2 for 3 read +16: edit 2's
    # removal and 3's addition cost ten points the correction did not foresee
    s = split([(1, 2), (1, 3)], [[0.06, 0.0, 0.0], [0.16, 0.0, 0.0]])
    got, doubt = s.change([3], [2])
    assert got[0] == pytest.approx(0.10, abs=2e-3)
    assert doubt[0] < 0.1 * TierCorrection.fit([], ARMIES).prior
    # a neighbour dropping 2 was expected to bring army 0 down; now it is expected to raise it
    assert split([(1, 2)], [[0.06, 0.0, 0.0]]).change([], [2])[0][0] < 0
    assert s.change([], [2])[0][0] > 0.005


def test_sets_that_add_up_to_another_need_no_luck_or_noise():
    # {1}, {2} and {1, 2} measured without luck or noise: K is singular, the split still reads
    s = split([(1,), (2,), (1, 2)], [[0.02, 0, 0], [0.03, 0, 0], [0.05, 0, 0]], noise=0, luck=0)
    got, doubt = s.change([], [1])
    assert got[0] == pytest.approx(-0.02, abs=1e-6)
    assert doubt[0] == pytest.approx(0.0, abs=1e-6)
