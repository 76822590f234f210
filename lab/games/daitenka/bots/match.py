"""Python facade of the compiled match loop: play a batch of one matchup between two bots.

``play_batch`` takes a matchup context (``lab.games.daitenka.engine.context``), per-game seed words and the two
seats' bot specs and returns the result rows and per-card statistics the runner turns into
records. It holds no rule and writes no file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from importlib import resources
import json

import numpy as np

from lab.games.daitenka.bots import nb_match, nb_policy
from lab.games.daitenka.bots.nb_buffer import MAX_CAND, SB_SIZE
from lab.games.daitenka.bots.nb_expert import ticks_per_ms
from lab.games.daitenka.bots.nb_params import (
    BOT_EXPERT,
    BOT_HEURISTIC,
    BOT_RANDOM,
    BOT_SEARCH,
    BOT_STRONG,
    BP_ALT,
    BP_KIND,
    BP_SIZE,
    BP_TICKS,
    BP_W,
    N_W,
)
from lab.games.daitenka.bots.personas import (
    EXPERT_DEFAULTS,
    PARAMS,
    PERSONAS,
    SEARCH_DEFAULTS,
    STRONG_DEFAULTS,
)
from lab.games.daitenka.engine import nb_play
from lab.games.daitenka.engine.layout import AW, LW, MAXA, N_ST, NL, S_SIZE
from lab.games.daitenka.engine.nb_actions import WK_SIZE
from lab.errors import LabError

KINDS = {
    "random": BOT_RANDOM,
    "heuristic": BOT_HEURISTIC,
    "search": BOT_SEARCH,
    "expert": BOT_EXPERT,
    "strong": BOT_STRONG,
}
STRONG_WEIGHTS = "strong_weights.json"  # in lab/games/daitenka/bots/data, written by lab.games.daitenka.bots.distill


@cache
def strong_weights(name: str = STRONG_WEIGHTS) -> tuple:
    """The strong bot's feature weights ×10⁵ as shipped (lab/games/daitenka/bots/data)."""
    text = (
        resources.files("lab.games.daitenka.bots")
        .joinpath("data", name)
        .read_text(encoding="utf-8")
    )
    weights = tuple(json.loads(text)["weights"])
    if len(weights) != N_W:
        raise LabError(
            f"lab/games/daitenka/bots/data/{name}: {len(weights)} weights, the strong bot reads "
            f"{N_W}; rerun python -m lab.games.daitenka.bots.distill"
        )
    return weights


TREE_ONLY = {"widen", "depth", "cutoff", "time_ms"}  # parameters of the expert alone
SEARCH_ONLY = {"simulations", "exploration"}  # of the search and the expert
LOOKAHEAD_ONLY = {"candidates", "margin"}  # of the strong bot
STRONG_PARAMS = {"simulations", "cutoff"} | LOOKAHEAD_ONLY


@dataclass(frozen=True)
class BotSpec:
    kind: str = "random"
    params: tuple = field(
        default_factory=tuple
    )  # (name, value) pairs, see lab.games.daitenka.bots docs

    @property
    def short(self) -> str:
        """A compact name for tables: the persona of a heuristic, the budget of a search."""
        given = dict(self.params)
        if self.kind == "heuristic" and set(given) == {"persona"}:
            return given["persona"]
        if self.kind in ("search", "expert") and set(given) == {"simulations"}:
            return f"{self.kind}({given['simulations']})"
        return self.label

    @property
    def label(self) -> str:
        if not self.params:
            return self.kind
        return self.kind + "(" + ",".join(f"{k}={v}" for k, v in self.params) + ")"

    def values(self) -> dict:
        """Every parameter of this bot: its persona's, then the ones named in the spec."""
        given = dict(self.params)
        out = dict(PERSONAS[given.get("persona", "balanced")])
        if self.kind == "search":
            out.update(SEARCH_DEFAULTS)
        if self.kind == "strong":
            out.update(STRONG_DEFAULTS)
        if self.kind == "expert":
            out = dict(PERSONAS[given.get("persona", EXPERT_DEFAULTS["persona"])])
            out.update({k: v for k, v in EXPERT_DEFAULTS.items() if k != "persona"})
        out.update({k: v for k, v in given.items() if k != "persona"})
        return out

    def pack(self) -> np.ndarray:
        a = np.zeros(BP_SIZE, np.int64)
        a[BP_KIND] = KINDS[self.kind]
        if self.kind == "strong":
            a[BP_W : BP_W + N_W] = strong_weights()
            a[BP_ALT : BP_ALT + BP_W] = parse_bot("tuned").pack()[:BP_W]
        if self.kind != "random":
            for name, value in self.values().items():
                if name == "time_ms":
                    if value:
                        a[BP_TICKS] = max(1, int(value * ticks_per_ms()))
                else:
                    a[PARAMS[name]] = int(value)
        return a


