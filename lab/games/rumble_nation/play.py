"""`lab play --game rumble_nation`: Rumble Nation in the terminal against bots, then again.

The human takes one seat (P1 by default), bots the others. Each human decision shows the board
(every area with its token, soldiers, reinforcements and who took it), the dice and the legal
decisions numbered and in the step grammar of docs/rumble_nation.md; either may be typed, or
``board``, ``help``, ``quit``. The bots' rolls and placements are narrated one line each, the war
phase area by area (RN4). Every match, finished or abandoned (quit, end of input, Ctrl-C), is
saved as a replay file (``record``) that `lab replay FILE` shows, as 大天下's are. Input comes
from ``ask`` (``console.input`` by default), so a test can pipe it; end of input and Ctrl-C leave
cleanly. Nothing here holds a rule: the game is the package's facade, the bots its compiled
``choose``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from lab import writable
from lab.errors import LabError
from lab.games.rumble_nation import nb_bots
from lab.games.rumble_nation.record import RNRecord
from lab.games.rumble_nation.batch import Buffers, RNBot, parse_bot
from lab.games.rumble_nation.game import IllegalAction, new_game, seed_words
from lab.games.rumble_nation.rules import DEFAULT, RNRules

EXIT_INTERRUPTED = 130
DEFAULT_REPLAY_DIR = Path("results/replays")
HELP = (
    "Type the number of a decision, or the decision itself: `place 7 with 5` (the pair's "
    "sum and the single die), `place 7 with 5 +daimyo`, `reroll`. Also: board, help, quit "
    "(save the replay and leave)."
)


@dataclass(frozen=True)
class Settings:
    rules: RNRules
    bot: RNBot = RNBot("heuristic")
    seat: int = 0  # the human's seat, 0-based
    seed: int | None = None


class Leave(Exception):
    def __init__(self, code: int, why: str = "quit"):
        self.code = code
        self.why = why


class Session:
    def __init__(
        self,
        settings: Settings,
        console: Console | None = None,
        ask: Callable[[str], str] | None = None,
        replay_dir: Path = DEFAULT_REPLAY_DIR,
    ):
        if not 0 <= settings.seat < settings.rules.players:
            raise LabError(
                f"--seat P{settings.seat + 1} is not a seat of {settings.rules.id}; "
                f"allowed values: P1–P{settings.rules.players}"
            )
        self.st = settings
        self.console = console or Console()
        self.ask = ask or (lambda prompt: self.console.input(Text(prompt)))
        self.replay_dir = Path(replay_dir)
        self.replays: list[Path] = []
        self.b = Buffers()
        self.bot_row = settings.bot.pack()

    def run(self) -> int:
        writable.check_folder(self.replay_dir, "--replay-dir")  # before the first match
        try:
            while True:
                self.play_match()
                answer = self.ask("Enter: play again (a new deal) · q: leave > ").strip()
                if answer.lower() in ("q", "quit", "exit"):
                    return 0
        except Leave as e:
            return e.code
        except EOFError:
            self.console.print("\nend of input; bye")
            return 0
        except KeyboardInterrupt:
            self.console.print("\ninterrupted; bye")
            return EXIT_INTERRUPTED

    # ------------------------------------------------------------------ one match
    def play_match(self) -> None:
        """One match, saved as a replay file when it ends — or when the player leaves it
        (quit, end of input, Ctrl-C: saved as abandoned, then the session ends)."""
        seed, g = new_match(self.st)
        me = g.seats[self.st.seat]
        rec = RNRecord(
            self.st.rules,
            seed,
            {s: "human" if s == me else "bot" for s in g.seats},
            self.st.bot.label,
        )
        try:
            self._play(g, me, seed)
        except (Leave, EOFError, KeyboardInterrupt) as e:
            rec.close(g, "abandoned")
            self.save(rec)
            self.console.print(
                Text(f"match abandoned after {len(g.history)} step(s)", style="yellow")
            )
            if isinstance(e, KeyboardInterrupt):
                raise Leave(EXIT_INTERRUPTED, "interrupted") from None
            if isinstance(e, EOFError):
                raise Leave(0, "end of input") from None
            raise
        rec.close(g, "finished")
        self.save(rec)

    def save(self, rec: RNRecord) -> None:
        try:
            path = rec.save(self.replay_dir)
        except OSError as e:
            self.console.print(
                Text(
                    f"error: could not save the replay in {self.replay_dir}: {e.strerror}",
                    style="bold red",
                )
            )
            return
        self.replays.append(path)
        self.console.print(
            Text(f"replay saved: {path}  (show it: lab replay {path})", style="cyan"),
            soft_wrap=True,
        )

    def _play(self, g, me: str, seed: int) -> None:
        self.console.print(
            Text(
                f"Rumble Nation — {self.st.rules.id}, seed {seed}: you are {me}, "
                f"bots ({self.st.bot.label}) play "
                f"{', '.join(s for s in g.seats if s != me)}; {g.to_move} "
                "starts",
                style="bold",
            ),
            soft_wrap=True,
        )
        seen = 0
        while not g.is_over:
            legal = g.legal_actions()  # rolls the dice when they are due
            if g.to_move == me:
                seen = self.narrate(g, seen, skip_own_roll=True)
                self.show(g)
                self.human(g, legal)
            else:
                bot_step(g, legal, self.bot_row, self.b)
            seen = self.narrate(g, seen, skip_own_roll=False, me=me)
        self.console.print(Text("war phase (RN4), in token order:", style="bold"))
        for line in g.war_lines():
            self.console.print("  " + line, soft_wrap=True)
        r = g.result()
        scores = ", ".join(f"{s} {v}" for s, v in r["scores"].items())
        verdict = "you win" if r["winner"] == me else f"{r['winner']} wins"
        self.console.print(Text(f"result: {verdict} — {scores}", style="bold"), soft_wrap=True)

    def narrate(self, g, seen: int, skip_own_roll: bool, me: str | None = None) -> int:
        lines = g.history[seen:]
        for line in lines:
            if me is not None and line.startswith(me + " ") and " roll " not in line:
                continue  # the human's own decision is already on screen
            self.console.print("  " + line, soft_wrap=True)
        return len(g.history)

    def show(self, g) -> None:
        obs = g.observation(self.st.seat)
        t = Table(title=None, show_edge=False, pad_edge=False)
        for c in ("token", "area", "soldiers", "reinforcements", "adjacent"):
            t.add_column(c, justify="right" if c == "token" else "left")
        for a in obs["areas"]:
            men = " ".join(f"{k}:{v}" for k, v in a["soldiers"].items())
            if a["daimyo"]:
                men += " (daimyo " + ",".join(a["daimyo"]) + ")"
            reinf = " ".join(f"{k}:{v}" for k, v in a["reinforcements"].items())
            t.add_row(
                str(a["token"]),
                a["area"],
                men or "·",
                reinf or "·",
                ",".join(map(str, a["adjacent"])),
            )
        self.console.print(t)
        stocks = "; ".join(
            f"{k} stock {v['stock']}" + (f", chip {v['chip']}" if v["chip"] else "")
            for k, v in obs["seats"].items()
        )
        self.console.print(stocks, soft_wrap=True)

    def human(self, g, legal) -> None:
        d = g.dice
        self.console.print(Text(f"{g.to_move}, your dice: {d[0]} {d[1]} {d[2]}", style="bold"))
        for i, a in enumerate(legal, 1):
            self.console.print(f"  {i:>2}. {a.label}", soft_wrap=True)
        while True:
            try:
                typed = self.ask(f"{g.to_move} > ").strip()
            except KeyboardInterrupt:
                raise Leave(EXIT_INTERRUPTED) from None
            if typed.lower() in ("q", "quit", "exit"):
                raise Leave(0)
            if typed.lower() in ("help", "h", "?"):
                self.console.print(HELP, soft_wrap=True)
                continue
            if typed.lower() == "board":
                self.show(g)
                continue
            if typed.isdigit() and 1 <= int(typed) <= len(legal):
                g.step(legal[int(typed) - 1])
                return
            text = typed if typed.startswith(g.to_move + " ") else f"{g.to_move} {typed}"
            try:
                g.step(text)
                return
            except (IllegalAction, LabError) as e:
                self.console.print(Text(f"not a legal decision: {e}", style="red"), soft_wrap=True)


def new_match(st: Settings):
    """(seed, game) of a new match: the settings' seed, or a fresh one."""
    seed = st.seed if st.seed is not None else secrets.randbits(63)
    return seed, new_game(st.rules, seed_words(seed))


def bot_step(g, legal, bot_row, b: Buffers) -> None:
    """The bot in the seat to move takes its decision among ``legal`` (the compiled policy of
    the batch runs, drawing on the game's own bot stream) and the game steps."""
    k = nb_bots.choose(g.s, g.c, g._acts, len(legal), bot_row, b.wf, b.ts, b.tot, b.pacts)
    g.step(legal[int(k)])


def settings(
    players: int | None, preset: str | None, toggles: dict, bot: str, seat: str, seed: int | None
) -> Settings:
    """The session's settings from the command line's words (one-line errors)."""
    name = preset or (f"base_{players}p" if players in (2, 3, 4) else DEFAULT)
    rules = RNRules.preset(name).with_overrides(toggles or {}, source="--set")
    if players is not None and rules.players != players:
        rules = rules.with_overrides({"players": players})
    s = seat.upper().removeprefix("P")
    if not s.isdigit():
        raise LabError(f"--seat {seat!r} is not allowed; allowed values: P1–P{rules.players}")
    spec = parse_bot(bot if not bot.startswith("{") else bot, source="--bot")
    return replace(Settings(rules), bot=spec, seat=int(s) - 1, seed=seed)
