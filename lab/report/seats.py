"""The report of a run of an N-seat game (Rumble Nation): "At a glance" first — how big the start
player's advantage is at each player count and which toggle shrinks it — then the run, win rate
by seat position per variant, scores and margins, token values and every toggle's paired effect.

Every number comes from ``lab.stats.seats`` with its 95% interval (clustered by deal) and sample
size; the page is rendered by ``lab.report.document`` as HTML or Markdown like 大天下's report.
It computes no statistic of its own.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from lab.errors import LabError
from lab.records import read_manifest
from lab.report.document import Cell, Figure, Heading, Para, Table, num, pct, points
from lab.report.page import check_format, write_page
from lab.stats import seats

MIN_GAMES = 100


def _rate(r, name: str, min_games: int = MIN_GAMES, strong: bool = False) -> Cell:
    return Cell.rate(r, name, min_games, strong)


def _change(r, name: str, strong: bool = False) -> Cell:
    return Cell.change(r[name], r[f"{name}_lo"], r[f"{name}_hi"], strong=strong)


def _mean(r, name: str, digits: int = 1) -> Cell:
    return Cell(
        num(r[name], digits), f"[{num(r[f'{name}_lo'], digits)}, {num(r[f'{name}_hi'], digits)}]"
    )


def _sure(r, name: str) -> bool:
    return bool(r[f"{name}_lo"] > 0 or r[f"{name}_hi"] < 0)


# ---------------------------------------------------------------------------------- sections


def at_a_glance(games: pd.DataFrame) -> list:
    blocks = [Heading("At a glance"), Heading("How big is the start player's advantage?", 3)]
    head = seats.start_advantage(games)
    rows, lines = [], []
    for _, r in head.iterrows():
        sure = _sure(r, "edge")
        rows.append(
            [
                f"{int(r['players'])} players",
                r["tier"],
                _rate(r, "win_rate"),
                pct(r["fair"]),
                _change(r, "edge", strong=sure),
                "yes" if sure else "no: the interval holds 0",
            ]
        )
        lines.append(
            f"{int(r['players'])} players: {pct(r['win_rate'])} "
            f"[{pct(r['win_rate_lo'])}, {pct(r['win_rate_hi'])}] against a fair "
            f"{pct(r['fair'])} ({points(r['edge'])} points)"
        )
    blocks.append(
        Table(
            ["players", "bots", "start player wins", "fair share", "advantage (points)", "clear?"],
            rows,
            "The start player's win rate, pooled over the run's variants of each "
            "player count (every variant plays the same deals); 95% intervals "
            "clustered by deal.",
        )
    )
    blocks.append(Para("The start player wins — " + "; ".join(lines) + "."))
    blocks.append(Heading("Which toggle shrinks it?", 3))
    eff = seats.toggle_effects(games)
    if eff.empty:
        blocks.append(
            Para(
                "The run varies no toggle within a player count, so it cannot say; "
                "add a [grid] to the config (e.g. reroll = [true, false])."
            )
        )
        return blocks
    blocks.append(_effects_table(eff, spread=False))
    said = []
    for players, part in eff.groupby("players"):
        shrink = part[part["shrinks"]]
        if len(shrink):
            best = shrink.loc[(shrink["value_start_win"] - 1 / players).abs().idxmin()]
            said.append(
                f"at {players} players, {best['toggle']} = {best['value']} (from "
                f"{best['base']}) shrinks it most: the start player wins "
                f"{pct(best['value_start_win'])} instead of "
                f"{pct(best['base_start_win'])} ({points(best['start_win'])} points "
                f"[{points(best['start_win_lo'])}, {points(best['start_win_hi'])}])"
            )
        else:
            said.append(
                f"at {players} players no toggle shrinks it clearly (every interval "
                "of change holds 0 or the advantage grows)"
            )
    blocks.append(Para("; ".join(said).capitalize() + "."))
    return blocks


def _effects_table(eff: pd.DataFrame, spread: bool) -> Table:
    rows = []
    for _, r in eff.iterrows():
        verdict = "shrinks" if r["shrinks"] else "grows" if r["grows"] else "no clear change"
        row = [
            f"{int(r['players'])} players",
            r["tier"],
            f"{r['toggle']}: {r['base']} → {r['value']}",
            pct(r["base_start_win"]),
            pct(r["value_start_win"]),
            _change(r, "start_win", strong=_sure(r, "start_win")),
            verdict,
        ]
        if spread:
            row += [
                Cell.change(
                    r["spread"] / 100,
                    r["spread_lo"] / 100,
                    r["spread_hi"] / 100,
                    strong=_sure(r, "spread"),
                ),
                Cell.change(
                    r["margin"] / 100,
                    r["margin_lo"] / 100,
                    r["margin_hi"] / 100,
                    strong=_sure(r, "margin"),
                ),
            ]
        rows.append(row)
    cols = [
        "players",
        "bots",
        "toggle",
        "start player wins (base)",
        "(toggled)",
        "change (points)",
        "advantage",
    ]
    caption = (
        "Paired: the same deals under both values, the other toggles held equal "
        "(compared within their strata); the change's 95% interval is clustered by deal. "
        "\"shrinks\": the start player's edge over the fair share moves toward 0 and the "
        "interval excludes 0."
    )
    if spread:
        cols += ["score spread change", "winning margin change"]
        caption += " Spread: standard deviation of the seats' scores in a game, in score points."
    return Table(cols, rows, caption)


def run_section(games: pd.DataFrame, man: dict) -> list:
    cfg = man.get("config", {})
    variants = list(dict.fromkeys(games["variant"]))
    tiers = list(dict.fromkeys(games["tier"]))
    text = (
        f"{len(games):,} games of Rumble Nation: {len(variants)} variant(s) × "
        f"{len(tiers)} bot tier(s) × {cfg.get('games', '?'):,} deals, seed "
        f"{cfg.get('seed', '?')}. Each deal is played once per variant and tier, the start "
        "player drawn from the deal (the same seat in every variant of a player count), so "
        "variants are compared on the same deals."
    )
    rows = [
        [
            v,
            str(int(games.loc[games["variant"] == v, "players"].iloc[0])),
            f"{int((games['variant'] == v).sum()):,}",
        ]
        for v in variants
    ]
    return [Heading("The run"), Para(text), Table(["variant", "players", "games"], rows)]


def position_section(games: pd.DataFrame) -> list:
    pt = seats.position_table(games)
    rows = []
    for _, r in pt.iterrows():
        rows.append(
            [
                r["variant"],
                r["tier"],
                str(int(r["position"]) + 1) + (" (start)" if r["position"] == 0 else ""),
                _rate(r, "win_rate"),
                pct(r["fair"]),
                _change(r, "edge", strong=_sure(r, "edge")),
                _mean(r, "score"),
                _mean(r, "rank", 2),
            ]
        )
    return [
        Heading("Win rate by seat position"),
        Para(
            "Position 1 is the start player, 2 the next in turn order, and so on. The "
            "advantage is the win rate minus the fair share 1/N."
        ),
        _figure(pt),
        Table(
            [
                "variant",
                "bots",
                "position",
                "win rate",
                "fair",
                "advantage (points)",
                "mean score",
                "mean rank",
            ],
            rows,
            "95% intervals clustered by deal (a game's seats share a cluster).",
        ),
    ]


def _figure(pt: pd.DataFrame) -> Figure:
    from lab.report.figures import BLUE, DARK, GREY, png
    import matplotlib as mpl
    from matplotlib.figure import Figure as MplFigure

    p0 = pt[pt["position"] == 0].reset_index(drop=True)
    fig = MplFigure(figsize=(7, 0.42 * len(p0) + 1.4), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(p0))[::-1]
    for yy, (_, r) in zip(y, p0.iterrows()):
        color = BLUE if _sure(r, "edge") else GREY
        ax.plot([r["win_rate_lo"], r["win_rate_hi"]], [yy, yy], color=color, lw=1.6)
        ax.plot([r["win_rate"]], [yy], "o", color=color, ms=6)
        ax.plot([r["fair"]], [yy], "|", color=DARK, ms=12)
    ax.set_yticks(y, [f"{v} · {t}" for v, t in zip(p0["variant"], p0["tier"])])
    ax.xaxis.set_major_formatter(mpl.ticker.PercentFormatter(1.0))
    ax.set_xlabel("start player's win rate (95% CI, clustered by deal); | = fair share 1/N")
    ax.set_title("Start player's advantage")
    return Figure(
        "start_player",
        png(fig),
        "The start player's win rate per variant; blue where the interval excludes the fair share.",
    )


def score_section(games: pd.DataFrame) -> list:
    st = seats.score_table(games)
    dist = seats.score_distribution(games).set_index("variant")
    rows = []
    for _, r in st.iterrows():
        d = dist.loc[r["variant"]]
        rows.append(
            [
                r["variant"],
                r["tier"],
                f"{int(r['games']):,}",
                _mean(r, "win_score"),
                _mean(r, "mean_score"),
                _mean(r, "margin"),
                _mean(r, "spread"),
                _rate(r, "chip_tie"),
                f"{num(d['score_q10'], 0)} / {num(d['score_q50'], 0)} / {num(d['score_q90'], 0)}",
                f"{num(d['margin_q10'], 0)} / {num(d['margin_q50'], 0)} / "
                f"{num(d['margin_q90'], 0)}",
            ]
        )
    return [
        Heading("Scores and margins"),
        Table(
            [
                "variant",
                "bots",
                "games",
                "winner's score",
                "mean score",
                "winning margin",
                "score spread",
                "tie → sword chip",
                "score 10/50/90%",
                "margin 10/50/90%",
            ],
            rows,
            "Means with 95% intervals clustered by deal. Margin: winner's score minus the "
            "runner-up's; spread: standard deviation of the seats' scores in a game; a tie "
            "of scores goes to the bigger sword chip (RN5). Quantiles pool the tiers.",
        ),
    ]


def token_section(games: pd.DataFrame) -> list:
    tt = seats.token_table(games, by=("players",))
    rows = []
    for _, r in tt.iterrows():
        rows.append(
            [
                f"{int(r['players'])} players",
                str(int(r["token"])),
                _rate(r, "taken"),
                _rate(r, "by_start"),
                _rate(r, "taker_wins"),
                _mean(r, "power"),
            ]
        )
    return [
        Heading("Token values"),
        Para(
            "How often each token (its number is the dice sum that reaches it and its "
            "score) is won, by whom, and by how much: the winner's power in its area."
        ),
        Table(
            [
                "players",
                "token",
                "taken (else set aside)",
                "taken by the start player",
                "its taker wins the game",
                "winner's power",
            ],
            rows,
            "Pooled over the variants and tiers of each player count; 95% intervals "
            "clustered by deal. Taken-by and taker-wins count the games where the token "
            "was taken.",
        ),
    ]


def toggle_section(games: pd.DataFrame) -> list:
    eff = seats.toggle_effects(games)
    if eff.empty:
        return []
    return [Heading("What each toggle changes"), _effects_table(eff, spread=True)]


# ------------------------------------------------------------------------------------- page


def build_report(results_dir, fmt: str = "html", out=None, **_options) -> Path:
    """Write the report of an N-seat run; returns the page's path (``out`` as for 大天下's)."""
    check_format(fmt)
    results = Path(results_dir)
    games = seats.load(results)
    if games.empty:
        raise LabError(
            "the folder holds no games yet; run the experiment first", source=str(results)
        )
    man = _manifest(results)
    blocks = at_a_glance(games)
    blocks += run_section(games, man)
    blocks += position_section(games)
    blocks += score_section(games)
    blocks += token_section(games)
    blocks += toggle_section(games)
    title = f"Rumble Nation report — {results.resolve().name}"
    return write_page(results, out, fmt, title, blocks)


def _manifest(results: Path) -> dict:
    """The run's manifest, or nothing when it is missing or unreadable (the page says less)."""
    try:
        return read_manifest(results) or {}
    except LabError:
        return {}