def parse_bot(spec, source: str | None = None) -> BotSpec:
    """A bot named in a config: "random", "heuristic", "strong", "search", "expert", a persona
    name such as "tuned",
    or a table such as { kind = "search", simulations = 400 }."""
    if isinstance(spec, BotSpec):
        return spec
    if isinstance(spec, str):
        spec = {"kind": "heuristic", "persona": spec} if spec in PERSONAS else {"kind": spec}
    if not isinstance(spec, dict) or "kind" not in spec:
        raise LabError(
            f"a bot is a name ({', '.join(KINDS)}) or a table with `kind`; got {spec!r}",
            source=source,
        )
    kind = spec["kind"]
    if kind not in KINDS:
        raise LabError(
            f"unknown bot kind \"{kind}\"; allowed: {', '.join(KINDS)} (or a persona: "
            f"{', '.join(PERSONAS)})",
            source=source,
        )
    if kind == "random" and len(spec) > 1:
        raise LabError(f"the {kind} bot takes no parameters", source=source)
    allowed = ({"persona"} | set(PARAMS) | TREE_ONLY) - LOOKAHEAD_ONLY
    if kind == "strong":
        allowed = set(STRONG_PARAMS)
    if kind == "heuristic":
        allowed -= SEARCH_ONLY | TREE_ONLY
    if kind == "search":
        allowed -= TREE_ONLY
    for key, value in spec.items():
        if key == "kind":
            continue
        if key not in allowed:
            raise LabError(
                f"bot \"{kind}\": unknown parameter \"{key}\"; allowed: "
                f"{', '.join(sorted(allowed))}",
                source=source,
            )
        if key == "persona":
            if value not in PERSONAS:
                raise LabError(
                    f"bot \"{kind}\": persona = \"{value}\" is not one of: {', '.join(PERSONAS)}",
                    source=source,
                )
        elif isinstance(value, bool) or not isinstance(value, int):
            raise LabError(
                f"bot \"{kind}\": {key} = {value!r} must be a whole number", source=source
            )
        elif key == "simulations" and not 1 <= value <= 100_000:
            raise LabError(f"bot \"{kind}\": simulations = {value} must be 1–100000", source=source)
        elif key == "time_ms" and not 0 <= value <= 600_000:
            raise LabError(
                f"bot \"{kind}\": time_ms = {value} must be 0 (none) to 600000", source=source
            )
        elif key == "candidates" and not 0 <= value <= MAX_CAND:
            raise LabError(
                f"bot \"{kind}\": candidates = {value} must be 0 (no lookahead) to {MAX_CAND}",
                source=source,
            )
        elif key in ("margin", "cutoff") and value < 0:
            raise LabError(f"bot \"{kind}\": {key} = {value} must be 0 or more", source=source)
    return BotSpec(kind, tuple(sorted((k, v) for k, v in spec.items() if k != "kind")))


def searches(*specs: BotSpec) -> bool:
    """Does any of these bots need the full loop (the search, expert and strong kernels)? The
    strong bot rides with the search so that a heuristics-only run compiles none of it."""
    return any(s.kind in ("search", "expert", "strong") for s in specs)


def policy(spec: BotSpec):
    """The compiled ``choose`` kernel for one bot: without the search's code unless it
    searches, so the first use of a heuristic compiles no search."""
    return nb_policy.choose if searches(spec) else nb_policy.choose_basic


class Batch:
    """Reusable buffers for playing batches on one worker."""

    def __init__(self, log: bool = False):
        self.s = np.zeros(S_SIZE, np.int64)
        self.lg = np.zeros((1, LW), np.int64)
        self.acts = np.zeros((MAXA, AW), np.int64)
        self.wk = np.zeros(WK_SIZE, np.int64)
        self.sb = np.zeros(SB_SIZE, np.int64)
        self.sacts = np.zeros((MAXA, AW), np.int64)

    def play(self, ctx: np.ndarray, seeds: np.ndarray, bot_a: BotSpec, bot_b: BotSpec):
        """Play len(seeds) games; returns (results[n, N_RES], stats[n, N_ST, NL])."""
        n = len(seeds)
        bots = np.stack([bot_a.pack(), bot_b.pack()])
        results = np.zeros((n, nb_play.N_RES), np.int64)
        stats = np.zeros((n, N_ST * NL), np.int32)  # counts and turn numbers: int32 halves the copy
        loop = nb_match.run_batch if searches(bot_a, bot_b) else nb_match.run_batch_basic
        loop(
            self.s,
            ctx,
            self.lg,
            self.acts,
            self.wk,
            np.ascontiguousarray(seeds, dtype=np.int64),
            bots,
            self.sb,
            self.sacts,
            results,
            stats,
        )
        return results, stats.reshape(n, N_ST, NL)


def play_batch(ctx, seeds, bot_a="random", bot_b="random"):
    return Batch().play(ctx, seeds, parse_bot(bot_a), parse_bot(bot_b))


def finish(game, bot_a="random", bot_b="random"):
    """Play an API ``Game`` to its end with two compiled bots (the same loop batch runs use, so a
    game replayed from its seed words with log=True reproduces the recorded game)."""
    bot_a, bot_b = parse_bot(bot_a), parse_bot(bot_b)
    bots = np.stack([bot_a.pack(), bot_b.pack()])
    s, c, lg = game.kernel_args()
    loop = nb_match.play_game if searches(bot_a, bot_b) else nb_match.play_game_basic
    loop(
        s,
        c,
        lg,
        np.zeros((MAXA, AW), np.int64),
        np.zeros(WK_SIZE, np.int64),
        bots,
        np.zeros(SB_SIZE, np.int64),
        np.zeros((MAXA, AW), np.int64),
    )
    game.changed()
    return game
