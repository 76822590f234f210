"""The report's figures, drawn from ``lab.stats`` tables (never from games directly).

Owns: one function per figure — first-player advantage per variant, game-length histograms, the
matchup heatmap, Bradley–Terry ratings, variant-change bars, the card forest plot (IWD with its
interval) — each returning a matplotlib ``Figure`` (built without pyplot, so no global backend
state), and ``png(fig)`` for the bytes. Japanese names render with the IPAexGothic font bundled
by ``matplotlib-fontja`` (DejaVu Sans as fallback for symbols). Every interval drawn is the one the
table holds; thin cells are drawn grey. It computes no statistic of its own.
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

FONT_RC = {"font.family": ["IPAexGothic", "DejaVu Sans"], "axes.unicode_minus": True,
           "figure.dpi": 100, "savefig.dpi": 110, "axes.spines.top": False,
           "axes.spines.right": False}
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
def first_player_figure(vt: pd.DataFrame, min_games: int) -> Figure:
    """First-player win rate per variant (decisive games) with Wilson 95% intervals."""
    fig = Figure(figsize=(max(4.0, 1.1 * len(vt) + 2), 3.2), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(vt))
    y = vt["first_win"].to_numpy(float)
    err = np.vstack([y - vt["first_win_lo"], vt["first_win_hi"] - y])
    colors = [GREY if n < min_games else BLUE for n in vt["first_win_n"]]
    ax.bar(x, y, color=colors, width=0.6)
    ax.errorbar(x, y, yerr=err, fmt="none", ecolor=DARK, capsize=4)
    ax.axhline(0.5, color=DARK, lw=0.8, ls="--")
    ax.set_xticks(x, [f"{v}\n(n={n:,})" for v, n in zip(vt["variant"], vt["first_win_n"])])
    lo = max(0.0, float(np.nanmin(vt["first_win_lo"])) - 0.05)
    hi = min(1.0, float(np.nanmax(vt["first_win_hi"])) + 0.05)
    ax.set_ylim(min(lo, 0.45), max(hi, 0.55))
    ax.set_ylabel("first player's win rate")
    ax.set_title("先手の勝率 — first-player advantage (95% Wilson)")
    return fig


@japanese
def length_figure(lengths: dict[str, dict]) -> Figure:
    """Histograms of leader turns and battles per variant (step outlines, shared bins)."""
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    for i, (col, title) in enumerate((("leader_turns", "leader turns (手番)"),
                                      ("battles", "battles (合戦)"))):
        ax = fig.add_subplot(1, 2, i + 1)
        values = lengths[col]
        allv = np.concatenate([v for v in values.values() if len(v)]) if values else np.array([])
        if len(allv):
            top = int(np.nanpercentile(allv, 99.5)) + 1
            bins = np.arange(0, max(top, 2) + 1) if top <= 60 else 40
            for v, arr in values.items():
                ax.hist(np.clip(arr, None, top), bins=bins, histtype="step", lw=1.5,
                        density=True, label=f"{v} (n={len(arr):,})")
        ax.set_title(title)
        ax.set_xlabel(col.replace("_", " "))
        ax.set_ylabel("share of games")
    handles, labels = fig.axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 3),
                   fontsize=8, frameon=False)
    fig.suptitle("ゲームの長さ — game length")
    return fig


@japanese
def matchup_heatmap(matrix: pd.DataFrame, counts: pd.DataFrame, min_games: int,
                    names: dict | None = None, title: str = "") -> Figure:
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
                ax.add_patch(mpl.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                                   hatch="///", ec="white", lw=0))
            ax.text(j, i, f"{v:.0%}\nn={int(n)}", ha="center", va="center", fontsize=8,
                    color="#666666" if thin[i, j] else
                    ("white" if abs(v - 0.5) > 0.2 else DARK))
    labels = [_label(a, names) for a in matrix.index]
    ax.set_xticks(range(k), [_label(a, names) for a in matrix.columns], rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("army (its win rate)")
    ax.set_title(title or "相性表 — matchup win rates")
    fig.colorbar(im, ax=ax, fraction=0.04, label="win rate")
    return fig


@japanese
def ratings_figure(bt: pd.DataFrame, names: dict | None = None, group: str = "variant",
                   order: list | None = None) -> Figure:
    """Bradley–Terry ratings as win probability against the average army, per group (in
    ``order`` when given)."""
    armies = bt[bt["term"] == "army"]
    groups = list(pd.unique(armies[group])) if group in armies.columns else [None]
    if order is not None and group in armies.columns:
        groups = [g for g in order if g in groups] + [g for g in groups if g not in order]
    order = (armies.groupby("army")["rating"].mean().sort_values().index.tolist())
    fig = Figure(figsize=(6.5, 0.45 * len(order) + 1.6), layout="constrained")
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(groups))
    for gi, gname in enumerate(groups):
        part = armies if gname is None else armies[armies[group] == gname]
        part = part.set_index("army").reindex(order)
        y = np.arange(len(order)) + (gi - (len(groups) - 1) / 2) * width
        v = part["vs_average"].to_numpy(float)
        ax.errorbar(v, y, xerr=np.vstack([v - part["vs_average_lo"], part["vs_average_hi"] - v]),
                    fmt="o", capsize=3, label=str(gname) if gname is not None else None)
    ax.axvline(0.5, color=DARK, lw=0.8, ls="--")
    ax.set_yticks(range(len(order)), [_label(a, names) for a in order])
    ax.set_xlabel("win probability against the average army (Bradley–Terry, 95% CI)")
    ax.set_title("軍の強さ — army ratings")
    if len(groups) > 1:
        ax.legend(fontsize=8)
    return fig


@japanese
def change_figure(changes: pd.DataFrame, names: dict | None = None, title: str = "") -> Figure:
    """Paired change per army (and the first player, draws) with 95% intervals, in points."""
    rows = changes.reset_index(drop=True)
    labels = [(_label(r["army"], names) if r["kind"] == "army" else r["item"])
              for _, r in rows.iterrows()]
    y = np.arange(len(rows))[::-1]
    v = rows["change"].to_numpy(float) * 100
    lo, hi = rows["change_lo"].to_numpy(float) * 100, rows["change_hi"].to_numpy(float) * 100
    excl = (lo > 0) | (hi < 0)
    thin = rows["thin"].to_numpy(bool) if "thin" in rows else np.zeros(len(rows), bool)
    fig = Figure(figsize=(7, 0.42 * len(rows) + 1.5), layout="constrained")
    ax = fig.add_subplot()
    bars = ax.barh(y, v, height=0.6, color=[GREY if t or not e else (RED if c < 0 else BLUE)
                                            for c, e, t in zip(v, excl, thin)])
    for bar, t in zip(bars, thin):
        if t:
            bar.set_hatch("///")
            bar.set_edgecolor("white")
    ax.errorbar(v, y, xerr=np.vstack([v - lo, hi - v]), fmt="none", ecolor=DARK, capsize=3)
    ax.axvline(0, color=DARK, lw=0.8)
    ax.set_yticks(y, labels)
    ax.set_xlabel("change in score, percentage points (paired deals, 95% CI)")
    ax.set_title(title or "ルール変更の効果 — variant change")
    return fig


@japanese
def forest_figure(ct: pd.DataFrame, names: dict | None = None, title: str = "",
                  ncols: int = 3) -> Figure:
    """IWD per card with its 95% interval, one panel per army; the army's baseline dashed,
    BH-flagged cards coloured, thin cards grey."""
    armies = army_order(pd.unique(ct["army"]))
    ncols = min(ncols, len(armies)) or 1
    nrows = int(np.ceil(len(armies) / ncols))
    per = ct.groupby("army").size().max() if len(ct) else 1
    fig = Figure(figsize=(4.6 * ncols, 0.27 * per * nrows + 1.2 * nrows + 0.6),
                 layout="constrained")
    for i, army in enumerate(armies):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        part = ct[ct["army"] == army].sort_values("iwd", na_position="first")
        y = np.arange(len(part))
        v = part["iwd"].to_numpy(float) * 100
        lo, hi = part["iwd_lo"].to_numpy(float) * 100, part["iwd_hi"].to_numpy(float) * 100
        for yy, vv, l_, h_, thin_, flag in zip(y, v, lo, hi, part["thin"], part["iwd_flag"]):
            color = GREY if thin_ else ((BLUE if vv > 0 else RED) if flag else DARK)
            ax.plot([l_, h_], [yy, yy], color=color, lw=1.2)
            ax.plot([vv], [yy], "o", color=color, ms=4)
        base = part["iwd_base"].dropna()
        if len(base):
            ax.axvline(float(base.iloc[0]) * 100, color=BLUE, lw=0.8, ls="--")
        ax.axvline(0, color=DARK, lw=0.6)
        ax.set_yticks(y, part["card"].tolist(), fontsize=8)
        ax.set_title(_label(army, names), fontsize=10)
        ax.set_xlabel("IWD, points", fontsize=8)
    fig.suptitle(title or "カード — improvement when drawn (GIH − GNS win rate, 95% CI; "
                 "dashed: army baseline)")
    return fig
