"""The report's detail sections about the run, its variants, their changes, armies and tiers.

Owns: the blocks of the sections "Run", "Variants", "Variant changes", "Armies" and "Tier
stability" — tables and figures from a ``Context``'s ``lab.stats`` tables, per variant and bot
tier, every number with its interval and sample size and labelled causal (paired) or not. Also
``moved_table``, the "what moved" table the At a glance section reuses. It computes no statistic
of its own.
"""

from __future__ import annotations

import pandas as pd

from lab import stats
from lab.report import figures as F
from lab.report.context import Context
from lab.report.document import Cell, Details, Figure, Heading, Para, Table, num, pct
from lab.stats.armies import army_order
from lab.stats.variants import first_player_edge

HOW_TO_READ = (
    "How to read: each value is followed by its 95% interval and the number of games it counts "
    "(n). Intervals of numbers that pool games of one deal (its two seat orders, or the deal "
    "under several variants or tiers) are clustered by deal. Cells counting fewer than {m} games "
    "are greyed (in Markdown: italic with †) and never flagged. Bold marks what passes "
    "Benjamini–Hochberg at a 5% false-discovery rate. Causal numbers come from a randomised or "
    "paired design (paired deals, lab value); observational ones are labelled so, and the "
    "cards that cause an army's win rate are named from lab value alone. Numbers are per variant and bot tier; a pooled number says it is pooled. Win rates "
    "count decisive games; a draw scores ½ in paired changes and card effects. Definitions: "
    "docs/stats.md."
)


def fig(name: str, figure, caption: str) -> Figure:
    return Figure(name, F.png(figure), caption)


def slug(*parts: str) -> str:
    return "-".join(str(p) for p in parts)


def run_summary(ctx: Context) -> list:
    rec, g = ctx.rec, ctx.rec.games
    armies = sorted(set(g["army_a"]) | set(g["army_b"]))
    man = rec.manifest
    facts = [
        f"Results: {rec.path}",
        f"{len(g):,} games",
        f"variants: {', '.join(ctx.variant(v) for v in ctx.variants)}",
        f"reference variant: {ctx.base}",
        f"armies: {', '.join(ctx.army(a) for a in army_order(armies))}",
        f"tiers (weakest first): {', '.join(ctx.tiers)}",
    ]
    config = man.get("config") if isinstance(man.get("config"), dict) else {}
    if config.get("name"):
        facts.append(
            f"config: {config['name']} ({config.get('source', '')}, seed {config.get('seed', '?')})"
        )
    git = man.get("git") if isinstance(man.get("git"), dict) else {}
    if git.get("commit"):
        facts.append(f"commit {str(git['commit'])[:10]}" + (" (dirty)" if git.get("dirty") else ""))
    if man.get("status") and man["status"] != "complete":
        facts.append(f"run status: {man['status']}")
    if ctx.value is not None:
        facts.append(f"lab value table: {ctx.value.attrs.get('path', 'present')}")
    blocks = [Heading("Run"), Para(" · ".join(facts))]
    if rec.error_games or rec.skipped_chunks:
        blocks.append(
            Para(
                f"Left out: {rec.error_games:,} game(s) that hit an engine limit "
                f"(error), {rec.skipped_chunks} incomplete chunk(s)."
            )
        )
    return blocks + [Para(HOW_TO_READ.format(m=ctx.min_games))]


# ------------------------------------------------------------------------------------ variants


