"""The bot tiers of a ``lab balance`` search: which deals each tier plays, what a tier's game
costs, and how the strong tiers' measurements correct the surrogate (docs/balancing.md).

Owns the block codec — a block is one set of deals at one tier: screening block k (at a strong
tier also on deal slice s: a few deals of its own, which the first tier plays too), the
**selection** deals (the Pareto front is chosen on them), the **polishing** deals (the best
selected set and its neighbours are measured on them afresh, and the best there goes first) or
the **fresh** deals (every reported figure is measured on them, and nothing is chosen on them) —, the seed label of each set (every
tier plays the same deals of a set, the strong tiers its first ones, so the tiers are paired), the
relative cost of a bot's game (how many screening games a strong tier's game is worth when the
search shares its effort between tiers), and ``TierCorrection``: a strong tier's army win rates
predicted from the screening tier's as a base shift per army plus a shrunken shift per edit,
fitted on the edit sets measured at both tiers on the same deals. It plays nothing and knows no
card.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import log_ndtr, ndtr

STRIDE = 1000  # blocks of one tier: screening 0..STRIDE-1
# a strong tier's screening level k on deal slice s is block level k + SLICE * s: slice 0 is the
# first deals of the first tier's block k, slice s ≥ 1 a few deals of their own (both tiers)
SLICE = 100
# An edit's shift between tiers is a priori within about ± PRIOR. While every set screened on
# the same few strong deals, ±0.5 points predicted the polished sets best (a family's sets shared
# those deals' luck, so their own shifts were mostly noise); since each set has deal slices of
# its own, ±1.5 does: refitted on a finished search and scored on the 26 sets measured on deals
# of their own, ±0.5 missed their strong-tier shifts by 3.0 points rms per army (the worst army
# by 5.1), ±1.5 by 2.3 (3.1), ±3 by 2.6 (3.6) (docs/balancing.md, "How the strong tier is
# predicted").
PRIOR = 0.015
SELECT, FRESH, POLISH = "selection", "fresh", "polishing"
# How far a dearer tier's army rates sit from a judged strong tier's under the same edits, a
# priori: search(400) and search(100) differed by 2.2 points rms over the nine armies of one
# proposal on the same deals, where their noise alone gives about 1.2 — about ±1.8 beyond it
# (docs/balancing.md, "The calibration tier").
OFFSET_PRIOR = 0.018
# The least standard error ``chance_in_band`` counts a rate with: a rate measured on every deal
# of a set (or one without a usable error) is still a rate of one sample of deals.
SE_FLOOR = 0.005


def screen_block(tier: int, level: int, slice_: int = 0) -> int:
    return tier * STRIDE + level + SLICE * slice_


def select_block(tier: int) -> int:
    return -1 - STRIDE * tier


def fresh_block(tier: int) -> int:
    return -2 - STRIDE * tier


def polish_block(tier: int) -> int:
    return -3 - STRIDE * tier


def tier_of(block: int) -> int:
    return block // STRIDE if block >= 0 else (-block - 1) // STRIDE


def kind_of(block: int) -> str:
    """ "screen", SELECT, FRESH or POLISH."""
    if block >= 0:
        return "screen"
    return (SELECT, FRESH, POLISH)[(-block - 1) % STRIDE]


def level_of(block: int) -> int:
    return block % STRIDE % SLICE


def slice_of(block: int) -> int:
    """A screening block's deal slice (0: the first tier's screening deals)."""
    return block % STRIDE // SLICE if block >= 0 else 0


def first_screen(block: int) -> bool:
    """A screening block of the first tier's own (not a strong tier's slice played there too):
    what the surrogate and the strong tiers' credit count."""
    return block >= 0 and tier_of(block) == 0 and not slice_of(block)


def seed_label(block: int) -> str:
    """The deals' seed label: the same at every tier (``confirm`` names the selection deals, as
    the single-tier search always did)."""
    kind = kind_of(block)
    if kind == "screen":
        s = slice_of(block)
        return f"screen-{level_of(block)}" + (f"-slice-{s}" if s else "")
    return {SELECT: "confirm", FRESH: "fresh", POLISH: "polish"}[kind]


