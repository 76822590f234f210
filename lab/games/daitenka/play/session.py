"""`lab play`: one match against a bot in the terminal, then again with the same or changed
settings, without leaving the program.

The human plays seat A with ``settings.army``, the bot seat B. Each human decision shows the
board as seat A may see it (rules.md R1), the legal actions numbered and in the step grammar;
either may be typed, or a command (help, g, log, rules, info CARD, board, quit). Everything that
happened since — the bot's moves and every automatic event — is narrated one line each, in
Japanese or (``lang="en"``) English with the card names as printed. A step the engine refuses
is answered with the reason (``lab.games.daitenka.play.why``); sets show their strength.
Every match, finished or abandoned, is saved as a replay file; ``save_scenario`` also writes the
session's matches as a scenario file. Input comes from ``ask`` (``console.input`` by default) so
tests can drive the loop; Ctrl-C and end of input save and leave cleanly.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Callable

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from lab.games.daitenka.cards.pool import CardPool, load_pool
from lab.games.daitenka.cards.vocab import KIND_LABELS
from lab.games.daitenka.engine.api import Action, Game, IllegalAction
from lab.games.daitenka.engine.text import KINDS, StepSyntaxError, parse_step, step_text
from lab import writable
from lab.errors import LabError, closest
from lab.games.daitenka.play.match import Match
from lab.games.daitenka.play.narrate import Line
from lab.games.daitenka.play.options import SESSION_KEYS, PlaySettings, bot_text
from lab.schema.base import parse_assignments
from lab.games.daitenka.play.record import MatchRecord, check_scenario_path, write_scenarios
from lab.games.daitenka.play.view import (
    SEAT_STYLE,
    FieldTrack,
    actions_view,
    board,
    decision_line,
    graveyards_view,
)
from lab.games.daitenka.play.why import explain
from lab.games.daitenka.rules import CHOICES, DESCRIPTIONS, PRESETS, RANGES, RuleSet

HUMAN, BOT = "A", "B"
DEFAULT_REPLAY_DIR = Path("results/replays")
EXIT_INTERRUPTED = 130  # the shell's code for Ctrl-C

END_WORDS = {
    "castle_fell": "落城 (castle fell)",
    "exhaustion": "兵の尽き (no units left; judged on walls)",
    "stalemate": "手詰まり (stalemate; judged on walls)",
    "turn_limit": "手数上限 (turn limit; judged on walls)",
}

COMMANDS_HELP = """\
Type the number of an action, or the action itself in the step grammar — the seat may be left
out: `lead 足軽3,足軽3`, `answer 足軽5 +車懸り`, `answer 鉄砲足軽 fire`, `tactic 奇襲 足軽4`, `pass`,
`miokuri`, `build 姫路城`, `siege 岐阜城`, `return 足軽6`. Cards of a set may be listed in any order;
the order typed is kept (it orders the on-win effects, rules.md R6).
Commands: help · g (graveyards) · log (this match's events so far) · board · rules ·
info CARD (a card's abilities) · quit (save the replay and leave; Ctrl-C and Ctrl-D do the same)."""


class Leave(Exception):
    """End the session (quit, end of input, Ctrl-C) with an exit code."""

    def __init__(self, code: int, why: str):
        super().__init__(why)
        self.code = code
        self.why = why


class _Quit(Exception):
    pass


class PlaySession:
    def __init__(
        self,
        settings: PlaySettings,
        replay_dir: Path = DEFAULT_REPLAY_DIR,
        save_scenario: Path | None = None,
        console: Console | None = None,
        ask: Callable[[str], str] | None = None,
        pool: CardPool | None = None,
        lang: str = "ja",
    ):
        self.settings = settings
        self.lang = (
            lang  # the narration's language: ja or en (lab.games.daitenka.engine.text.LANGS)
        )
        self.replay_dir = Path(replay_dir)
        self.save_scenario = Path(save_scenario) if save_scenario else None
        self.console = console or Console(highlight=False)
        self.ask = ask or (lambda prompt: self.console.input(Text(prompt)))
        self.pool = pool or load_pool()
        self.records: list[MatchRecord] = []  # every match of the session, in order
        self.replays: list[Path] = []
        self.game: Game | None = None  # the match being played (tests look at it)
        self.transcript: list[Line] = []
        self.matches = 0

    # ---------------------------------------------------------------------- session
    def check(self) -> None:
        """Fail before the first match (one-line LabError) on bad settings or paths."""
        self.settings.check()
        check_outputs(self.replay_dir, self.save_scenario)

    def run(self) -> int:
        """Play matches until the player leaves; the exit code (0, or 130 after Ctrl-C)."""
        self.check()
        settings = self.settings
        try:
            while True:
                self.play_match(settings)
                settings = self.again(settings)
                if settings is None:
                    self.console.print("Goodbye.")
                    return 0
                self.settings = settings
        except KeyboardInterrupt:  # between prompts (the matches catch their own)
            self.console.print()
            self.console.print(Text("Left the session: interrupted (Ctrl-C).", style="bold"))
            return EXIT_INTERRUPTED
        except Leave as e:
            self.console.print(Text(f"Left the session: {e.why}.", style="bold"))
            return e.code

    # ---------------------------------------------------------------------- one match
    def play_match(self, st: PlaySettings) -> MatchRecord:
        m = Match(st, self.pool, HUMAN, self.lang)
        game, rec, bot, narrator, track = m.game, m.rec, m.bot, m.narrator, m.track
        deck_a, deck_b = rec.decks["A"], rec.decks["B"]
        self.records.append(rec)
        self.game, self.transcript, self.matches = game, [], self.matches + 1
        self.titles = {
            "A": f"{deck_a.name} ({deck_a.key}) — you",
            "B": f"{deck_b.name} ({deck_b.key}) — bot {bot.spec.label}",
        }
        self.header = f"{rec.rules.id} · seed {rec.seed}"
        self.intro(rec, st)
        leave: Leave | None = None
        try:
            while not game.is_over:
                legal = m.decision()
                self.narrate(narrator.take())
                seat = game.to_move
                if seat == HUMAN:
                    text = self.human_decision(game, legal, track)
                else:
                    if bot.spec.kind == "search":
                        self.console.print(Text(f"{BOT} is thinking…", style="dim"))
                    text = m.bot_move()
                m.record(seat, text)
            self.narrate(narrator.take())
        except _Quit:
            leave = Leave(0, "quit")
        except EOFError:
            leave = Leave(0, "end of input")
        except KeyboardInterrupt:
            leave = Leave(EXIT_INTERRUPTED, "interrupted (Ctrl-C)")
        except BaseException:  # a bug: keep what was played, then let it surface
            rec.close(game, "abandoned")
            self.save(rec)
            raise
        if leave is not None:
            if leave.why != "quit":
                self.console.print()  # the prompt line is still open after ^C or ^D
            rec.close(game, "abandoned")
            self.save(rec)
            self.console.print(
                Text(f"Match abandoned after {len(rec.steps)} step(s).", style="yellow")
            )
            raise leave
        rec.close(game, "finished")
        self.console.print(
            board(game, HUMAN, self.titles, track, self.pool, self.header, self.lang)
        )
        self.show_result(game, rec, track)
        self.save(rec)
        return rec

    def intro(self, rec: MatchRecord, st: PlaySettings) -> None:
        a, b = rec.decks["A"], rec.decks["B"]
        self.console.print(Rule(f"match {self.matches}"))
        changed = ", ".join(f"{k}={v}" for k, v in st.overrides)
        self.console.print(
            Text.assemble(
                ("you ", "bold"),
                (f"A {a.name} ({a.key})", SEAT_STYLE["A"]),
                " vs ",
                (f"B {b.name} ({b.key})", SEAT_STYLE["B"]),
                f", bot {rec.bot} · rules {st.preset}",
                (f" + {changed}" if changed else ""),
                f" · seed {rec.seed}",
            ),
            soft_wrap=True,
        )
        self.console.print(Text("Type a number or a step; `help` lists the commands.", style="dim"))

    # ---------------------------------------------------------------------- narration
    def narrate(self, lines: list[Line]) -> None:
        for line in lines:
            self.transcript.append(line)
            self.console.print(self._line(line), soft_wrap=True)

    @staticmethod
    def _line(line: Line) -> Text:
        if line.kind == "turn":
            return Text(line.text, style="bold")
        if line.kind == "end":
            return Text(line.text, style="bold yellow")
        return Text("  " + line.text, style=SEAT_STYLE[line.seat])

    # ---------------------------------------------------------------------- the human's turn
    def show_board(self, game: Game, legal: list[Action], track: FieldTrack) -> None:
        self.console.print(
            board(game, HUMAN, self.titles, track, self.pool, self.header, self.lang)
        )
        self.console.print(decision_line(game, HUMAN, self.pool))
        self.console.print(actions_view(legal, self.pool))

    def human_decision(self, game: Game, legal: list[Action], track: FieldTrack) -> str:
        """Ask until a legal action is given; apply it and return its step text."""
        self.show_board(game, legal, track)
        while True:
            raw = self.ask(f"[{HUMAN}] > ")
            text = " ".join(str(raw).split())
            low = text.lower()
            word = low.split(" ", 1)[0] if low else ""
            if not text:
                self.console.print(Text(f"Type 1–{len(legal)}, a step, or help.", style="dim"))
            elif low in ("help", "h", "?"):
                self.console.print(Text(COMMANDS_HELP), soft_wrap=True)
            elif low in ("quit", "q", "exit"):
                raise _Quit
            elif low in ("g", "grave", "graves", "graveyard"):
                self.console.print(graveyards_view(game, self.pool))
            elif low in ("b", "board"):
                self.show_board(game, legal, track)
            elif low == "log":
                for line in self.transcript:
                    self.console.print(self._line(line), soft_wrap=True)
            elif low == "rules":
                self.console.print(rules_view(game.rules, self.settings.preset))
            elif word in ("info", "i", "card") and " " in text:
                self.card_info(text.split(" ", 1)[1])
            elif text.isdigit():
                k = int(text)
                if 1 <= k <= len(legal):
                    game.step(legal[k - 1])
                    return legal[k - 1].text
                self.refuse(f"there is no action {k}; choose 1–{len(legal)}", legal)
            else:
                done = self.try_step(game, text, legal)
                if done is not None:
                    return done

    def try_step(self, game: Game, text: str, legal: list[Action]) -> str | None:
        parts = text.split(" ")
        if parts[0].upper() in ("A", "B") and len(parts) > 1 and parts[1] in KINDS:
            parts[0] = parts[0].upper()
        elif parts[0].lower() in KINDS:
            parts = [HUMAN, parts[0].lower()] + parts[1:]
        if parts[0] == BOT and len(parts) > 1 and parts[1] in KINDS:
            self.refuse(f"you play seat {HUMAN}; {BOT} is the bot", legal)
            return None
        line = " ".join(parts)
        try:
            step = parse_step(line)
        except StepSyntaxError:
            self.refuse(f"\"{text}\" is not an action number, a step or a command", legal, text)
            return None
        try:
            game.step(line)
        except IllegalAction:
            why = explain(game, line, self.pool, legal)
            shown = f"\"{step_text(step)}\" is not legal now"
            self.refuse(shown if why == "not legal now" else f"{shown}: {why}", legal, text)
            return None
        return step_text(step)

    def refuse(self, why: str, legal: list[Action], typed: str = "") -> None:
        msg = Text("✗ " + why, style="bold red")
        if typed:
            texts = [a.text for a in legal]
            near = closest(typed if typed[:2] in ("A ", "B ") else f"{HUMAN} {typed}", texts)
            if near:
                nums = ", ".join(f"{texts.index(n) + 1} ({n})" for n in near)
                msg.append(f" — did you mean {nums}?", style="red")
        self.console.print(msg, soft_wrap=True)
        self.console.print(
            Text("Legal now (type the number or the step; help for commands):", style="dim")
        )
        self.console.print(actions_view(legal, self.pool))

    def card_info(self, name: str) -> None:
        try:
            card = self.pool.get(name.strip())
        except LabError as e:
            self.console.print(Text(f"✗ {e}", style="red"), soft_wrap=True)
            return
        what = KIND_LABELS[card.kind] + (
            f", strength {card.strength_label}" if card.is_unit else ""
        )
        self.console.print(Text(f"{card.name} — {what}", style="bold"))
        for a in card.abilities:
            self.console.print(f"  〈{a.name}〉 {a.text}", soft_wrap=True)
        if not card.abilities:
            self.console.print("  no ability")

    # ---------------------------------------------------------------------- saving
    def save(self, rec: MatchRecord) -> None:
        try:
            path = rec.save(self.replay_dir)
        except OSError as e:
            self.console.print(
                Text(
                    f"error: could not save the replay in {self.replay_dir}: {e.strerror}",
                    style="bold red",
                )
            )
        else:
            self.replays.append(path)
            self.console.print(
                Text(f"replay saved: {path}  (show it: lab replay {path})", style="cyan"),
                soft_wrap=True,
            )
        if self.save_scenario is not None:
            usable = [r for r in self.records if r.start is not None]
            if not usable:
                self.console.print(
                    Text("no scenario written: no match got past set-up", style="yellow")
                )
                return
            try:
                write_scenarios(self.save_scenario, usable)
            except OSError as e:
                self.console.print(
                    Text(
                        f"error: could not write {self.save_scenario}: {e.strerror}",
                        style="bold red",
                    )
                )
            else:
                n = len(usable)
                self.console.print(
                    Text(
                        f"scenario saved: {self.save_scenario} ({n} match"
                        f"{'es' if n > 1 else ''}; check it: lab scenario "
                        f"{self.save_scenario})",
                        style="cyan",
                    ),
                    soft_wrap=True,
                )

    # ---------------------------------------------------------------------- the end
    def show_result(self, game: Game, rec: MatchRecord, track: FieldTrack) -> None:
        w = game.winner
        if w == HUMAN:
            head, style = "You win", "bold green"
        elif w == BOT:
            head, style = "You lose", "bold red"
        else:
            head, style = "Draw", "bold yellow"
        c = self.console
        c.print(Rule("result"))
        c.print(Text(f"{head} — by {END_WORDS.get(game.end_reason, game.end_reason)}", style=style))
        c.print(f"decided by: {decided_by(game, rec)}", soft_wrap=True)
        yours = sum(1 for _, by, _ in rec.steps if by == "human")
        c.print(
            f"length: {game.view.turns} leader turns · {game.view.battles} "
            f"battles · {game.decisions} decisions ({yours} yours)"
        )
        most = game.rules.walls
        c.print(
            f"walls: A {game.zone('A', 'wall_count')}/{most} · B "
            f"{game.zone('B', 'wall_count')}/{most}   battles won: A "
            f"{game.view.win_recorded('A')} · B {game.view.win_recorded('B')}"
        )

    def again(self, st: PlaySettings) -> PlaySettings | None:
        """The play-again prompt: Enter = same settings, KEY=VALUE … = changed, q = leave."""
        c = self.console
        c.print(
            Text.assemble(
                ("Play again? ", "bold"), "Enter = same settings: ", (settings_line(st), "cyan")
            ),
            soft_wrap=True,
        )
        c.print(
            Text(
                "  or change some first: walls=10 logistics=on … (`toggles` lists them), "
                "army= vs= bot= rules= seed=N|random · q = quit"
            ),
            soft_wrap=True,
        )
        while True:
            try:
                raw = self.ask("again> ")
            except EOFError:
                c.print()
                raise Leave(0, "end of input") from None
            except KeyboardInterrupt:
                c.print()
                raise Leave(EXIT_INTERRUPTED, "interrupted (Ctrl-C)") from None
            text = " ".join(str(raw).split())
            low = text.lower()
            if low in ("", "y", "yes", "same", "again"):
                return st
            if low in ("q", "quit", "n", "no", "exit"):
                return None
            if low in ("toggles", "help", "h", "?", "rules"):
                c.print(rules_view(st.rules, st.preset))
                c.print(
                    Text(
                        "Session keys: army=ARMY, vs=ARMY|random, bot=BOT (as --bot), "
                        f"rules={'|'.join(PRESETS)} (drops the toggles), "
                        "seed=N|random.",
                        style="dim",
                    ),
                    soft_wrap=True,
                )
                continue
            try:
                changes = parse_assignments([text], what="setting")
                new = st.with_toggles(changes)
            except LabError as e:
                c.print(Text(f"error: {e}", style="bold red"), soft_wrap=True)
                c.print(Text("Enter = same settings · KEY=VALUE … · toggles · q", style="dim"))
                continue
            c.print(Text("next match: " + settings_line(new), style="cyan"), soft_wrap=True)
            return new


def check_outputs(replay_dir: Path, save_scenario: Path | None) -> None:
    """The replay folder and the scenario file can be written — asked before the first match,
    so a match is never played into a file that cannot be saved (one-line LabError)."""
    writable.check_folder(replay_dir, "--replay-dir")
    try:
        replay_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise LabError(
            f"--replay-dir {replay_dir}: cannot create the folder ({e.strerror})"
        ) from None
    if save_scenario is not None:
        check_scenario_path(save_scenario)


def settings_line(st: PlaySettings) -> str:
    parts = [
        f"army={st.army}",
        f"vs={st.vs or 'random'}",
        f"bot={bot_text(st.bot)}",
        f"rules={st.preset}",
    ]
    parts += [f"{k}={v}" for k, v in st.overrides]
    parts.append(f"seed={st.seed if st.seed is not None else 'random'}")
    return " ".join(parts)


def rules_view(rules: RuleSet, preset: str) -> Table:
    base = PRESETS[preset]
    t = Table(title=f"rule toggles (preset {preset}; change with KEY=VALUE)", title_justify="left")
    t.add_column("key", no_wrap=True)
    t.add_column("value", no_wrap=True)
    t.add_column("allowed")
    t.add_column("meaning")
    for f in fields(rules):
        v, was = getattr(rules, f.name), getattr(base, f.name)
        shown = ("on" if v else "off") if isinstance(v, bool) else str(v)
        if f.name in CHOICES:
            allowed = " | ".join(CHOICES[f.name])
        elif f.name in RANGES:
            allowed = "{}–{}".format(*RANGES[f.name])
        else:
            allowed = "on | off"
        t.add_row(
            f.name,
            Text(shown, style="bold yellow" if v != was else ""),
            allowed,
            DESCRIPTIONS.get(f.name, ""),
        )
    return t


def decided_by(game: Game, rec: MatchRecord) -> str:
    w = game.winner
    if game.end_reason == "castle_fell" and w in ("A", "B"):
        loser = "B" if w == "A" else "A"
        last = rec.steps[-1] if rec.steps else None
        if last and last[0] == loser and last[2].split()[1] == "miokuri":
            return f"{loser} took its last wall into hand with 見送り"
        f = game.field()
        if f["top"] and f["top_owner"] == w:
            plays = f["plays"][w]
            return (
                f"{w}'s {'・'.join(f['top'])} broke {loser}'s last wall "
                f"({plays} set{'s' if plays != 1 else ''} played in that battle)"
            )
        return f"{loser}'s last wall fell"
    if game.end_reason in ("exhaustion", "stalemate", "turn_limit"):
        return (
            f"judged on walls — A {game.zone('A', 'wall_count')} · B "
            f"{game.zone('B', 'wall_count')}" + (", then logistics" if game.rules.logistics else "")
        )
    return game.summary()


__all__ = [
    "PlaySession",
    "Leave",
    "DEFAULT_REPLAY_DIR",
    "EXIT_INTERRUPTED",
    "HUMAN",
    "BOT",
    "SESSION_KEYS",
]