def variants(ctx: Context) -> list:
    vt = ctx.variant_table
    m = ctx.min_games
    reasons = [
        c[4:] for c in vt.columns if c.startswith("end_") and not c.endswith(("_lo", "_hi", "_n"))
    ]
    cols = [
        "variant",
        "tier",
        "games",
        "first player wins",
        "draws",
        "comebacks",
        "leader turns",
        "battles",
        "wall margin",
    ]
    edge = first_player_edge(vt, m)
    rows = [
        [
            ctx.variant(r["variant"]),
            r["tier"],
            num(r["games"], 0),
            Cell.rate(r, "first_win", m, strong=bool(e)),
            Cell.rate(r, "draw", m),
            Cell.rate(r, "comeback", m),
            Cell.mean(r, "leader_turns"),
            Cell.mean(r, "battles"),
            Cell.mean(r, "wall_margin"),
        ]
        for (_, r), e in zip(vt.iterrows(), edge)
    ]
    end_rows = [
        [ctx.variant(r["variant"]), r["tier"], num(r["games"], 0)]
        + [Cell.rate(r, f"end_{x}", m) for x in reasons]
        for _, r in vt.iterrows()
    ]
    lengths = {}
    for col in ("leader_turns", "battles"):
        vals = stats.length_values(ctx.rec, column=col)
        lengths[col] = {
            f"{ctx.variant(v)} / {t}": vals[(v, t)]
            for v in ctx.variants
            for t in ctx.tiers
            if (v, t) in vals
        }
    labels = [f"{ctx.variant(v)} / {t}" for v, t in zip(vt["variant"], vt["tier"])]
    return [
        Heading("Variants"),
        Para(
            "Per rule variant and bot tier: the first player's win rate among decisive games, "
            "draws, comebacks (the winner was behind by ≥ 3 walls at some point), mean game "
            "length (medians in the notebook), the winner's wall margin and how games ended."
        ),
        Table(
            cols,
            rows,
            "means with t intervals, rates with Wilson intervals on the effective "
            "number of games — both clustered by deal; first player: causal (the "
            "first seat is drawn at random), bold where the interval excludes 50%",
        ),
        Table(
            ["variant", "tier", "games"] + [f"end: {x}" for x in reasons],
            end_rows,
            "how games ended (share of all games)",
        ),
        fig(
            "first-player",
            F.first_player_figure(vt, m, labels),
            "First-player advantage per variant and tier: win rate of the player who moved "
            "first, decisive games, 95% intervals clustered by deal; blue: the interval excludes "
            "50% (bold in the table), dark: it does not, grey: thin (not tested).",
        ),
        fig(
            "game-length",
            F.length_figure(lengths),
            "Game length per variant and tier: leader turns and battles (share of games; every "
            "game in its own bin).",
        ),
    ]


# ------------------------------------------------------------------------------------ changes

MOVED_CAPTION = (
    "causal (paired deals); moved: Benjamini–Hochberg q < 0.05 over the table; "
    "shares in percentage points, lengths in turns or battles; grey: fewer than "
    "{m} pairs (not tested)"
)


def moved_table(ctx: Context, t: pd.DataFrame, caption: str, other: bool = False) -> Table:
    rows = []
    for _, r in t.iterrows():
        is_rate = r["kind"] != "length"
        fmt_v = pct if is_rate else (lambda x: num(x, 2))
        thin = bool(r["thin"])
        change = (
            Cell.change(
                r["change"], r["change_lo"], r["change_hi"], thin=thin, strong=bool(r["moved"])
            )
            if is_rate
            else Cell(
                f"{r['change']:+.2f}",
                f"[{r['change_lo']:+.2f}, {r['change_hi']:+.2f}]",
                thin=thin,
                strong=bool(r["moved"]),
            )
        )
        item = (
            ctx.army(r["army"])
            if r["kind"] == "army"
            else f"{ctx.army(r['army'])} vs {ctx.army(r['opponent'])}"
            if r["kind"] == "matchup"
            else r["item"]
        )
        lead = [ctx.variant(r["other_variant"])] if other else []
        rows.append(
            lead
            + [
                r["tier"],
                r["kind"],
                item,
                fmt_v(r["base"]),
                fmt_v(r["other"]),
                change,
                Cell(num(r["pairs"], 0), f"deals={int(r['deals']):,}", thin=thin),
                f"{r['q']:.3g}" if pd.notna(r["q"]) else "—",
            ]
        )
    cols = (["variant"] if other else []) + [
        "tier",
        "kind",
        "what",
        "base",
        "other",
        "change (pts)",
        "pairs",
        "BH q",
    ]
    return Table(cols, rows, caption)