def bot_cost(bot) -> float:
    """A game of ``bot`` against itself in heuristic games (measured on 2 cores, docs/bots.md:
    the heuristic ~6,000 games/s per core through the runner, search(400) ~7, the expert per
    iteration about as dear as the search per simulation). A fixed table, so that how the search
    shares its games between tiers never depends on the machine."""
    kind = bot.kind
    if kind == "random":
        return 0.5
    if kind == "heuristic":
        return 1.0
    if kind in ("search", "expert"):
        return 2.0 * float(bot.values()["simulations"])
    # the strong bot: its policy about 5 heuristic games, its lookahead as much again or more
    # (`lab bench`: 0.06–0.09× the heuristic's games/s, 2026-12-03)
    return 14.0


def tier_cost(tier) -> float:
    return max(bot_cost(tier.a), bot_cost(tier.b))


@dataclass
class TierCorrection:
    """A strong tier's army win rates = the screening tier's + ``base`` + the ``edit`` shifts of
    the set's edits. Fitted by ridge regression on the army rate differences (strong − screening,
    on the same deals) of every edit set measured at both tiers, each weighted by its games; the
    base shift is not shrunk (or is measured on the unchanged decks and given), an edit's shift
    is shrunk towards its prior mean (0, or a bridge tier's shift for that edit) with a prior
    of ±``prior``."""

    base: np.ndarray  # (armies,)
    edit: dict[int, np.ndarray]  # move index → (armies,)
    # the fitted edit shifts' posterior covariance (alike for every army: the same sets and games
    # weigh on each), by ``cols``; an edit outside it is uncertain by ± ``prior``, alone
    cov: np.ndarray | None = None
    cols: dict[int, int] = field(default_factory=dict)
    prior: float = PRIOR
    base_se: float = 0.0  # the base shift's standard error (0: not known)

    @classmethod
    def fit(
        cls,
        rows: list[tuple[tuple[int, ...], np.ndarray, float]],
        armies: int,
        prior: float = PRIOR,
        base: np.ndarray | None = None,
        prior_mean: dict[int, np.ndarray] | None = None,
    ) -> "TierCorrection":
        """``rows``: (edit set, army rate differences, strong games per army). Given ``base``
        (the shift measured on the unchanged decks), the rows are the edit sets' shifts beyond
        it on the same deals and only the edits' shifts are fitted. ``prior_mean``: per edit,
        the shift expected before this tier's games (a bridge tier's, which measures many more
        edit sets); an edit this tier never measured keeps it."""
        prior_mean = prior_mean or {}
        edits = sorted({i for moves, _, _ in rows for i in moves} | set(prior_mean))
        if not rows or (base is not None and not edits):
            b = np.zeros(armies) if base is None else np.asarray(base, dtype=float)
            edit = {e: np.asarray(prior_mean[e], dtype=float) for e in sorted(prior_mean)}
            return cls(b, edit, prior=prior)
        first = 1 if base is None else 0
        col = {e: k + first for k, e in enumerate(edits)}
        x = np.zeros((len(rows), len(edits) + first))
        if first:
            x[:, 0] = 1.0
        for r, (moves, _, _) in enumerate(rows):
            for i in moves:
                x[r, col[i]] = 1.0
        m = np.zeros((len(edits) + first, armies))
        for e, v in prior_mean.items():
            m[col[e]] = v
        # shrinking towards m is shrinking the deviation from it towards 0
        y = np.array([d for _, d, _ in rows]) - x @ m
        w = np.array([n for _, _, n in rows], dtype=float)
        # a game's score has variance ≤ 1/4: the penalty makes an edit's shift a deviation of
        # about ±prior a priori
        penalty = np.full(len(edits) + first, 0.25 / prior**2)
        penalty[:first] = 0.0
        a = x.T @ (w[:, None] * x) + np.diag(penalty)
        beta = np.linalg.lstsq(a, x.T @ (w[:, None] * y), rcond=None)[0] + m
        shift = beta[0] if base is None else np.asarray(base, dtype=float)
        # the ridge's posterior: a game's score varies by ≤ 1/4, so the shifts' covariance is
        # 1/4 · a⁻¹ (an edit no set measured keeps ± prior)
        cov = 0.25 * np.linalg.pinv(a, hermitian=True)[first:, first:]
        cols = {e: k for k, e in enumerate(edits)}
        return cls(shift, {e: beta[col[e]] for e in edits}, cov, cols, prior)

    def of(self, moves) -> np.ndarray:
        out = self.base.copy()
        for i in moves:
            shift = self.edit.get(int(i))
            if shift is not None:
                out += shift
        return out

    def covariance(self, a, b) -> np.ndarray:
        """(len(a), len(b)): the covariance of the edits' fitted shifts (of any one army)."""
        a = np.array([int(i) for i in a], dtype=int)
        b = np.array([int(i) for i in b], dtype=int)
        ca = np.array([self.cols.get(int(i), -1) for i in a], dtype=int)
        cb = np.array([self.cols.get(int(i), -1) for i in b], dtype=int)
        out = np.zeros((len(a), len(b)))
        fa, fb = ca >= 0, cb >= 0
        if self.cov is not None and fa.any() and fb.any():
            out[np.ix_(fa, fb)] = self.cov[np.ix_(ca[fa], cb[fb])]
        out[(a[:, None] == b[None, :]) & ~fa[:, None]] = self.prior**2
        return out

    def se(self, moves, removed=()) -> float:
        """The standard error of the summed shifts of ``moves`` (minus those of ``removed``):
        how far the prediction of a set, or of its change from another, may be off through the
        fit alone — small for a set whose edits many measured sets share, ± ``prior`` per edit
        for one never measured."""
        edits = [*moves, *removed]
        if not edits:
            return 0.0
        sign = np.array([1.0] * len(moves) + [-1.0] * len(removed))
        return float(np.sqrt(max(0.0, sign @ self.covariance(edits, edits) @ sign)))

    def matrix(self, moves) -> np.ndarray:
        """(len(moves), armies): each single edit's shift (0 where never measured)."""
        n = len(self.base)
        return np.array([self.edit.get(int(i), np.zeros(n)) for i in moves]).reshape(-1, n)


