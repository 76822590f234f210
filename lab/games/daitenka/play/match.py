"""One match of `lab play` as a thing that can be stepped: set up from ``PlaySettings``, the bot's
moves, the human's steps, and the record kept as the match goes — shared by the terminal session
(``lab.games.daitenka.play.session``) and the web page (``lab.serve``), so both set up and record a match alike.

Owns the set-up conventions (a fresh seed when none is given, the bot's army chosen by the seed,
the bot's own random stream from the seed) and the bookkeeping after every step (the position
after set-up, the replay's steps, the field as a stack of sets). It shows nothing and reads no
input; the human's seat is ``human`` ("A" in the terminal).
"""

from __future__ import annotations

import numpy as np

from lab.games.daitenka.bots.play import BotPlayer
from lab.games.daitenka.cards.pool import CardPool, load_army
from lab.games.daitenka.engine.api import Action, Game
from lab.games.daitenka.engine.text import parse_step
from lab.games.daitenka.play.narrate import Narrator
from lab.games.daitenka.play.options import PlaySettings, bot_text, fresh_seed, pick_vs
from lab.games.daitenka.play.record import MatchRecord, start_position
from lab.games.daitenka.play.view import FieldTrack

BOT_STREAM = 0xB07  # the bot's random stream: default_rng([seed, BOT_STREAM])


class Match:
    """A match between the human (seat ``human``) and a bot: the game, its record, the bot,
    what the human has been told (``narrator``) and the field's stack of sets (``track``)."""

    def __init__(self, st: PlaySettings, pool: CardPool, human: str = "A", lang: str = "ja"):
        self.settings = st
        self.human = human
        self.bot_seat = "B" if human == "A" else "A"
        self.seed = st.seed if st.seed is not None else fresh_seed()
        mine = load_army(st.army, pool)
        theirs = load_army(st.vs or pick_vs(mine, self.seed), pool)
        decks = {human: mine, self.bot_seat: theirs}
        self.game = Game(st.rules, decks["A"], decks["B"], seed=self.seed, log=True, pool=pool)
        self.rec = MatchRecord(
            st.rules,
            st.preset,
            {"A": decks["A"], "B": decks["B"]},
            self.seed,
            {human: "human", self.bot_seat: "bot"},
            bot_text(st.bot),
        )
        self.rec.begin(self.game)
        self.bot = BotPlayer(st.bot, np.random.default_rng([self.seed, BOT_STREAM]))
        self.narrator = Narrator(self.game, human, lang)  # the narration's language: ja or en
        self.track = FieldTrack()

    @property
    def human_to_move(self) -> bool:
        return not self.game.is_over and self.game.to_move == self.human

    def decision(self) -> list[Action]:
        """The legal actions of the seat to move (a due leader turn begins here); the first
        time a leader turn is due, the position after set-up is kept for the scenario."""
        game, rec = self.game, self.rec
        if rec.start is None and game.leader_turn_due:
            rec.start, rec.first = start_position(game), game.to_move
        return game.legal_actions()

    def bot_move(self) -> str:
        """The bot decides and its step is applied; returns the step's text (not yet recorded:
        ``record`` it)."""
        action = self.bot.choose(self.game)
        self.game.step(action)
        return action.text

    def record(self, seat: str, text: str) -> None:
        """A step just applied by ``seat``: into the replay, and onto the field's stack."""
        self.rec.add(seat, "human" if seat == self.human else "bot", text, self.game)
        self.track.after(parse_step(text), self.game)

    def bots_until_human(self) -> list[Action]:
        """The bot plays until the human is to move (their legal actions) or the game is over
        (``[]``)."""
        while not self.game.is_over:
            legal = self.decision()
            if self.game.to_move == self.human:
                return legal
            seat = self.game.to_move
            self.record(seat, self.bot_move())
        return []


__all__ = ["Match", "BOT_STREAM"]