def changes(ctx: Context) -> list:
    blocks = [
        Heading("Variant changes"),
        Para(
            f"Each variant against {ctx.base} on paired deals (same army pair, deal, "
            "seat order and tier, so both played the same deck orders), per bot tier. "
            "Change = mean paired difference in score (win 1, draw ½, loss 0), in "
            "percentage points; the interval is clustered by deal (a deal's two seat "
            "orders are one cluster). Causal: the deals are the same, only the rules "
            "differ."
        ),
    ]
    for other, moved in ctx.moved.items():
        if isinstance(moved, str):
            blocks.append(Para(f"{ctx.variant(other)}: not compared — {moved}"))
            continue
        head = f"{ctx.base} → {ctx.variant(other)}"
        blocks.append(Heading(head, 3))
        shown = moved[
            (moved["kind"] == "army") | moved["item"].isin(["first player score", "draw rate"])
        ]
        shown = ctx.ordered(shown.assign(_o=shown["kind"] != "army"), "_o")
        blocks.append(
            fig(
                slug("change", other),
                F.change_figure(shown, ctx.names, head),
                f"Change in score from {ctx.base} to {ctx.variant(other)}, per army "
                "and overall, per tier; 95% intervals clustered by deal. Coloured: "
                "moved (Benjamini–Hochberg, as in the table); grey: not moved; "
                f"hatched: fewer than {ctx.min_games} pairs.",
            )
        )
        unp = moved.attrs.get("unpaired", {})
        if any(unp.values()):
            blocks.append(
                Para("Unpaired games left out: " + ", ".join(f"{k} {v:,}" for k, v in unp.items()))
            )
        blocks.append(Heading(f"What moved ({head})", 3))
        hits = moved[moved["moved"]]
        cap = MOVED_CAPTION.format(m=ctx.min_games)
        if len(hits):
            blocks.append(moved_table(ctx, ctx.ordered(hits, "rank"), cap))
        else:
            blocks.append(
                Para(
                    f"Nothing moved from {ctx.base} to {ctx.variant(other)}: no "
                    "row passes Benjamini–Hochberg at 5% in any tier."
                )
            )
        blocks.append(
            Details(f"all {len(moved)} rows", [moved_table(ctx, ctx.ordered(moved, "rank"), cap)])
        )
    return blocks


# ------------------------------------------------------------------------------------- armies


def armies(ctx: Context) -> list:
    at, bt, mt, m = ctx.army_table, ctx.bradley_terry, ctx.matchup_table, ctx.min_games
    blocks = [
        Heading("Armies"),
        Para(
            "Per variant and bot tier. Win rates leave out mirror games and count "
            "decisive games; intervals are clustered by deal. Bradley–Terry: a logistic "
            "model of army strength plus a first-player term (errors clustered by "
            "deal), the rating shown as the win probability against the average army. "
            "Causal for the army as a whole — the lab assigns armies, opponents, seats "
            "and deals, so no game is selected — but silent on why an army wins: the "
            "card sections say which cards cause it."
        ),
    ]
    key = bt.set_index(["variant", "tier", "term", "army"])
    rows = []
    for _, r in at.iterrows():
        k = (r["variant"], r["tier"], "army", r["army"])
        if k in key.index:
            b = key.loc[k]
            bcell = Cell(
                pct(b["vs_average"]),
                f"[{pct(b['vs_average_lo'])}, {pct(b['vs_average_hi'])}] n={int(b['games']):,}",
                thin=bool(b["games"] < m),
            )
        else:
            bcell = Cell("—")
        rows.append(
            [
                ctx.variant(r["variant"]),
                r["tier"],
                ctx.army(r["army"]),
                num(r["games"], 0),
                Cell.rate(r, "win_rate", m),
                Cell.rate(r, "win_rate_first", m),
                Cell.rate(r, "win_rate_second", m),
                bcell,
            ]
        )
    blocks.append(
        Table(
            [
                "variant",
                "tier",
                "army",
                "games",
                "win rate",
                "going first",
                "going second",
                "BT vs average",
            ],
            rows,
        )
    )
    fp = ctx.ordered(bt[bt["term"] == "first_player"])
    if len(fp):
        blocks.append(
            Table(
                [
                    "variant",
                    "tier",
                    "first-player edge (log-odds)",
                    "first player's win probability, equal armies",
                    "games",
                ],
                [
                    [
                        ctx.variant(r["variant"]),
                        r["tier"],
                        Cell(
                            f"{r['rating']:+.3f}", f"[{r['rating_lo']:+.3f}, {r['rating_hi']:+.3f}]"
                        ),
                        Cell(
                            pct(r["vs_average"]),
                            f"[{pct(r['vs_average_lo'])}, {pct(r['vs_average_hi'])}]",
                        ),
                        num(r["games"], 0),
                    ]
                    for _, r in fp.iterrows()
                ],
                "Bradley–Terry first-player term",
            )
        )
    blocks.append(
        fig(
            "ratings",
            F.ratings_figure(bt, ctx.names, panels=ctx.tiers, order=ctx.variants),
            "Bradley–Terry ratings per tier (panels) and variant (colours): win "
            "probability against the average army, 95% intervals clustered by deal.",
        )
    )
    for v, t, part in ctx.groups(mt):
        mat = stats.matchup_matrix(part, "win_rate")
        cnt = stats.matchup_matrix(part, "win_rate_n")
        blocks.append(
            fig(
                slug("matchups", v, t),
                F.matchup_heatmap(
                    mat, cnt, m, ctx.names, f"相性表 — matchups ({ctx.variant(v)} / {t})"
                ),
                f"Matchups under {ctx.variant(v)}, {t}: the row army's win rate against the column "
                f"army (decisive games; hatched grey: fewer than {m}).",
            )
        )
    mrows = [
        [
            ctx.variant(r["variant"]),
            r["tier"],
            ctx.army(r["army"]),
            ctx.army(r["opponent"]),
            Cell.rate(r, "win_rate", m),
        ]
        for _, r in mt.iterrows()
    ]
    blocks.append(
        Details(
            "matchup table with intervals",
            [Table(["variant", "tier", "army", "opponent", "win rate"], mrows)],
        )
    )
    return blocks


