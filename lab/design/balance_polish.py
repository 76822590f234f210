"""What polishing learns from the sets it measured: a strong tier's residuals on the polishing
deals split between the deals' shared luck and the sets' edits (docs/balancing.md, "Polishing
learns from its own measurements").

Polishing predicts a neighbour's strong-tier rates as the anchor's measured ones plus the
correction's predicted change. Carried whole, the anchor's residual (measured − predicted) says
nothing about which of its edits the correction got wrong: a search whose anchor held both of
北条's nerfs, 刺客 〈暗殺〉 off and 殺し間 〈殺し間〉 off, measured seven neighbours in a row that
dropped 刺客 off — each read 北条 10 points high at search(100), 2–3 more than predicted —
because nothing it measured on the polishing deals reached the prediction of the next. Here
every set measured there is one observation of

    residual(set, army) = luck(army) + Σ over the set's edits of error(edit, army) + noise,

``luck`` shared by every set (the same deals, the same base shift), each edit's ``error`` a
priori as the correction's fit says (its posterior covariance), a quarter as wide on an army
that does not hold the card (an edit moves the others only through their games against its
holders), and a neighbour's predicted change is corrected by the posterior errors of the edits
it adds and removes, with the posterior spread as its doubt. With the anchor alone measured,
removing an edit removes its share of the anchor's residual; once a neighbour is measured, what
the two differ by is known almost exactly (their games differ on a few pairs of the same deals).
It plays nothing and knows no card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# An edit's error on an army that does not hold its card, relative to a holder's: such an army
# meets the holders in one or two of its nine pairs.
NONHOLDER = 0.25
# A measured set's own noise beyond the shared luck, relative to its standard error on the
# polishing deals: a neighbour replays the anchor's deals and differs on the pairs its edits
# touch only.
OWN_NOISE = 0.5


@dataclass(frozen=True)
class ResidualSplit:
    """The posterior of the edits' errors at one strong tier, per army, from the residuals of
    the sets measured on the polishing deals (``fit``); ``change`` reads it for a neighbour."""

    edits: tuple[int, ...]  # every edit of the measured sets
    incidence: np.ndarray  # (edits, sets): 1 where the set holds the edit
    factor: np.ndarray  # (armies, edits): NONHOLDER where the army does not hold the edit
    weights: np.ndarray  # (armies, sets): K⁻¹ · residuals per army
    kinv: np.ndarray  # (armies, sets, sets)
    covariance: Callable[[Sequence[int], Sequence[int]], np.ndarray]
    holds: Callable[[int], np.ndarray]  # edit → (armies,) bool

    @classmethod
    def fit(
        cls,
        sets: Sequence[Sequence[int]],
        residuals: np.ndarray,
        noise: np.ndarray,
        luck: np.ndarray,
        covariance: Callable[[Sequence[int], Sequence[int]], np.ndarray],
        holds: Callable[[int], np.ndarray],
    ) -> ResidualSplit:
        """``residuals``, ``noise``: (sets, armies), each set's residual and its own noise's
        standard error; ``luck``: (armies,), the standard error of what every set shares;
        ``covariance(a, b)``: the prior covariance of the edits' errors (on a holder);
        ``holds(edit)``: which armies hold it."""
        sets = tuple(tuple(int(i) for i in s) for s in sets)
        edits = tuple(sorted({i for s in sets for i in s}))
        col = {e: k for k, e in enumerate(edits)}
        incidence = np.zeros((len(edits), len(sets)))
        for p, s in enumerate(sets):
            for i in s:
                incidence[col[i], p] = 1.0
        factor = _factor(edits, holds, residuals.shape[1])
        prior = covariance(edits, edits) if edits else np.zeros((0, 0))
        # K per army: luck + the sets' summed edit errors + their own noise
        between = np.einsum("ep,ae,ef,af,fq->apq", incidence, factor, prior, factor, incidence)
        k = between + (luck**2)[:, None, None]
        k += np.einsum("pa,pq->apq", np.asarray(noise, dtype=float) ** 2, np.eye(len(sets)))
        # (pinv: with no luck and no noise, sets such as {1}, {2}, {1, 2} make K singular)
        kinv = np.linalg.pinv(k, hermitian=True)
        weights = np.einsum("apq,qa->ap", kinv, np.asarray(residuals, dtype=float))
        return cls(edits, incidence, factor, weights, kinv, covariance, holds)

    def change(self, added: Sequence[int], removed: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Per army, the posterior mean and standard error of the errors of ``added`` minus
        those of ``removed``: what a neighbour's predicted change at this tier is off by."""
        moved = [int(i) for i in added] + [int(i) for i in removed]
        armies = self.weights.shape[0]
        if not moved:
            return np.zeros(armies), np.zeros(armies)
        sign = np.array([1.0] * len(added) + [-1.0] * len(removed))
        signed = sign[None, :] * _factor(moved, self.holds, armies)  # (armies, moved)
        prior = self.covariance(moved, moved)
        prior_var = np.einsum("ax,xy,ay->a", signed, prior, signed)
        if not self.edits:
            return np.zeros(armies), np.sqrt(np.maximum(prior_var, 0.0))
        cross = self.covariance(moved, self.edits)  # (moved, edits)
        # Cov(change, residual of each set), per army
        c = np.einsum("ax,xe,ae,ep->ap", signed, cross, self.factor, self.incidence)
        mean = np.einsum("ap,ap->a", c, self.weights)
        explained = np.einsum("ap,apq,aq->a", c, self.kinv, c)
        return mean, np.sqrt(np.maximum(prior_var - explained, 0.0))


def _factor(edits, holds, armies: int) -> np.ndarray:
    """(armies, edits): 1 where the army holds the edit's card, else ``NONHOLDER``."""
    out = np.full((armies, len(edits)), NONHOLDER)
    for k, e in enumerate(edits):
        out[np.asarray(holds(int(e)), dtype=bool), k] = 1.0
    return out


def centring_choice(
    rates: np.ndarray,
    change: dict[int, np.ndarray],
    armies_of: Callable[[int], frozenset],
    conflict: Callable[[int, int], bool],
    target: float,
    gain: float,
) -> list[int]:
    """The centring edits to add, in the order chosen: ``rates`` (tiers, armies) a set's judged
    rates, ``change`` each candidate edit's measured change of every army (added to every tier:
    edits the tiers feel alike). Greedily the edit that lowers the worst distance from
    ``target`` over the tiers most — or, leaving it, the root mean square — by ``gain`` at
    least, one per army (``armies_of``) and none conflicting with one chosen, until none does.
    An army far out at one tier and in the band at the other is moved only as far as brings
    the farther one in: the worst over the tiers is what a proposal is judged by."""

    def cost(r: np.ndarray) -> tuple[float, float]:
        d = np.abs(r - target)
        return round(float(d.max()), 9), round(float(np.sqrt(np.mean(d**2))), 9)

    chosen: list[int] = []
    now = cost(rates)
    while True:
        taken = {a for i in chosen for a in armies_of(i)}
        tries = [
            (cost(rates + d), i)
            for i, d in sorted(change.items())
            if not armies_of(i) & taken and not any(conflict(i, j) for j in chosen)
        ]
        better = [
            t
            for t in tries
            if t[0][0] <= now[0] - gain or (t[0][0] <= now[0] and t[0][1] <= now[1] - gain)
        ]
        if not better:
            return chosen
        now, i = min(better)
        rates = rates + change[i]
        chosen.append(i)
