"""The report's figures, drawn from ``lab.stats`` tables (never from games directly).

Owns: one function per figure — first-player advantage per variant and tier, game-length
histograms, the matchup heatmap, Bradley–Terry ratings, variant-change bars, the card forest plot
(a card value with its interval: the opening-hand effect, ``lab value`` or IWD) — each returning a
matplotlib ``Figure`` (built without pyplot, so no global backend state), and ``png(fig)`` for the
bytes. Japanese names render with the IPAexGothic font bundled by ``matplotlib-fontja`` (DejaVu
Sans as fallback for symbols). Every interval drawn is the one the table holds and every colour
is the table's test: a change is coloured when Benjamini–Hochberg flags it (the table's ``moved``),
a card when it is flagged, in the direction it departs from its reference (zero, or its army's
baseline for IWD); thin cells are drawn grey. Rates are dots on an axis that need not start at
zero (no bars); bars start at zero; histograms show every game in bins of one whole width (no
last bin piling up the tail). It computes no statistic of its own.
"""

from __future__ import annotations

import functools
import io

import matplotlib as mpl
import matplotlib_fontja  # noqa: F401 — registers the bundled IPAexGothic font
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lab.stats.armies import army_order
from lab.stats.variants import first_player_edge

FONT_RC = {
    "font.family": ["IPAexGothic", "DejaVu Sans"],
    "axes.unicode_minus": True,
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
BLUE, RED, GREY, DARK = "#3b6ea8", "#c0392b", "#b0b0b0", "#333333"


def japanese(fn):
    """Build the figure under the report's font settings (fonts are fixed when text is made)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with mpl.rc_context(FONT_RC):
            return fn(*args, **kwargs)

    return wrapper


def png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    with mpl.rc_context(FONT_RC):
        fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def _label(key: str, names: dict | None) -> str:
    return f"{names[key]}" if names and key in names else str(key)


@japanese
def first_player_figure(
    vt: pd.DataFrame, min_games: int, labels: list[str] | None = None
) -> Figure:
    """First-player win rate per row of a variant table (a variant × tier) with its 95%
    interval: dots, not bars (the axis does not start at zero), the 50% line dashed. Coloured
    by the tables' test (``first_player_edge``): blue where the interval excludes 50%, dark
    where it does not, grey when thin (never tested)."""
    labels = labels or [str(v) for v in vt["variant"]]
    fig = Figure(figsize=(7, 0.45 * len(vt) + 1.4), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(vt))[::-1]
    v = vt["first_win"].to_numpy(float)
    lo, hi = vt["first_win_lo"].to_numpy(float), vt["first_win_hi"].to_numpy(float)
    thin = ~(vt["first_win_n"].to_numpy(float) >= min_games)
    edge = first_player_edge(vt, min_games)
    for yy, vv, l_, h_, t, e in zip(y, v, lo, hi, thin, edge):
        color = GREY if t else (BLUE if e else DARK)
        ax.plot([l_, h_], [yy, yy], color=color, lw=1.6)
        ax.plot([vv], [yy], "o", color=color, ms=6)
    ax.axvline(0.5, color=DARK, lw=0.8, ls="--")
    ax.set_yticks(y, [f"{lab} (n={int(n):,})" for lab, n in zip(labels, vt["first_win_n"])])
    ax.xaxis.set_major_formatter(mpl.ticker.PercentFormatter(1.0))
    ax.set_xlabel("first player's win rate, decisive games (95% CI, clustered by deal)")
    ax.set_title("先手の勝率 — first-player advantage")
    return fig


def length_bins(values, most: int = 60) -> np.ndarray:
    """Bin edges for whole-number lengths: bins one unit wide up to the longest game, or — past
    ``most`` units — the smallest whole width that keeps the count ≤ ``most``, so every bin
    spans the same number of possible lengths (equal-width bins of a fractional width would
    give some bins two lengths and others one) and the last bin is as wide as the others."""
    top = int(np.nanmax(values)) + 1  # the edge just above the longest game
    width = max(1, int(np.ceil(top / most)))
    return np.arange(0, max(top, 2) + width, width)


@japanese
def length_figure(lengths: dict[str, dict]) -> Figure:
    """Histograms of leader turns and battles per group (step outlines, shared bins from
    ``length_bins``: every game counted where it fell, never a last bin piling up the tail)."""
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    for i, (col, title) in enumerate(
        (("leader_turns", "leader turns (手番)"), ("battles", "battles (合戦)"))
    ):
        ax = fig.add_subplot(1, 2, i + 1)
        values = lengths[col]
        allv = np.concatenate([v for v in values.values() if len(v)]) if values else np.array([])
        if len(allv):
            bins = length_bins(allv)
            for v, arr in values.items():
                ax.hist(
                    arr,
                    bins=bins,
                    histtype="step",
                    lw=1.5,
                    density=True,
                    label=f"{v} (n={len(arr):,})",
                )
        ax.set_title(title)
        ax.set_xlabel(col.replace("_", " "))
        ax.set_ylabel("share of games")
    handles, labels = fig.axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=min(len(labels), 3),
            fontsize=8,
            frameon=False,
        )
    fig.suptitle("ゲームの長さ — game length")
    return fig


@japanese
def matchup_heatmap(
    matrix: pd.DataFrame,
    counts: pd.DataFrame,
    min_games: int,
    names: dict | None = None,
    title: str = "",
) -> Figure:
    """Row army's win rate against the column army; thin cells hatched grey, n beneath."""
    k = len(matrix)
    fig = Figure(figsize=(1.0 * k + 2.5, 0.8 * k + 1.8), layout="constrained")
    ax = fig.add_subplot()
    vals = matrix.to_numpy(float)
    thin = ~(counts.to_numpy(float) >= min_games)
    im = ax.imshow(vals, cmap="RdBu", vmin=0.2, vmax=0.8, alpha=np.where(thin, 0.35, 1.0))
    for i in range(k):
        for j in range(k):
            v, n = vals[i, j], counts.iat[i, j]
            if not np.isfinite(v):
                ax.text(j, i, "—", ha="center", va="center", color=GREY)
                continue
            if thin[i, j]:
                ax.add_patch(
                    mpl.patches.Rectangle(
                        (j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", ec="white", lw=0
                    )
                )
            ax.text(
                j,
                i,
                f"{v:.0%}\nn={int(n)}",
                ha="center",
                va="center",
                fontsize=8,
                color="#666666" if thin[i, j] else ("white" if abs(v - 0.5) > 0.2 else DARK),
            )
    labels = [_label(a, names) for a in matrix.index]
    ax.set_xticks(range(k), [_label(a, names) for a in matrix.columns], rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("army (its win rate)")
    ax.set_title(title or "相性表 — matchup win rates")
    fig.colorbar(im, ax=ax, fraction=0.04, label="win rate")
    return fig


@japanese
def ratings_figure(
    bt: pd.DataFrame,
    names: dict | None = None,
    panel: str = "tier",
    series: str = "variant",
    panels: list | None = None,
    order: list | None = None,
) -> Figure:
    """Bradley–Terry ratings as win probability against the average army: one panel per
    ``panel`` value (a bot tier), one series per ``series`` value (a variant, in ``order``)."""
    armies = bt[bt["term"] == "army"]
    panels = panels or list(pd.unique(armies[panel]))
    groups = list(pd.unique(armies[series]))
    if order is not None:
        groups = [g for g in order if g in groups] + [g for g in groups if g not in order]
    rank = armies.groupby("army")["rating"].mean().sort_values().index.tolist()
    fig = Figure(figsize=(5.2 * len(panels), 0.45 * len(rank) + 1.8), layout="constrained")
    width = 0.8 / max(1, len(groups))
    for pi, pname in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), pi + 1)
        for gi, gname in enumerate(groups):
            part = armies[(armies[panel] == pname) & (armies[series] == gname)]
            part = part.set_index("army").reindex(rank)
            y = np.arange(len(rank)) + (gi - (len(groups) - 1) / 2) * width
            v = part["vs_average"].to_numpy(float)
            ax.errorbar(
                v,
                y,
                xerr=np.vstack([v - part["vs_average_lo"], part["vs_average_hi"] - v]),
                fmt="o",
                capsize=3,
                label=str(gname),
            )
        ax.axvline(0.5, color=DARK, lw=0.8, ls="--")
        ax.set_yticks(range(len(rank)), [_label(a, names) for a in rank])
        ax.xaxis.set_major_formatter(mpl.ticker.PercentFormatter(1.0))
        ax.set_xlabel("win probability vs the average army (95% CI)")
        ax.set_title(str(pname), fontsize=10)
        if len(groups) > 1 and pi == 0:
            ax.legend(fontsize=8)
    fig.suptitle("軍の強さ — army ratings (Bradley–Terry, errors clustered by deal)")
    return fig


@japanese
def change_figure(
    changes: pd.DataFrame, names: dict | None = None, title: str = "", panel: str = "tier"
) -> Figure:
    """Paired change per army (and the first player, draws) with 95% intervals, in points; one
    panel per tier. Coloured where the table says it moved (Benjamini–Hochberg, ``moved``),
    grey otherwise; hatched when thin. Bars start at zero. Every panel puts a row (an army, or
    an overall item) on the same line, in the order of its first appearance in ``changes``, so
    the labels of the first panel name the bars of every panel whatever each tier's ranking."""
    panels = list(pd.unique(changes[panel])) if panel in changes.columns else [None]
    key = lambda r: (r["kind"], r["army"] if r["kind"] == "army" else r["item"])  # noqa: E731
    keys = list(dict.fromkeys(key(r) for _, r in changes.iterrows()))
    labels = [_label(k, names) if kind == "army" else k for kind, k in keys]
    y_of = {k: y for k, y in zip(keys, np.arange(len(keys))[::-1])}
    fig = Figure(figsize=(4.8 * len(panels) + 1.5, 0.42 * len(keys) + 1.6), layout="constrained")
    for pi, pname in enumerate(panels):
        rows = (changes if pname is None else changes[changes[panel] == pname]).reset_index(
            drop=True
        )
        ax = fig.add_subplot(1, len(panels), pi + 1)
        y = np.array([y_of[key(r)] for _, r in rows.iterrows()], dtype=float)
        v = rows["change"].to_numpy(float) * 100
        lo = rows["change_lo"].to_numpy(float) * 100
        hi = rows["change_hi"].to_numpy(float) * 100
        moved = rows["moved"].to_numpy(bool)
        thin = rows["thin"].to_numpy(bool)
        bars = ax.barh(
            y,
            v,
            height=0.6,
            color=[
                (RED if c < 0 else BLUE) if m and not t else GREY for c, m, t in zip(v, moved, thin)
            ],
        )
        for bar, t in zip(bars, thin):
            if t:
                bar.set_hatch("///")
                bar.set_edgecolor("white")
        ax.errorbar(v, y, xerr=np.vstack([v - lo, hi - v]), fmt="none", ecolor=DARK, capsize=3)
        ax.axvline(0, color=DARK, lw=0.8)
        ax.set_ylim(-0.6, len(keys) - 0.4)
        ax.set_yticks(np.arange(len(keys))[::-1], labels if pi == 0 else [""] * len(keys))
        ax.set_xlabel("change in score, points (95% CI)")
        if pname is not None:
            ax.set_title(str(pname), fontsize=10)
    fig.suptitle(title or "ルール変更の効果 — variant change")
    return fig


@japanese
def forest_figure(
    ct: pd.DataFrame,
    names: dict | None = None,
    title: str = "",
    value: str = "iwd",
    lo: str | None = None,
    hi: str | None = None,
    flag: str = "iwd_flag",
    base: str | None = "iwd_base",
    xlabel: str = "IWD, points",
    ncols: int = 3,
) -> Figure:
    """A card value with its 95% interval, one panel per army. ``base`` names the column of
    the reference each card is tested against (dashed: the army's baseline), else zero. Flagged
    cards are coloured by the direction they depart from that reference — blue above, red below
    — so the colour says what the table's test says; thin cards grey."""
    lo, hi = lo or f"{value}_lo", hi or f"{value}_hi"
    armies = army_order(pd.unique(ct["army"]))
    ncols = min(ncols, len(armies)) or 1
    nrows = int(np.ceil(len(armies) / ncols))
    per = ct.groupby("army").size().max() if len(ct) else 1
    fig = Figure(
        figsize=(4.6 * ncols, 0.27 * per * nrows + 1.2 * nrows + 0.6), layout="constrained"
    )
    for i, army in enumerate(armies):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        part = ct[ct["army"] == army].sort_values(value, na_position="first")
        y = np.arange(len(part))
        v = part[value].to_numpy(float) * 100
        l_, h_ = part[lo].to_numpy(float) * 100, part[hi].to_numpy(float) * 100
        ref = part[base].to_numpy(float) * 100 if base is not None else np.zeros(len(part))
        for yy, vv, a, b, r, thin_, f in zip(y, v, l_, h_, ref, part["thin"], part[flag]):
            color = GREY if thin_ else ((BLUE if vv > r else RED) if f else DARK)
            ax.plot([a, b], [yy, yy], color=color, lw=1.2)
            ax.plot([vv], [yy], "o", color=color, ms=4)
        if base is not None and np.isfinite(ref).any():
            ax.axvline(float(np.nanmean(ref)), color=BLUE, lw=0.8, ls="--")
        ax.axvline(0, color=DARK, lw=0.6)
        ax.set_yticks(y, part["card"].tolist(), fontsize=8)
        ax.set_title(_label(army, names), fontsize=10)
        ax.set_xlabel(xlabel, fontsize=8)
    fig.suptitle(title or "カード — card value (95% CI)")
    return fig
