"""``lab balance``: search card edits that bring every army's win rate to the target at every bot
tier, and report the proposals with the figures measured on fresh deals (docs/balancing.md).

Owns the balance experiment of a config — its one rule set, each pair of its armies played in
both seat orders on paired deals (mirror games say nothing about balance), the unchanged decks as
written —, its tiers (the screening tier, then the strong tiers every proposal must also satisfy;
by default the config's tier and the search tier), the options and their one-line errors, the
edit catalogue's inputs (a ``lab value`` table of the same rule set and the screening tier
narrows it to the cards most responsible), and the result: the proposals ranked on the
selection deals, each measured on the fresh deals at every tier — worst army distance from the
target, spread, the before/after army table (win rate with its 95% interval clustered by deal,
and the paired change) —, with its edits as paste-ready ``[[patch]]`` TOML and the games it rests
on. The result is ``balance.json`` in the search folder; ``tables`` renders it for the terminal
and ``section`` for the report. The search itself is ``lab.design.balance_search``; the
statistics ``lab.stats.balance``. It never reaches into the engine.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from lab.design import balance_defaults as defaults, card_design
from lab.errors import did_you_mean, LabError
from lab.games.protocol import Experiment
from lab.records.balance import FORMAT, RESULT
from lab.stats.balance import game_mean, objectives

from lab.design.balance_edits import responsible
from lab.design.balance_search import Budget, Search, Settings, derive_seed
from lab.design.tiers import strong
from lab.design.balance_tiers import (
    POLISH,
    fresh_block,
    polish_block,
    screen_block,
    seed_label,
    select_block,
    tier_cost,
)

# the strong tier added to a config's one cheap tier: a search of 100 simulations rates the armies
# about as search(400) does (1,600 games per army per deck set, about what noise alone gives)
# except 北条, 2.0 points lower on average over 13 deck sets, 0–5 by the edits
# (benchmarks/search_budget.py, docs/balancing.md "Limits"), at a quarter of its cost, so a
# search measures four times as many strong games (docs/balancing.md, "Which strong tier");
# search(200) matched search(400) on two sets, but two searches judged at it did no better
DEFAULT_STRONG = '{ kind = "search", simulations = 100 }'
STRONG_COST = 100  # a tier whose game costs this many heuristic games counts as strong
# the calibration tier of a search judged at DEFAULT_STRONG: search(400), the tier a designer
# confirms at (`bots = "search"`), which rates 北条 2 points higher on average and some armies up
# to 5 (docs/balancing.md, "The calibration tier")
DEFAULT_CALIBRATION = "search"


@dataclass(frozen=True)
class BalancePlan:
    config: Experiment  # the config as given
    exp: Experiment  # the balance experiment: one rule set, the first tier, pairs with seat swap
    moves: tuple  # the edit catalogue (the game's, ``CardDesign.edit_catalogue``)
    settings: Settings
    tiers: tuple  # the screening tier, then the strong tiers
    value_note: str  # where the catalogue's cards came from
    bridge: object = None  # a tier that measures edits for the strong tiers, not judged
    # a dearer tier measuring the polishing anchor once: its offset from the first strong tier
    calibration: object = None
    # the edits polishing may centre the armies with (``Search._centring``): the deck-list edits
    centring: tuple = ()


def plan(
    config: Experiment,
    *,
    tiers: list[str] | None = None,
    tier: str | None = None,
    target: float = defaults.TARGET,
    band: float = defaults.BAND,
    max_edits: int = defaults.MAX_EDITS,
    cards: list[str] | None = None,
    deck_lists: bool = defaults.DECK_LISTS,
    abilities: bool = defaults.ABILITIES,
    centre: bool = defaults.CENTRE,
    value: str | Path | None = None,
    confirm_games: int = defaults.CONFIRM_GAMES,
    strong_games: int = defaults.STRONG_GAMES,
    second_tier: str | None = None,
    seed: int | None = None,
    via: str | None = None,
    calibrate: str | None = None,
    **search,
) -> BalancePlan:
    """The balance search of ``config``: screened at the first of ``tiers`` and judged at every
    one (default: the config's tier, plus the search tier when that one is cheap; ``tier``:
    that one tier alone; ``second_tier``: one more tier, as ``--confirm-tier`` adds it;
    ``centre``: polishing centres the armies between the tiers with deck-list edits;
    ``via``: a bridge tier, e.g. "strong", default none; ``calibrate``: a calibration tier, e.g.
    "search", default ``pick_calibration``'s).
    ``search``: Settings fields (block, levels, … — for tests and benchmarks)."""
    _check_numbers(target, band, max_edits, confirm_games, strong_games)
    _check_whole("--polish", search.get("polish_rounds", defaults.POLISH_ROUNDS), 20)
    probe = search.get("probe_armies", defaults.PROBE_ARMIES)
    _check_whole("--probe", probe, len(config.armies), " (armies of the config)")
    design = card_design(config)
    if config.patches != (design.BASE_PATCH,):
        raise LabError(
            "lab balance starts from the decks as written; remove the [[patch]] "
            "tables and [grid] patch (paste a proposal back in afterwards)",
            source=config.source,
        )
    if len(config.variants) != 1:
        raise LabError(
            f"lab balance balances one rule set; this config has "
            f"{len(config.variants)} ({', '.join(v.id for v in config.variants)}): "
            "keep one preset and no [grid] toggle",
            source=config.source,
        )
    chosen = pick_tiers(config, tiers, tier, second_tier)
    bridge = pick_bridge(config, chosen, via)
    calibration = pick_calibration(config, chosen, calibrate)
    exp = _balance_experiment(config, chosen[0])
    keep, note = _ranking(config, exp, value)
    moves = design.edit_catalogue(
        exp, keep=keep, cards=cards or None, deck_lists=deck_lists, abilities=abilities
    )
    centring = (
        _centring_edits(design, exp, moves, deck_lists, keep, cards, abilities) if centre else ()
    )
    if cards:
        note = f"the cards named by --cards ({', '.join(cards)})" + (
            f", among {note}" if keep is not None else ""
        )
    if not moves:
        raise LabError(
            "no card edit to try: the cards named by --cards (or ranked by the value "
            "table) have no strength or ability to change"
            + ("" if abilities else " (--no-abilities leaves their abilities as printed)"),
            source=config.source,
        )
    # games per army per deal
    per_pair = 2 * min(sum(a.key in p for p in exp.matchups) for a in exp.armies)
    strong_fresh = math.ceil(strong_games / per_pair)
    deals = dict(
        confirm_deals=math.ceil(confirm_games / per_pair),
        fresh_deals=math.ceil(confirm_games / per_pair),
        strong_fresh_deals=strong_fresh,
        strong_select_deals=max(1, math.ceil(strong_fresh / 2)),
    )
    settings = Settings(
        target=target,
        band=band,
        max_edits=max_edits,
        seed=config.seed if seed is None else seed,
        **(deals | search),
    )
    return BalancePlan(config, exp, moves, settings, chosen, note, bridge, calibration, centring)


def _centring_edits(design, exp: Experiment, moves, deck_lists, keep, cards, abilities) -> tuple:
    """The deck-list edits of the catalogue (the edits ``deck_lists`` adds; none for a game
    without them), which polishing centres the armies with: one step of an army's 足軽 is felt
    about alike by `tuned` and search(100) (docs/balancing.md, "Centring"). ``moves``: the
    search's catalogue, with them or not as ``deck_lists`` says; only the other is built."""
    other = design.edit_catalogue(
        exp, keep=keep, cards=cards or None, deck_lists=not deck_lists, abilities=abilities
    )
    full, plain = (moves, other) if deck_lists else (other, moves)
    without = {m.key for m in plain}
    return tuple(m for m in full if m.key not in without)


def pick_tiers(
    config: Experiment, tiers: list[str] | None, tier: str | None, extra: str | None = None
) -> tuple:
    """The tiers of a search, the screening tier first: ``--tiers`` as given, ``--tier`` alone,
    or by default the config's tiers cheapest first — one cheap tier gets the search tier
    beside it, so that a proposal is judged by a strong player too."""
    if tiers and tier:
        raise LabError("give --tiers or --tier, not both (--tier T is --tiers T)")
    if tiers:
        labels = [x.strip() for t in tiers for x in _split(t) if x.strip()]
        if not labels:
            raise LabError("--tiers is empty; give e.g. --tiers tuned,search")
        chosen = [pick_tier(config, x, "--tiers") for x in labels]
    elif tier:
        chosen = [pick_tier(config, tier, "--tier")]
    else:
        chosen = sorted(config.tiers, key=tier_cost)
        if (
            len(chosen) == 1
            and tier_cost(chosen[0]) < STRONG_COST
            and not (strong(chosen[0].a) and strong(chosen[0].b))
        ):
            chosen.append(pick_tier(config, DEFAULT_STRONG, "--tiers"))
    if extra:
        chosen.append(pick_tier(config, extra, "--confirm-tier"))
    labels = [t.label for t in chosen]
    twice = sorted({x for x in labels if labels.count(x) > 1})
    if twice:
        raise LabError(
            f"the tier {', '.join(twice)} is named twice; list each tier once "
            "(--tiers tuned,search)"
        )
    return tuple(chosen)


def pick_bridge(config: Experiment, tiers: tuple, via: str | None):
    """The bridge tier of a multi-tier search: ``via`` as given, or none ("none" or no
    ``via``, the default: one 60-minute search with the strong bot as its bridge did no better
    than those without — docs/balancing.md, "The bridge tier")."""
    return _unjudged_tier(config, tiers, via, "--via", "serve", "a bridge is a tier that is not")


def pick_calibration(config: Experiment, tiers: tuple, calibrate: str | None):
    """The calibration tier of a multi-tier search: ``calibrate`` as given ("none": none), or
    by default ``DEFAULT_CALIBRATION`` — search(400), the tier the README confirms at — when
    the search judges at the default strong tier (search(100)) and not at it; none otherwise
    (docs/balancing.md, "The calibration tier")."""
    if calibrate is None:
        labels = {t.label for t in tiers}
        default = pick_tier(config, DEFAULT_STRONG, "--tiers").label in labels
        dear = pick_tier(config, DEFAULT_CALIBRATION, "--calibrate").label
        calibrate = DEFAULT_CALIBRATION if default and dear not in labels else None
    return _unjudged_tier(
        config,
        tiers,
        calibrate,
        "--calibrate",
        "calibrate",
        "a calibration tier is one the search does not screen at",
    )


def _unjudged_tier(config: Experiment, tiers: tuple, given: str | None, option, verb, what):
    """A tier that plays beside the judged ``tiers`` of a multi-tier search (a bridge, a
    calibration): ``given`` or none; refused with one tier, or when it is judged already."""
    if given is None or given.strip().lower() == "none":
        return None
    if len(tiers) < 2:
        raise LabError(
            f"{option} needs a strong tier to {verb}: balance at two tiers or more "
            "(--tiers tuned,search)",
            source=config.source,
        )
    chosen = pick_tier(config, given, option)
    if chosen.label in {t.label for t in tiers}:
        raise LabError(
            f"{option} {given}: the tier {chosen.label} is already judged (--tiers); {what}",
            source=config.source,
        )
    return chosen


def _split(text: str) -> list[str]:
    """Comma-separated tiers; a TOML inline table keeps its commas."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def _check_whole(option: str, value, most: int, what: str = "") -> None:
    """One line unless ``value`` is a whole number 0–``most``."""
    if not (isinstance(value, int) and 0 <= value <= most):
        raise LabError(
            f"{option} {value} is not allowed; allowed values: whole numbers 0–{most}{what}"
        )


def _check_numbers(target, band, max_edits, confirm_games, strong_games) -> None:
    checks = [
        (
            0 < target < 1,
            f"--target {target} is not allowed; allowed values: a win rate "
            "strictly between 0 and 1, e.g. 0.50",
        ),
        (
            0 < band < 0.5,
            f"--band {band} is not allowed; allowed values: a half-width between "
            "0 and 0.5, e.g. 0.03 (±3 points)",
        ),
        (
            isinstance(max_edits, int) and 1 <= max_edits <= 20,
            f"--max-edits {max_edits} is not allowed; allowed values: whole numbers 1–20",
        ),
        (
            confirm_games >= 100,
            f"--confirm-games {confirm_games} is not allowed; allowed values: "
            "whole numbers ≥ 100 (fresh games per army)",
        ),
        (
            strong_games >= 10,
            f"--strong-games {strong_games} is not allowed; allowed "
            "values: whole numbers ≥ 10 (fresh games per army)",
        ),
    ]
    for ok, message in checks:
        if not ok:
            raise LabError(message)


def pick_tier(config: Experiment, label: str | None, option: str):
    """The bot tier named by ``label``: a tier label of the config, a bot playing both seats of
    one of its tiers, or any bot (e.g. "search"); the config's tier when it has one."""
    if label is None:
        if len(config.tiers) > 1:
            raise LabError(
                f"{option}: the config has {len(config.tiers)} bot tiers "
                f"({', '.join(t.label for t in config.tiers)}); balance one tier at a "
                f"time: add {option} TIER",
                source=config.source,
            )
        return config.tiers[0]
    by_label = {t.label: t for t in config.tiers}
    by_label |= {t.a.label: t for t in config.tiers if t.a == t.b and t.a.label not in by_label}
    if label in by_label:
        return by_label[label]
    try:
        spec = label
        if label.lstrip().startswith("{"):
            import tomllib

            spec = tomllib.loads(f"bot = {label}")["bot"]
        return card_design(config).bot_tier(spec, option)
    except (LabError, ValueError) as e:
        did = did_you_mean(label, by_label)
        raise LabError(
            f"{option} {label}: not a tier of the config nor a bot ({e}); {did}"
            f"tiers: {', '.join(t.label for t in config.tiers)}"
        ) from None


def _balance_experiment(config: Experiment, tier) -> Experiment:
    order = {a.key: i for i, a in enumerate(config.armies)}
    pairs: list[tuple[str, str]] = []
    for a, b in config.matchups:
        if a == b:
            continue
        p = (a, b) if order[a] < order[b] else (b, a)
        if p not in pairs:
            pairs.append(p)
    if not pairs:
        raise LabError(
            "lab balance needs at least two armies playing each other; this config "
            "plays only mirror games",
            source=config.source,
        )
    used = {a for p in pairs for a in p}
    return replace(
        config,
        matchups=tuple(pairs),
        seat_swap=True,
        tiers=(tier,),
        armies=tuple(a for a in config.armies if a.key in used),
    )


def _ranking(config: Experiment, exp: Experiment, value) -> tuple[set | None, str]:
    """The (army, card) pairs a value table ranks most responsible, and a note saying so."""
    from lab.design.value import default_out
    from lab.stats.value import read_value

    explicit = value is not None
    folder = Path(value) if explicit else default_out(config)
    if not explicit and not (folder / "value.parquet").is_file():
        return None, "every card (no lab value table found)"
    table = read_value(folder)
    variant, tier = exp.variants[0].id, exp.tiers[0].label
    keep = responsible(table, variant, tier, [a.key for a in exp.armies])
    if keep is None:
        if explicit:
            raise LabError(
                f"--value {value}: the value table has no row for {variant} at "
                f"{tier}; run `lab value CONFIG --tier …` for that tier, or leave "
                "--value out to edit every card"
            )
        return None, (
            f"every card (the value table in {folder} has no row for {variant} at {tier})"
        )
    return keep, f"the cards lab value ranks most responsible ({folder})"


def default_out(config: Experiment) -> Path:
    """results/NAME/balance: inside the experiment's results folder, where `lab report` finds
    it."""
    from lab.sim.runner import default_out as run_out

    return run_out(config) / "balance"


# ------------------------------------------------------------------------------------ running


def run(
    p: BalancePlan,
    out: str | Path,
    *,
    minutes: float | None = None,
    games: int | None = None,
    resume: bool = False,
    jobs: int | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    progress=None,
    keep_records: bool = False,
) -> dict:
    """Search (or go on searching) within the budget, confirm, write and return the result.
    ``progress``: a callable receiving the search's ``Status`` after each runner call."""
    from lab.sim import lock

    check_options(minutes, games, backend, scheduler)
    out = Path(out)
    lock.refuse_if_busy(out)
    s = Search(
        p.exp,
        p.moves,
        p.settings,
        out,
        tiers=p.tiers,
        jobs=jobs,
        backend=backend,
        scheduler=scheduler,
        keep_records=keep_records,
        bridge=p.bridge,
        calibration=p.calibration,
        centring=p.centring,
    )
    found = s.load()
    if found and not resume:
        where = s.stop or "interrupted"
        raise LabError(
            f"{out} already holds this balance search (stopped: {where}); add "
            "--resume to go on (with a larger budget to search further), or choose "
            "another --out"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise LabError(f"--out {out}: cannot create the folder ({e.strerror})") from None
    try:
        with lock.hold(out), _local_dask(s):  # one search writes a folder at a time
            s.on_status = progress
            s.search(Budget(minutes, games))
            result = build_result(p, s)
            write_result(out, result)
    except KeyboardInterrupt:
        # between two runner calls: the state on disk is the last finished round's
        raise s.interrupted() from None
    return result


@contextlib.contextmanager
def _local_dask(s: Search):
    """With ``backend="dask"`` and no scheduler: one local cluster for the whole search (the
    runner would start one per call), its address handed to every runner call."""
    if s.backend != "dask" or s.scheduler is not None:
        yield
        return
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise LabError(
            "--backend dask needs Dask: pip install 'daitenka-lab[dask]' (or pip "
            "install 'dask[distributed]')"
        ) from None
    from joblib import cpu_count

    from lab.sim import cluster as dask

    # the runner's own local cluster: on 127.0.0.1, a free HTTP port, Dask's log lines quiet
    with dask.quiet_dask(), dask.local_cluster(s.jobs or cpu_count()) as cluster:
        s.scheduler = cluster.scheduler_address
        try:
            yield
        finally:
            s.scheduler = None


def check_options(
    minutes: float | None, games: int | None, backend: str = "loky", scheduler: str | None = None
) -> None:
    """One-line errors for the budget and the runner options, before anything starts."""
    from lab.sim.runner import BACKENDS

    if backend not in BACKENDS:
        raise LabError(f"--backend {backend} is not allowed; allowed values: {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise LabError("--scheduler is for --backend dask; add --backend dask or drop it")
    if minutes is None and games is None:
        raise LabError("give a budget: --budget-minutes M (or --budget-games N)")
    if minutes is not None and not minutes > 0:
        raise LabError(
            f"--budget-minutes {minutes} is not allowed; allowed values: a number of minutes > 0"
        )
    if games is not None and games < 1:
        raise LabError(f"--budget-games {games} is not allowed; allowed values: whole numbers ≥ 1")


def write_result(out: str | Path, result: dict) -> Path:
    from lab.design.balance_search import _write_json

    path = Path(out) / RESULT
    _write_json(path, result)
    return path


# ------------------------------------------------------------------------------------ result


def build_result(p: BalancePlan, s: Search) -> dict:
    """The JSON-ready result: settings, the four sets of deals, the unchanged decks and the
    ranked proposals at every tier on the fresh deals (chosen on the polishing or the selection
    deals), the search's own figures."""
    st = p.settings
    names = {a.key: a.name for a in p.exp.armies}
    armies = [a.key for a in p.exp.armies]
    labels = [t.label for t in s.tiers]
    fresh = [fresh_block(t) for t in range(len(s.tiers))]
    base = {label: _rates(s, (), b) for label, b in zip(labels, fresh) if _played(s, (), b)}
    proposals = []
    best_polished = s.polish_best()
    for rank, c in enumerate(s.ranked(), 1):
        if not all(_played(s, c.moves, b) for b in fresh):
            break  # only the proposals measured on the fresh deals are reported
        moves = [s.moves[i] for i in c.moves]
        name = f"balance-{rank}"
        per_tier = {
            label: _tier(s, c.moves, b, base[label], armies, names, st)
            for label, b in zip(labels, fresh)
        }
        chosen = {
            label: _objectives(s, c.moves, select_block(t), st) for t, label in enumerate(labels)
        }
        if all(chosen.values()):
            for label, o in zip(labels[1:], s.judged_tiers(c.moves)[1:]):
                # as ranked: pulled towards the surrogate's prediction
                chosen[label].update(judged_worst=o.worst, judged_spread=o.spread)
        polished = None
        if c.polish:
            polished = {
                label: _objectives(s, c.moves, polish_block(t), st)
                for t, label in enumerate(labels)
            }
            judged = s.judged_tiers(c.moves, polish_block)
            for label, o in zip(labels[1:], judged[1:]):
                polished[label].update(judged_worst=o.worst, judged_spread=o.spread)
            if len(judged) > len(labels):  # the calibration tier: estimated, never played here
                o = judged[-1]
                polished[f"{s.calibration.label} (calibrated)"] = {
                    "judged_worst": o.worst,
                    "judged_spread": o.spread,
                }
        scr = s.screened(c)[0]
        texts = "; ".join(m.text for m in moves)
        item = {
            "rank": rank,
            "name": name,
            "edits": [{"text": m.text, "key": m.key} for m in moves],
            "n_edits": len(moves),
            "meets_target": all(x["meets_target"] for x in per_tier.values()),
            "worst": max(x["worst"] for x in per_tier.values()),
            "spread": max(x["spread"] for x in per_tier.values()),
            "worst_interval": max(x["worst_interval"] for x in per_tier.values()),
            "tiers": per_tier,
            "tier_gaps": _tier_gaps(s, c.moves, labels, names),
            "chosen_on": "polishing"
            if best_polished is not None and best_polished.moves == c.moves
            else "selection",
            "selection": chosen,
            **({"polishing": polished} if polished else {}),
            "screened": {
                "worst": scr.worst,
                "spread": scr.spread,
                "blocks": c.level,
                "strong_blocks": dict(zip(labels[1:], c.strong)),
                "games": _games(s, c.moves, *range(c.level)),
            },
            "toml": card_design(p.config).patch_toml(
                moves, name, f"lab balance ({', '.join(labels)}): {texts}", p.config
            ),
        }
        proposals.append(item)
    before = {}
    for label, r in base.items():
        ob = objectives(r["mean"], r["lo"], r["hi"], st.target, 0)
        before[label] = {
            "worst": ob.worst,
            "spread": ob.spread,
            "armies": _army_list(r, armies, names),
        }
    hist = s.history
    games = {label: {kind: s.games[kind][t] for kind in s.games} for t, label in enumerate(labels)}
    return _clean(
        {
            "format": FORMAT,
            "config": p.config.source,
            "name": p.config.name,
            "variant": p.exp.variants[0].id,
            "tiers": labels,
            "tier": labels[0],
            "target": st.target,
            "band": st.band,
            "max_edits": st.max_edits,
            "seed": st.seed,
            "armies": [{"army": a, "name": names[a]} for a in armies],
            "deals": _deal_sets(s, labels),
            "before": before,
            "proposals": proposals,
            "search": {
                "stop": s.stop,
                "rounds": len(hist),
                "minutes": s.elapsed / 60,
                # before the final measurements (None: the search has not stopped)
                "searched_minutes": None if s.searched_s is None else s.searched_s / 60,
                "budget_minutes": s.budget.minutes,
                "candidates": len(s.evaluated()),
                "dropped": sum(c.dropped >= 0 for c in s.cands.values()),
                "selected": sum(c.confirmed for c in s.cands.values()),
                "finalists": sum(c.finalist for c in s.cands.values() if c.moves),
                "games": games,
                "edits_tried": len(p.moves),
                # deck-list edits polishing may centre an army with (beside edits_tried)
                "centring_edits": len(s.centring),
                "edits_from": p.value_note,
                "corrections": {
                    label: [float(x) for x in corr.base]
                    for label, corr in zip(labels[1:], s.corrections())
                },
                "bridge": _bridge_json(s),
                "calibration": _calibration_json(s, names),
                "history": hist,
            },
        }
    )


def _bridge_json(s: Search) -> dict | None:
    """The bridge tier: its label, screening games, edit sets measured and base shift."""
    b = s.bridge_index
    if b is None:
        return None
    corr = s.bridge_correction()
    return {
        "tier": s.bridge.label,
        "games": int(s.games["screen"][b]),
        "edit_sets": sum(1 for c in s.cands.values() if c.moves and c.strong[b - 1]),
        "edits": len(corr.edit),
        "correction": [float(x) for x in corr.base],
    }


def _calibration_json(s: Search, names) -> dict | None:
    """The calibration tier: its label, the first set it measured on the polishing deals and
    how many it pooled (``Search.calibrated_sets``), the deals, and per army the measured
    difference from the first strong tier and the offset used."""
    if s.calibration is None:
        return None
    out = {"tier": s.calibration.label, "of": s.tiers[1].label}
    cand = s.calibrated_set()
    if cand is None:
        return out | {"measured": None}
    diff, (offset, se) = s.calibration_difference(), s.calibration_offset()
    return out | {
        "measured": [s.moves[i].text for i in cand.moves],
        "sets": len(s.calibrated_sets()),  # the offset is pooled over them (the first: measured)
        "deals_per_pair": s.deals(polish_block(s.calibration_index)),
        "games": int(s.games[POLISH][s.calibration_index]),
        "armies": [
            {
                "army": a,
                "name": names[a],
                "difference": float(diff.mean[i]),
                "difference_se": float(diff.se[i]),
                "offset": float(offset[i]),
                "offset_se": float(se[i]),
            }
            for i, a in enumerate(s.armies)
        ],
    }


def _deal_sets(s: Search, labels) -> dict:
    """Which deals are which: per set, its seed and deals per pair at each tier."""
    out = {}
    for kind, block, what in (
        (
            "screening",
            lambda t, k=0: screen_block(t, k),
            "the search's racing and surrogate; blocks of deals, the strong tiers playing the "
            "first deals of each or, for an edit set, a slice of a few deals of its own "
            "(strong_slices per block, chosen by the set, played at the first tier too)",
        ),
        (
            "selection",
            select_block,
            "the Pareto front is chosen and ranked on these (a strong tier's figures pulled "
            "towards the surrogate's prediction by their standard errors: judged_worst)",
        ),
        (
            "polishing",
            polish_block,
            "the best selected set and, round by round, the neighbour (one or two edits "
            "added, removed or replaced) its figures here rate best are measured on these; "
            "the best set here is proposed first (strong tiers pulled as on the selection "
            "deals)",
        ),
        ("fresh", fresh_block, "every reported figure; nothing is chosen on these"),
    ):
        out[kind] = {
            "purpose": what,
            "tiers": {
                label: {
                    "seed": derive_seed(s.settings.seed, seed_label(block(t))),
                    "deals_per_pair": s.deals(block(t)),
                }
                for t, label in enumerate(labels)
            },
        }
    for t, label in enumerate(labels[1:], 1):  # the base shift's deals (docs/balancing.md)
        out["screening"]["tiers"][label]["unchanged_decks_deals_per_pair"] = s.deals(
            screen_block(t, 0), ("",)
        )
    out["screening"]["strong_slices"] = s.settings.strong_slices
    out["screening"]["blocks"] = {
        labels[0]: s.settings.levels,
        **{x: s.settings.strong_levels for x in labels[1:]},
    }
    return out


def _tier(s: Search, moves, block: int, base: dict, armies, names, st) -> dict:
    """A proposal at one tier on the fresh deals: its objectives and the before/after table."""
    after = _rates(s, moves, block)
    change = _changes(s, moves, block)
    o = objectives(after["mean"], after["lo"], after["hi"], st.target, len(moves))
    reach = float(
        np.max(np.maximum(np.abs(after["lo"] - st.target), np.abs(after["hi"] - st.target)))
    )
    rows = [
        {
            "army": a,
            "name": names[a],
            "before": base["mean"][i],
            "before_lo": base["lo"][i],
            "before_hi": base["hi"][i],
            "after": after["mean"][i],
            "after_lo": after["lo"][i],
            "after_hi": after["hi"][i],
            "change": change["mean"][i],
            "change_lo": change["lo"][i],
            "change_hi": change["hi"][i],
            "games": int(after["games"][i]),
        }
        for i, a in enumerate(armies)
    ]
    return {
        "meets_target": o.worst <= st.band,
        "worst": o.worst,
        "spread": o.spread,
        "worst_interval": reach,
        "armies": rows,
        "games": {"per_army_min": int(min(after["games"])), "total": _games(s, moves, block)},
    }


def _objectives(s: Search, moves, block: int, st) -> dict | None:
    if not _played(s, moves, block):
        return None
    r = _rates(s, moves, block)
    o = objectives(r["mean"], r["lo"], r["hi"], st.target, len(moves))
    return {"worst": o.worst, "spread": o.spread}


def _played(s: Search, moves, block: int) -> bool:
    return all((block, j, s.restrict(moves, j)) in s.units for j in range(len(s.pairs)))


def _games(s: Search, moves, *blocks) -> int:
    return int(
        sum(
            s.units[(b, j, s.restrict(moves, j))].counts.sum()
            for b in blocks
            for j in range(len(s.pairs))
        )
    )


def _per_army(s: Search, moves, block: int, deals: int | None = None):
    """Per army: (its score in each game, the game's cluster) on ``block`` (its first ``deals``
    deals of each pair), seat order × deal order within each pair; NaN for a game that hit an
    engine limit."""
    scores = {a: [] for a in s.armies}
    clusters = {a: [] for a in s.armies}
    for j, (a, b) in enumerate(s.pairs):
        x = s.units[(block, j, s.restrict(moves, j))].scores[:, :deals]
        g = np.tile(np.arange(x.shape[1]) + j * 1_000_000, 2)
        scores[a].append(x.ravel())
        clusters[a].append(g)
        scores[b].append(1.0 - x.ravel())
        clusters[b].append(g)
    return (
        {a: np.concatenate(v) for a, v in scores.items()},
        {a: np.concatenate(v) for a, v in clusters.items()},
    )


def _rates(s: Search, moves, block: int) -> dict:
    """Per army (the search's army order): win rate (draw ½) with its 95% interval clustered by
    deal."""
    scores, clusters = _per_army(s, moves, block)
    rows = [_known_mean(scores[a], clusters[a]) for a in s.armies]
    return {k: np.array([r[k] for r in rows]) for k in ("mean", "lo", "hi", "games")}


def _known_mean(x: np.ndarray, clusters: np.ndarray) -> dict:
    """``game_mean`` of the games that did not hit an engine limit (NaN)."""
    ok = ~np.isnan(x)
    return game_mean(x[ok], clusters[ok])


def _changes(s: Search, moves, block: int) -> dict:
    """Per army: the paired change after − before on the same games, clustered by deal."""
    after, clusters = _per_army(s, moves, block)
    before, _ = _per_army(s, (), block)
    rows = [_known_mean(after[a] - before[a], clusters[a]) for a in s.armies]
    return {k: np.array([r[k] for r in rows]) for k in ("mean", "lo", "hi")}


def _tier_gaps(s: Search, moves, labels, names) -> dict:
    """Per strong tier: each army's win rate at the first tier minus at that tier, on the fresh
    deals both played (the strong tier's: the same deals, seat orders and play words, so the
    difference is paired game by game), clustered by deal; and ``floor``, half the largest gap.
    An edit that moves an army alike at both tiers cannot bring it closer than half their gap
    to the target at both, so ``floor`` is how close to the band these edits can come unless
    more edits move some army differently by skill. ``gap_before``: the same for the decks as
    written, and ``opened`` (with ``opened_lo``/``opened_hi``) how far the edits moved the gap,
    paired game by game: edits one tier feels more than the other open a gap the decks did not
    have (docs/balancing.md, "Proposals played as the Done-when says")."""
    out = {}
    for t in range(1, len(labels)):
        deals = s.units[(fresh_block(t), 0, s.restrict(moves, 0))].scores.shape[1]

        def gaps(of):
            strong, clusters = _per_army(s, of, fresh_block(t))
            first, _ = _per_army(s, of, fresh_block(0), deals)
            return {a: first[a] - strong[a] for a in s.armies}, clusters

        after, clusters = gaps(moves)
        before, _ = gaps(())
        rows = []
        for a in s.armies:
            g, g0 = _known_mean(after[a], clusters[a]), _known_mean(before[a], clusters[a])
            moved = _known_mean(after[a] - before[a], clusters[a])
            rows.append(
                {
                    "army": a,
                    "name": names[a],
                    "gap": g["mean"],
                    "gap_lo": g["lo"],
                    "gap_hi": g["hi"],
                    "gap_before": g0["mean"],
                    "opened": moved["mean"],
                    "opened_lo": moved["lo"],
                    "opened_hi": moved["hi"],
                }
            )
        floor = max(abs(r["gap"]) for r in rows) / 2
        out[labels[t]] = {"armies": rows, "floor": floor}
    return out


def _army_list(r: dict, armies, names) -> list[dict]:
    return [
        {
            "army": a,
            "name": names[a],
            "rate": r["mean"][i],
            "lo": r["lo"][i],
            "hi": r["hi"][i],
            "games": int(r["games"][i]),
        }
        for i, a in enumerate(armies)
    ]


def _clean(x):
    """JSON-ready: numpy numbers as Python numbers, NaN as None."""
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and x != x:
        return None
    return x


class Display:
    """The progress display of a search: a bar for the budget and the current best front
    (screened, or selected at every tier ✓), redrawn after every runner call. Use as a context manager; the
    instance is the search's ``progress`` callable."""

    def __init__(self, console, name: str, minutes: float | None, games: int | None):
        from rich.live import Live

        self.console, self.name, self.minutes, self.games = console, name, minutes, games
        self.live = Live(console=console, refresh_per_second=2, transient=True)

    def __enter__(self):
        self.live.__enter__()
        return self

    def __exit__(self, *exc):
        return self.live.__exit__(*exc)

    def __call__(self, st) -> None:
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        if self.games is not None and self.minutes is None:
            done, total, what = st.games, self.games, f"{st.games:,} / {self.games:,} games"
        else:
            done, total = st.elapsed, 60 * (self.minutes or 1)
            what = f"{st.elapsed / 60:.1f} / {self.minutes:g} min, {st.games:,} games"
        bar = Table.grid(padding=(0, 1))
        bar.add_row(
            f"[bold]balance {self.name}",
            ProgressBar(total=total, completed=min(done, total), width=28),
            what,
            f"round {st.round} ({st.phase}), {st.candidates:,} edit sets, {st.dropped:,} dropped",
        )
        front = Table(
            title="current best over every tier (✓ on the selection deals)",
            title_justify="left",
            box=None,
            padding=(0, 2),
        )
        for col in ("edits", "worst", "spread", ""):
            front.add_column(col, justify="right")
        for edits, worst, spread, ok in st.front:
            front.add_row(
                str(edits), f"{100 * worst:.1f}", f"{100 * spread:.1f}", "✓" if ok else ""
            )
        self.live.update(Group(bar, front))