def away(mean, lo, hi, target: float, doubt):
    """(mean, lo, hi) with each army's rate moved away from ``target`` by ``doubt`` (a number or
    one per army; a rate on the target stays), the interval widened to keep it: a figure counted
    pessimistically by what may be wrong with it."""
    mean = np.asarray(mean, dtype=float)
    moved = mean + np.sign(mean - target) * np.asarray(doubt, dtype=float)
    return moved, np.minimum(lo, moved), np.maximum(hi, moved)


def _floored(se) -> np.ndarray:
    """Standard errors as the band's scores read them: a non-finite or tiny one as
    ``SE_FLOOR``."""
    se = np.asarray(se, dtype=float)
    return np.where(np.isfinite(se) & (se > SE_FLOOR), se, SE_FLOOR)


def chance_in_band(mean, se, target: float, band: float) -> float:
    """The log of the chance that every rate of ``mean`` truly lies within ``target`` ± ``band``,
    each rate's true value taken as normal around its figure with standard error ``se`` (same
    shape; a non-finite or tiny one counts as ``SE_FLOOR``). It is the sum over the rates of
    each one's own log-chance, so a rate moved into the band counts whichever other rate binds:
    polishing ranks neighbours by it where the worst distance alone would not see an army
    mended while another stayed as far out (docs/balancing.md, "Polishing towards the band")."""
    return float(np.sum(log_chances(mean, se, target, band)))


