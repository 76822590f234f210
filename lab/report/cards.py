"""The report's card sections: causal card value first, the observational metrics after.

Owns: the blocks of "Card value (lab value)" — when the results folder holds ``lab value``'s
table, the only causes the report names — "Cards (observational)" (the 17lands metrics, with
the draw-on-win bias measured beside them, closed by the opening-hand effect: randomised by the
shuffle, yet what it measures is when holding a card helps, not what the card causes) and "Dead
and rare abilities": forest plots whose colours are the tables' tests, flagged tables, and the
full tables folded away. A section whose test passes nothing says so instead of ranking. It
computes no statistic of its own.
"""

from __future__ import annotations

import pandas as pd

from lab.report import figures as F
from lab.report.context import Context
from lab.report.document import Cell, Details, Heading, Para, Table, num, pct, points
from lab.report.sections import fig, slug
from lab.stats.causal import CONTRASTS, UP_TO_MULLIGAN


def _q(q) -> str:
    return f"{q:.3g}" if pd.notna(q) else "—"


# ---------------------------------------------------------------------------------- lab value


def value_section(ctx: Context) -> list:
    value = ctx.value
    blocks = [
        Heading("Card value (lab value)"),
        Para(
            "Causal: `lab value` played the same deals and seat swaps with each card "
            "changed — 'ability off' (the card without its ability) and 'above vanilla' "
            "(each copy replaced by a vanilla card) — and compared the army's win rate "
            "with the unchanged decks. Value = win rate as is − with the change, in "
            "points (positive: the card or its ability helps its army); intervals "
            "clustered by deal; q: Benjamini–Hochberg across the cards of one variant × "
            "tier × contrast."
        ),
    ]
    cols = [
        "army",
        "card",
        "copies",
        "replacement",
        "value (pts)",
        "BH q",
        "games per arm",
        "army win rate (base arm)",
    ]

    def rows(t):
        return [
            [
                ctx.army(r["army"]),
                r["card"],
                num(r["copies"], 0),
                r["replacement"] or "—",
                Cell.change(
                    r["value"],
                    r["lo"],
                    r["hi"],
                    thin=r["games"] < ctx.min_games,
                    strong=bool(r["q"] < ctx.alpha and r["games"] >= ctx.min_games),
                ),
                _q(r["q"]),
                Cell(num(r["games"], 0), f"deals={int(r['deals']):,}"),
                pct(r["base_rate"]),
            ]
            for _, r in t.iterrows()
        ]

    for (v, t, c), part in value.groupby(["variant", "tier", "contrast"], sort=False):
        part = part.sort_values("value", ascending=False)
        hits = part[(part["q"] < ctx.alpha) & (part["games"] >= ctx.min_games)]
        blocks.append(Heading(f"{CONTRASTS.get(c, c)} — {ctx.variant(v)} / {t}", 3))
        if len(hits):
            blocks.append(
                Table(
                    cols,
                    rows(hits),
                    f"{len(hits)} card(s) pass Benjamini–Hochberg at 5%, largest value first",
                )
            )
        else:
            blocks.append(
                Para(
                    f"No card's {CONTRASTS.get(c, c)} value differs from 0 after "
                    f"Benjamini–Hochberg ({len(part)} cards)."
                )
            )
        blocks.append(Details(f"all {len(part)} cards", [Table(cols, rows(part))]))
    return blocks


# ------------------------------------------------------------------------------- opening hand

OH_COLUMNS = [
    "army",
    "card",
    "copies",
    "effect (pts)",
    "BH q",
    "in opening hand",
    "score with",
    "score without",
    "design",
]


def _oh_rows(ctx: Context, t: pd.DataFrame) -> list:
    return [
        [
            ctx.army(r["army"]),
            r["card"],
            num(r["copies"], 0),
            Cell.change(
                r["effect"],
                r["effect_lo"],
                r["effect_hi"],
                f"deals={int(r['deals']):,}",
                thin=bool(r["thin"]),
                strong=bool(r["flag"]),
            ),
            _q(r["q"]),
            Cell(
                pct(r["opening_share"], 0), f"{int(r['in_opening']):,} of {int(r['games']):,} games"
            ),
            pct(r["with_score"]),
            pct(r["without_score"]),
            r["design"],
        ]
        for _, r in t.iterrows()
    ]


OPENING_HEADING = "Opening-hand effect (not a cause)"


