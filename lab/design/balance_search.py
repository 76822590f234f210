"""The search of ``lab balance``: rounds of screening on shared deal blocks at several bot tiers,
racing, a surrogate that proposes edit sets, selection of the front, and the figures a designer
reads measured on fresh deals (docs/balancing.md).

Owns the search state and its rounds. The unit of play is one **pair** of armies (both seat
orders of every deal) under the edits of a candidate that touch that pair — a candidate's games
on a pair depend on nothing else, so a unit played once serves every candidate sharing those
edits there — on one **block** of deals at one tier (``lab.design.balance_tiers``): screening
block k, the **selection** deals or the **fresh** deals, each from its own derived seed. Every
candidate and the unchanged decks play the same deals and play words on a block (common random
numbers), and every tier plays the same deals of a set (the strong tiers its first ones). Units
are played through the experiment runner (``lab.sim.runner``: joblib or Dask, a card patch per
edit set, each on exactly the pairs it is needed on) and kept as the score of the pair's first
army per game.

The first tier screens; the others (the strong tiers) are part of the objective: a candidate's
worst distance and spread are the largest over the tiers. A round, decided only from what
earlier rounds measured (so the sequence of rounds is the same for a seed, whatever the
machine): select (play on the selection deals at the first tier) the screened Pareto front not
yet selected; give one more screening block to the surviving candidates with the most optimistic
bounds; give the strong tiers screening blocks of their own (a few deals per pair, each set on deal
slices of its own so that a family's sets do not share their luck) for the
fully screened candidates with the most optimistic bounds, as far as their share of the effort
allows; screen new edit sets proposed by a surrogate — the measured effect of each single edit
on each pair, corrected by every measured combination on that pair, and at each strong tier by
a correction fitted on what that tier measured — and single edits not yet screened. Racing
drops a candidate whose optimistic bounds over every tier cannot beat the front (a tier not yet
measured counts with the surrogate's prediction ± a margin). When the budget is spent the
front is selected at the first tier, its best candidates at every strong tier; the best of
those is polished — measured on deals of its own with, round by round, the neighbour (an edit
or two changed) of the best set there that the surrogate rates best from those figures and from
what every set measured there says of its edits —, and the best polished set and the best
selected ones are measured on the fresh deals at every tier: those are the figures reported,
never the ones they were chosen on. The state is written after every round (``state.json`` and
one units file per round), so an interruption loses at most the round in
flight and ``--resume`` replays it identically. It reads no value table and renders nothing
(``lab.design.balance``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import shutil
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from lab.design import balance_defaults as defaults, card_design
from lab.design.balance_edits import digest
from lab.design.balance_polish import OWN_NOISE, ResidualSplit, centring_choice
from lab.design.balance_tiers import (
    FRESH,
    POLISH,
    SELECT,
    STRIDE,
    TierCorrection,
    away,
    band_shortfall,
    first_screen,
    fresh_block,
    kind_of,
    level_of,
    log_chances,
    polish_block,
    screen_block,
    seed_label,
    select_block,
    shrink,
    slice_of,
    tier_cost,
    tier_of,
    tier_offset,
)
from lab.errors import LabError
from lab.games.protocol import Experiment
from lab.stats.balance import (
    Objectives,
    cluster_mean,
    controlled_mean,
    hopeless,
    objectives,
    pareto,
)
from lab.stats.paired import score_a

CONFIRM = select_block(0)  # the selection deals of the first tier (named so before tiers)
STATE = "state.json"
Z95 = 1.959964  # a 95% interval's half-width in standard errors
UNITS = "units"
WORK = "work"
FORMAT = 2
# share of the screening effort (in heuristic games, beside the strong tiers') at the bridge tier
BRIDGE_SHARE = 0.15
_COLUMNS = ["patch", "army_a", "army_b", "deal", "swapped", "winner", "error"]
KINDS = ("screen", SELECT, FRESH, POLISH)
# settings of what follows the search (polishing, the fresh deals): they never change its rounds,
# so they are not in its fingerprint and may change on --resume
_AFTER_SEARCH = ("fresh_deals", "strong_fresh_deals", "final_top", "polish_rounds", "probe_armies")
# the least share of a minutes budget the search itself keeps, however slow a strong tier plays
# here: at 30 search games/s the final measurements alone ask for about 25 of 30 minutes, and a
# search that stops after its first round proposes nothing
SEARCH_SHARE = 0.4
POLISH_FIRST = 4  # the first tier's polishing deals, in fresh deals
# a strong tier's polishing deals, in its fresh deals: more would measure the level of the set
# being polished better (at twice them, ±2.8 points per army at 95%), but a round would cost as
# much more, and a search whose best selected set starts far from the band needs its rounds
# (at four times them the default search polished five rounds and stopped at 6.0 points)
POLISH_STRONG = 2
# neighbours screened at the first tier in a polishing round before one is measured everywhere
POLISH_OPTIONS = 8
# of them, measured everywhere in a round: the best by the first tier's games and the strong
# tiers' predicted change (the strong tiers' own games then judge every one measured); four a
# round for six rounds, replayed on three searches, ended no closer on a new seed than one a
# round for fifteen (docs/balancing.md, "Sixty minutes, four neighbours a round")
POLISH_MEASURED = 1
POLISH_SCREEN = "polishing screen"  # the phase of that screening round
# single edits never screened that touch an army the anchor leaves out of the band at some tier,
# screened at the first tier before a polishing round chooses its neighbours (at most this many a
# round, the armies farthest out first): the search screens the edits of the armies farthest
# from the target as written first, and in 30 minutes never reached 織田's, which no tier had far
# out as written — yet 織田 bound at search(100) on every polished set (docs/balancing.md,
# "Polishing reaches every army's edits")
POLISH_SINGLES = 48
POLISH_SINGLES_PHASE = "polishing singles"  # the phase of that round
# probes (``lab balance --probe N``, default none): after the anchor's round, the neighbours that
# tell polishing how each tier feels the edits of the N armies whose tiers disagree most there
# (their strong row minus their first-tier row, beyond the band, the widest first) — each of the
# anchor's edits of their cards removed, and up to PROBE_ADDS edits of their own copies added that
# move them as the anchor does, measured at every tier on the polishing deals in one round. The
# correction predicts a strong tier's response to one edit poorly (docs/balancing.md), and the
# edits the search builds on open the gap: 武田 buffed by strength is felt about 0.7 as far by
# search as by tuned, so its two rates end ~7 points apart, and only a set of edits both tiers
# feel alike can put it within the band at both. Measured, the edits' errors enter
# ``ResidualSplit`` and the two-edit neighbours that trade one for another are rated on them: on
# the default search's anchor 殺し間 〈殺し間〉 off moved 北条 −7.6 points at tuned and +2.0 at search(100),
# 刺客 〈暗殺〉 off (北条) −7.0 and −10.9, and polishing traded the one for the other (docs/balancing.md,
# "Probing the armies whose tiers disagree")
PROBE_ADDS = 4
POLISH_PROBES_PHASE = "polishing probes"
# two-edit neighbours: up to two of the anchor's edits removed and up to two added, the added ones
# among this many the one-edit neighbours rated best add (0: one edit only). An army whose
# strong-tier rate sits several points from its first-tier one binds at one tier or the other
# whatever one edit does; a card several decks share, edited for every deck, moves each deck
# alike — splitting it into one edit per deck, or trading a nerf the first tier feels for one
# the strong tier does, is two edits at once (docs/balancing.md, "Two edits at a time")
POLISH_PAIR_ADDS = 40
# what polishing minimises (``Search.band_score``): "shortfall", each rate's expected squared
# distance beyond the band in points, or "chance", minus the log-chance of every rate in it —
# which, where no set is near the band, ranks by the first tier's precise rates alone
POLISH_SCORE = "shortfall"
# how the strong rows of a figure (every tier after the first, and the calibration tier's row)
# enter that score per army: "worst", the largest of their costs, or "sum", each counted. The
# calibrated row is the first strong tier's rates plus an offset — the same games — and summed
# beside it counted the strong play twice to the first tier's once: a search ended with 武田 and
# 毛利 six points out at tuned for strong rows 2.5 and 4.2 out (docs/balancing.md, "The strong
# tiers counted once")
POLISH_STRONG_ROWS = "worst"
# the tier gap polishing tolerates, as a rate (None, the default: the gap costs nothing of
# itself): beyond it each army's |first strong tier − first tier| on a figure costs as far
# beyond the band does, in points². A proposal meets the band at every tier only where each
# army's tiers agree within twice the band, and the default search's proposals carried gaps of
# 6–7 points; yet polishing so charged, with the probes, ended further out on two new seeds than
# plain polishing from the same anchor (worst army 4.8 and 5.3 points against 3.7 and 4.8), and
# the gaps on its polishing deals were no narrower (docs/balancing.md, "Charging the tier gap")
POLISH_GAP: float | None = None
# how far a rate on new deals strays from its figure on the polishing deals beyond that figure's
# standard error, as a rate: added in quadrature to every judged error polishing's score reads (0,
# the default: none). A `tuned` rate measured to ±0.45 points costs almost nothing 2.9 points out
# of the 3-point band, and the default polishing left seven of nine armies near it; with a 1-point
# spread the same anchor's polishing ended closer at `tuned` on three new seeds (4.1 at worst, not
# 4.8) and further out at search(400) (武田 44.1–45.6%, 5.3–5.9 points against 2.9–4.0): not the
# default (docs/balancing.md, "A margin inside the band")
POLISH_SPREAD = 0.0
# which polished sets the calibration tier plays (on its polishing deals): "every" — the anchor
# and each round's neighbour, the offset pooled over them (``calibration_difference``) — or
# "anchor", the anchor alone, as before. Measured once, on the anchor's 1,280 games per army, the
# offset read 雑賀 about 2 points low and 武田 about 2 high against what three new seeds gave every
# proposal, and the calibrated row foretold search(400) worse than search(100)'s own (root mean
# square 2.4 points against 1.2–1.5). A neighbour's calibration games cost about 50 seconds on
# 2 cores (a polishing round about 80 s, not 30: six rounds fit in 30 minutes where eight did)
# (docs/balancing.md, "One calibration for every polished set")
POLISH_CALIBRATE = "every"
# centring (``Search._centring``, `lab balance --no-centre` turns it off): an army whose tiers'
# midpoint on the polishing deals sits at least this far from the target (a rate) gets one of its
# deck-list edits added. The search's edits are felt differently by the tiers (武田's strength
# lifts about 0.7 as far at search(100) as at `tuned`), so a proposal can hold at both only where
# each army sits midway between its two rates; the deck-list edits, an army's 足軽 a step or two
# stronger or weaker, are felt alike one at a time (1.04 ± 0.09 at search(100) per point at
# `tuned` for 武田's) and come in steps of one to four points — on the default command's
# proposal P1 seven such edits, chosen by hand from `tuned`'s games alone, took it from 3.7 / 5.1
# to 2.4 / 3.5–3.9 points out (`tuned` / search(400) on new seeds) (docs/balancing.md, "Centring")
CENTRE_MIN = 0.01
CENTRE_GAIN = 0.001  # the least a centring edit must lower the worst distance or the rms by
CENTRE_EFFECT = 0.01  # … and move its own army towards the target by (its screening change)
# a centring round in polishing rounds (for the clock): it screens some 170 candidates first
CENTRE_COST = 2
# polishing's last rounds centre (its neighbour rounds come first): centring from the best
# selected set before any neighbour round, the default command added a deck-list edit for five
# armies, then more for four rounds running, and left no round to mend what the tiers disagree
# on (北条 9 points apart between `tuned` and search(100) on the set it polished, as on its anchor);
# by hand, two rounds of centring after plain polishing met the Done-when on a new seed
CENTRE_ROUNDS = 2
POLISH_CENTRE_PHASE = "polishing centre"  # the phase of the round screening the centring edits


class Unit(NamedTuple):
    """One pair under one edit set on one block: per deal, the first army's score sum and the
    games counted; its mean score; the games themselves (seat order × deal) on the selection
    and fresh deals."""

    sums: np.ndarray
    counts: np.ndarray
    mean: float
    scores: np.ndarray | None


@dataclass(frozen=True)
class Settings:
    """What decides a search's sequence of rounds (its fingerprint; the fresh deals aside)."""

    target: float = 0.5
    band: float = 0.03
    max_edits: int = 10
    seed: int = 0
    block: int = 250  # deals per pair in one screening block (first tier)
    levels: int = 3  # screening blocks a candidate can get (first tier)
    confirm_deals: int = 188  # deals per pair on the selection deals (first tier)
    strong_block: int = 8  # deals per pair in one screening block of a strong tier
    strong_base_deals: int = 24  # of them the unchanged decks play (the tier's base shift)
    strong_levels: int = 3  # screening blocks a candidate can get at a strong tier
    # deal slices a strong tier's screening level is spread over (``strong_screen``): on one
    # shared slice every set of a family carries the same few deals' luck (±5 points per army
    # on 8 deals per pair), which the tier's correction then takes for the family's shift
    # (at most STRIDE // SLICE = 10: the block codec, ``balance_tiers``)
    strong_slices: int = 6
    strong_select_deals: int = 10  # deals per pair on the selection deals of a strong tier
    strong_share: float = 0.5  # share of the screening effort (in heuristic games) at strong tiers
    strong_margin: float = 0.03  # ± around a strong tier's predicted figures while unmeasured
    # standard errors of the correction's fit counted against a strong tier's predicted figures
    # (its share of a pulled one): the search steers into the sets whose fitted shifts err in
    # their favour, most of all where few measured sets share their edits
    doubt: float = 1.0
    finalists: int = 6  # selected candidates re-selected at the strong tiers
    new_per_round: int = 30  # edit sets the surrogate proposes per round
    promote_per_round: int = 24
    confirm_per_round: int = 4
    final_confirms: int = 8
    units_per_round: int = 400  # new screening units of single edits and proposals per round
    beam: int = 48
    fresh_deals: int = 188  # deals per pair on the fresh deals (first tier)
    strong_fresh_deals: int = 20  # deals per pair on the fresh deals of a strong tier
    final_top: int = 3  # proposals measured on the fresh deals
    # neighbours of the best selected set tried on the polishing deals
    polish_rounds: int = defaults.POLISH_ROUNDS
    # armies whose tiers disagree most probed after the anchor's round (``PROBE_ADDS``)
    probe_armies: int = defaults.PROBE_ARMIES

    def fingerprint(
        self, exp: Experiment, tiers, moves_digest: str, bridge=None, calibration=None
    ) -> str:
        # the fresh deals are not in it: they measure a search's proposals and never change the
        # search, so their size can change on --resume
        search = {k: v for k, v in asdict(self).items() if k not in _AFTER_SEARCH}
        if self.strong_slices == 1:  # one slice is how searches played before slices
            del search["strong_slices"]
        if not self.doubt:  # how searches played before the fit's doubt was counted
            del search["doubt"]
        data = {
            "settings": search,
            "experiment": exp.fingerprint(),
            "moves": moves_digest,
            "tiers": [t.label for t in tiers],
        }
        if bridge is not None:  # (absent otherwise: earlier searches keep their fingerprint)
            data["bridge"] = bridge.label
        if calibration is not None:  # (likewise)
            data["calibration"] = calibration.label
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class Cand:
    """An edit set (move indices, sorted) and where it stands: screening blocks played at the
    first tier (``level``) and at each strong tier (``strong``), selected at the first tier
    (``confirmed``) and at the strong tiers (``finalist``), measured on the fresh deals."""

    moves: tuple[int, ...]
    level: int = 0
    dropped: int = -1  # the round racing dropped it in, -1 while alive
    confirmed: bool = False
    born: int = 0
    strong: list[int] = field(default_factory=list)
    finalist: bool = False
    fresh: bool = False
    polish: bool = False  # measured on the polishing deals at every tier

    @property
    def key(self) -> str:
        return rkey(self.moves)