def log_chances(mean, se, target: float, band: float) -> np.ndarray:
    """Each rate's own log-chance of lying within ``target`` ± ``band`` (``chance_in_band``'s
    terms, same shape as ``mean``): summed over the last axes, many sets are rated at once."""
    d = np.abs(np.asarray(mean, dtype=float) - target)
    se = _floored(se)
    near = log_ndtr((band - d) / se)
    far = log_ndtr((-band - d) / se)
    return near + np.log1p(-np.exp(far - near))


def band_shortfall(mean, se, target: float, band: float) -> np.ndarray:
    """Each rate's expected squared distance beyond ``target`` ± ``band`` (same shape as
    ``mean``), its true value taken as normal around its figure with standard error ``se``:
    E[max(0, |X − target| − band)²], 0 only for a rate surely in the band. In points (squared)
    whatever a tier's precision — where ``chance_in_band`` weighs a rate by its distance in
    standard errors, so that a first tier measured on twelve thousand games per army outweighs
    a strong tier's rates five points further out — and a doubtful figure costs more, in the
    band or out. Summed over the last axes, many sets are rated at once."""
    mean = np.asarray(mean, dtype=float)
    se = _floored(se)
    out = np.zeros(np.broadcast(mean, se).shape)
    for m in (mean - target - band, target - band - mean):  # beyond the top, below the bottom
        z = m / se
        out += (m**2 + se**2) * ndtr(z) + m * se * np.exp(-0.5 * z**2) / np.sqrt(2 * np.pi)
    return out


def tier_offset(difference, prior: float = OFFSET_PRIOR) -> tuple[np.ndarray, np.ndarray]:
    """Per army, a calibration tier's offset from a judged tier: ``difference`` (the paired
    difference of the two tiers' rates on the same deals: mean and se per army) shrunk towards 0
    with a prior of ± ``prior``: (offset, its posterior standard error). 1,280 games per army
    measured the difference to ±1.7 points (search(400) − search(100), 2026-12-06), about as
    wide as the offset itself, so it is trusted by its precision only."""
    mean = np.asarray(difference.mean, dtype=float)
    se = np.asarray(difference.se, dtype=float)
    ok = np.isfinite(se) & np.isfinite(mean)
    w = np.where(ok, prior**2 / (prior**2 + np.where(ok, se, 0.0) ** 2), 0.0)
    return w * np.where(ok, mean, 0.0), np.where(ok, np.sqrt(w) * np.where(ok, se, 0.0), prior)


def shrink(rates, predicted: np.ndarray, predicted_se: np.ndarray, target=None, doubt=0.0):
    """A strong tier's measured army rates pulled towards the surrogate's ``predicted`` rates
    by their precisions (a normal prior with standard error ``predicted_se`` per army): (mean,
    lo, hi). A strong tier measures a candidate on a few hundred games per army (a standard error
    of 3–4 points), and the worst of nine such rates reads several points high whatever the
    edits; the prediction draws on every candidate measured at both tiers. The interval keeps the
    measured one's critical value (simultaneous over the armies when ``rates``' is), so it is
    never wider than the measured interval. An army without a usable standard error keeps its
    measured rate. ``doubt`` (with ``target``): the prediction's share of the pulled rate times
    ``doubt`` is counted against it (``away``) — a search steers into the predictions that err
    in its favour, and this much of the pulled figure may be such an error."""
    mean = np.asarray(rates.mean, dtype=float)
    se = np.asarray(rates.se, dtype=float)
    pse = np.asarray(predicted_se, dtype=float)
    ok = np.isfinite(se) & (se > 0) & np.isfinite(pse) & (pse > 0) & np.isfinite(predicted)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(ok, 1.0 / se**2 + 1.0 / pse**2, 1.0)
        weight = np.where(ok, (1.0 / se**2) / precision, 1.0)
        crit = np.where(ok, (np.asarray(rates.hi) - mean) / se, 0.0)
    out = np.where(ok, weight * mean + (1.0 - weight) * np.nan_to_num(predicted), mean)
    half = np.where(ok, crit / np.sqrt(precision), np.asarray(rates.hi) - mean)
    if target is None:
        return out, out - half, out + half
    return away(out, out - half, out + half, target, (1.0 - weight) * doubt)