def opening_hand(ctx: Context) -> list:
    """A subsection of "Cards (observational)": what starting with a card in hand goes with —
    never read as what the card causes (that is lab value, At a glance and Card value)."""
    oh = ctx.opening_hand
    blocks = [
        Heading(OPENING_HEADING, 3),
        Para(
            "Not a cause: the shuffle decides which cards start in hand, so games with "
            "and without a card in the opening hand are comparable — but in the games "
            "without it the card is still in the deck, drawn later or not at all, so "
            "the effect says when holding the card helps, not what the card is worth to "
            "its army (lab value answers that, by playing the same deals with the card "
            "changed; the report names causes from it alone). Effect = the army's score "
            "(win 1, draw ½) in games with ≥ 1 copy of the card in its opening hand − in "
            "games without, compared within each matchup (opponent), mirror games left "
            "out; interval clustered by deal (a deal gives the army the same hand in both "
            "seat orders); bold: Benjamini–Hochberg at 5% across the cards of one "
            "variant × tier."
        ),
    ]
    if (oh["design"] == UP_TO_MULLIGAN).any():
        blocks.append(
            Para(
                "Mulligan variants (legacy rules, R3.4): a hand without a unit of "
                "strength ≤ 3 may be redrawn once and the records keep only the kept "
                "hand, so there the comparison is randomised only up to that rule — "
                "rows say 'randomised up to the mulligan'."
            )
        )
    for v, t, part in ctx.groups(oh):
        blocks.append(Heading(f"Opening hand under {ctx.variant(v)} / {t} (not a cause)", 4))
        blocks.append(
            fig(
                slug("opening-hand", v, t),
                F.forest_figure(
                    part,
                    ctx.names,
                    f"開幕手札の効果 — opening-hand effect ({ctx.variant(v)} / {t}; not a cause)",
                    value="effect",
                    flag="flag",
                    base=None,
                    xlabel="score with − without in opening hand, points",
                ),
                f"Opening-hand effect per card under {ctx.variant(v)}, {t} (when holding the card "
                "helps — not a cause): 95% intervals clustered by deal; blue / red: passes "
                "Benjamini–Hochberg (above / below 0, as in the table); grey: thin.",
            )
        )
        hits = part[part["flag"]].sort_values("effect", ascending=False)
        if len(hits):
            blocks.append(
                Table(
                    OH_COLUMNS,
                    _oh_rows(ctx, hits),
                    f"observational reading (not a cause): {len(hits)} card(s) pass "
                    "Benjamini–Hochberg",
                )
            )
        else:
            blocks.append(
                Para(
                    f"No card's opening-hand effect differs from 0 after "
                    f"Benjamini–Hochberg under {ctx.variant(v)} / {t} "
                    f"({int((~part['thin']).sum())} non-thin cards tested)."
                )
            )
        full = ctx.ordered(part.assign(_e=-part["effect"]), "_e")
        blocks.append(Details(f"all {len(full)} cards", [Table(OH_COLUMNS, _oh_rows(ctx, full))]))
    return blocks


# ------------------------------------------------------------------------------ observational

CARD_COLUMNS = [
    "army",
    "card",
    "copies",
    "GIH WR",
    "GNS WR",
    "IWD (pts)",
    "army IWD (pts)",
    "IWD BH q",
    "OH WR",
    "GD WR",
    "gained-from-walls WR",
    "played WR",
    "in a winning set",
    "ability acted",
]


def _card_rows(ctx: Context, t: pd.DataFrame) -> list:
    m = ctx.min_games
    return [
        [
            ctx.army(r["army"]),
            r["card"],
            num(r["copies"], 0),
            Cell.rate(r, "gih", m, strong=bool(r["gih_flag"])),
            Cell.rate(r, "gns", m),
            Cell.change(
                r["iwd"],
                r["iwd_lo"],
                r["iwd_hi"],
                f"n={int(r['iwd_n']):,}",
                thin=bool(r["thin"]),
                strong=bool(r["iwd_flag"]),
            ),
            points(r["iwd_base"]),
            _q(r["iwd_q"]),
            Cell.rate(r, "oh", m),
            Cell.rate(r, "gd", m),
            Cell.rate(r, "gained", m),
            Cell.rate(r, "played", m),
            Cell.rate(r, "won_set", m),
            Cell.rate(r, "trigger", m),
        ]
        for _, r in t.iterrows()
    ]


