"""``lab run``, ``lab report``, ``lab swap``, ``lab value`` and ``lab balance``: experiments and
what they show.

Owns how an experiment's progress, summary and results are printed. The experiments are planned
and played by ``lab.sim`` (config, runner, swap) and ``lab.design`` (value, balance), read by
``lab.stats`` and written up by ``lab.report``; this module computes nothing of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from lab.cli.common import CARDS_HELP, CardFiles, command, err, out, warn
from lab.design import balance_defaults
from lab.errors import LabError


# ------------------------------------------------------------------------------------- lab run


@command("run")
def run_command(
    config: Annotated[
        Path,
        typer.Argument(metavar="CONFIG", help="Experiment file (TOML), e.g. configs/default.toml."),
    ],
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            metavar="N",
            help="Deals per cell instead of the file's `games`, for a quick look (another "
            "experiment: by default it goes to results/NAME-gamesN).",
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Worker processes (default: every core). Records do not depend on it.",
        ),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Results folder (default results/NAME, NAME from the config; with --games N, "
            "results/NAME-gamesN).",
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue an interrupted run in --out: check the chunks already "
            "written (a damaged one is replayed) and play the missing ones. A "
            "folder holding another experiment is refused.",
        ),
    ] = False,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh",
            help="Delete the records already in --out (games/, cards/, manifest.json) "
            "and play every game again; what was made from them (report.html, "
            "report.md, value/, balance/) is moved to --out/stale/TIME/. Without it, a "
            "folder that holds this experiment's complete records only shows "
            "their summary.",
        ),
    ] = False,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            metavar="loky|dask",
            help="loky: local worker processes; dask: a Dask cluster (without --scheduler, a "
            "local cluster of --jobs workers). A lost Dask worker's chunks are replayed; a "
            "lost scheduler ends the run in one line naming the --resume command that "
            "finishes it.",
        ),
    ] = "loky",
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="ADDRESS",
            help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --backend dask; the "
            "workers must see --out on a shared file system).",
        ),
    ] = None,
    card_files: CardFiles = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            help="With --backend dask: show Dask's own log lines and warnings too "
            "(by default only the lab's lines: a lost worker or scheduler is "
            "said in one line).",
        ),
    ] = False,
) -> None:
    """Run an experiment: every variant × matchup × bot tier, games in parallel chunks.

    Writes games/ and cards/ Parquet chunks and manifest.json to the results folder (see
    docs/records.md), shows progress, and ends with a summary per variant and per army. Run
    again on a complete folder, it shows the summary without playing (`--fresh` plays again).
    Interrupted runs keep every finished chunk; `--resume` completes them. One run writes a
    folder at a time (a second is refused while the first lives).
    """
    from lab.games import get
    from lab.sim import config as sim_config, runner

    exp = sim_config.load_experiment(config, games=games, cards=tuple(card_files or ()))
    out_path = out_dir or runner.default_out(exp, games_option=games is not None)
    again = _resume_command(config, games, jobs, out_dir, backend, scheduler, card_files, verbose)
    game = get(exp.game)  # plan, warm-up, chunks, warnings and summary are the game's
    for w in game.check_experiment(exp):
        warn(w)
    result = runner.run(
        exp,
        out_path,
        jobs=jobs,
        resume=resume,
        fresh=fresh,
        backend=backend,
        scheduler=scheduler,
        verbose=verbose,
        resume_command=again,
        console=err,
        announce=lambda: err.print(f"{game.describe(exp)} → {out_path}", soft_wrap=True),
    )
    if result.already_complete:
        err.print(
            f"{out_path} already holds this experiment's complete records; their summary "
            "follows (add --fresh to play them again)",
            soft_wrap=True,
        )
    elif result.chunks_played:
        err.print(
            f"played {result.played:,} games in {result.play_seconds:.1f} s "
            f"({result.games_per_s:,.0f} games/s); {result.seconds:.1f} s in all"
        )
    else:
        err.print("every chunk was already written; nothing to play")
    for w in game.run_warnings(result):
        warn(w)
    for table in game.summary_tables(result.out, exp):
        out.print(table)
    kinds = ", ".join(f"{result.out}/{k}" for k in game.RECORD_KINDS)
    out.print(f"records: {kinds}, {result.out}/manifest.json", soft_wrap=True)


def _resume_command(config, games, jobs, out_dir, backend, scheduler, card_files, verbose) -> str:
    """The command that finishes this run after a stop: the options as given, --resume in
    place of --fresh (a stopped run names it)."""
    import shlex

    args = ["lab", "run", str(config)]
    for option, value in (
        ("--games", games),
        ("--jobs", jobs),
        ("--out", out_dir),
        ("--backend", None if backend == "loky" else backend),
        ("--scheduler", scheduler),
    ):
        if value is not None:
            args += [option, str(value)]
    for f in card_files or ():
        args += ["--cards", str(f)]
    return shlex.join(args + (["--verbose"] if verbose else []) + ["--resume"])


def _tier_note(tiers, strong_cost: float | None = None) -> None:
    """One line when a design command measures at a tier weaker than the README advises (for a
    balance, ``strong_cost``: when no strong tier judges it)."""
    from lab.design.tiers import balance_note, weak_tier_note

    note = weak_tier_note(tiers) if strong_cost is None else balance_note(tiers, strong_cost)
    if note:
        err.print(f"note: {note}", soft_wrap=True)


def _daitenka_only(exp, command: str) -> None:
    from lab.games import get

    if not get(exp.game).EDITS_CARDS:
        raise LabError(
            f"lab {command} edits 大天下's cards; {exp.source} names game = "
            f"\"{exp.game}\" — use lab run and lab report for it",
            source=None,
        )


# --------------------------------------------------------------------------------- lab report


@command("report")
def report_command(
    results: Annotated[
        Path,
        typer.Argument(
            metavar="RESULTS",
            help="A results folder written by `lab run`: manifest.json plus games and cards as "
            "Parquet (chunk folders or merged files).",
        ),
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="html: one self-contained file, figures embedded; md: Markdown with its PNG "
            "figures in a folder beside it.",
        ),
    ] = "html",
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="PATH",
            help="Where to write: a file, or a folder to hold report.html / report.md. "
            "Default: inside RESULTS.",
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            metavar="VARIANT",
            help="The variant the others are compared with on paired deals (default: "
            "second_edition when the run has it, else the run's first).",
        ),
    ] = None,
    min_games: Annotated[
        int,
        typer.Option(
            "--min-games", min=1, help="Cells counting fewer games are greyed and never flagged."
        ),
    ] = 100,
    tiers: Annotated[
        str | None,
        typer.Option(
            "--tiers",
            metavar="T1,T2,…",
            help="Bot tiers from weakest to strongest for the skill split (default: ranked by the "
            "bots' win rates against each other, else random < heuristic < search).",
        ),
    ] = None,
) -> None:
    """Write the balance report of a run: At a glance first (armies out of band, the cards that
    cause it, what each variant moved), then variants, paired changes, armies, tier stability,
    card value (lab value's table when RESULTS holds one), the opening-hand effect, the
    observational card metrics and dead abilities — per bot tier, every number with its 95%
    interval and sample size."""
    from lab import writable
    from lab.games import of_results
    from lab.report.page import page_path
    from lab.records import check_readable

    check_readable(results)  # a damaged chunk is named here, in one line
    fmt = fmt.strip().lower()
    # the page can be written: asked before the minute the report takes to compute
    if out_path is not None:
        writable.check_file(page_path(results, out_path, fmt), "--out")
    else:
        writable.check_file(
            page_path(results, None, fmt), "the report", fix="give --out PATH to write it elsewhere"
        )
    order = [t.strip() for t in tiers.split(",") if t.strip()] if tiers else None
    game = of_results(results)  # the game whose records the folder holds (its manifest)
    page = game.build_report(
        results, fmt=fmt, out=out_path, base=base, min_games=min_games, tier_order=order
    )
    out.print(f"wrote {page}", soft_wrap=True)


# ------------------------------------------------------------------------------------ lab swap


@command("swap")
def swap_command(
    config: Annotated[
        Path,
        typer.Argument(metavar="CONFIG", help="Experiment file (TOML), e.g. configs/default.toml."),
    ],
    card: Annotated[
        str | None,
        typer.Option(
            "--card",
            metavar="CARD",
            help="The card to take out (printed name or id), e.g. 赤備え. Default: the config's "
            "[swap] card.",
        ),
    ] = None,
    with_: Annotated[
        str | None,
        typer.Option(
            "--with",
            metavar="CARD",
            help="The card put in its place, copy for copy, e.g. 足軽7. Default: the config's "
            "[swap] with.",
        ),
    ] = None,
    army: Annotated[
        str | None,
        typer.Option(
            "--army",
            "-a",
            metavar="ARMY",
            help="Swap only this army's copies (a key, e.g. mouri, or a printed name, e.g. 毛利); "
            "other armies keep theirs. Default: every army holding the card. The two differ "
            "when opponents hold the card too (docs/value.md). Default folder gets -ARMY.",
        ),
    ] = None,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            metavar="N",
            help="Deals per cell instead of the file's `games` (default folder gets -gamesN).",
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Worker processes (default: every core). Records do not depend on it.",
        ),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Results folder holding both arms as the patches base and CARD→WITH (default "
            "results/NAME-swap-CARD-WITH, with --games …-gamesN).",
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Reuse the records already in --out: play only the chunks not yet "
            "written (none when complete).",
        ),
    ] = False,
    min_games: Annotated[
        int, typer.Option("--min-games", min=1, help="Rows with fewer pairs are marked thin.")
    ] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    card_files: CardFiles = None,
) -> None:
    """Card-swap test: the causal value of a card. Plays the config twice on the same deals —
    as written (base) and with every copy of --card replaced by --with in every army that holds
    it, or in --army's deck only (alt) — and reports each affected army's win-rate change with
    a 95% paired interval, in each rule variant and bot tier (never pooled).

    The swap is a card patch (docs/value.md): both arms are variants of one results folder
    (`lab report` reads it). The replacement takes the card's place in the deck list, so a deal
    shuffles both decks alike and only the swapped positions differ; seeds, first players and
    bots are the same.
    The swapped deck must stay legal (uniques, one general, ≤ 4 tactics and castles).
    Score: win 1, draw ½, loss 0; change = alt − base (negative: the card was worth
    something). Armies without the card keep their decks and are listed as unaffected. A
    `[swap]` table (card = "…", with = "…") in the config gives the defaults. See
    docs/stats.md, "Card swap".
    """
    import json

    from lab.design.tiers import display as display_tier
    from lab.design import swap
    from lab.sim import config as sim_config

    defaults = swap.read_table(config) or {}
    exp = sim_config.load_experiment(config, games=games, cards=tuple(card_files or ()))
    _daitenka_only(exp, "swap")
    card = card or defaults.get("card")
    with_ = with_ or defaults.get("with")
    if card is None:
        raise LabError(
            "missing --card: name the card to take out (e.g. --card 赤備え --with "
            "足軽7), or add a [swap] table to the config",
            source=str(config),
        )
    if with_ is None:
        raise LabError(
            f"missing --with: name the card that replaces {card} copy for copy "
            f"(e.g. --with 足軽7), or add with = \"…\" to the config's [swap] table",
            source=str(config),
        )
    plan = swap.plan(exp, card, with_, army=army or defaults.get("army"))
    if plan.card.index == plan.replacement.index:  # would play every deal twice for +0.0
        same = "" if card == with_ else f"both are {plan.card.name}; "
        raise LabError(
            f"--card {card} --with {with_}: {same}a card swapped for itself changes "
            "nothing; give --with another card (e.g. --with 足軽7)"
        )
    out_path = out_dir or swap.default_out(plan, games_option=games is not None)
    names = {a.key: a.name for a in exp.armies}
    err.print(
        f"{exp.name}: {plan.card.name} → {plan.replacement.name} in "
        f"{', '.join(f'{names[k]} (×{n})' for k, n in plan.copies.items())}; "
        f"2 arms × {exp.total_games:,} games → {out_path}",
        soft_wrap=True,
    )
    _tier_note(exp.tiers)
    swap.run(plan, out_path, jobs=jobs, resume=resume, console=None if as_json else err)
    rows = swap.effects(plan, out_path, min_games=min_games)
    armies = rows[rows["kind"] == "army"]
    groups = swap.groups(armies)
    headline = len(groups) == 1  # one variant and tier: a headline; several: never pooled
    if as_json:

        def clean(r):
            return {
                k: (
                    None
                    if isinstance(v, float) and v != v
                    else v.item()
                    if hasattr(v, "item")
                    else v
                )
                for k, v in r.items()
            }

        doc = {
            "config": str(config),
            "card": plan.card.name,
            "with": plan.replacement.name,
            "records": str(out_path),
            "patch": plan.patch.name,
            "army": plan.army,
            "unaffected": list(plan.unaffected),
            "kept": list(plan.kept),
            "armies": [],
        }
        for r in armies.to_dict("records"):
            sub = rows[
                (rows["army"] == r["army"])
                & (rows["kind"] != "army")
                & (rows["variant"] == r["variant"])
                & (rows["tier"] == r["tier"])
            ]
            doc["armies"].append(
                {
                    **clean(r),
                    "name": names.get(r["army"], r["army"]),
                    "copies": plan.copies[r["army"]],
                    **({"reading": swap.reading(plan, r, names)} if headline else {}),
                    "rows": [clean(x) for x in sub.to_dict("records")],
                }
            )
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return
    from lab.fmt import pct
    from lab.fmt import points as pts

    tier_name = {t.label: display_tier(t) for t in exp.tiers}

    def table(title: str, caption: str, part, label) -> Table:
        t = Table(title=title, caption=caption)
        for col in ("", "pairs", "base", "swapped", "change", "interval"):
            t.add_column(col, justify="left" if not col else "right", no_wrap=bool(col))
        for x in part.to_dict("records"):
            style = "dim italic" if x["thin"] else ("bold" if x["kind"] == "army" else None)
            t.add_row(
                label(x),
                f"{int(x['pairs']):,}",
                pct(x["base"]),
                pct(x["other"]),
                pts(x["change"]),
                f"[{pts(x['change_lo'])}, {pts(x['change_hi'])}]",
                style=style,
            )
        return t

    caption = "win rate (draw ½) on paired deals; change in points, 95% paired interval; dim: thin"
    for army in dict.fromkeys(armies["army"]):
        head = (
            f"{names.get(army, army)} ({army}): {plan.card.name} ×{plan.copies[army]} → "
            f"{plan.replacement.name}"
        )
        mine = rows[rows["army"] == army]
        if not headline:  # one row per variant × tier, each labelled: nothing pooled
            out.print(
                table(
                    f"{head} — per variant and tier",
                    caption + "; never pooled",
                    mine[mine["kind"] == "army"],
                    lambda x: f"{x['variant']} / {tier_name.get(x['tier'], x['tier'])}",
                )
            )
        for v, tier in groups:
            part = mine[(mine["variant"] == v) & (mine["tier"] == tier)]
            out.print(
                table(
                    f"{head} — {v}, {tier_name.get(tier, tier)}",
                    caption,
                    part,
                    lambda x: (
                        "all opponents"
                        if x["kind"] == "army"
                        else f"vs {names.get(x['opponent'], x['opponent'])}"
                    ),
                )
            )
        if headline:
            out.print(
                swap.reading(plan, armies[armies["army"] == army].iloc[0], names), soft_wrap=True
            )
    if not headline:
        out.print(
            f"no headline: the config plays {len(groups)} variant × tier groups and a "
            "swap's change is read in each, never pooled",
            soft_wrap=True,
        )
    if plan.kept:
        keeps = "keeps its" if len(plan.kept) == 1 else "keep their"
        out.print(
            f"only {names[plan.army]}'s copies swapped; "
            f"{', '.join(names[k] for k in plan.kept)} {keeps} {plan.card.name} "
            "(without --army every holder's copies are swapped)",
            soft_wrap=True,
        )
    lacking = [names[k] for k in plan.unaffected if k not in plan.kept]
    if lacking:
        out.print(
            f"unaffected (no {plan.card.name} in the deck; decks unchanged): {', '.join(lacking)}",
            soft_wrap=True,
        )
    missing = [names[k] for k in plan.affected if k not in set(armies["army"])]
    if missing:
        out.print(f"not compared (mirror games only): {', '.join(missing)}", soft_wrap=True)
    out.print(f"records: {out_path} (patches base and {plan.patch.name})", soft_wrap=True)


# ----------------------------------------------------------------------------------- lab value


@command("value")
def value_command(
    config: Annotated[
        Path,
        typer.Argument(metavar="CONFIG", help="Experiment file (TOML), e.g. configs/default.toml."),
    ],
    cards: Annotated[
        list[str] | None,
        typer.Option(
            "--cards",
            metavar="CARD[,CARD…]",
            help="Only these cards (printed names or ids; repeat or separate by commas). Default: "
            "every card of every army.",
        ),
    ] = None,
    tier: Annotated[
        list[str] | None,
        typer.Option(
            "--tier",
            metavar="TIER",
            help="Only this bot tier (its label, e.g. heuristic-vs-heuristic, or a bot playing "
            "both seats, e.g. tuned or heuristic; repeatable). Default: every tier of the "
            "config.",
        ),
    ] = None,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            metavar="N",
            help="Deals per cell instead of the file's `games` (default folder: "
            "results/NAME-gamesN/value).",
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Worker processes (default: every core). Results do not depend on it.",
        ),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Value folder: DIR/value.parquet and the run's records in DIR/records (default "
            "results/NAME/value, where `lab report results/NAME` finds it).",
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue an interrupted value run in --out: play only the chunks "
            "not yet written.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
    card_files: Annotated[
        list[Path] | None,
        typer.Option(
            "--extra-cards",
            metavar="FILE",
            help=CARDS_HELP + " (--cards names the cards to value here.)",
        ),
    ] = None,
) -> None:
    """Card value: what each card (and its ability) is worth to its army, causally.

    For every card type of every army: *ability_off* (the card keeps its strength, loses its
    abilities) and *above_vanilla* (every copy replaced by a vanilla 足軽 of the nearest strength;
    ∞ → 足軽10; tactics and castles → the army's weakest 足軽), each played on the same deals and
    seat orders as the unchanged decks against the config's other armies. Each row: Δ army win
    rate (as is − contrast; positive: the card helps), 95% interval clustered by deal, games, and
    a Benjamini–Hochberg q across cards. See docs/value.md.
    """
    import json

    from lab.design import value
    from lab.sim import config as sim_config

    exp = sim_config.load_experiment(config, games=games, cards=tuple(card_files or ()))
    _daitenka_only(exp, "value")
    names = [n.strip() for c in cards or () for n in c.split(",") if n.strip()] or None
    plan = value.plan(exp, cards=names, tiers=tier)
    out_path = out_dir or value.default_out(exp, games_option=games is not None)
    run_exp = plan.exp
    err.print(
        f"{exp.name}: {len(plan.arms)} arm(s) for {plan.rows} value row(s) × "
        f"{len(run_exp.matchups)} matchup(s) × {len(run_exp.tiers)} tier(s) = "
        f"{run_exp.total_games:,} games → {out_path}",
        soft_wrap=True,
    )
    _tier_note(run_exp.tiers)
    if plan.skipped:
        warn(f"not valued (mirror games only): {', '.join(plan.skipped)}")
    result = value.run(plan, out_path, jobs=jobs, resume=resume, console=err)
    err.print(
        f"played {result.played:,} games in {result.play_seconds:.1f} s "
        f"({result.games_per_s:,.0f} games/s); {result.seconds:.1f} s in all"
        if result.chunks_played
        else "every chunk was already written; nothing to play"
    )
    table = value.compute(plan, out_path)
    if as_json:
        rows = json.loads(table.to_json(orient="records", force_ascii=False))
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    for t in value.tables(table):
        out.print(t)
    prec = value.precision(table)
    out.print(
        f"95% half-width: at most {prec['max_half_width']:.2f} points (median "
        f"{prec['median_half_width']:.2f}) over {prec['rows']} rows; table: "
        f"{out_path}/value.parquet",
        soft_wrap=True,
    )


# --------------------------------------------------------------------------------- lab balance


@command("balance")
def balance_command(
    config: Annotated[
        Path,
        typer.Argument(metavar="CONFIG", help="Experiment file (TOML), e.g. configs/default.toml."),
    ],
    target: Annotated[
        float, typer.Option("--target", help="The win rate every army should reach (draw ½).")
    ] = balance_defaults.TARGET,
    band: Annotated[
        float,
        typer.Option("--band", help="Accepted distance from the target, e.g. 0.03 = ±3 points."),
    ] = balance_defaults.BAND,
    max_edits: Annotated[
        int, typer.Option("--max-edits", metavar="N", help="Most card edits in one proposal.")
    ] = balance_defaults.MAX_EDITS,
    deck_lists: Annotated[
        bool,
        typer.Option(
            "--deck-lists",
            help="Also try deck-list edits: an army's vanilla 足軽, every copy, swapped for the "
            "足軽 a step or two stronger or weaker (docs/balancing.md, \"How it searches\").",
        ),
    ] = balance_defaults.DECK_LISTS,
    abilities: Annotated[
        bool,
        typer.Option(
            "--abilities/--no-abilities",
            help="Try ability edits (an ability off, an amount ±1); --no-abilities proposes "
            "numbers only: strengths (and deck lists with --deck-lists).",
        ),
    ] = balance_defaults.ABILITIES,
    centre: Annotated[
        bool,
        typer.Option(
            "--centre/--no-centre",
            help="Polishing moves each army whose tiers' midpoint is a point or more off the "
            "target towards it with one deck-list edit of its own (an army's 足軽 a step or two "
            "stronger or weaker: felt alike by the tiers), beyond --max-edits "
            "(docs/balancing.md, \"Centring\").",
        ),
    ] = balance_defaults.CENTRE,
    minutes: Annotated[
        float | None,
        typer.Option(
            "--budget-minutes",
            metavar="M",
            help="Wall-clock budget of the search, over every session (default "
            f"{balance_defaults.MINUTES:g} unless --budget-games is given).",
        ),
    ] = None,
    budget_games: Annotated[
        int | None,
        typer.Option(
            "--budget-games",
            metavar="N",
            help="Stop after N games instead (the same proposals on any machine).",
        ),
    ] = None,
    tiers: Annotated[
        list[str] | None,
        typer.Option(
            "--tiers",
            metavar="TIER[,TIER…]",
            help="Bot tiers every army must be balanced at: the first screens, the others judge "
            "(tier labels of the config or bots, e.g. tuned,search). Default: the config's "
            "tier plus a search of 100 simulations, which rates the armies about as search(400) "
            "does (北条 lower) at a quarter of the cost.",
        ),
    ] = None,
    tier: Annotated[
        str | None,
        typer.Option(
            "--tier",
            metavar="TIER",
            help="Balance at this one tier only (a tier label of the config or a bot).",
        ),
    ] = None,
    cards: Annotated[
        list[str] | None,
        typer.Option(
            "--cards",
            metavar="CARD[,CARD…]",
            help="Only edit these cards (printed names or ids). Default: every card, or the cards "
            "a lab value table ranks most responsible.",
        ),
    ] = None,
    value_dir: Annotated[
        Path | None,
        typer.Option(
            "--value",
            metavar="DIR",
            help="lab value folder whose ranking picks the cards to edit (default: "
            "results/NAME/value when it exists).",
        ),
    ] = None,
    confirm_games: Annotated[
        int,
        typer.Option(
            "--confirm-games",
            metavar="N",
            help="Games per army at the first tier on the selection deals and on the fresh deals "
            "that every reported figure comes from.",
        ),
    ] = balance_defaults.CONFIRM_GAMES,
    strong_games: Annotated[
        int,
        typer.Option(
            "--strong-games",
            "--confirm-tier-games",
            metavar="N",
            help="Fresh games per army at each strong tier (half as many select).",
        ),
    ] = balance_defaults.STRONG_GAMES,
    confirm_tier: Annotated[
        str | None,
        typer.Option(
            "--confirm-tier",
            metavar="BOT",
            help="One more tier every army must be balanced at (as in --tiers).",
        ),
    ] = None,
    polish: Annotated[
        int,
        typer.Option(
            "--polish",
            metavar="N",
            help="Rounds of polishing after the search (several tiers): the best selected set "
            "is measured on deals of its own, then each round the surrogate's eight best "
            "neighbours of the best set there (one or two edits added, removed or replaced) are "
            "screened at the first tier and the best of them measured there at every tier; "
            "the best there is proposed first. With "
            "--budget-games exactly N rounds; with a minutes budget the search keeps time for "
            "N and polishing goes on while a round fits. 0: none.",
        ),
    ] = balance_defaults.POLISH_ROUNDS,
    probe: Annotated[
        int,
        typer.Option(
            "--probe",
            metavar="N",
            help="After polishing's first round, measure at every tier how each tier feels the "
            "edits of the N armies whose tiers disagree most there (the anchor's edits of "
            "their cards removed, a few of their own added), so the neighbours that trade an "
            "edit for one both tiers feel alike are rated on measured figures; minutes of "
            "search(100). Default 0: none (docs/balancing.md, \"Probing the armies whose tiers "
            "disagree\").",
        ),
    ] = balance_defaults.PROBE_ARMIES,
    via: Annotated[
        str | None,
        typer.Option(
            "--via",
            metavar="BOT",
            help="Bridge tier (e.g. strong): screens the promising sets like a strong tier but "
            "is not judged; what each edit does there is what the strong tiers' corrections "
            "expect before their own games. Default: none (docs/balancing.md).",
        ),
    ] = None,
    calibrate: Annotated[
        str | None,
        typer.Option(
            "--calibrate",
            metavar="BOT",
            help="Calibration tier (e.g. search): plays every polished set on the polishing "
            "deals, and its offset from the first strong tier there (pooled over them, shrunk "
            "by its noise) is judged as one more tier while polishing. Default: search (search(400)) "
            "when the search judges at search(100), the default strong tier; none: no "
            "calibration (docs/balancing.md, \"The calibration tier\").",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Search seed (default: the config's seed).")
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", metavar="N", help="Worker processes (default: every core)."),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", metavar="DIR", help="Search folder (default results/NAME/balance)."
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Go on with the search in --out (after an interruption, or with a larger budget).",
        ),
    ] = False,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            metavar="loky|dask",
            help="loky: local worker processes; dask: a Dask "
            "cluster (one local cluster without --scheduler).",
        ),
    ] = "loky",
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler", metavar="ADDRESS", help="Dask scheduler address (with --backend dask)."
        ),
    ] = None,
    top: Annotated[int, typer.Option("--top", metavar="N", help="Proposals shown.")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    card_files: Annotated[
        list[Path] | None,
        typer.Option(
            "--extra-cards",
            metavar="FILE",
            help=CARDS_HELP + " (--cards names the cards to edit here.)",
        ),
    ] = None,
) -> None:
    """Search card edits that bring every army's win rate to --target ± --band at every tier.

    Tries strength ±1/±2, ability amounts ±1 and abilities off (with --deck-lists, each army's
    足軽 swapped for one a step or two away too; with --no-abilities, no ability edit), in sets
    of at most --max-edits, on the config's armies (each pair in both seat orders, paired
    deals): screening at the first
    tier on shared deals with racing, the strong tiers (default: search(100)) measuring the
    promising sets and correcting the search; the front is chosen on selection deals, its best
    set polished an edit or two at a time on deals of its own (--polish), and every reported figure
    is measured on fresh deals at every tier. Each proposal comes with its edits
    as [[patch]] TOML to paste into a config. Interrupt and `--resume` at will; the result is
    balance.json in the search folder. See docs/balancing.md.
    """
    import contextlib
    import json

    from lab.design import balance
    from lab.sim import config as sim_config

    exp = sim_config.load_experiment(config, cards=tuple(card_files or ()))
    _daitenka_only(exp, "balance")
    names = [n.strip() for c in cards or () for n in c.split(",") if n.strip()] or None
    p = balance.plan(
        exp,
        tiers=tiers,
        tier=tier,
        target=target,
        band=band,
        max_edits=max_edits,
        cards=names,
        deck_lists=deck_lists,
        abilities=abilities,
        centre=centre,
        value=value_dir,
        confirm_games=confirm_games,
        strong_games=strong_games,
        second_tier=confirm_tier,
        seed=seed,
        via=via,
        calibrate=calibrate,
        polish_rounds=polish,
        probe_armies=probe,
    )
    minutes = balance_defaults.minutes_budget(minutes, budget_games)
    balance.check_options(minutes, budget_games, backend, scheduler)
    if scheduler is not None:
        from lab.sim.runner import check_scheduler_address

        check_scheduler_address(scheduler)
    out_path = out_dir or balance.default_out(exp)
    tiers_text = p.tiers[0].label + (
        f", judged at {', '.join(t.label for t in p.tiers)}" if len(p.tiers) > 1 else ""
    )
    if p.bridge is not None:
        tiers_text += f" (edits bridged by {p.bridge.label})"
    if p.calibration is not None:
        tiers_text += f", polishing calibrated at {p.calibration.label}"
    err.print(
        f"{exp.name}: {len(p.moves)} single edits ({p.value_note}) × up to {max_edits} "
        f"per proposal, {len(p.exp.armies)} armies screened at {tiers_text} → {out_path}",
        soft_wrap=True,
    )
    _tier_note(p.tiers, balance.STRONG_COST)
    display = balance.Display(err, exp.name, minutes, budget_games) if not as_json else None
    with display or contextlib.nullcontext():
        result = balance.run(
            p,
            out_path,
            minutes=minutes,
            games=budget_games,
            resume=resume,
            jobs=jobs,
            backend=backend,
            scheduler=scheduler,
            progress=display,
        )
    if as_json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return
    from lab.report import balance as shown

    out.print(shown.headline(result), soft_wrap=True)
    for item in shown.tables(result, top):
        out.print(item, soft_wrap=True)
    out.print(shown.search_line(result), soft_wrap=True)
    out.print(f"result: {out_path}/balance.json", soft_wrap=True)