# ------------------------------------------------------------------------------ tier stability


def tier_stability(ctx: Context) -> list:
    ts = ctx.stability
    order = ts.order
    lo, hi = stats.BAND
    weak, strong = order[0], order[-1]
    blocks = [
        Heading("Tier stability"),
        Para(
            f"Does a conclusion hold at every skill level? Tiers from weaker to stronger: "
            f"{' < '.join(order)}. Per variant, each army's win rate at each tier with "
            f"its band (below {lo:.0%}, in band, above {hi:.0%}) and the change from "
            f"{weak} to {strong} (the tiers played the same deals: the interval is "
            "clustered by deal; bold: Benjamini–Hochberg). An army is marked when its "
            "band differs between tiers and that difference passes Benjamini–Hochberg; "
            "thin rows never are."
        ),
    ]
    m = ctx.min_games
    rows = []
    for _, r in ctx.ordered(ts.armies).iterrows():
        cells = []
        for t in order:
            n = r.get(f"value_n@{t}")
            cells.append(
                Cell(
                    f"{pct(r[f'value@{t}'])} {r[f'band@{t}']}",
                    f"[{pct(r[f'value_lo@{t}'])}, {pct(r[f'value_hi@{t}'])}]"
                    + (f" n={int(n):,}" if pd.notna(n) else ""),
                    thin=not (n >= m),
                )
            )
        rows.append(
            [
                ctx.variant(r["variant"]),
                ctx.army(r["army"]),
                *cells,
                Cell.change(
                    r["skill_sensitivity"],
                    r["skill_sensitivity_lo"],
                    r["skill_sensitivity_hi"],
                    thin=bool(r["thin"]),
                    strong=bool(r["skill_flag"]),
                ),
                "band changes" if r["changes"] else "",
            ]
        )
    blocks.append(
        Table(
            [
                "variant",
                "army",
                *[f"win rate @ {t}" for t in order],
                f"{strong} − {weak} (pts)",
                "conclusion",
            ],
            rows,
            "army win rates per tier (non-mirror, decisive games)",
        )
    )
    corr = ts.correlation
    blocks.append(
        Table(
            ["variant", "tiers", "armies: Spearman ρ", "cards: Spearman ρ"],
            [
                [
                    ctx.variant(r["variant"]),
                    r["tiers"],
                    Cell(num(r["armies_rho"], 2), f"n={int(r['armies_n'])}"),
                    Cell(num(r["cards_rho"], 2), f"n={int(r['cards_n'])} non-thin cards"),
                ]
                for _, r in corr.iterrows()
            ],
            "rank correlation between tiers of army win rates and of card values "
            "(1: the same order at both tiers)",
        )
    )

    def between(r) -> Cell:
        if not r["tier_pair"]:
            return Cell("—")
        return Cell.change(
            r["tier_diff"],
            r["tier_lo"],
            r["tier_hi"],
            note=f"{r['tier_pair']}, q={r['tier_q']:.3g}",
            strong=bool(r["tier_q"] < ctx.alpha),
        )

    def card_rows(t):
        return [
            [ctx.variant(r["variant"]), ctx.army(r["army"]), r["card"]]
            + [
                Cell.change(
                    r[f"value@{t}"],
                    r[f"lo@{t}"],
                    r[f"hi@{t}"],
                    note=r[f"sign@{t}"],
                    thin=bool(r[f"thin@{t}"]),
                )
                for t in order
            ]
            + [between(r), r[f"measure@{weak}"], "sign changes" if r["changes"] else ""]
            for _, r in ctx.ordered(t).iterrows()
        ]

    card_cols = [
        "variant",
        "army",
        "card",
        *[f"value @ {t} (pts)" for t in order],
        "between tiers (pts)",
        "measure",
        "conclusion",
    ]
    measures = (
        "card value per tier: lab value where the folder holds it for every tier, else "
        "the opening-hand effect (what starting with the card in hand adds — not what "
        "the card is worth to its army)"
    )
    cards = ts.cards[ts.cards["changes"]]
    blocks.append(Heading("Cards whose conclusion changes with skill", 3))
    rule = (
        "its value passes Benjamini–Hochberg (+ or −) at one tier, is of the opposite sign "
        "at another, and the difference between those two tiers passes its own test "
        "(Benjamini–Hochberg over every card and pair of tiers; opening-hand effects "
        "clustered by deal across both tiers, lab value's from its per-tier errors)"
    )
    if len(cards):
        blocks.append(
            Table(card_cols, card_rows(cards), f"{measures}; a card is listed when {rule}")
        )
    else:
        flips = int(ts.cards["sign_flips"].sum())
        blocks.append(
            Para(
                "No card's value changes sign between tiers with a difference that "
                f"passes the between-tier test (a card is listed when {rule})."
                + (
                    f" {flips} card(s) change sign by their point values, but "
                    "their difference between tiers does not pass: read them as "
                    "noise."
                    if flips
                    else ""
                )
            )
        )
    blocks.append(
        Details(
            f"every card's value per tier ({len(ts.cards)} cards)",
            [
                Table(
                    card_cols,
                    card_rows(ts.cards),
                    f"{measures}: + / − it passes Benjamini–Hochberg above / "
                    "below 0, 0 it does not; between tiers: the difference and "
                    "its test",
                )
            ],
        )
    )
    sp = stats.skill_split(ctx.rec, "opening_hand", order=order, min_games=m, alpha=ctx.alpha)
    hits = ctx.ordered(sp[sp["skill_flag"]])
    blocks.append(Heading("Opening-hand effects that change with skill", 3))
    if len(hits):
        blocks.append(
            Table(
                [
                    "variant",
                    "army",
                    "card",
                    *[f"effect @ {t} (pts)" for t in order],
                    f"{strong} − {weak} (pts)",
                ],
                [
                    [ctx.variant(r["variant"]), ctx.army(r["army"]), r["card"]]
                    + [
                        Cell.change(r[f"value@{t}"], r[f"value_lo@{t}"], r[f"value_hi@{t}"])
                        for t in order
                    ]
                    + [
                        Cell.change(
                            r["skill_sensitivity"],
                            r["skill_sensitivity_lo"],
                            r["skill_sensitivity_hi"],
                            strong=True,
                        )
                    ]
                    for _, r in hits.iterrows()
                ],
                "opening-hand effects (when holding a card helps — not a cause); the change "
                "between tiers passes Benjamini–Hochberg at 5% (clustered by deal)",
            )
        )
    else:
        tested = int((~sp["thin"]).sum())
        blocks.append(
            Para(
                f"No card's opening-hand effect changes between {weak} and "
                f"{strong} after Benjamini–Hochberg ({tested} non-thin cards "
                "tested)."
            )
        )
    return blocks