def observational(ctx: Context) -> list:
    ct, bias = ctx.card_table, ctx.draw_bias
    blocks = [
        Heading("Cards (observational)"),
        Para(
            "17lands-style, counted in games (a seat's decisive game with the card in its "
            "deck): GIH = in the opening hand (OH) or drawn from the deck later (GD); "
            "cards that came from the walls are their own column; GNS = not seen; IWD = "
            "GIH − GNS win rate. Observational, and biased towards cards that are drawn: "
            "a won battle draws cards (荷駄隊, 物見 …), so the winner of a game draws "
            "more of its deck than the loser (measured below) and 'drawn' largely means "
            "'already winning'. That is why every army's IWD baseline sits well above "
            "zero. A card is flagged (bold) when its GIH win rate or IWD differs from "
            "its army's baseline after Benjamini–Hochberg; read lab value (Card value, "
            "At a glance) for what a card causes. The opening-hand effect closes this "
            "section."
        ),
    ]
    blocks.append(
        Table(
            [
                "variant",
                "tier",
                "decisive games",
                "winner's deck draws",
                "loser's deck draws",
                "winner − loser",
            ],
            [
                [
                    ctx.variant(r["variant"]),
                    r["tier"],
                    num(r["games"], 0),
                    num(r["winner_draws"], 2),
                    num(r["loser_draws"], 2),
                    Cell(
                        f"{r['extra_draws']:+.2f}",
                        f"[{r['extra_draws_lo']:+.2f}, {r['extra_draws_hi']:+.2f}]",
                    ),
                ]
                for _, r in bias.iterrows()
            ],
            "the draw-on-win bias: mean cards drawn from the deck after the opening hand, by the "
            "winner and by the loser of the same game (interval clustered by deal)",
        )
    )
    for v, t, part in ctx.groups(ct):
        blocks.append(Heading(f"Cards under {ctx.variant(v)} / {t} (observational)", 3))
        blocks.append(
            fig(
                slug("cards", v, t),
                F.forest_figure(
                    part,
                    ctx.names,
                    f"IWD per card ({ctx.variant(v)} / {t}, observational); dashed: army baseline",
                ),
                f"Improvement when drawn per card under {ctx.variant(v)}, {t} (observational), 95% "
                "intervals clustered by deal; blue / red: flagged above / below the army's baseline "
                "(dashed), as in the table; grey: thin.",
            )
        )
        flagged = part[part["gih_flag"] | part["iwd_flag"]].sort_values(
            "iwd_vs_base", ascending=False
        )
        if len(flagged):
            blocks.append(
                Table(
                    CARD_COLUMNS,
                    _card_rows(ctx, flagged),
                    f"{len(flagged)} card(s) differ from their army's baseline (observational)",
                )
            )
        else:
            blocks.append(
                Para(
                    f"No card under {ctx.variant(v)} / {t} differs from its army's "
                    "baseline after Benjamini–Hochberg."
                )
            )
        full = part.sort_values(["army", "iwd"], ascending=[True, False])
        blocks.append(
            Details(f"all {len(full)} cards", [Table(CARD_COLUMNS, _card_rows(ctx, full))])
        )
    return blocks + opening_hand(ctx)


# ---------------------------------------------------------------------------------- abilities


def status_cell(r) -> Cell:
    """'never (0 of 1,234)' / 'rare 0.4% …' / 'ok 23% …' for one ability row."""
    if r["status"] in ("no effect", "not in run", "not held"):
        return Cell(r["status"], thin=bool(r["thin"]))
    note = f"acted in {int(r['fired']):,} of {int(r['held']):,} games held"
    rate = "" if r["status"] == "never" else f" {pct(r['fired_rate'], 1)}"
    return Cell(f"{r['status']}{rate}", note, thin=bool(r["thin"]), strong=bool(r["flag"]))


def abilities(ctx: Context) -> list:
    ab = ctx.ordered(ctx.abilities)

    def rows(t):
        return [
            [
                ctx.variant(r["variant"]),
                r["tier"],
                r["card"],
                r["ability"],
                r["ability_id"],
                r["armies"],
                num(r["decks"], 0),
                num(r["held"], 0),
                num(r["fired"], 0),
                Cell(
                    pct(r["fired_rate"], 2),
                    f"[{pct(r['fired_rate_lo'], 2)}, {pct(r['fired_rate_hi'], 2)}]"
                    if pd.notna(r["fired_rate_lo"])
                    else "",
                    thin=bool(r["thin"]),
                ),
                status_cell(r),
            ]
            for _, r in t.iterrows()
        ]

    cols = [
        "variant",
        "tier",
        "card",
        "ability",
        "id",
        "armies",
        "games in deck",
        "games held",
        "games it acted",
        "acted / held",
        "status",
    ]
    flagged = ab[ab["flag"]]
    blocks = [
        Heading("Dead and rare abilities"),
        Para(
            "Every ability of the pool, per variant and tier: games whose deck held the "
            "card, games where it reached the hand, and games where the ability changed "
            "the state. 'never' and 'rare' (< 1% of the games that held the card) are "
            f"flagged for the designers when the card was held in ≥ {ctx.min_games} "
            "games; abilities with no effect rows are listed as 'no effect', not "
            "flagged."
        ),
    ]
    blocks.append(
        Table(cols, rows(flagged), f"{len(flagged)} flagged")
        if len(flagged)
        else Para("No ability is dead or rare in this run.")
    )
    blocks.append(Details(f"all {len(ab)} abilities × variants × tiers", [Table(cols, rows(ab))]))
    return blocks
