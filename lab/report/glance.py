"""The report's first section, "At a glance": the answers, before the detail.

Owns the blocks that answer "which armies are out of band, which cards cause it, and how sure are
we" per variant and bot tier: armies outside the 45–55% band with their intervals; the cards with
the largest causal value up and down (``lab value``'s table; without it, a sentence saying so and
the command that writes it — never the opening-hand effect, which is no cause) that pass
Benjamini–Hochberg, with the army each one moves; what each variant
moved against the reference (paired deals, BH); dead and rare abilities (one row per ability,
variants and tiers as columns); the first-player advantage. Every number is labelled causal or
observational; a list whose test passes nothing is replaced by a sentence saying so. It computes
no statistic of its own.
"""

from __future__ import annotations

import pandas as pd

from lab import stats
from lab.report.cards import status_cell
from lab.report.context import Context
from lab.report.document import Cell, Heading, Para, Table, pct, points
from lab.report.sections import MOVED_CAPTION, moved_table
from lab.stats.variants import first_player_edge

TOP_CARDS = 10
TOP_MOVED = 10
PUSHING = 5  # cards named beside an out-of-band army
ABILITY_COLUMNS = 4  # variant × tier columns in one table of dead and rare abilities


def _pushing(ctx: Context, variant: str, tier: str, army: str, above: bool) -> str:
    """The army's flagged cards whose causal value (``lab value``) points the way its win rate
    deviates."""
    cv = ctx.card_value
    if (variant, tier) in cv.attrs.get("uncovered", []):
        return "not measured: no lab value table (next table)"
    hits = cv[
        (cv["variant"] == variant)
        & (cv["tier"] == tier)
        & (cv["army"] == army)
        & cv["flag"]
        & ((cv["value"] > 0) if above else (cv["value"] < 0))
    ]
    if hits.empty:
        return "no single card passes"
    hits = hits.sort_values("value", ascending=not above)
    shown = ", ".join(
        f"{c} {points(v)}" for c, v in zip(hits["card"][:PUSHING], hits["value"][:PUSHING])
    )
    more = len(hits) - PUSHING
    return shown + (f" and {more} more" if more > 0 else "")


def _armies(ctx: Context) -> list:
    lo, hi = stats.BAND
    at = ctx.army_table
    judged = at[~at["thin"]]
    out = judged[(judged["win_rate"] < lo) | (judged["win_rate"] > hi)]
    blocks = [Heading("Armies out of band", 3)]
    if len(out):
        out = out.assign(_w=-out["win_rate"])
        rows = []
        for _, r in ctx.ordered(out, "_w", armies=False).iterrows():
            sure = bool(r["win_rate_lo"] > hi or r["win_rate_hi"] < lo)
            above = r["win_rate"] > hi
            rows.append(
                [
                    ctx.variant(r["variant"]),
                    r["tier"],
                    ctx.army(r["army"]),
                    Cell.rate(r, "win_rate", ctx.min_games, strong=sure),
                    "above" if above else "below",
                    "sure: the interval lies outside the band"
                    if sure
                    else "the interval reaches into the band",
                    _pushing(ctx, r["variant"], r["tier"], r["army"], above),
                ]
            )
        blocks.append(
            Table(
                [
                    "variant",
                    "tier",
                    "army",
                    "win rate",
                    f"{lo:.0%}–{hi:.0%}",
                    "how sure",
                    "cards that push it there (causal)",
                ],
                rows,
                "causal for the army as a whole: the lab assigns armies, opponents, "
                "seats and deals, so no game is selected and a win rate is the "
                "army's; non-mirror decisive games, 95% interval clustered by deal; "
                "bold: "
                "the whole interval is outside the band; cards: those of the army "
                "whose causal value passes Benjamini–Hochberg in the direction of "
                "its deviation (next table)",
            )
        )
    groups = judged.groupby(["variant", "tier"], sort=False).size().index
    calm = [
        f"{ctx.variant(v)} / {t}"
        for v, t in groups
        if not ((out["variant"] == v) & (out["tier"] == t)).any()
    ]
    if calm:
        blocks.append(Para(f"Every army is inside {lo:.0%}–{hi:.0%} under: {'; '.join(calm)}."))
    n_thin = int(at["thin"].sum())
    if n_thin:
        blocks.append(
            Para(
                f"{n_thin} army row(s) count fewer than {ctx.min_games} games and "
                "are not judged (see Armies)."
            )
        )
    return blocks


