"""Design questions above the runner (architecture.md, "Growing it"): commands that *plan*
experiments as card patches on an experiment config — the patches are the game's, asked of its
entry (``GameEntry.card_design()``, ``lab.games.protocol.CardDesign``) — run them through the
experiment runner (``lab.sim.runner``) and *read* their records through the statistics
(``lab.stats``). They never reach into the engine: a patch is data the runner hands to the
context builder, like a rules toggle.

``value`` — ``lab value``: the causal value of every card of every army (ability off, above a
vanilla 足軽), on the same deals as the unchanged decks. ``swap`` — ``lab swap``: one card
replaced by another, measured on paired deals. ``balance`` — ``lab balance``: card edits searched
to bring every army into a band, at several bot tiers.
"""


def card_design(exp):
    """The card edits of the game ``exp`` plays (``GameEntry.card_design()``; a game without
    cards refuses in one line)."""
    from lab.games import get

    return get(exp.game).card_design()