def rkey(moves) -> str:
    return ",".join(str(i) for i in sorted(moves))


def derive_seed(seed: int, label: str) -> int:
    """A 63-bit experiment seed for one set of deals of a search (screening, selection, fresh)."""
    digest = hashlib.blake2b(f"lab-balance:{seed}:{label}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & (2**63 - 1)


@dataclass
class Budget:
    minutes: float | None = None
    games: int | None = None

    @property
    def by_clock(self) -> bool:
        """Minutes alone decide: the steps after the search may fill what is left (a games
        budget keeps them fixed, the same proposals on any machine)."""
        return self.minutes is not None and self.games is None


@dataclass
class Status:
    """What a progress display shows after each runner call."""

    round: int
    phase: str
    games: int
    elapsed: float
    front: list  # [(edits, worst, spread, confirmed)]
    candidates: int
    dropped: int


class Interrupted(LabError):
    exit_code = 130


def combine(objs: list[Objectives]) -> Objectives:
    """The objectives over several tiers: the largest worst distance and spread of any tier,
    with bounds likewise."""
    return Objectives(
        max(o.worst for o in objs),
        max(o.worst_lo for o in objs),
        max(o.worst_hi for o in objs),
        max(o.spread for o in objs),
        max(o.spread_lo for o in objs),
        max(o.spread_hi for o in objs),
        objs[0].edits,
    )


class Search:
    """One search, its state on disk in ``out``. ``exp``: the balance experiment (one rule set,
    the first tier, the pairs as matchups with seat swap); ``moves``: the edit catalogue;
    ``tiers``: the first (screening) tier, then the strong tiers."""

    def __init__(
        self,
        exp: Experiment,
        moves,
        settings: Settings,
        out: Path,
        *,
        tiers: tuple | None = None,
        jobs: int | None = None,
        backend: str = "loky",
        scheduler: str | None = None,
        keep_records: bool = False,
        bridge=None,
        calibration=None,
        centring=(),
    ):
        self.exp, self.moves, self.settings, self.out = exp, tuple(moves), settings, Path(out)
        # the catalogue's edits the search screens and combines; the centring edits not among
        # them follow, for polishing alone (``_centring``)
        self.searchable = len(self.moves)
        index = {m.key: m.index for m in self.moves}
        extra = [m for m in centring if m.key not in index]
        self.moves += tuple(replace(m, index=len(self.moves) + k) for k, m in enumerate(extra))
        index.update((m.key, m.index) for m in self.moves[self.searchable :])
        self.centring = tuple(index[m.key] for m in centring)
        self.tiers = tuple(tiers) if tiers else exp.tiers[:1]
        # a bridge tier plays like the strong tiers but is not judged: its cheaper games tell
        # the strong tiers' corrections what each edit does to a stronger player's armies
        self.bridge = bridge if len(self.tiers) > 1 else None
        # a calibration tier (a dearer strong player) plays the polished sets on the polishing
        # deals (``POLISH_CALIBRATE``): its offset from the first strong tier there is added to
        # that tier's polishing figures as one more judged tier (``calibration``)
        self.calibration = calibration if len(self.tiers) > 1 else None
        self.play_tiers = self.tiers + tuple(
            t for t in (self.bridge, self.calibration) if t is not None
        )
        self.jobs, self.backend, self.scheduler = jobs, backend, scheduler
        self.keep_records = keep_records
        self.pairs = exp.matchups
        self.armies = [a.key for a in exp.armies]
        idx = {a: i for i, a in enumerate(self.armies)}
        self.incidence = np.zeros((len(self.armies), len(self.pairs)))
        self.offset = np.zeros(len(self.armies))
        for j, (a, b) in enumerate(self.pairs):
            self.incidence[idx[a], j] = 1.0
            self.incidence[idx[b], j] = -1.0
            self.offset[idx[b]] += 1.0
        self.degree = np.abs(self.incidence).sum(axis=1)
        self.touch = np.array(
            [[bool(m.armies & set(p)) for p in self.pairs] for m in self.moves], dtype=bool
        ).reshape(len(self.moves), len(self.pairs))
        self.conflict = _conflicts(self.moves)
        self.fingerprint = settings.fingerprint(
            exp, self.tiers, digest(self.moves), self.bridge, self.calibration
        )
        self.cost = [tier_cost(t) for t in self.play_tiers]
        self.cands: dict[str, Cand] = {}
        self.units: dict[tuple[int, int, str], Unit] = {}
        self.round = 0
        self.elapsed = 0.0
        self.games = {k: [0] * len(self.play_tiers) for k in KINDS}
        # strong games each strong (or bridge) tier may play
        self.credit = [0.0] * (len(self.play_tiers) - 1)
        self.pace = [[0.0, 0] for _ in self.play_tiers]  # [seconds, games] through the runner
        self.history: list[dict] = []
        self.stop: str | None = None
        self.searched_s: float | None = None  # when the search stopped for the final measurements
        self.budget = Budget()  # of the session in flight
        self._started: float | None = None  # monotonic start of the round in flight
        self._pending: list[tuple[str, int, int]] = []  # games of the round in flight
        self._stats: dict[tuple, tuple[Objectives, object]] = {}
        self._confirmed: dict[tuple[str, int], object] = {}
        self._corrections: tuple[int, list[TierCorrection]] | None = None
        self._note: dict = {}  # what the round in flight adds to its history entry
        self.on_status = None  # callable(Status), the progress display

    @property
    def strong_tiers(self) -> range:
        """The judged tiers after the first."""
        return range(1, len(self.tiers))

    @property
    def measuring_tiers(self) -> range:
        """The strong tiers and the bridge: every tier that screens the promising sets."""
        return range(1, len(self.tiers) + (self.bridge is not None))

    @property
    def bridge_index(self) -> int | None:
        return len(self.tiers) if self.bridge is not None else None

    @property
    def calibration_index(self) -> int | None:
        return len(self.play_tiers) - 1 if self.calibration is not None else None

    # ------------------------------------------------------------------------------ state
    def state_path(self) -> Path:
        return self.out / STATE

    def save(self) -> None:
        data = {
            "format": FORMAT,
            "fingerprint": self.fingerprint,
            "round": self.round,
            "elapsed_s": round(self.elapsed, 3),
            "games": self.games,
            "credit": self.credit,
            "pace": self.pace,
            "stop": self.stop,
            "searched_s": self.searched_s,
            "history": self.history,
            "candidates": [
                {
                    "moves": list(c.moves),
                    "level": c.level,
                    "dropped": c.dropped,
                    "confirmed": c.confirmed,
                    "born": c.born,
                    "strong": c.strong,
                    "finalist": c.finalist,
                    "fresh": c.fresh,
                    "polish": c.polish,
                }
                for c in self.cands.values()
            ],
        }
        _write_json(self.state_path(), data)

    def load(self) -> bool:
        """Read the state in ``out`` (False when there is none); a state of another search is
        refused in one line."""
        path = self.state_path()
        if not path.is_file():
            return False
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise LabError(
                f"cannot read the balance state ({e}); delete the folder or choose another --out",
                source=str(path),
            ) from None
        if data.get("format") != FORMAT:
            raise LabError(
                f"{self.out} holds a balance search of an earlier version of the lab "
                "(one tier, no fresh deals); choose another --out, or delete that "
                "folder",
                source=str(path),
            )
        if data.get("fingerprint") != self.fingerprint:
            raise LabError(
                f"{self.out} holds a balance search of another config, tiers or "
                "settings (target, band, max edits, seed, cards, value table); "
                "choose another --out, or delete that folder",
                source=str(path),
            )
        self.round, self.elapsed = data["round"], data["elapsed_s"]
        self.games, self.stop = data["games"], data["stop"]
        self.searched_s = data.get("searched_s")
        for kind in KINDS:  # (a search of an earlier version kept no polishing games)
            self.games.setdefault(kind, [0] * len(self.play_tiers))
        self.credit, self.pace = data["credit"], data["pace"]
        self.history = data["history"]
        self.cands = {}
        for c in data["candidates"]:
            cand = Cand(
                tuple(c["moves"]),
                c["level"],
                c["dropped"],
                c["confirmed"],
                c["born"],
                list(c["strong"]),
                c["finalist"],
                c["fresh"],
                c.get("polish", False),
            )
            self.cands[cand.key] = cand
        for path in sorted((self.out / UNITS).glob("round-*.parquet")):
            if int(path.stem.split("-")[1]) < self.round:
                self._add_units(pd.read_parquet(path))
        return True

    def clock(self) -> float:
        """Seconds the search has run, over every session (the round in flight included)."""
        running = time.monotonic() - self._started if self._started is not None else 0.0
        return self.elapsed + running

    def _add_units(self, table: pd.DataFrame) -> None:
        for block, pair, key, scores in zip(
            table["block"], table["pair"], table["key"], table["scores"]
        ):
            arr = np.asarray(scores, dtype=np.float64).reshape(2, -1)
            self._store(int(block), int(pair), key, arr)

    def _store(self, block: int, pair: int, key: str, scores: np.ndarray) -> None:
        ok = ~np.isnan(scores)
        sums = np.where(ok, scores, 0.0).sum(axis=0)
        counts = ok.sum(axis=0).astype(np.float64)
        total = counts.sum()
        # the games themselves are kept for the selection and fresh deals (paired tables)
        self.units[(block, pair, key)] = Unit(
            sums, counts, sums.sum() / total if total else np.nan, scores if block < 0 else None
        )
        self._corrections = None

    def _cand(self, moves) -> Cand:
        return self.cands.setdefault(
            rkey(moves),
            Cand(tuple(sorted(moves)), born=self.round, strong=[0] * (len(self.play_tiers) - 1)),
        )

    # ------------------------------------------------------------------------------ queries
    def restrict(self, moves, pair: int) -> str:
        return rkey(i for i in moves if self.touch[i, pair])

    def strong_screen(self, moves, t: int, level: int) -> int:
        """The block an edit set plays screening level ``level`` on at strong tier ``t``: one of
        ``strong_slices`` deal slices, chosen by the set (a stable hash), so that the sets of a
        family spread over many deals — a candidate and the unchanged decks play it at the
        first tier too (the tiers stay paired). The unchanged decks' own levels are slice 0."""
        n = self.settings.strong_slices
        if not moves or n <= 1:
            return screen_block(t, level)
        word = hashlib.blake2b(f"{rkey(moves)}/{level}".encode(), digest_size=4).digest()
        return screen_block(t, level, int.from_bytes(word, "little") % n)

    def strong_units(self, moves, t: int, level: int) -> set[tuple[int, int, str]]:
        """The units a strong screening level needs, not yet played: the set's and the unchanged
        decks' at tier ``t`` on its slice and, beyond slice 0 (the first tier's own screening
        deals), at the first tier on the same deals."""
        block = self.strong_screen(moves, t, level)
        blocks = [block] + ([block - t * STRIDE] if slice_of(block) else [])
        every = range(len(self.pairs))
        need = {(b, j, self.restrict(m, j)) for b in blocks for m in (moves, ()) for j in every}
        return need - set(self.units)

    def army_data(self, moves, blocks, deals: int | None = None):
        """Per army: (per-deal score sums, per-deal game counts) of the edit set ``moves`` on
        ``blocks`` (their first ``deals`` deals) — every unit must be played."""
        sums = [[] for _ in self.armies]
        counts = [[] for _ in self.armies]
        idx = {a: i for i, a in enumerate(self.armies)}
        for j, (a, b) in enumerate(self.pairs):
            key = self.restrict(moves, j)
            for block in blocks:
                s, n = self.units[(block, j, key)][:2]
                s, n = s[:deals], n[:deals]
                sums[idx[a]].append(s)
                counts[idx[a]].append(n)
                sums[idx[b]].append(n - s)
                counts[idx[b]].append(n)
        return ([np.concatenate(x) for x in sums], [np.concatenate(x) for x in counts])

    def _measured(self, moves, blocks, simultaneous: bool = True):
        sums, counts = self.army_data(moves, blocks)
        rates = cluster_mean(sums, counts, simultaneous=simultaneous)
        return objectives(rates.mean, rates.lo, rates.hi, self.settings.target, len(moves)), rates

    def screened(self, cand: Cand):
        """(objectives with simultaneous bounds, rates) of a candidate on its screening
        blocks at the first tier."""
        got = self._stats.get((cand.key, 0, cand.level))
        if got is None:
            got = self._measured(cand.moves, [screen_block(0, k) for k in range(cand.level)])
            self._stats[(cand.key, 0, cand.level)] = got
        return got

    def at_tier(self, cand: Cand, t: int) -> Objectives:
        """A candidate's objectives at strong tier ``t``: measured on its screening blocks there
        and pulled towards the surrogate's prediction (``pulled``), or while it has none the
        prediction ± the margin."""
        got = self._strong_screened(cand, t)
        if got is not None:
            return self.pulled(cand.moves, t, got[1], self.screened(cand)[1])
        mean, lo, hi = self._predicted(cand, t)
        return objectives(mean, lo, hi, self.settings.target, len(cand.moves))

    def _predicted(self, cand: Cand, t: int):
        """(mean, lo, hi) per army at strong tier ``t`` before it played there: the first tier's
        screened rates plus the tier's correction, ± the margin, counted against the target by
        the fit's doubt."""
        rates = self.screened(cand)[1]
        corr = self.corrections()[t - 1]
        shift = corr.of(cand.moves)
        m = self.settings.strong_margin
        return away(
            rates.mean + shift,
            rates.lo + shift - m,
            rates.hi + shift + m,
            self.settings.target,
            self.settings.doubt * corr.se(cand.moves),
        )

    def _strong_screened(self, cand: Cand, t: int):
        """(objectives, rates) of a candidate on its screening blocks at strong tier ``t`` as
        measured (None before it played there)."""
        level = cand.strong[t - 1]
        if not level:
            return None
        got = self._stats.get((cand.key, t, level))
        if got is None:
            got = self._measured(
                cand.moves, [self.strong_screen(cand.moves, t, k) for k in range(level)]
            )
            self._stats[(cand.key, t, level)] = got
        return got

    def tier_rates(self, cand: Cand) -> np.ndarray:
        """(tiers, armies): a candidate's army rates at every tier as ``overall`` reads them —
        the first tier's as screened, a strong tier's pulled towards the prediction or, before
        it played there, predicted."""
        first = self.screened(cand)[1]
        out = [np.asarray(first.mean, dtype=float)]
        for t in self.strong_tiers:
            got = self._strong_screened(cand, t)
            if got is not None:
                out.append(self._pulled_rates(cand.moves, t, got[1], first)[0])
            else:
                out.append(self._predicted(cand, t)[0])
        return np.array(out)

    def pulled(self, moves, t: int, rates, first) -> Objectives:
        """Objectives at strong tier ``t`` from its measured ``rates``, each army's rate pulled
        towards the surrogate's prediction — the first tier's ``first`` rates plus the tier's
        fitted correction, trusted to ± ``strong_margin`` (one standard error) beyond their own
        error — by their precisions (``balance_tiers.shrink``): the few games a strong tier
        gives a candidate steer it no more than they weigh."""
        mean, lo, hi = self._pulled_rates(moves, t, rates, first)
        return objectives(mean, lo, hi, self.settings.target, len(moves))

    def _pulled_rates(self, moves, t: int, rates, first):
        """(mean, lo, hi) per army of ``pulled``."""
        corr = self.corrections()[t - 1]
        predicted = first.mean + corr.of(moves)
        fit = corr.se(moves)
        se = np.sqrt(
            np.asarray(first.se, dtype=float) ** 2 + self.settings.strong_margin**2 + fit**2
        )
        return shrink(rates, predicted, se, self.settings.target, self.settings.doubt * fit)

    def _judged(self, moves, block) -> list[tuple]:
        """Per tier, (mean, lo, hi) per army on the deals of ``block`` (a function of the tier):
        the first tier's as measured, a strong tier's pulled towards the surrogate's prediction
        from the first tier's figures on the same deals (``pulled``)."""
        first = self.confirmed_rates(moves, block(0))
        out = [(first.mean, first.lo, first.hi)]
        for t in self.strong_tiers:
            out.append(self._pulled_rates(moves, t, self.controlled_rates(moves, block, t), first))
        offset = self.calibration_offset() if block is polish_block else None
        if offset is not None:
            out.append(self._calibrated(out[1], *offset))
        return out

    def _calibrated(self, judged, offset: np.ndarray, se: np.ndarray) -> tuple:
        """The calibration tier's (mean, lo, hi) per army: the first strong tier's judged
        figures plus the offset, counted against the target by its standard error (``doubt``)
        and the interval widened by it."""
        mean, lo, hi = (np.asarray(x, dtype=float) + offset for x in judged)
        half = 2.0 * se
        return away(mean, lo - half, hi + half, self.settings.target, self.settings.doubt * se)

    def calibrated_set(self) -> Cand | None:
        """The set the calibration tier measured: the first polishing round's, the best
        selected set (None before that round, or without a calibration tier)."""
        if self.calibration is None:
            return None
        first = next((h for h in self.history if h.get("phase") == POLISH), None)
        return None if first is None else self.cands[rkey(first["polished"][0])]

    def calibrated_sets(self) -> list[Cand]:
        """The sets the calibration tier measured on the polishing deals, in the order they
        were polished: ``calibrated_set`` first, then (``POLISH_CALIBRATE`` "every") each
        polishing round's neighbour."""
        anchor = self.calibrated_set()
        if anchor is None:
            return []
        c, every = self.calibration_index, range(len(self.pairs))
        out = [anchor]
        for h in self.history:
            for moves in h.get("polished", []) if h.get("phase") == POLISH else []:
                cand = self.cands[rkey(moves)]
                if cand is not anchor and all(
                    (polish_block(c), j, self.restrict(cand.moves, j)) in self.units for j in every
                ):
                    out.append(cand)
        return out

    def calibration_difference(self):
        """Rates (mean, se per army) of the calibration tier minus the first strong tier on the
        same polishing deals (the calibration tier's), pooled over ``calibrated_sets`` (None
        before the first): each pair's games under each edits it was played with count once
        (a neighbour shares the anchor's games on the pairs its edits leave alone), and a
        pair's deal is a cluster. Measured on the anchor alone, 1,280 games per army misread
        雑賀 and 武田 by about 2 points each (docs/balancing.md, "One calibration for every
        polished set")."""
        sets = self.calibrated_sets()
        if not sets:
            return None
        cache = ("calibration", tuple(c.key for c in sets))
        got = self._confirmed.get(cache)
        if got is None:
            c = self.calibration_index
            deals = self.deals(polish_block(c))
            idx = {a: i for i, a in enumerate(self.armies)}
            sums = [[] for _ in self.armies]
            counts = [[] for _ in self.armies]
            for j, (a, b) in enumerate(self.pairs):
                keys = sorted({self.restrict(cand.moves, j) for cand in sets})
                first, second, games = np.zeros(deals), np.zeros(deals), np.zeros(deals)
                for key in keys:
                    s1, n1 = self.units[(polish_block(c), j, key)][:2]
                    s0, n0 = (x[:deals] for x in self.units[(polish_block(1), j, key)][:2])
                    first += s1 - s0
                    second += (n1 - s1) - (n0 - s0)
                    games += n1
                sums[idx[a]].append(first)
                sums[idx[b]].append(second)
                counts[idx[a]].append(games)
                counts[idx[b]].append(games)
            got = cluster_mean(
                [np.concatenate(x) for x in sums], [np.concatenate(x) for x in counts]
            )
            self._confirmed[cache] = got
        return got

    def calibration_offset(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Per army (offset, its standard error) of the calibration tier from the first strong
        tier (``balance_tiers.tier_offset``), None before the calibration tier played."""
        diff = self.calibration_difference()
        return None if diff is None else tier_offset(diff)

    def controlled_rates(self, moves, block, t: int):
        """A strong tier's army rates on the deals of ``block(t)`` with the first tier's games
        on the same set of deals as a control variate (``lab.stats.balance.controlled_mean``):
        the strong tier plays the first deals of the set, the first tier all of them, so the
        luck of the strong tier's few deals is measured by the first tier and taken out."""
        got = self._confirmed.get((rkey(moves), block(t), "controlled"))
        if got is not None:
            return got
        n = len(self.armies)
        idx = {a: i for i, a in enumerate(self.armies)}
        ys, yc, xs, xc, on = ([[] for _ in range(n)] for _ in range(5))
        for j, (a, b) in enumerate(self.pairs):
            key = self.restrict(moves, j)
            s1, n1 = self.units[(block(t), j, key)][:2]
            s0, n0 = self.units[(block(0), j, key)][:2]
            paired = np.arange(len(s0)) < len(s1)
            for army, y, x in ((a, s1, s0), (b, n1 - s1, n0 - s0)):
                ys[idx[army]].append(y)
                yc[idx[army]].append(n1)
                xs[idx[army]].append(x)
                xc[idx[army]].append(n0)
                on[idx[army]].append(paired)
        got = controlled_mean(*([np.concatenate(v) for v in w] for w in (ys, yc, xs, xc, on)))
        self._confirmed[(rkey(moves), block(t), "controlled")] = got
        return got

    def judged_rates(self, moves, block=select_block) -> np.ndarray:
        """(tiers, armies): the army rates on the selection deals (or ``block``'s) as
        ``judged_tiers`` reads them."""
        return self.judged_normal(moves, block)[0]

    def judged_normal(self, moves, block=select_block) -> tuple[np.ndarray, np.ndarray]:
        """(rates, se), each (tiers, armies): ``judged_rates`` and each rate's standard error
        (half its 95% interval in normal units), from one reading."""
        judged = self._judged(moves, block)
        rates = np.array([np.asarray(mean, dtype=float) for mean, _, _ in judged])
        se = np.array([(np.asarray(hi) - np.asarray(lo)) / (2 * Z95) for _, lo, hi in judged])
        return rates, se

    def overall(self, cand: Cand) -> Objectives:
        """A candidate's objectives over every tier (screening figures)."""
        first = self.screened(cand)[0]
        if len(self.tiers) == 1:
            return first
        return combine([first] + [self.at_tier(cand, t) for t in self.strong_tiers])

    def confirmed_rates(self, moves, block: int = CONFIRM):
        got = self._confirmed.get((rkey(moves), block))
        if got is None:
            sums, counts = self.army_data(moves, [block])
            got = self._confirmed[(rkey(moves), block)] = cluster_mean(sums, counts)
        return got

    def selected(self, moves, blocks=None) -> Objectives:
        """Objectives over every tier on the selection deals (or on ``blocks``)."""
        blocks = blocks or [select_block(t) for t in range(len(self.tiers))]
        objs = []
        for b in blocks:
            r = self.confirmed_rates(moves, b)
            objs.append(objectives(r.mean, r.lo, r.hi, self.settings.target, len(moves)))
        return combine(objs)

    def judged_tiers(self, moves, block=select_block) -> list[Objectives]:
        """Per tier, the objectives on the selection deals (or ``block``'s) as the front is
        chosen and ranked (``_judged``)."""
        target, n = self.settings.target, len(moves)
        return [objectives(mean, lo, hi, target, n) for mean, lo, hi in self._judged(moves, block)]

    def judged(self, moves, block=select_block) -> Objectives:
        """The objectives over every tier the front is chosen and ranked on (``judged_tiers``)."""
        return combine(self.judged_tiers(moves, block))

    def evaluated(self) -> list[Cand]:
        return [c for c in self.cands.values() if c.level >= 1]

    def front(self, cands) -> list[Cand]:
        """The screened Pareto front over every tier (point estimates of worst distance, spread,
        edits)."""
        cands = list(cands)
        if not cands:
            return []
        keep = pareto([self.overall(c).key() for c in cands])
        return sorted(
            (cands[i] for i in keep), key=lambda c: (self.overall(c).worst, len(c.moves), c.key)
        )

    def _selected_blocks(self, c: Cand) -> list[int] | None:
        """The selection deals a candidate has been measured on at every tier, else None."""
        if not c.confirmed or (len(self.tiers) > 1 and not c.finalist):
            return None
        return [select_block(t) for t in range(len(self.tiers))]

    def confirmed_front(self) -> list[Cand]:
        """The Pareto front of the candidates selected at every tier, on their selection
        figures (worst distance and spread over the tiers, edits)."""
        done = [c for c in self.cands.values() if self._selected_blocks(c)]
        if not done:
            return []
        keep = pareto([self.judged(c.moves).key() for c in done])
        return [done[i] for i in keep]

    # ------------------------------------------------------------------------------ tiers
    def corrections(self) -> list[TierCorrection]:
        """Per strong tier, its correction of the first tier's army rates (refitted whenever a
        unit was added). With a bridge tier, an edit's shift at a strong tier is shrunk towards
        the bridge's shift for it rather than towards 0, and an edit the strong tier never
        measured takes the bridge's."""
        if self._corrections is None:
            b = self.bridge_index
            bridged = self._fit(b) if b is not None else None
            prior = bridged.edit if bridged is not None else None
            self._corrections = (0, [self._fit(t, prior) for t in self.strong_tiers], bridged)
        return self._corrections[1]

    def bridge_correction(self) -> TierCorrection | None:
        """The bridge tier's correction of the first tier's rates (None without a bridge)."""
        self.corrections()
        return self._corrections[2]

    def _fit(self, t: int, prior: dict | None = None) -> TierCorrection:
        """The base shift: strong − first tier on the unchanged decks' strong screening deals
        (every one of them, every slice); an edit set's shift beyond it: its own strong − first
        tier minus the unchanged decks' on the deals it played (``strong_screen``: the first
        ``strong_block`` deals of each of its slices), so that what those few deals share
        cancels."""
        levels = self.cands[""].strong[t - 1] if "" in self.cands else 0
        if levels < 1:
            return TierCorrection.fit([], len(self.armies), prior_mean=prior)

        def shift(moves, blocks, deals: int | None):
            ys = self.army_data(moves, blocks, deals)
            y0 = self.army_data(moves, [b - t * STRIDE for b in blocks], deals)
            rs, r0 = (np.array([s.sum() / n.sum() for s, n in zip(*y)]) for y in (ys, y0))
            return rs - r0, float(min(n.sum() for n in ys[1]))

        # every slice the unchanged decks played at this tier: the base shift enters every
        # prediction, so it takes all their deals
        base_blocks = sorted(
            b
            for b, j, k in self.units
            if j == 0
            and k == ""
            and tier_of(b) == t
            and kind_of(b) == "screen"
            and (slice_of(b) or level_of(b) < levels)
        )
        base, base_games = shift((), base_blocks, self.deals(screen_block(t, 0), ("",)))
        deals = self.settings.strong_block
        theirs: dict[tuple[int, ...], np.ndarray] = {}  # many sets share their slices
        rows = []
        for c in sorted(self.cands.values(), key=lambda c: c.key):
            blocks = tuple(self.strong_screen(c.moves, t, k) for k in range(c.strong[t - 1]))
            if not c.moves or not blocks:
                continue
            if blocks not in theirs:
                theirs[blocks] = shift((), blocks, deals)[0]
            # beyond the unchanged decks' shift on the same deals, so that what they share cancels
            mine, games = shift(c.moves, blocks, deals)
            rows.append((c.moves, mine - theirs[blocks], games))
        fitted = TierCorrection.fit(rows, len(self.armies), base=base, prior_mean=prior)
        # a game's score varies by at most ½, so the base shift is known to about ½/√games
        return replace(fitted, base_se=0.5 / math.sqrt(max(base_games, 1.0)))

    def _strong_plan(self, ready: list[Cand]) -> list[tuple[int, tuple[int, ...]]]:
        """Strong-tier screening blocks for this round, as far as each tier's credit goes (the
        unchanged decks go first on every block): the fully screened candidates with the most
        optimistic bounds over every tier first, then with what they leave those still being
        screened, never more strong levels than first-tier ones: few sets finish the first
        tier's screening in a round, and the tier's correction learns an edit's shift only
        from sets that hold it (docs/balancing.md, "The strong tier's spare credit")."""
        s = self.settings
        out: list[tuple[int, tuple[int, ...]]] = []
        order = sorted(
            ready, key=lambda c: (c.level < s.levels, self.overall(c).worst_lo, len(c.moves), c.key)
        )
        for t in self.measuring_tiers:
            credit = self.credit[t - 1]
            base = self.cands[""].strong[t - 1]
            planned: set = set()
            for c in order:
                level = c.strong[t - 1]
                if not c.moves or level >= s.strong_levels or level >= c.level:
                    continue
                units = self.strong_units(c.moves, t, level)
                if base <= level:
                    units |= {(screen_block(t, level), j, "") for j in range(len(self.pairs))}
                units -= set(self.units) | planned
                # the first tier's games on a slice cost next to nothing
                cost = sum(2 * self.deals(b, (k,)) for b, _, k in units if tier_of(b) == t)
                if cost > credit:
                    break
                credit -= cost
                planned |= units
                if base <= level:
                    out.append((t, ()))
                    base = level + 1
                out.append((t, c.moves))
        return out

    def _earn(self, table: pd.DataFrame) -> None:
        """Credit the strong tiers with their share of this round's first-tier screening."""
        if len(self.tiers) == 1 or table.empty:
            return
        first = sum(
            int(np.sum(~np.isnan(np.asarray(x, dtype=float))))
            for b, x in zip(table["block"], table["scores"])
            if first_screen(b)
        )
        share = self.settings.strong_share
        spend = share / (1.0 - share) * first * self.cost[0] / len(self.strong_tiers)
        for t in self.strong_tiers:
            self.credit[t - 1] += spend / self.cost[t]
        b = self.bridge_index
        if b is not None:
            self.credit[b - 1] += BRIDGE_SHARE / (1.0 - share) * first * self.cost[0] / self.cost[b]

    # ------------------------------------------------------------------------------ surrogate
    def _deltas(self):
        """Per pair: {edits (in order): mean score change of the pair's first army against the
        unchanged decks on the first tier's screening blocks both played} — keyed by the edits
        themselves, as a prediction looks up every subset of a set's edits."""
        units = sorted(self.units.items())  # a fixed order, however the units were loaded
        base = {}
        for (block, j, key), unit in units:
            if first_screen(block) and key == "":
                base[(block, j)] = unit.mean
        out: list[dict[str, list]] = [dict() for _ in self.pairs]
        for (block, j, key), unit in units:
            y = unit.mean
            if first_screen(block) and key and (block, j) in base:
                out[j].setdefault(key, []).append(y - base[(block, j)])
        return [
            {tuple(int(i) for i in k.split(",")): float(np.mean(v)) for k, v in d.items()}
            for d in out
        ], base

    def _rates(self, y: np.ndarray) -> np.ndarray:
        """Army win rates from pair scores (the pair's first army), along the last axis."""
        return (y @ self.incidence.T + self.offset) / self.degree

    def _score(self, wr: np.ndarray, shifts, doubts=None) -> np.ndarray:
        """What the surrogate minimises: the worst distance plus a tenth of the spread, each the
        largest over the first tier (``wr``) and every strong tier (``wr`` + its shift, each army
        moved away from the target by that tier's ``doubts``: a number or one per set)."""
        target = self.settings.target
        worst = np.abs(wr - target).max(axis=-1)
        spread = wr.max(axis=-1) - wr.min(axis=-1)
        for k, shift in enumerate(shifts):
            x = wr + shift
            if doubts is not None:
                d = np.asarray(doubts[k], dtype=float)
                x = away(x, x, x, target, d[..., None] if d.ndim else d)[0]
            worst = np.maximum(worst, np.abs(x - target).max(axis=-1))
            spread = np.maximum(spread, x.max(axis=-1) - x.min(axis=-1))
        return worst + 0.1 * spread

    def _surrogate(self, screened_singles: list[int]):
        """(singles, their pair score changes (singles × pairs), the unchanged decks' pair
        scores, ``exact``: an edit set's pair scores — the largest measured subset's change on
        each pair plus the single-edit changes of the rest) on the first tier's screening."""
        deltas, base = self._deltas()
        y0 = np.array(
            [np.mean([v for (b, j), v in base.items() if j == p]) for p in range(len(self.pairs))]
        )
        singles = np.array(screened_singles, dtype=int)
        single_d = np.zeros((len(singles), len(self.pairs)))
        for r, i in enumerate(singles):
            for j in np.flatnonzero(self.touch[i]):
                single_d[r, j] = deltas[j].get((int(i),), 0.0)
        pos = {int(i): r for r, i in enumerate(singles)}
        # the beam asks for thousands of sets sharing their edits on most pairs; a pair's
        # prediction walks the subsets of its edits, so it is worked out once per (pair, edits)
        known: dict[tuple[int, tuple[int, ...]], float] = {}
        touched = [set(np.flatnonzero(self.touch[:, j]).tolist()) for j in range(len(self.pairs))]

        def exact(moves) -> np.ndarray:
            y = y0.copy()
            for j in range(len(self.pairs)):
                mine = tuple(sorted(int(i) for i in moves if i in touched[j]))
                if not mine:
                    continue
                got = known.get((j, mine))
                if got is None:
                    got = known[(j, mine)] = _predict(mine, deltas[j], single_d[:, j], pos)
                y[j] += got
            return y

        return singles, single_d, y0, exact

    def propose(self, screened_singles: list[int], quota: int) -> list[tuple[int, ...]]:
        """Up to ``quota`` new edit sets (2 edits or more) the surrogate rates best, spread over
        the edit counts."""
        s = self.settings
        if quota <= 0 or not screened_singles:
            return []
        singles, single_d, y0, exact = self._surrogate(screened_singles)
        corrs = self.corrections()
        k = s.doubt

        def score(moves) -> float:
            return float(
                self._score(
                    self._rates(exact(moves)),
                    [c.of(moves) for c in corrs],
                    [k * c.se(moves) for c in corrs],
                )
            )

        shifts = [c.matrix(singles) for c in corrs]  # each single edit's, once a round
        own = [np.array([c.se((i,)) ** 2 for i in singles]) for c in corrs]

        def grown(y, moves, ok) -> np.ndarray:
            """The approximate score of ``moves`` plus each single edit of ``ok``."""
            doubts = []
            for c, v in zip(corrs, own):
                var = c.se(moves) ** 2 + v[ok]
                if moves:
                    var = var + 2.0 * c.covariance(moves, singles[ok]).sum(axis=0)
                doubts.append(k * np.sqrt(np.maximum(var, 0.0)))
            return self._score(
                self._rates(y[None, :] + single_d[ok]),
                [c.of(moves)[None, :] + m[ok] for c, m in zip(corrs, shifts)],
                doubts,
            )

        beam = [((), y0)]
        ranked_by_depth = []
        for depth in range(1, s.max_edits + 1):
            options = []
            for parent, y in beam:
                ok = (
                    ~self.conflict[list(parent)].any(axis=0)[singles]
                    if parent
                    else np.ones(len(singles), dtype=bool)
                )
                if not ok.any():
                    continue
                for i, v in zip(singles[ok], grown(y, parent, ok)):
                    options.append((float(v), tuple(sorted(parent + (int(i),)))))
            best: dict[tuple, float] = {}
            for v, moves in sorted(options):
                if moves not in best:
                    best[moves] = v
                if len(best) >= 4 * s.beam:
                    break
            scored = sorted(((score(m), m) for m in best), key=lambda t: t)
            beam = [(m, exact(m)) for _, m in scored[: s.beam]]
            ranked_by_depth.append([m for _, m in scored])
            if not beam:
                break
        swaps = self._swaps(singles, single_d, exact, score, grown)
        picked: list[tuple[int, ...]] = []

        def take(ranked, n: int) -> None:
            for m in ranked:
                if len(picked) >= quota or n <= 0:
                    return
                if rkey(m) not in self.cands and m not in picked:
                    picked.append(m)
                    n -= 1

        take(swaps, quota // 3)
        per_depth = max(1, math.ceil((quota - len(picked)) / max(1, len(ranked_by_depth) - 1)))
        for ranked in ranked_by_depth[1:]:
            take(ranked, per_depth)
        return picked

    def _swaps(self, singles, single_d, exact, score, grown) -> list[tuple[int, ...]]:
        """Edit sets one swap away from the best screened sets (one edit replaced by another):
        the beam only grows sets, and a set of --max-edits edits can improve only this way."""
        alive = [c for c in self.evaluated() if c.dropped < 0 and len(c.moves) >= 2]
        anchors = sorted(alive, key=lambda c: (self.overall(c).worst, c.key))[:4]
        options = []
        for c in anchors:
            y = exact(c.moves)
            col = {int(i): r for r, i in enumerate(singles)}
            for e in c.moves:
                if e not in col:
                    continue
                rest = tuple(i for i in c.moves if i != e)
                ok = ~self.conflict[list(rest)].any(axis=0)[singles]
                ok &= singles != e
                if not ok.any():
                    continue
                for i, v in zip(singles[ok], grown(y - single_d[col[e]], rest, ok)):
                    options.append((float(v), tuple(sorted(rest + (int(i),)))))
        best: dict[tuple, float] = {}
        for v, moves in sorted(options):
            if moves not in best and rkey(moves) not in self.cands:
                best[moves] = v
            if len(best) >= 4 * self.settings.beam:
                break
        return [m for _, m in sorted((score(m), m) for m in best)]

    def polish(self, anchor: tuple[int, ...], among=None) -> list[tuple[int, ...]]:
        """The neighbours of ``anchor`` — one edit added (within --max-edits), removed or
        replaced, or two at a time (``_pair_moves``) — not yet measured on the polishing deals,
        best first by the anchor's judged rates there plus the surrogate's predicted change at
        each tier, corrected by what the sets measured there say of its edits
        (``neighbour_figures``; at most ``POLISH_OPTIONS``); ``among``: rate these neighbours
        alone (once screened, the surrogate's first-tier figures of a set are its own measured
        ones). The surrogate misses a strong tier's rates by several points for some sets, and
        the best selected set's selection figures flatter it (it was chosen on them), so it
        often leaves an army or two out where both put it in the band; anchored on what deals
        of its own measured, an edit or two can mend them."""
        done = self.screened_singles()
        if not done:
            return []
        singles, single_d, _, exact = self._surrogate(done)
        col = {int(i): r for r, i in enumerate(singles)}
        polished = self.polished_sets() | {tuple(anchor)}
        y_anchor = exact(anchor)
        figures = self.neighbour_figures(anchor, y_anchor)

        def rated(moves, y: np.ndarray) -> float:
            return self.band_score(*figures(moves, y))

        if among is not None:
            shortlist = [tuple(m) for m in among if tuple(m) not in polished]
        else:
            options: set[tuple[int, ...]] = set()
            for e in (None, *anchor):
                rest = tuple(i for i in anchor if i != e)
                if e is not None and rest:
                    options.add(rest)
                if self._counted(rest) >= self.settings.max_edits:
                    continue
                ok = ~self.conflict[list(rest)].any(axis=0)[singles] if rest else singles >= 0
                options.update(
                    tuple(sorted(rest + (int(i),))) for i in singles[ok & (singles != e)]
                )
            options -= polished

            def rough(moves) -> np.ndarray:
                y = y_anchor.copy()
                for i in set(moves) - set(anchor):
                    y += single_d[col[i]]
                for i in set(anchor) - set(moves):
                    if i in col:
                        y -= single_d[col[i]]
                return y

            first = sorted((rated(m, rough(m)), m) for m in options)
            pairs = self._pair_moves(anchor, [m for _, m in first], singles) - options - polished
            second = self._rated_by_parts(anchor, sorted(pairs), lambda m: figures(m, rough(m)))
            shortlist = [m for _, m in first[:32] + second[:32]]
        best = sorted((rated(m, exact(m)), m) for m in shortlist)
        return [m for _, m in best[:POLISH_OPTIONS]]

    def _counted(self, moves) -> int:
        """The edits of ``moves`` that count against --max-edits: a centring edit the search
        itself never tries does not (``_centring``)."""
        return sum(1 for i in moves if i < self.searchable)

    def _pair_moves(self, anchor, ranked, singles) -> set[tuple[int, ...]]:
        """The two-edit neighbours of ``anchor`` (within --max-edits, no two edits of one card
        ability or strength): two edits added, with none, one or two of its edits removed, or two
        removed and one added — the added ones among the first ``POLISH_PAIR_ADDS`` edits that
        the one-edit neighbours ``ranked`` (best first) add."""
        adds: list[int] = []
        for moves in ranked:
            if len(adds) >= POLISH_PAIR_ADDS:
                break
            adds += [i for i in moves if i not in anchor and i not in adds]
        adds = adds[:POLISH_PAIR_ADDS]
        if not adds:
            return set()
        known = set(int(i) for i in singles)
        out = set()
        for r in range(3):
            for removed in itertools.combinations(anchor, r):
                rest = [i for i in anchor if i not in removed]
                free = ~self.conflict[rest].any(axis=0) if rest else None
                for k in (1, 2) if r == 2 else (2,):
                    if self._counted(rest) + k > self.settings.max_edits:
                        continue
                    for added in itertools.combinations(adds, k):
                        if any(i not in known for i in added):  # adds hold no anchor edit
                            continue
                        if free is not None and not free[list(added)].all():
                            continue
                        if k == 2 and self.conflict[added[0], added[1]]:
                            continue
                        out.add(tuple(sorted(rest + list(added))))
        return out

    def _rated_by_parts(self, anchor, sets, figures_of) -> list[tuple[float, tuple[int, ...]]]:
        """``sets``, each a few edits from ``anchor``, rated (``band_score``) best first from
        their one-edit parts: the anchor's predicted rates plus the predicted change of each edit
        added or removed alone (``figures_of`` a set: its (rates, se)), their doubts' variances
        added (the parts' covariances left out). Rough — the shortlist is rated whole — but tens
        of thousands of sets take a fraction of a second."""
        if not sets:
            return []
        base, se = figures_of(tuple(anchor))
        parts: dict[int, tuple[np.ndarray, np.ndarray]] = {}

        def part(i: int) -> tuple[np.ndarray, np.ndarray]:
            if i not in parts:
                rates, wide = figures_of(tuple(sorted(set(anchor) ^ {i})))
                parts[i] = (rates - base, np.maximum(wide**2 - se**2, 0.0))
            return parts[i]

        moved = [sorted(set(m) ^ set(anchor)) for m in sets]
        shift = np.array([sum(part(i)[0] for i in x) for x in moved])
        var = np.array([sum(part(i)[1] for i in x) for x in moved])
        s = self.settings
        costs = _band_costs(base + shift, np.sqrt(se**2 + var), s.target, s.band)
        scores = costs.reshape(len(sets), -1).sum(axis=1)
        return sorted(zip(scores.tolist(), sets))

    def _residual_split(self, t: int, corr: TierCorrection, learn: bool = True) -> ResidualSplit:
        """What the sets measured on the polishing deals say of the correction's errors at
        strong tier ``t`` (``balance_polish``): each set's residual is its strong − first-tier
        rates there (the first tier on the same deals) minus the correction's predicted shift;
        what every set shares is the deals' luck at that tier and the base shift's error."""
        polished = (c.moves for c in self.cands.values() if learn and c.polish and c.moves)
        sets = sorted(polished, key=rkey)
        residuals, noise, luck = [], [], []
        for moves in sets:
            strong = self.controlled_rates(moves, polish_block, t)
            first = self.confirmed_rates(moves, polish_block(0))
            residuals.append(np.nan_to_num(strong.mean - first.mean - corr.of(moves)))
            se = np.nan_to_num(np.asarray(strong.se, dtype=float), nan=corr.prior)
            noise.append(OWN_NOISE * se)
            luck.append(se)
        n = len(self.armies)
        shared = np.sqrt(np.median(luck, axis=0) ** 2 + corr.base_se**2) if sets else np.ones(n)
        return ResidualSplit.fit(
            sets,
            np.array(residuals).reshape(len(sets), n),
            np.array(noise).reshape(len(sets), n),
            shared,
            corr.covariance,
            self._holds,
        )

    def _holds(self, move: int) -> np.ndarray:
        """(armies,) bool: the armies holding the card of edit ``move``."""
        return np.array([a in self.moves[move].armies for a in self.armies])

    def neighbour_figures(self, anchor, y_anchor: np.ndarray, learn: bool = True):
        """A function of a neighbour of ``anchor`` and its first-tier pair scores that gives its
        predicted (rates, standard errors), each (tiers, armies), on the polishing deals:
        ``anchor``'s judged rates there (``y_anchor``: its pair scores) plus the predicted
        change at each tier — a strong tier's corrected by what the sets measured there say of
        the edits it adds and removes (``ResidualSplit``), and as uncertain as they leave it,
        beyond the anchor's own figures' error. The doubt widens the error, it does not push a
        rate away from the target: a push on every army at once would count it nine times in
        ``band_score``'s sum over the armies, and rank the neighbours by how well their edit is
        known rather than by what they mend. ``learn`` False: the anchor's residual carried
        whole, the rates polishing predicted before (``benchmarks/polish_split_check.py``)."""
        corrs = self.corrections()
        # the calibration tier's row moves with the first strong tier's
        calibrated = [corrs[0]] if self.calibration_offset() is not None else []

        def tiers(moves, y) -> np.ndarray:
            wr = self._rates(y)
            return np.array([wr] + [wr + c.of(moves) for c in corrs + calibrated])

        measured, se = self.judged_normal(anchor, polish_block)  # se: a neighbour's, once measured
        now = measured - tiers(anchor, y_anchor)
        k = self.settings.doubt
        splits = [self._residual_split(t, c, learn) for t, c in zip(self.strong_tiers, corrs)]
        splits += splits[:1] if calibrated else []

        def figures(moves, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            added = [i for i in moves if i not in anchor]
            removed = [i for i in anchor if i not in moves]
            rates, wide = now + tiers(moves, y), se.copy()
            for t, split in enumerate(splits, 1):
                error, doubt = split.change(added, removed)
                rates[t] += error
                wide[t] = np.sqrt(se[t] ** 2 + (k * doubt) ** 2)
            return rates, wide

        return figures

    def polished_sets(self) -> set[tuple[int, ...]]:
        """The edit sets measured on the polishing deals."""
        return {c.moves for c in self.cands.values() if c.polish}

    def polish_best(self) -> Cand | None:
        """The best set measured on the polishing deals, judged there (None before any)."""
        done = [c for c in self.cands.values() if c.polish and c.moves]
        return min(done, key=self.polish_key) if done else None

    def polish_key(self, c: Cand):
        """Best first on the polishing deals: within the band at every tier with the fewest
        edits, then the nearest to it (``band_score``), then by worst distance."""
        rates, se = self.judged_normal(c.moves, polish_block)
        worst = float(np.abs(rates - self.settings.target).max())  # ``judged``'s, over the tiers
        meets = worst <= self.settings.band
        score = self.band_score(rates, se)
        return (not meets, len(c.moves) if meets else 0, score, worst, c.key)

    def screened_singles(self) -> list[int]:
        """The single edits screened at the first tier that change some game, in order."""
        return sorted(
            c.moves[0] for c in self.evaluated() if len(c.moves) == 1 and not self._noop(c.moves[0])
        )

    def band_score(self, rates: np.ndarray, se: np.ndarray) -> float:
        """What polishing minimises: each army's expected squared distance beyond the band at
        the first tier plus the worst of its strong rows' (``POLISH_STRONG_ROWS``), summed, in
        points² ((tiers, armies) ``rates`` each with its standard error ``se``:
        ``balance_tiers.band_shortfall``); ``POLISH_SCORE`` "chance": minus the
        log-chance that every army lands in the band (``chance_in_band``), as before. The worst
        distance, which the search minimises, stays put while any one army stays as far out:
        from a set with three or four armies binding at once no one-edit neighbour moves it,
        and a walk by it stalls beside the army that binds; the chance, summed in standard
        errors, let the first tier's precise rates outweigh a strong tier's far worse ones
        (docs/balancing.md, "Polishing towards the band")."""
        s = self.settings
        return float(_band_costs(rates, se, s.target, s.band).sum())

    def polished(self) -> int:
        """Polishing rounds played (the first measured the best selected set alone)."""
        return sum(1 for h in self.history if h.get("phase") == POLISH)

    # ------------------------------------------------------------------------------ rounds
    def plan(self, final: bool) -> dict:
        """The next round, from the measurements so far: {confirm, promote, new, strong} lists
        of edit sets (strong: (tier, edit set))."""
        s = self.settings
        alive = [c for c in self.evaluated() if c.dropped < 0]
        top = [c for c in alive if c.level >= s.levels]
        pool = alive if final else top
        confirm = [c.moves for c in self.front(pool) if not c.confirmed]
        confirm = confirm[: s.final_confirms if final else s.confirm_per_round]
        if final:
            return _plan(confirm=confirm)
        waiting = sorted(
            (c for c in alive if c.level < s.levels),
            key=lambda c: (self.overall(c).worst_lo, len(c.moves), c.key),
        )
        promote = [c.moves for c in waiting[: s.promote_per_round]]
        strong = self._strong_plan(alive)
        new = self.propose(self.screened_singles(), s.new_per_round)
        planned = {rkey(m) for m in confirm + promote + new}
        todo = [
            m.index
            for m in self._single_order()
            if str(m.index) not in self.cands and str(m.index) not in planned
        ]
        # single edits get what the proposals and promotions leave of the round's units, and
        # never less than half: the surrogate can only combine edits it has measured
        room = max(s.units_per_round - self._count_units(promote, new), s.units_per_round // 2)
        singles, units = [], 0
        for i in todo:
            if units >= room:
                break
            singles.append((i,))
            units += int(self.touch[i].sum())
        return _plan(confirm=confirm, promote=promote, new=new + singles, strong=strong)

    def _count_units(self, promote, new) -> int:
        need = set()
        for moves in new:
            need |= {(0, j, self.restrict(moves, j)) for j in range(len(self.pairs))}
        for moves in promote:
            lvl = self.cands[rkey(moves)].level
            need |= {(lvl, j, self.restrict(moves, j)) for j in range(len(self.pairs))}
        return sum(1 for u in need if u not in self.units)

    def _single_order(self):
        """Single edits, those touching the armies farthest from the target first: at any tier
        for the best set screened so far (``overall``), or on the unchanged decks at the first
        tier before any. Ordered by the decks as written alone, an army near the target there
        never had its own edits screened, however far out the sets the search built put it
        (docs/balancing.md, "Single edits follow the best set")."""
        if (0, 0, "") not in self.units:
            return list(self.moves[: self.searchable])
        sets = [c for c in self.evaluated() if c.moves and c.dropped < 0]
        if sets:
            best = min(sets, key=lambda c: (self.overall(c).worst, len(c.moves), c.key))
            rates = self.tier_rates(best)
        else:
            rates = np.asarray(self.screened(self.cands[""])[1].mean, dtype=float)[None, :]
        far = self._distance_by_army(rates)
        mine = self.moves[: self.searchable]
        return sorted(mine, key=lambda m: (-max(far[a] for a in m.armies), m.index))

    def _distance_by_army(self, rates: np.ndarray) -> dict[str, float]:
        """Per army, its largest distance from the target over the tiers of (tiers, armies)
        ``rates`` — how the single edits touching it are ordered."""
        return dict(zip(self.armies, np.abs(rates - self.settings.target).max(axis=0)))

    def _noop(self, i: int) -> bool:
        """A single edit whose games are exactly those of the unchanged decks on every pair
        it touches (e.g. an amount the effect does not read)."""
        for j in np.flatnonzero(self.touch[i]):
            mine, base = self.units.get((0, j, str(i))), self.units.get((0, j, ""))
            if mine is None or base is None or not np.array_equal(mine[0], base[0]):
                return False
        return True

    def needed(self, plan: dict) -> list[tuple[int, int, str]]:
        """The units the round must play, in a fixed order."""
        every = range(len(self.pairs))
        need = set()

        def add(block, moves):
            need.update((block, j, self.restrict(moves, j)) for j in every)

        for moves in plan["confirm"]:
            add(select_block(0), moves)
        for moves in plan["new"]:
            add(screen_block(0, 0), moves)
        for moves in plan["promote"]:
            add(screen_block(0, self.cands[rkey(moves)].level), moves)
        for moves in plan["screen"]:  # every screening block at once
            for level in range(self.settings.levels):
                add(screen_block(0, level), moves)
        for moves in plan["polish"]:
            for t in range(len(self.tiers)):
                add(polish_block(t), moves)
        for moves in plan["calibrate"]:
            add(polish_block(self.calibration_index), moves)
        for t, moves in plan["strong"]:
            cand = self.cands.get(rkey(moves))
            level = cand.strong[t - 1] if cand else 0
            if moves:
                need.update(self.strong_units(moves, t, level))
                continue
            add(screen_block(t, level), moves)
            # the base shift pairs the unchanged decks' strong deals with the first tier's
            add(screen_block(0, level), moves)
        for moves in plan["finalists"]:
            for t in self.strong_tiers:
                add(select_block(t), moves)
        for moves in plan["fresh"]:
            for t in range(len(self.tiers)):
                add(fresh_block(t), moves)
        return sorted(u for u in need if u not in self.units)

    def deals(self, block: int, keys=()) -> int:
        """Deals per pair of ``block`` — for the edit sets ``keys`` of one call: at a strong
        tier the unchanged decks alone screen on more deals than the candidates (the first of
        which the candidates play), since the tier's base shift enters every prediction."""
        s, first = self.settings, tier_of(block) == 0
        if tier_of(block) == self.calibration_index:
            # the first half of the strong tier's polishing deals: 1,280 games per army by
            # default measure its offset to about ±1.7 points, at four times a search(100)
            # game's price
            return s.strong_fresh_deals
        if kind_of(block) == "screen" and slice_of(block):
            return s.strong_block  # a strong screening slice (``strong_screen``), at every tier
        if not first and kind_of(block) == "screen" and tuple(keys) == ("",):
            return max(s.strong_block, s.strong_base_deals)
        return {
            "screen": s.block if first else s.strong_block,
            SELECT: s.confirm_deals if first else s.strong_select_deals,
            FRESH: s.fresh_deals if first else s.strong_fresh_deals,
            # polishing figures decide between sets one edit apart, and the best of them is
            # flattered by what it was chosen on: at the first tier (a few seconds a round)
            # four times the fresh deals keep that to a fraction of a point; a strong tier
            # plays the first of those deals (the tiers stay paired)
            POLISH: POLISH_FIRST * s.fresh_deals
            if first
            else min(POLISH_STRONG * s.strong_fresh_deals, POLISH_FIRST * s.fresh_deals),
        }[kind_of(block)]

    def calls(self, units) -> list[tuple[int, tuple[int, ...], tuple[str, ...]]]:
        """Runner calls playing ``units``: (block, pairs, edit-set keys) such that every edit
        set of a call is needed on every pair of the call (nothing is played twice or for
        nothing)."""
        by: dict[tuple[int, str], set[int]] = {}
        for block, j, key in units:
            by.setdefault((block, key), set()).add(j)
        groups: dict[tuple[int, tuple[int, ...]], list[str]] = {}
        for (block, key), pairs in sorted(by.items()):
            groups.setdefault((block, tuple(sorted(pairs))), []).append(key)
        out = []
        for (block, pairs), keys in sorted(groups.items()):
            base = [k for k in keys if k == ""]
            others = [k for k in keys if k]
            # the unchanged decks play every pair of a call: a call of their own
            if base:
                out.append((block, pairs, ("",)))
            if others:
                out.append((block, pairs, tuple(others)))
        return out

    def experiment(self, block: int, pairs, keys) -> Experiment:
        deals = self.deals(block, keys)
        t = tier_of(block)
        label = seed_label(block)
        exp = replace(
            self.exp,
            name=f"{self.exp.name}-balance-{label}" + (f"-t{t}" if t else ""),
            seed=derive_seed(self.settings.seed, label),
            games=deals,
            chunk_size=deals,
            matchups=tuple(self.pairs[j] for j in pairs),
            tiers=(self.play_tiers[t],),
        )
        design = card_design(exp)
        patches = [
            design.BASE_PATCH
            if k == ""
            else design.patch(_patch_name(k), (self.moves[int(i)].edit for i in k.split(",")))
            for k in keys
        ]
        return design.with_patches(exp, patches, patched_matchups="affected")

    def play(self, units, phase: str) -> pd.DataFrame:
        """Play ``units`` through the runner (resuming the round's folders when they exist);
        a table of the units' scores."""
        from lab.sim import runner
        from lab.records import read_games

        work = self.out / WORK / f"round-{self.round:05d}"
        rows = []
        for n, (block, pairs, keys) in enumerate(self.calls(units)):
            exp = self.experiment(block, pairs, keys)
            folder = work / f"call-{n:04d}"
            started = time.monotonic()
            result = runner.run(
                exp,
                folder,
                jobs=self.jobs,
                resume=folder.exists(),
                backend=self.backend,
                scheduler=self.scheduler,
                console=None,
            )
            games = read_games(folder, columns=_COLUMNS)
            t = tier_of(block)
            # compiling is paid once (the first call at a tier, after an install or an engine
            # change); counted in the pace it would make the final measurements' reserve
            # swallow a short budget
            self.pace[t][0] += time.monotonic() - started - result.compile_seconds
            self.pace[t][1] += len(games)
            names = {_patch_name(k) if k else "base": k for k in keys}
            rows += _unit_rows(games, names, block, self.pairs, pairs, self.deals(block, keys))
            self._pending.append((kind_of(block), t, len(games)))
            self._status(phase)
        return pd.DataFrame(rows, columns=["block", "pair", "key", "scores"])

    def _status(self, phase: str) -> None:
        if self.on_status is None:
            return
        front = []
        for c in (
            self.confirmed_front() or self.front([c for c in self.evaluated() if c.dropped < 0])[:8]
        ):
            selected = self._selected_blocks(c) is not None
            o = self.judged(c.moves) if selected else self.overall(c)
            front.append((len(c.moves), o.worst, o.spread, selected))
        games = self.played() + sum(n for _, _, n in self._pending)
        self.on_status(
            Status(
                self.round,
                phase,
                games,
                self.clock(),
                sorted(front)[:8],
                len(self.evaluated()),
                sum(c.dropped >= 0 for c in self.cands.values()),
            )
        )

    def played(self) -> int:
        return int(sum(sum(v) for v in self.games.values()))

    def run_round(
        self, plan: dict | None = None, final: bool = False, phase: str | None = None
    ) -> dict:
        """Plan (unless given), play and record one round; returns its plan (empty lists:
        nothing to do)."""
        self._started = time.monotonic()
        if plan is None:
            if self.round == 0:
                plan = _plan(confirm=[()], new=[()], strong=[(t, ()) for t in self.measuring_tiers])
            else:
                plan = self.plan(final)
        units = self.needed(plan)
        phase = phase or ("final selection" if final else "search")
        table = self._play_or_stop(units, phase)
        self._commit(table, plan, final, phase)
        return plan

    def _play_or_stop(self, units, phase: str) -> pd.DataFrame:
        """``play``, keeping the time spent when interrupted (the round itself is replayed on
        --resume: the runner keeps its finished chunks)."""
        try:
            return self.play(units, phase)
        except (KeyboardInterrupt, LabError) as e:
            if isinstance(e, LabError) and getattr(e, "exit_code", 2) != 130:
                raise
            self._tick()
            self._pending = []
            self.save()
            raise self.interrupted() from None

    def _tick(self) -> None:
        self.elapsed = self.clock()
        self._started = None

    def _count(self) -> None:
        """Add the games of the finished round (an interrupted round is replayed, and its games
        counted, once on --resume)."""
        for kind, t, n in self._pending:
            self.games[kind][t] += n
            if kind == "screen" and t > 0:
                self.credit[t - 1] -= n
        self._pending = []

    def interrupted(self) -> Interrupted:
        return Interrupted(
            f"interrupted: the balance search in {self.out} keeps {self.round} "
            "finished round(s); run the same command with --resume to go on"
        )

    def _commit(self, table: pd.DataFrame, plan: dict, final: bool, phase: str) -> None:
        """Record a played round: units, candidates, racing, state on disk."""
        for block, pair, key, scores in table.itertuples(index=False):
            self._store(block, pair, key, np.asarray(scores, dtype=np.float64).reshape(2, -1))
        for moves in plan["new"]:
            cand = self._cand(moves)
            cand.level = max(cand.level, 1)
        for moves in plan["promote"]:
            self.cands[rkey(moves)].level += 1
        for moves in plan["screen"]:
            cand = self._cand(moves)
            cand.level = max(cand.level, self.settings.levels)
        for moves in plan["polish"]:
            self._cand(moves).polish = True
        for moves in plan["confirm"]:
            self._cand(moves).confirmed = True
        for t, moves in plan["strong"]:
            self._cand(moves).strong[t - 1] += 1
        for moves in plan["finalists"]:
            self._cand(moves).finalist = True
        for moves in plan["fresh"]:
            self._cand(moves).fresh = True
        dropped = self._race()
        _write_parquet(table, self.out / UNITS / f"round-{self.round:05d}.parquet")
        best = self.front([c for c in self.evaluated() if c.dropped < 0])
        self._tick()
        self._count()
        self._earn(table)
        self.history.append(
            {
                "round": self.round,
                "final": final,
                "phase": phase,
                **({"polished": [list(m) for m in plan["polish"]]} if phase == POLISH else {}),
                **self._note,
                "new": len(plan["new"]),
                "promoted": len(plan["promote"]),
                "confirmed": len(plan["confirm"]),
                "strong": len(plan["strong"]),
                "finalists": len(plan["finalists"]),
                "fresh": len(plan["fresh"]),
                "dropped": dropped,
                "units": len(table),
                "games": self.played(),
                "elapsed_s": round(self.elapsed, 1),
                "best_worst": round(self.overall(best[0]).worst, 4) if best else None,
            }
        )
        self._note = {}
        self.round += 1
        self.save()
        if not self.keep_records:
            shutil.rmtree(self.out / WORK, ignore_errors=True)

    def _race(self) -> int:
        """Drop the candidates whose optimistic bounds over every tier cannot beat the current
        front: the point estimates of the edit sets screened on at least two blocks (and the
        pessimistic bounds of every screened set). How many were dropped."""
        done = self.evaluated()
        objs = [self.overall(c) for c in done]
        ref = objs + [
            replace(o, worst_hi=o.worst, spread_hi=o.spread)
            for c, o in zip(done, objs)
            if c.level >= 2
        ]
        ref = [ref[i] for i in pareto([(o.edits, o.worst_hi, o.spread_hi) for o in ref])]
        n = 0
        for c, o in zip(done, objs):
            if c.dropped < 0 and c.moves and hopeless(o, ref):
                c.dropped = self.round
                n += 1
        return n

    # ------------------------------------------------------------------------------ driving
    def search(self, budget: Budget) -> str:
        """Rounds until the budget is spent or nothing is left to do, then the final selection
        and the fresh deals; the reason it stopped. The budget counts every session of the
        search (``--resume`` goes on where it was)."""
        self.budget = budget
        if self.stop == "converged":
            self.finish(budget)
            return self.stop
        last = self._last_round()
        while True:
            if self._spent(budget, last):
                if self.stop != "budget":  # not again on --resume
                    self.searched_s = self.elapsed
                    if self._unconfirmed():
                        self.run_round(final=True)
                self.stop = "budget"
                self.save()
                self.finish(budget)
                return self.stop
            self.stop = None  # searching further on --resume with a larger budget
            before = self.elapsed
            plan = self.run_round()
            last = self.elapsed - before
            if self.round > 1 and not any(plan[k] for k in ("confirm", "promote", "new", "strong")):
                self.stop = "converged"
                self.searched_s = self.elapsed
                self.save()
                self.finish(budget)
                return self.stop

    def finish(self, budget: Budget | None = None) -> None:
        """Select the best selected candidates at every strong tier, polish the best of them
        (``_polishing``), then measure the proposals (``ranked``) — and the unchanged decks —
        on the fresh deals at every tier. Nothing is chosen on the fresh deals."""
        if len(self.tiers) > 1:
            todo = [c.moves for c in self.finalists() if not c.finalist]
            if todo:
                self.run_round(_plan(finalists=todo), final=True, phase="strong selection")
            self._polishing(budget)
        todo = [
            c.moves
            for c in [self.cands[""]] + self.ranked()[: self.settings.final_top]
            if not c.fresh
        ]
        if todo:
            self.run_round(_plan(fresh=todo), final=True, phase="fresh deals")

    def _polishing(self, budget: Budget | None = None) -> None:
        """Rounds of polishing: the best selected set is measured on the polishing deals at
        every tier, then each round the neighbour of the best set there that rates best
        (``polish``; the unscreened single edits of the armies it leaves out screened first,
        ``_unscreened_near``) — ``polish_rounds`` of them with a games budget (the same
        proposals on any machine), as many as fit with a minutes budget (``_room_to_polish``:
        the reserve for the final measurements counts ``polish_rounds`` of them unless a slow
        strong tier squeezed it); the best there is ranked first."""
        rounds = self.settings.polish_rounds
        by_clock = budget is not None and budget.by_clock

        def more() -> bool:
            if not self.polished():
                return True  # the anchor
            return self._room_to_polish(budget) if by_clock else self.polished() <= rounds

        while rounds and more():
            best, selected = self.polish_best(), self.selection_ranked()
            if best is None:
                if not selected:
                    return
                anchor = [selected[0].moves]
                calibrate = anchor if self.calibration is not None else []
                self.run_round(_plan(polish=anchor, calibrate=calibrate), final=True, phase=POLISH)
                continue
            if self._probes_due():
                probes = self._probes(best.moves)
                if probes:
                    self._note = {"anchor": list(best.moves), "probes": [list(m) for m in probes]}
                    plan = _plan(screen=probes, polish=probes)
                    self.run_round(plan, final=True, phase=POLISH_PROBES_PHASE)
                    continue
            due = self.centring and self._centring_due(budget)
            centred = self._centring(best.moves) if due else None
            if centred is not None:
                self._note = {"anchor": list(best.moves), "centred": list(centred)}
                self._measure_polished([centred])
                continue
            options = self._polish_options(best.moves)
            if not options:
                return
            step = self.polish(best.moves, among=options)[:POLISH_MEASURED]
            if not step:
                return
            self._measure_polished(step)

    def _measure_polished(self, sets) -> None:
        """A polishing round: ``sets`` screened and measured on the polishing deals at every
        tier (and the calibration tier's, by ``POLISH_CALIBRATE``)."""
        every = self.calibration is not None and POLISH_CALIBRATE == "every"
        plan = _plan(screen=sets, polish=sets, calibrate=sets if every else [])
        self.run_round(plan, final=True, phase=POLISH)

    def _polish_options(self, anchor) -> list[tuple[int, ...]]:
        """The neighbours of ``anchor`` a polishing round chooses from, fully screened at the
        first tier: the surrogate's ``POLISH_OPTIONS`` best, screened in a round of their own
        (seconds: their first-tier figures then are measured, not added up from single edits,
        so the one measured at every tier is the best of them by what was played). The
        screening round names them in the history, so a resumed search chooses among the same
        ones."""
        last = self._last_round_for(POLISH_SCREEN, anchor)
        if last is not None:
            return [tuple(m) for m in last["options"]]
        missing = self._unscreened_near(anchor)
        if missing:
            self._note = {"anchor": list(anchor)}
            self.run_round(_plan(screen=missing), final=True, phase=POLISH_SINGLES_PHASE)
        options = self.polish(anchor)
        levels = self.settings.levels
        todo = [m for m in options if getattr(self.cands.get(rkey(m)), "level", 0) < levels]
        if not todo:
            return options
        self._note = {"anchor": list(anchor), "options": [list(m) for m in options]}
        self.run_round(_plan(screen=todo), final=True, phase=POLISH_SCREEN)
        return options

    def _centring(self, anchor) -> tuple[int, ...] | None:
        """``anchor`` with a deck-list edit added for each army whose tiers' midpoint on the
        polishing deals (halfway between its highest and lowest judged rate) is ``CENTRE_MIN``
        or more from the target, chosen to bring the judged rates nearest the target at every
        tier — None when no army is off centre, no edit brings them nearer, or the set was
        measured there already. Each candidate edit is played added to ``anchor`` on the first
        tier's screening blocks (a round of its own: a deck-list edit touches one army's
        pairs); one that moved its own army towards the target by ``CENTRE_EFFECT`` or more
        there is a candidate, its change added to every row, the same at every tier (the tiers
        feel these edits about alike) (``centring_choice``)."""
        s = self.settings
        anchor = tuple(anchor)
        rates = self.judged_rates(anchor, polish_block)
        mid = (rates.max(axis=0) + rates.min(axis=0)) / 2
        off = {
            self.armies[a] for a in range(len(self.armies)) if abs(mid[a] - s.target) >= CENTRE_MIN
        }
        blocked = self.conflict[list(anchor)].any(axis=0) if anchor else None
        adds = [
            i
            for i in self.centring
            if i not in anchor
            and (blocked is None or not blocked[i])
            and len(self.moves[i].armies) == 1
            and next(iter(self.moves[i].armies)) in off
        ]
        if not adds:
            return None
        sets = {i: tuple(sorted(anchor + (i,))) for i in adds}
        todo = [
            m
            for m in (anchor, *sets.values())
            if getattr(self.cands.get(rkey(m)), "level", 0) < s.levels
        ]
        if todo:
            self._note = {"anchor": list(anchor)}
            self.run_round(_plan(screen=todo), final=True, phase=POLISH_CENTRE_PHASE)
        base = np.asarray(self.screened(self.cands[rkey(anchor)])[1].mean, dtype=float)
        change = {}
        for i, m in sets.items():
            d = np.asarray(self.screened(self.cands[rkey(m)])[1].mean, dtype=float) - base
            a = self.armies.index(next(iter(self.moves[i].armies)))
            # its own army, towards the target by a point at least: of some 25 edits an army
            # has, the one whose screening read best by luck alone is often a 足軽 one step
            # weaker with no effect of its own (the default command added two such)
            if d[a] * np.sign(s.target - mid[a]) >= CENTRE_EFFECT:
                change[i] = d

        chosen = centring_choice(
            rates,
            change,
            lambda i: self.moves[i].armies,
            lambda i, j: bool(self.conflict[i, j]),
            s.target,
            CENTRE_GAIN,
        )
        if not chosen:
            return None
        centred = tuple(sorted(anchor + tuple(chosen)))
        return None if centred in self.polished_sets() else centred

    def _probes_due(self) -> bool:
        """Whether the probes are still to play: once, right after the anchor's round."""
        probed = any(h.get("phase") == POLISH_PROBES_PHASE for h in self.history)
        return not probed and self.polished() == 1 and self.settings.probe_armies > 0

    def _probes(self, anchor) -> list[tuple[int, ...]]:
        """The probes of ``anchor`` (see ``PROBE_ADDS``), not yet measured on the polishing
        deals. An added edit edits that army's copies alone (a probe plays its pairs only) and
        moves it at the first tier as the anchor's edits moved it, by about as much as they do
        (their mean screened single-edit change) first; where the anchor has --max-edits
        already, it replaces the anchor's edit of that army's cards that moves it most."""
        done = self.screened_singles()
        if not done:
            return []
        rates = self.judged_rates(anchor, polish_block)
        gap = _tier_gap(rates)
        order = np.argsort(-np.abs(gap), kind="stable")
        many = self.settings.probe_armies
        armies = [int(a) for a in order[:many] if abs(gap[a]) > self.settings.band]
        singles, single_d, y0, exact = self._surrogate(done)
        col = {int(i): r for r, i in enumerate(singles)}
        moved = self._rates(exact(anchor)) - self._rates(y0)  # what the anchor did, first tier
        # each single edit's change of every army (a rate is linear in the pair scores)
        effects = self._rates(single_d) - self._rates(np.zeros_like(single_d))
        polished = self.polished_sets()
        out: list[tuple[int, ...]] = []

        def keep(moves) -> None:
            moves = tuple(sorted(moves))
            if moves and moves not in polished and moves not in out:
                out.append(moves)

        for a in armies:
            name = self.armies[a]
            mine = [i for i in anchor if name in self.moves[i].armies]
            for e in mine:
                keep(i for i in anchor if i != e)
            way = np.sign(moved[a]) or np.sign(self.settings.target - rates[:, a].mean())
            effect = {i: float(effects[r, a]) for i, r in col.items()}
            if mine and self._counted(anchor) >= self.settings.max_edits:
                drop = max(mine, key=lambda i: (way * effect.get(i, 0.0), -i))
                rest = [i for i in anchor if i != drop]
            else:
                rest = list(anchor)
            if self._counted(rest) >= self.settings.max_edits:
                continue
            free = ~self.conflict[rest].any(axis=0) if rest else np.ones(len(self.moves), bool)
            # alternatives about as large as the anchor's own edits of the army, which a
            # neighbour could trade them for (a strength +2 on top of a centred army only
            # tells how far past the band it goes)
            size = float(np.mean([way * effect.get(i, 0.0) for i in mine])) if mine else 0.0
            size = max(size, 0.01)
            adds = sorted(
                (abs(way * d - size), i)
                for i, d in effect.items()
                if i not in anchor and free[i] and self.moves[i].armies == {name} and way * d > 0
            )
            for _, i in adds[:PROBE_ADDS]:
                keep(rest + [i])
        return out

    def _last_round_for(self, phase: str, anchor) -> dict | None:
        """The last round's history entry when it was a ``phase`` round for ``anchor`` (a
        search resumed after it goes on from what that round chose), else None."""
        last = self.history[-1] if self.history else {}
        if last.get("phase") == phase and tuple(last.get("anchor", ())) == tuple(anchor):
            return last
        return None

    def _unscreened_near(self, anchor) -> list[tuple[int]]:
        """The single edits never screened at the first tier that touch an army ``anchor``
        leaves outside the band at some tier on the polishing deals, those of the armies
        farthest out first (at most ``POLISH_SINGLES``): without them polishing could not
        offer an edit of its own for the army that binds."""
        if self._last_round_for(POLISH_SINGLES_PHASE, anchor) is not None:
            return []  # screened for this anchor already (a resumed search goes on as before)
        far = self._distance_by_army(self.judged_rates(anchor, polish_block))
        todo = []
        for m in self.moves[: self.searchable]:
            out = [far[a] for a in m.armies if far[a] > self.settings.band]
            if out and getattr(self.cands.get(rkey([m.index])), "level", 0) < 1:
                todo.append((-max(out), m.index))
        return [(i,) for _, i in sorted(todo)[:POLISH_SINGLES]]

    def _room_to_polish(self, budget: Budget | None) -> bool:
        """Whether a minutes budget leaves room for one more polishing round (as long as the
        longest neighbour's round so far; before the first, a third of the anchor's: a
        neighbour plays only the pairs its edit touches) and the fresh deals. A polishing
        round is the cheapest step of the search that still improves its answer, so a search
        stopped by minutes spends what is left here. Never with a games budget (the same
        proposals on any machine)."""
        if budget is None or not budget.by_clock:
            return False
        step = self._polish_step()
        if step is None:
            return False
        return self.elapsed + step + self.fresh_seconds() <= 60 * budget.minutes

    def _polish_step(self) -> float | None:
        """The seconds one more polishing round is expected to take: the longest neighbour's
        round so far, its screening included (before the first, a third of the anchor's: a
        neighbour plays only the pairs its edit touches); None before the anchor's."""
        took, screening = [], 0.0
        for h, sec in self._round_seconds():  # a round's neighbours screened, then one measured
            if h.get("phase") in (POLISH_SCREEN, POLISH_SINGLES_PHASE, POLISH_CENTRE_PHASE):
                screening += sec
            elif h.get("phase") == POLISH:
                took.append(sec + screening)
                screening = 0.0
        if not took:
            return None
        if self.calibration is not None:  # the anchor's round held the calibration tier's games
            took[0] = max(0.0, took[0] - self.pace[self.calibration_index][0])
        return max(took[1:]) if len(took) > 1 else took[0] / 3

    def _centring_due(self, budget: Budget | None) -> bool:
        """Whether polishing's last ``CENTRE_ROUNDS`` rounds have come, which centre the best
        set (``_centring``): with a games budget the last of ``polish_rounds``; with minutes,
        once no more than that many rounds and the fresh deals fit in what is left."""
        if budget is not None and budget.by_clock:
            step = self._polish_step()
            if step is None:
                return False
            left = 60 * budget.minutes - self.elapsed - self.fresh_seconds()
            return left < (CENTRE_ROUNDS * CENTRE_COST + 1) * step
        return self.polished() > self.settings.polish_rounds - CENTRE_ROUNDS

    def finalists(self) -> list[Cand]:
        """The unchanged decks and the candidates selected at the first tier that go on to the
        strong tiers' selection deals: the first tier's selected Pareto front, ranked by its
        selection figures there and its figures so far at the strong tiers."""
        done = [c for c in self.cands.values() if c.confirmed and c.moves]
        if not done:
            return [self.cands[""]]

        def over(c: Cand) -> Objectives:
            first = self.selected(c.moves, [select_block(0)])
            return combine([first] + [self.at_tier(c, t) for t in self.strong_tiers])

        keep = pareto([over(c).key() for c in done])
        front = sorted((done[i] for i in keep), key=lambda c: self._rank_key(over(c), c))
        return [self.cands[""]] + front[: self.settings.finalists]

    def _last_round(self) -> float:
        """Seconds the last search round took (0 before any): a resumed search decides as the
        interrupted one would have whether the next round fits the budget."""
        for h, sec in reversed(self._round_seconds()):
            if not h["final"]:
                return max(0.0, sec)
        return 0.0

    def _round_seconds(self) -> list[tuple[dict, float]]:
        """Each round of the history with the seconds it took."""
        ends = [0.0] + [h["elapsed_s"] for h in self.history]
        return [(h, ends[i + 1] - ends[i]) for i, h in enumerate(self.history)]

    def _unconfirmed(self) -> bool:
        alive = [c for c in self.evaluated() if c.dropped < 0]
        return any(not c.confirmed for c in self.front(alive))

    def _at_pace(self, games: list[float]) -> float:
        """Seconds ``games`` (per played tier) take at the pace each tier has played so far."""
        pace = [sec / n if n else 0.0 for sec, n in self.pace]
        # a tier that has not played yet (the calibration tier plays last) at the first strong
        # tier's pace, by their games' prices
        for t in range(2, len(pace)):
            if not pace[t]:
                pace[t] = pace[1] * self.cost[t] / self.cost[1]
        return float(sum(g * p for g, p in zip(games, pace)))

    def fresh_seconds(self) -> float:
        """About how long the fresh deals take: the proposals and the decks as written on every
        pair at every tier."""
        s, pairs = self.settings, 2 * len(self.pairs)
        deals = [s.fresh_deals] + [s.strong_fresh_deals for _ in self.strong_tiers]
        return self._at_pace([(s.final_top + 1) * d * pairs for d in deals])

    def end_seconds(self) -> float:
        """About how long the final selection, the polishing and the fresh deals take."""
        s, pairs = self.settings, 2 * len(self.pairs)
        games = [s.final_confirms * s.confirm_deals * pairs]
        # the best selected set on every pair, then POLISH_MEASURED neighbours a round: one
        # edit more, fewer or other touches an army or two — about a third of the pairs —,
        # chosen among POLISH_OPTIONS screened at the first tier
        rounds = s.polish_rounds / 3 if len(self.tiers) > 1 and s.polish_rounds else None
        # and the probes: an army's pairs each (a quarter), some of the anchor's edits more
        probes = s.probe_armies * (PROBE_ADDS + 2) / 3 if rounds is not None else 0
        polish = 1 + POLISH_MEASURED * rounds + probes if rounds is not None else 0
        screened = 1 + POLISH_OPTIONS * rounds + probes if rounds is not None else 0
        games[0] += (polish * self.deals(polish_block(0)) + screened * s.levels * s.block) * pairs
        games += [
            ((s.finalists + 1) * s.strong_select_deals + polish * self.deals(polish_block(t)))
            * pairs
            for t in self.strong_tiers
        ]
        c = self.calibration_index
        if c is not None:  # the best selected set, and each neighbour (not a probe), there
            calibrated = 1 + POLISH_MEASURED * (rounds or 0) if POLISH_CALIBRATE == "every" else 1
            games += [0] * (c - len(games)) + [calibrated * self.deals(polish_block(c)) * pairs]
        return self._at_pace(games) + self.fresh_seconds()

    def _spent(self, budget: Budget, last_round: float) -> bool:
        """Whether to stop searching: the games budget is reached, or the next round (about as
        long as the last) and the final measurements would end past the minutes budget — the
        search keeping at least ``SEARCH_SHARE`` of it (polishing then fits in what is left)."""
        if budget.games is not None and self.played() >= budget.games:
            return True
        if budget.minutes is None:
            return False
        limit = 60 * budget.minutes
        reserve = min(self.end_seconds(), (1 - SEARCH_SHARE) * limit)
        return self.elapsed + last_round + reserve > limit

    def _rank_key(self, o: Objectives, c: Cand):
        """Best first: within the band at every tier (fewest edits first), then the others by
        worst distance."""
        meets = o.worst <= self.settings.band
        return (not meets, len(c.moves) if meets else 0, o.worst, o.spread, c.key)

    def ranked(self) -> list[Cand]:
        """The proposals, best first: the best set on the polishing deals when there was any
        polishing, then ``selection_ranked``."""
        best = self.polish_best()
        selected = self.selection_ranked()
        if best is None:
            return selected
        return [best] + [c for c in selected if c.moves != best.moves]

    def selection_ranked(self) -> list[Cand]:
        """The Pareto front on the selection deals (every tier), best first: edit sets whose
        every army is within the band at every tier (fewest edits first), then the others by
        worst distance."""
        return sorted(
            (c for c in self.confirmed_front() if c.moves),
            key=lambda c: self._rank_key(self.judged(c.moves), c),
        )


def _plan(**lists) -> dict:
    return {
        k: list(lists.get(k, ()))
        for k in (
            "confirm",
            "promote",
            "new",
            "screen",
            "strong",
            "finalists",
            "polish",
            "calibrate",
            "fresh",
        )
    }


def _predict(
    mine: tuple[int, ...],
    measured: dict[tuple[int, ...], float],
    single: np.ndarray,
    pos: dict[int, int],
) -> float:
    """A pair's score change under the edits ``mine`` (those touching it, in order): the
    largest measured subset's change (the first of them in order) plus the single-edit changes
    of the rest. ``measured``: the pair's measured edit sets, by their edits (``_deltas``)."""
    from itertools import combinations

    for size in range(len(mine), 0, -1):
        for sub in combinations(mine, size):
            got = measured.get(sub)
            if got is not None:
                rest = [i for i in mine if i not in sub]
                return got + sum(single[pos[i]] for i in rest if i in pos)
    return float(sum(single[pos[i]] for i in mine if i in pos))


def _band_costs(rates, se, target: float, band: float) -> np.ndarray:
    """Each army's share of ``Search.band_score`` (``rates`` (..., tiers, armies) to (...,
    armies)): by ``POLISH_SCORE`` each rate's expected squared distance beyond the band in
    points², or minus its log-chance of lying in it; the first tier's plus, by
    ``POLISH_STRONG_ROWS``, the worst or the sum of the strong rows'; with ``POLISH_GAP`` set,
    plus the first strong tier's distance from the first tier beyond it, squared, in points².
    Every error is widened by ``POLISH_SPREAD``."""
    se = np.sqrt(np.asarray(se, dtype=float) ** 2 + POLISH_SPREAD**2)
    if POLISH_SCORE == "chance":
        costs = -log_chances(rates, se, target, band)
    else:
        costs = 1e4 * band_shortfall(rates, se, target, band)
    if costs.shape[-2] == 1:
        return costs[..., 0, :]
    strong = costs[..., 1:, :]
    costs = costs[..., 0, :] + (
        strong.max(axis=-2) if POLISH_STRONG_ROWS == "worst" else strong.sum(axis=-2)
    )
    if POLISH_GAP is None:
        return costs
    gap = np.abs(_tier_gap(np.asarray(rates, dtype=float)))
    return costs + 1e4 * np.maximum(gap - POLISH_GAP, 0.0) ** 2


def _tier_gap(rates: np.ndarray) -> np.ndarray:
    """Per army, the first strong tier's row minus the first tier's (``rates`` (..., tiers,
    armies)): the gap the probes look for and ``POLISH_GAP`` charges."""
    return rates[..., 1, :] - rates[..., 0, :]


def _conflicts(moves) -> np.ndarray:
    """conflict[i, j]: moves i and j cannot be in one edit set (the same strength or ability of
    a card in overlapping scopes; a move conflicts with itself)."""
    out = np.eye(len(moves), dtype=bool)
    by_slot: dict[tuple, list] = {}
    for m in moves:
        by_slot.setdefault(m.slot, []).append(m)
    for group in by_slot.values():
        for a in group:
            for b in group:
                if a.conflicts(b):
                    out[a.index, b.index] = True
    return out


def _patch_name(key: str) -> str:
    return "bal-" + hashlib.sha1(key.encode()).hexdigest()[:12]


def _unit_rows(games: pd.DataFrame, names: dict, block: int, all_pairs, pairs, deals: int):
    """Units of one runner call: per (pair, edit set) the score of the pair's first army in
    each game, seat order × deal (NaN for a game that hit an engine limit)."""
    scores = score_a(games["winner"].to_numpy())
    scores[games["error"].to_numpy(dtype=bool)] = np.nan
    games = games.assign(score_a=scores)
    rows = []
    by_pair = {tuple(sorted(all_pairs[j])): j for j in pairs}
    first = {j: all_pairs[j][0] for j in pairs}
    acc: dict[tuple[int, str], np.ndarray] = {}
    for (patch, army_a, army_b, swapped), part in games.groupby(
        ["patch", "army_a", "army_b", "swapped"], sort=True
    ):
        j = by_pair[tuple(sorted((army_a, army_b)))]
        key = names[patch]
        arr = acc.setdefault((j, key), np.full((2, deals), np.nan))
        s = part["score_a"].to_numpy()
        arr[int(swapped), part["deal"].to_numpy()] = s if army_a == first[j] else 1.0 - s
    for (j, key), arr in sorted(acc.items()):
        rows.append((block, j, key, arr.ravel().astype(np.float32)))
    return rows


def _write_parquet(table: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    table.to_parquet(tmp, index=False)
    os.replace(tmp, path)


def _write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, path)
