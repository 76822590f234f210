"""Which bot tier a design answer was measured at, and the advice a command gives about it.

Owns the one-line note that ``lab value``, ``lab swap`` and ``lab balance`` print when they measure
at a tier weaker than the one the README advises for balance work (for ``lab balance``: when no
strong tier judges its proposals) ("Which bot tier for balance
work": the armies' order under the plain heuristic agrees with the search's far less than the
tuned heuristic's does, so a conclusion drawn there may not hold for stronger play), and the
short names by which a designer picks a tier (``tuned``, ``heuristic``, ``search(400)``). It
only reads bot specs (a tier's ``a`` and ``b``, each with ``kind``, ``params``, ``label`` and
``short``): it plays nothing and prints nothing itself.
"""

from __future__ import annotations

from collections.abc import Iterable

ADVICE = 'the README\'s "Which bot tier for balance work" table'
PLAIN = "balanced"  # the heuristic's default persona: the "plain heuristic" of the README


def weak(bot) -> bool:
    """The random bot, or the plain heuristic (its default persona, no parameter changed)."""
    if bot.kind == "random":
        return True
    return bot.kind == "heuristic" and dict(bot.params) in ({}, {"persona": PLAIN})


STRONG_KINDS = ("strong", "search", "expert")  # the tiers that may judge a balance proposal


def strong(bot) -> bool:
    """A strong player: the distilled strong bot, or a search (search, expert)."""
    return bot.kind in STRONG_KINDS


def weak_tier_note(tiers: Iterable) -> str | None:
    """The line to print when any of ``tiers`` (each with ``label``, ``a`` and ``b``) seats a weak bot
    (``weak``), else None — for every design command that measures at a config's tiers."""
    labels = [t.label for t in tiers if weak(t.a) or weak(t.b)]
    if not labels:
        return None
    names = ", ".join(labels)
    return (
        f"{names}: conclusions at {'this tier' if len(labels) == 1 else 'these tiers'} may "
        f"not hold for stronger play — {ADVICE} advises tuned (bots = \"tuned\"), "
        "confirmed at the search tier"
    )


def balance_note(tiers, strong_cost: float) -> str | None:
    """The line ``lab balance`` prints: none when a strong tier (the strong bot, or a game worth
    ``strong_cost`` heuristic games or more) judges every proposal; else the weak-tier note, or —
    at the tuned tier alone — that nothing checked the proposals at a strong tier."""
    from lab.design.balance_tiers import tier_cost

    tiers = list(tiers)
    if any(tier_cost(t) >= strong_cost or (strong(t.a) and strong(t.b)) for t in tiers):
        return None
    return weak_tier_note(tiers) or (
        f"{', '.join(t.label for t in tiers)}: no strong tier judges these proposals — "
        f"{ADVICE} advises confirming at a strong tier (--tiers tuned,strong)"
    )


def names(tier) -> set[str]:
    """The names a designer may give a tier by: its label, and — when one bot plays both seats —
    that bot's label and short name (heuristic, tuned, search(400))."""
    out = {tier.label}
    if tier.a == tier.b:
        out |= {tier.a.label, tier.a.short}
    return out


def display(tier) -> str:
    """A tier's name for a narrow table: the short name of the bot playing both seats (tuned,
    search(400)), else the two short names (heuristic-vs-random)."""
    return tier.a.short if tier.a == tier.b else f"{tier.a.short}-vs-{tier.b.short}"