def _cards(ctx: Context) -> list:
    cv = ctx.card_value
    blocks = [Heading("Cards that move their army (causal)", 3)]
    measures = sorted(set(cv["measure"]))
    if measures:
        blocks.append(
            Para(
                "Per variant and tier, from lab value: up to ten cards with the largest value up and "
                "ten down among those that pass Benjamini–Hochberg at 5%. Value: "
                + "; ".join(
                    {
                        "above vanilla": "above vanilla = the army's win rate with the card − with "
                        "vanilla cards in its place (lab value; points)",
                        "ability off": "ability off = the army's win rate with the card − with its "
                        "ability switched off (lab value; points)",
                    }[m]
                    for m in measures
                )
                + ". The army column gives its win rate and band in the same variant and tier: a "
                "card that helps an army above the band, or hurts one below it, is a candidate "
                "cause."
            )
        )
    rows, quiet = [], []
    for v, t, part in ctx.groups(cv):
        hits = part[part["flag"]]
        if hits.empty:
            quiet.append(
                f"{ctx.variant(v)} / {t} ({int((~part['thin']).sum())} cards, "
                f"{part['measure'].iloc[0]})"
            )
            continue
        up = hits[hits["value"] > 0].nlargest(TOP_CARDS, "value")
        down = hits[hits["value"] < 0].nsmallest(TOP_CARDS, "value")
        for _, r in pd.concat([up, down]).iterrows():
            a = ctx.win_rate(v, t, r["army"])
            army = (
                Cell(
                    ctx.army(r["army"]), f"{pct(a['win_rate'])} {stats.band_of([a['win_rate']])[0]}"
                )
                if a is not None
                else Cell(ctx.army(r["army"]))
            )
            rows.append(
                [
                    ctx.variant(v),
                    t,
                    r["card"],
                    army,
                    r["measure"],
                    Cell.change(r["value"], r["lo"], r["hi"], strong=True),
                    f"{r['q']:.3g}",
                    r["detail"],
                ]
            )
    if rows:
        blocks.append(
            Table(
                [
                    "variant",
                    "tier",
                    "card",
                    "army (win rate, band)",
                    "measure",
                    "value (pts)",
                    "BH q",
                    "also",
                ],
                rows,
                "causal (lab value: the same deals with the card changed); "
                "intervals clustered by deal",
            )
        )
    if quiet:
        blocks.append(
            Para(
                "No card's value differs from 0 after Benjamini–Hochberg under: "
                + "; ".join(quiet)
                + ". Details: Card value."
            )
        )
    uncovered = [f"{ctx.variant(v)} / {t}" for v, t in cv.attrs.get("uncovered", [])]
    if uncovered:
        patched = (
            " (lab value measures the decks as written: run it on the config without "
            "its [[patch]] tables)"
            if ctx.patches
            else ""
        )
        blocks.append(
            Para(
                f"Not measured under {'; '.join(uncovered)}: which cards cause an army's win rate "
                "takes lab value — the same deals played with each card changed — and this folder "
                f"holds no lab value table for {'it' if len(uncovered) == 1 else 'them'}. Run "
                f"`{ctx.value_command}`{patched}, then this report again. The opening-hand "
                "effects (Cards, observational) are not causes: they say when holding a card "
                "helps, not what it is worth to its army."
            )
        )
    partial = [
        f"{ctx.variant(v)} / {t}: {n} of {total} cards"
        for (v, t), (n, total) in cv.attrs.get("coverage", {}).items()
        if n < total
    ]
    if partial:
        blocks.append(
            Para(
                "lab value measured only some of the cards with an ability ("
                + "; ".join(partial)
                + "); the others have no causal value here "
                "(run lab value without --cards to measure them)."
            )
        )
    return blocks


