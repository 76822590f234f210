"""The terminal view of a match as one seat sees it (rules.md R1): the board, the field as a stack
of sets, the legal actions, the graveyards. Rich renderables only; nothing here reads input.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lab.games.daitenka.cards.pool import CardPool
from lab.games.daitenka.cards.vocab import Kind
from lab.games.daitenka.engine.api import Action, Game
from lab.games.daitenka.engine.layout import A_ANSWER, A_LEAD, A_TACTIC
from lab.games.daitenka.engine.text import Step, parse_step
from lab.games.daitenka.play.why import set_strength

SEAT_STYLE = {"A": "green", "B": "magenta", "": "default"}


@dataclass
class PlayedSet:
    seat: str
    cards: tuple[str, ...]
    kurumagakari: bool = False
    fire: bool = False
    note: str = ""  # 奇襲
    beaten: bool = False  # killed by 奇襲, still counted as a play


class FieldTrack:
    """The sets of the open battle in the order they were played (the engine keeps only the top
    set and the cards per side; the stack is rebuilt from the steps)."""

    def __init__(self):
        self.sets: list[PlayedSet] = []

    def after(self, step: Step, game: Game) -> None:
        seat = "AB"[step.seat]
        if step.kind in (A_LEAD, A_ANSWER):
            if step.kind == A_LEAD:
                self.sets = []
            self.sets.append(PlayedSet(seat, step.cards, step.kurumagakari, step.fire))
        elif step.kind == A_TACTIC and step.cards:  # 奇襲 with its unit
            if self.sets:
                self.sets[-1].beaten = True
            self.sets.append(PlayedSet(seat, step.cards, note=step.extra))
        if not game.field()["open"] and not game.is_over:
            self.sets = []

    @property
    def top(self) -> PlayedSet | None:
        return self.sets[-1] if self.sets else None


# ------------------------------------------------------------------------------ card labels


def card_label(pool: CardPool, name: str) -> str:
    """足軽9 stays 足軽9; a warlord shows its strength, 前田利家(8); tactics and castles their kind."""
    card = pool.get(name)
    if card.kind == Kind.TACTIC:
        return f"{name}[軍略]"
    if card.kind == Kind.CASTLE:
        return f"{name}[城]"
    label = card.strength_label
    return name if name.endswith(label) else f"{name}({label})"


def _sort_key(pool: CardPool, name: str):
    card = pool.get(name)
    order = {Kind.TACTIC: 1, Kind.CASTLE: 2}.get(card.kind, 0)
    return (order, card.strength, card.index)


def cards_text(pool: CardPool, counts: dict[str, int] | list[str], empty: str = "—") -> str:
    if isinstance(counts, list):
        d: dict[str, int] = {}
        for n in counts:
            d[n] = d.get(n, 0) + 1
        counts = d
    if not counts:
        return empty
    names = sorted(counts, key=lambda n: _sort_key(pool, n))
    return "  ".join(
        card_label(pool, n) + (f"×{counts[n]}" if counts[n] > 1 else "") for n in names
    )


def walls_bar(game: Game, seat: str) -> Text:
    n = game.zone(seat, "wall_count")
    castle = game.zone(seat, "castle")
    most = game.rules.walls
    stacked = n - (1 if castle else 0)
    t = Text()
    if castle:
        t.append("◆", style="bold yellow")
    t.append("■" * stacked, style="bold")
    t.append("□" * max(0, most - n), style="dim")
    t.append(f" {n}/{most}")
    return t


# ------------------------------------------------------------------------------ the board


def seat_block(game: Game, seat: str, viewer: str, title: str, pool: CardPool) -> Table:
    obs = game.observation(viewer)["players"][seat]
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(overflow="fold")
    head = Text(title, style=f"bold {SEAT_STYLE[seat]}")
    head.append(f"   hand {obs['hand_count']} · deck {obs['deck_count']}", style="default")
    grid.add_row(Text(seat, style=f"bold {SEAT_STYLE[seat]}"), head)
    walls = walls_bar(game, seat)
    if obs["castle"]:
        walls.append(
            f"   本拠地 {obs['castle']}"
            + ("（不焼: 一度持ちこたえた）" if obs["castle_damaged"] else "")
        )
    grid.add_row("城壁 walls", walls)
    grid.add_row(
        "陣 camp",
        Text(
            "表 " + cards_text(pool, obs["camp_up"]) + "   裏 " + cards_text(pool, obs["camp_down"])
        ),
    )
    if game.rules.logistics or obs["logistics"]:
        grid.add_row(
            "兵站", Text(f"{len(obs['logistics'])}: " + ("・".join(obs["logistics"]) or "—"))
        )
    grave = sum(obs["graveyard"].values())
    grid.add_row("討死", Text(f"{grave} card(s)" + ("  (type g to list)" if grave else "")))
    if seat == viewer:
        grid.add_row("手札 hand", Text(cards_text(pool, obs["hand"]), style="bold"))
    elif obs.get("known_hand"):
        grid.add_row("known", Text("in hand for sure: " + cards_text(pool, obs["known_hand"])))
    return grid


def field_block(game: Game, track: FieldTrack, pool: CardPool) -> RenderableType:
    f = game.field()
    if not f["open"] and not (game.is_over and f["top"]):
        return Text("場 field: empty — the next leader leads", style="dim")
    head = Text(
        f"場 field — sets played this battle: A {f['plays']['A']} · B {f['plays']['B']}",
        style="bold",
    )
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", justify="right")
    grid.add_column(no_wrap=True)
    grid.add_column()
    sets = track.sets or [PlayedSet(f["top_owner"], tuple(f["top"]), f["top_kurumagakari"])]
    for k, ps in enumerate(sets):
        verb = "出陣" if k == 0 else ("奇襲" if ps.note else "応戦")
        body = Text(
            "・".join(card_label(pool, c) for c in ps.cards),
            style="strike dim" if ps.beaten else "bold",
        )
        strength = set_strength(pool, ps.cards)
        if strength:
            body.append(f" [{strength}]", style="cyan")
        if ps.kurumagakari:
            body.append(" +車懸り")
        if ps.fire:
            body.append(" 鉄砲")
        if ps.beaten:
            body.append("  (討たれた)", style="dim")
        if k == len(sets) - 1:
            body.append("   ◀ top", style="yellow")
        grid.add_row(str(k + 1), Text(f"{ps.seat} {verb}", style=SEAT_STYLE.get(ps.seat, "")), body)
    return Group(head, grid)


def board(
    game: Game,
    viewer: str,
    titles: dict[str, str],
    track: FieldTrack,
    pool: CardPool,
    header: str,
    lang: str = "ja",
) -> Panel:
    other = "B" if viewer == "A" else "A"
    body = Group(
        seat_block(game, other, viewer, titles[other], pool),
        Text(""),
        field_block(game, track, pool),
        Text(""),
        seat_block(game, viewer, viewer, titles[viewer], pool),
    )
    turn = game.view.turns
    if lang == "en":
        when = f"leader turn {turn} (第{turn}手番)" if turn else "set-up (配り)"
    else:
        when = f"第{turn}手番" if turn else "set-up 配り"
    return Panel(body, title=f"{when} · {header}", title_align="left", expand=False)


def decision_line(game: Game, viewer: str, pool: CardPool | None = None) -> Text:
    """Whose decision it is, and what kind (with the strength of the set to answer)."""
    me = game.to_move == viewer
    who = "your" if me else f"{game.to_move}'s"
    if game.in_mulligan:
        what = "mulligan (redraw the opening hand once) or keep"
    elif game.field()["open"]:
        f = game.field()
        top = "・".join(f["top"])
        strength = set_strength(pool, f["top"]) if pool is not None else ""
        top += f" [{strength}]" if strength else ""
        what = f"response (応戦) to {f['top_owner']}'s {top}: answer, a tactic, 籠城 or pass"
    else:
        what = "leader turn (先手): lead a set, or another leader action"
    return Text(f"{who} decision — {what}", style="bold " + ("green" if me else "magenta"))


def actions_view(actions: list[Action], pool: CardPool | None = None) -> RenderableType:
    """The legal actions numbered; a lead or an answer with its set's strength."""
    items = []
    for k, a in enumerate(actions):
        item = Text.assemble((f"{k + 1:>2} ", "bold cyan"), a.text)
        step = parse_step(a.text)
        if pool is not None and step.kind in (A_LEAD, A_ANSWER):
            strength = set_strength(pool, step.cards)
            if strength:
                item.append(f" [{strength}]", style="cyan")
        items.append(item)
    if len(items) <= 8:
        return Group(*items)
    return Columns(items, padding=(0, 3), column_first=True)


def graveyards_view(game: Game, pool: CardPool) -> Table:
    t = Table(title="討死 graveyards", title_justify="left", show_header=True)
    t.add_column("seat")
    t.add_column("cards")
    for seat in "AB":
        t.add_row(seat, cards_text(pool, game.zone(seat, "graveyard")))
    return t
