"""The control-variate mean of ``lab balance``'s strong tiers (``lab.stats.balance.controlled_mean``):
a dear tier's army rate on a few deals, corrected by a cheap tier's games on those deals and on
many more of the same set. Simulated deals with a known rate: unbiased, narrower than the plain
mean when the tiers share the deal's luck, no worse when they do not, and an honest standard
error."""

import numpy as np

from lab.stats.balance import cluster_mean, controlled_mean

DEALS, PAIRED = 400, 40  # the cheap tier's deals of the set; the dear tier plays the first ones


def _draw(rng, share: float):
    """One army's per-deal score sums (two games a deal) at both tiers; ``share`` of each
    game's chance is the deal's luck, which both tiers see."""
    luck = rng.normal(size=DEALS)
    p_cheap = 1 / (1 + np.exp(-(0.2 + share * 3.0 * luck)))
    p_dear = 1 / (1 + np.exp(-(-0.1 + share * 3.0 * luck + (1 - share) * rng.normal(size=DEALS))))
    x = rng.binomial(2, p_cheap).astype(float)
    y = rng.binomial(2, p_dear[:PAIRED]).astype(float)
    return y, x


def _estimates(share: float, reps: int = 600, seed: int = 7):
    rng = np.random.default_rng(seed)
    paired = np.arange(DEALS) < PAIRED
    out = {"controlled": [], "plain": [], "se": []}
    for _ in range(reps):
        y, x = _draw(rng, share)
        two = np.full(DEALS, 2.0)
        r = controlled_mean([y], [two[:PAIRED]], [x], [two], [paired])
        out["controlled"].append(r.mean[0])
        out["se"].append(r.se[0])
        out["plain"].append(cluster_mean([y], [two[:PAIRED]]).mean[0])
    return {k: np.array(v) for k, v in out.items()}


def _true_rate(share: float) -> float:
    """The dear tier's mean score, by a large simulation of its chance alone."""
    rng = np.random.default_rng(99)
    luck, own = rng.normal(size=2_000_000), rng.normal(size=2_000_000)
    return float(np.mean(1 / (1 + np.exp(-(-0.1 + share * 3.0 * luck + (1 - share) * own)))))


def test_a_shared_deal_luck_narrows_the_dear_tiers_rate_without_bias():
    est = _estimates(share=0.9)
    truth = _true_rate(0.9)
    sd_c, sd_p = est["controlled"].std(), est["plain"].std()
    # unbiased: the mean of 600 estimates within 3 of its standard errors of the truth
    assert abs(est["controlled"].mean() - truth) < 3 * sd_c / np.sqrt(len(est["controlled"]))
    assert sd_c < 0.85 * sd_p  # the deals' luck taken out
    # the reported standard error is the spread the estimates show
    assert 0.85 < np.median(est["se"]) / sd_c < 1.15


def test_without_shared_luck_it_is_about_the_plain_mean():
    est = _estimates(share=0.0, seed=8)
    sd_c, sd_p = est["controlled"].std(), est["plain"].std()
    assert sd_c < 1.08 * sd_p  # a slope fitted on noise costs little
    assert abs(est["controlled"].mean() - _true_rate(0.0)) < 3 * sd_c / np.sqrt(600)


def test_the_control_moves_the_estimate_against_the_cheap_tiers_luck_on_the_paired_deals():
    """The dear tier's deals happened to be good ones (the cheap tier won them all, and less of
    the rest): the estimate sits below the plain mean; with the luck the other way, above."""
    y = np.array([2.0, 1.0, 2.0, 0.0, 2.0, 1.0])
    two = np.full(6, 2.0)
    paired = np.r_[np.ones(6, dtype=bool), np.zeros(24, dtype=bool)]
    good = np.r_[y, np.full(24, 0.5)]  # the same luck, and a worse rest
    bad = np.r_[y, np.full(24, 1.9)]
    plain = y.sum() / 12
    counts = np.full(30, 2.0)
    low = controlled_mean([y], [two], [good], [counts], [paired]).mean[0]
    high = controlled_mean([y], [two], [bad], [counts], [paired]).mean[0]
    assert low < plain < high
    # x = y on the paired deals: the slope is one, the estimate the cheap tier's mean over all
    assert np.isclose(low, good.sum() / 60)


def test_a_deal_the_dear_tier_has_no_game_of_counts_as_the_cheap_tiers_alone():
    two = np.full(4, 2.0)
    y = np.array([2.0, 0.0, 1.0, 2.0])
    x = np.array([2.0, 0.0, 2.0, 1.0, 1.0])
    counts = np.full(5, 2.0)
    unplayed = controlled_mean(
        [np.r_[y, 0.0]], [np.r_[two, 0.0]], [x], [counts], [np.ones(5, dtype=bool)]
    )
    unpaired = controlled_mean([y], [two], [x], [counts], [np.arange(5) < 4])
    assert np.isclose(unplayed.mean[0], unpaired.mean[0]) and unplayed.clusters[0] == 4
    one = controlled_mean([y[:1]], [two[:1]], [x], [counts], [np.arange(5) < 1])
    assert np.isnan(one.mean[0]) and one.clusters[0] == 0