def _moved(ctx: Context) -> list:
    blocks = [Heading(f"What each variant moved (against {ctx.base})", 3)]
    parts, quiet = [], []
    for other, moved in ctx.moved.items():
        if isinstance(moved, str):
            quiet.append(f"{ctx.variant(other)}: not compared — {moved}")
            continue
        for t in ctx.tiers:
            hit = moved[(moved["tier"] == t) & moved["moved"]]
            pairs = int((hit["kind"] == "matchup").sum())
            hit = hit[hit["kind"] != "matchup"]
            if hit.empty:
                quiet.append(
                    f"{ctx.variant(other)} / {t}: nothing moved"
                    + (f" but {pairs} matchup(s)" if pairs else "")
                )
                continue
            parts.append(hit.head(TOP_MOVED).assign(other_variant=other))
            if pairs:
                quiet.append(
                    f"{ctx.variant(other)} / {t}: also {pairs} matchup(s) moved (Variant changes)"
                )
    if parts:
        blocks.append(
            moved_table(
                ctx,
                pd.concat(parts),
                MOVED_CAPTION.format(m=ctx.min_games)
                + f"; armies, first player, draws, ends and length — up to "
                f"{TOP_MOVED} per variant and tier, largest |change| / SE first",
                other=True,
            )
        )
    if quiet:
        blocks.append(Para("; ".join(quiet) + "."))
    if not ctx.moved:
        blocks.append(Para("The run has one variant: nothing to compare."))
    return blocks


def _abilities(ctx: Context) -> list:
    ab = ctx.abilities
    blocks = [Heading("Dead and rare abilities", 3)]
    flagged = ab.loc[ab["flag"], ["card", "ability_id"]].drop_duplicates()
    if flagged.empty:
        blocks.append(
            Para(
                f"No ability is dead or rare (every ability of a card held in ≥ "
                f"{ctx.min_games} games acted in ≥ 1% of them)."
            )
        )
        return blocks
    cols = [
        (v, t)
        for v in ctx.variants
        for t in ctx.tiers
        if ((ab["variant"] == v) & (ab["tier"] == t)).any()
    ]
    key = ab.set_index(["card", "ability_id", "variant", "tier"])
    caption = (
        "observational counts (what the abilities did in these games); flagged: 'never' "
        "or 'rare' (< 1% of the games that held the card) where the card was held in ≥ "
        f"{ctx.min_games} games (bold)"
    )
    # many variants × tiers are stacked in several tables, so every column fits the screen
    for k in range(0, len(cols), ABILITY_COLUMNS):
        part = cols[k : k + ABILITY_COLUMNS]
        rows = []
        for _, f in flagged.iterrows():
            first = ab[(ab["card"] == f["card"]) & (ab["ability_id"] == f["ability_id"])].iloc[0]
            rows.append(
                [f["card"], first["ability"], first["armies"]]
                + [
                    status_cell(key.loc[(f["card"], f["ability_id"], v, t)])
                    if (f["card"], f["ability_id"], v, t) in key.index
                    else "—"
                    for v, t in part
                ]
            )
        which = (
            f"; variants and tiers {k + 1}–{k + len(part)} of {len(cols)}"
            if len(cols) > ABILITY_COLUMNS
            else ""
        )
        blocks.append(
            Table(
                ["card", "ability", "armies"] + [f"{ctx.variant(v)} / {t}" for v, t in part],
                rows,
                caption + which,
            )
        )
    return blocks


def _first_player(ctx: Context) -> list:
    vt = ctx.variant_table
    edge = first_player_edge(vt, ctx.min_games)
    rows = [
        [
            ctx.variant(r["variant"]),
            r["tier"],
            Cell.rate(r, "first_win", ctx.min_games, strong=bool(e)),
        ]
        for (_, r), e in zip(vt.iterrows(), edge)
    ]
    return [
        Heading("First-player advantage", 3),
        Table(
            ["variant", "tier", "first player's win rate"],
            rows,
            "causal (the first seat is drawn at random for each deal); decisive games, "
            "95% interval clustered by deal; bold: the interval excludes 50% (never on a "
            f"row of fewer than {ctx.min_games} games)",
        ),
    ]


def at_a_glance(ctx: Context) -> list:
    rec = ctx.rec
    facts = (
        f"{len(rec.games):,} games · {len(ctx.variants)} variant(s) · tiers "
        f"{', '.join(ctx.tiers)} · reference variant {ctx.base}"
    )
    return (
        [
            Heading("At a glance"),
            Para(
                f"{facts}. Which armies are out of band, which cards cause it and how sure we "
                "are — per variant and bot tier, 95% intervals clustered by deal. Details "
                "follow; definitions in docs/stats.md."
            ),
        ]
        + _armies(ctx)
        + _cards(ctx)
        + _moved(ctx)
        + _abilities(ctx)
        + _first_player(ctx)
    )
