"""The run plan: an experiment's cells, game ids and chunks, in one fixed order.

A cell is one (rule variant, card patch, bot tier, matchup); its games are its deals × seat
orders. Game ids and chunk ids depend on the experiment alone (never on workers or backend), so
a chunk is a unit of work that can be played anywhere, written once and skipped on ``--resume``.

A patch that leaves a matchup unchanged (neither army holds a patched card) plays it exactly as
the variant before it does — same context, same seed words, since the play stream holds the rule
set and not the patch — so such a cell is not played again: the job of the first cell that plays
those games also writes the copies (``Job.copies``). The plan holds no card data and plays
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lab.games.daitenka.cards.patch import Patch
from lab.games.daitenka.rules import RuleSet
from lab.games.daitenka.experiment import BASE_PATCH, Army, Experiment, Tier, variant_id


@dataclass(frozen=True)
class Cell:
    index: int
    variant: RuleSet
    tier: Tier
    matchup: tuple[str, str]  # (army in seat A, army in seat B) as listed; swapped games exchange
    patch: Patch


@dataclass(frozen=True)
class Copy:
    """Another cell's chunk holding the same games (a patch that leaves the matchup unchanged)."""

    id: int
    cell: int
    patch: Patch


@dataclass(frozen=True)
class Job:
    """One chunk: deals [lo, hi) of one cell in one seat order — everything a worker needs."""

    id: int
    cell: int
    variant: RuleSet
    tier: Tier
    army_a: Army  # the army in seat A for these games (after the swap, if swapped)
    army_b: Army
    pair: tuple[str, str]  # the matchup as an unordered pair (sorted keys): the deal key's part
    seat_a_slot: int  # which army of ``pair`` sits in seat A (0 or 1; a mirror uses both)
    swapped: bool
    lo: int
    hi: int
    seed: int
    games: int  # deals per cell, for game ids
    orders: int  # seat orders per deal, for game ids
    patch: Patch = BASE_PATCH
    copies: tuple[Copy, ...] = ()  # chunks of other cells this job's games are written to

    @property
    def size(self) -> int:
        return self.hi - self.lo

    @property
    def variant_id(self) -> str:
        return variant_id(self.variant, self.patch)

    @property
    def chunk_ids(self) -> tuple[int, ...]:
        return (self.id,) + tuple(c.id for c in self.copies)

    def outputs(self) -> list["Job"]:
        """This chunk and each of its copies, as jobs (a copy's records differ only in their
        game ids, cell, variant and patch)."""
        return [self] + [
            replace(self, id=c.id, cell=c.cell, patch=c.patch, copies=()) for c in self.copies
        ]

    def game_id(self, deal):
        return game_id(self.cell, deal, self.swapped, self.games, self.orders)


def game_id(cell, deal, swapped, games: int, orders: int):
    """Stable for a config: (cell, deal, seat order) → id; a deal's two seat orders are adjacent."""
    return (cell * games + deal) * orders + swapped


def cells(exp: Experiment) -> list[Cell]:
    """Every cell, in id order: rule variant, then patch, tier and matchup (an unpatched
    experiment keeps the cell ids it had before patches existed)."""
    out = []
    for v in exp.variants:
        for p in exp.patches:
            for t in exp.tiers:
                for m in exp.matchups:
                    if exp.plays(p, m):
                        out.append(Cell(len(out), v, t, m, p))
    return out


def chunks(exp: Experiment) -> list[Job]:
    """Every chunk of the run, in id order: cell by cell, seat order, then deals."""
    out: list[Job] = []
    for c in cells(exp):
        a, b = c.matchup
        pair = (min(a, b), max(a, b))
        slot_a = 0 if a <= b else 1  # listed seat A's army's slot in the pair (mirror: 0)
        for swapped in range(exp.orders):
            seat_a, seat_b = (b, a) if swapped else (a, b)
            for lo in range(0, exp.games, exp.chunk_size):
                out.append(
                    Job(
                        len(out),
                        c.index,
                        c.variant,
                        c.tier,
                        exp.army(seat_a),
                        exp.army(seat_b),
                        pair,
                        slot_a ^ swapped,
                        bool(swapped),
                        lo,
                        min(lo + exp.chunk_size, exp.games),
                        exp.seed,
                        exp.games,
                        exp.orders,
                        c.patch,
                    )
                )
    return out


def jobs(exp: Experiment) -> list[Job]:
    """The chunks to play, in id order: a chunk whose patch leaves its matchup unchanged is a
    copy of the first chunk playing the same games (same rules, tier, matchup, seat order and
    deals, unchanged or identically patched cards) and rides along with it."""
    every = chunks(exp)
    played: dict[tuple, Job] = {}
    copies: dict[int, list[Copy]] = {}
    for j in every:
        unchanged = not (exp.affected(j.patch) & {j.army_a.key, j.army_b.key})
        key = (j.variant, j.tier, j.army_a.key, j.army_b.key, j.swapped, j.lo, j.hi)
        if unchanged and key in played:
            copies.setdefault(played[key].id, []).append(Copy(j.id, j.cell, j.patch))
        else:
            if unchanged:
                played[key] = j
            copies.setdefault(j.id, [])
    return [replace(j, copies=tuple(copies[j.id])) for j in every if j.id in copies]
