"""Why a step the player typed is not legal now, in one sentence (rules.md R4–R11), and how strong
a set is — what `lab play` says when the engine refuses a step.

It only explains: it is asked after the engine has refused the step (``Game.step``), reads the
position through the public ``Game`` API and the card pool, and never decides legality itself.
It names the first reason it can see — a leader-turn action in a response turn, a card the
player does not hold, a set of the wrong shape, an answer of the wrong size or strength, a
logistics limit, a tactic against the wrong set — and says only "not legal now" when it finds
none (the engine's rules are the authority; a reason here that the engine does not share would
be a bug, which the tests look for).
"""

from __future__ import annotations

from collections import Counter

from lab.games.daitenka.cards.pool import Card, CardPool
from lab.games.daitenka.cards.vocab import INF, Effect, Kind
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.api import Action, Game
from lab.games.daitenka.engine.text import VERBS, Step, parse_step
from lab.errors import LabError

LEADER_ONLY = (L.A_LEAD, L.A_MIOKURI, L.A_BUILD, L.A_RETURN, L.A_LOGISTICS, L.A_FORTIFY)
RESPONSE_ONLY = (L.A_ANSWER, L.A_PASS, L.A_SIEGE, L.A_TACTIC)
INF_AS_LOGISTICS = 10  # an ∞ needs 10 logistics (R5)
# tactics by the ability they carry (cards.toml): what each answers (R9)
TACTIC_TARGETS = {
    "koroshima": "a set of 3 or more units",
    "kishuu": "a numbered single",
    "shingari": "a set of 2 or more units",
    "kakei": "a set of 2 or more units",
    "hyourouzeme": "a single unit (∞ too)",
}


def strength_text(card: Card) -> str:
    return "∞" if card.strength == INF else str(card.strength)


def set_strength(pool: CardPool, names) -> str:
    """A set's shape and strength as a player compares them: "9", "2×9", "run 7–9", "∞"."""
    try:
        cards = [pool.get(n) for n in names]
    except LabError:
        return ""
    units = [c for c in cards if c.is_unit]
    if not units or len(units) != len(cards):
        return ""
    values = sorted(c.strength for c in units)
    if len(set(values)) == 1:
        s = strength_text(units[0])
        return s if len(units) == 1 else f"{len(units)}×{s}"
    return f"run {values[0]}–{values[-1]}"


def explain(game: Game, text: str, pool: CardPool, legal: list[Action] | None = None) -> str:
    """Why ``text`` (a step the engine refused) is not legal in ``game`` now."""
    try:
        step = parse_step(text)
    except Exception:  # noqa: BLE001 — the caller reports syntax errors itself
        return "not legal now"
    legal = legal if legal is not None else game.legal_actions()
    for check in (
        _known,
        _turn,
        _held,
        _set_shape,
        _answer,
        _logistics,
        _tactic,
        _leader_actions,
        _flags,
    ):
        why = check(game, step, pool, legal)
        if why:
            return why
    return "not legal now"


# ------------------------------------------------------------------------------ the reasons


def _seat(step: Step) -> str:
    return "AB"[step.seat]


def _top(game: Game, pool: CardPool) -> list[Card]:
    return [pool.get(n) for n in game.field()["top"]]


def _turn(game: Game, step: Step, pool: CardPool, legal) -> str:
    if game.in_mulligan:
        return "it is the mulligan decision: `mulligan` (redraw the opening hand once) or `keep`"
    f = game.field()
    verb = VERBS[step.kind]
    if f["open"] and step.kind in LEADER_ONLY:
        top = "・".join(f["top"])
        return (
            f"`{verb}` is a leader-turn action; now you respond to {f['top_owner']}'s "
            f"{top}: answer, a tactic, siege (籠城) or pass"
        )
    if not f["open"] and step.kind in RESPONSE_ONLY:
        return (
            f"there is nothing to {'answer' if verb != 'pass' else 'pass on'}: the field "
            "is empty and this is your leader turn — lead a set, or miokuri (見送り), "
            "build (築城)"
        )
    return ""


def _wanted(step: Step) -> Counter:
    """The cards the step takes from the hand."""
    want = Counter(step.cards) if step.kind != L.A_RETURN else Counter()
    if step.extra:
        want[step.extra] += 1
    if step.kurumagakari:
        want["車懸り"] += 1
    return want


def _known(game: Game, step: Step, pool: CardPool, legal) -> str:
    for name in (*step.cards, step.extra):
        if name:
            try:
                pool.get(name)
            except LabError:
                return f"there is no card {name} (`info CARD` shows one; `lab cards` lists them)"
    return ""


def _held(game: Game, step: Step, pool: CardPool, legal) -> str:
    seat = _seat(step)
    if step.kind == L.A_RETURN:
        (name,) = step.cards
        if name not in game.zone(seat, "camp_up"):
            down = name in game.zone(seat, "camp_down")
            return f"帰陣 returns a face-up camp unit; {name} is " + (
                "face down (resting) in your camp" if down else "not in your camp"
            )
        if game.observation(seat)["phase"] == L.PH_LEADER_ACT:
            return "帰陣 is one unit per leader turn, before its action; this turn's is done"
        return ""
    hand = Counter(game.zone(seat, "hand"))
    for name, n in _wanted(step).items():
        if hand[name] < n:
            have = f"you hold {hand[name]}" if hand[name] else "you hold none"
            return f"the step uses {n} {name}; {have}" if n > 1 else f"{name} is not in your hand"
    return ""


def _set_shape(game: Game, step: Step, pool: CardPool, legal) -> str:
    if step.kind not in (L.A_LEAD, L.A_ANSWER):
        return ""
    cards = [pool.get(n) for n in step.cards]
    for c in cards:
        if not c.is_unit:
            what = "a tactic (軍略)" if c.kind == Kind.TACTIC else "a castle (城)"
            how = (
                f"use it with `tactic {c.name}`"
                if c.kind == Kind.TACTIC and c.name != "車懸り"
                else "add +車懸り to the set"
                if c.name == "車懸り"
                else f"`build {c.name}` on a leader turn or `siege {c.name}` against a set"
            )
            return f"{c.name} is {what}, not a unit: {how}"
    if any(c.strength == INF for c in cards) and len(cards) > 1:
        return "a general (∞) is played only alone (単騎)"
    values = sorted(c.strength for c in cards)
    if len(set(values)) == 1:
        return "" if len(cards) <= 4 else "a set of equal strengths holds at most 4 units"
    run = all(b == a + 1 for a, b in zip(values, values[1:]))
    if run and 3 <= len(cards) <= 5:
        return ""
    if run:
        return "a run (連隊) holds 3–5 units of consecutive strengths"
    return (
        "a set is 1–4 units of equal strength, or a run (連隊) of 3–5 consecutive "
        f"strengths; these are {', '.join(strength_text(c) for c in cards)}"
    )


def _has(card: Card, effect: Effect) -> bool:
    return any(r.effect == effect for r in card.rows())


def _named(pool: CardPool, names) -> str:
    return f"{'・'.join(names)} [{set_strength(pool, names)}]"


def _is_run(cards: list[Card]) -> bool:
    return len(cards) >= 3 and len({c.strength for c in cards}) == len(cards)


def _answer(game: Game, step: Step, pool: CardPool, legal) -> str:
    if step.kind != L.A_ANSWER:
        return ""
    top, mine = _top(game, pool), [pool.get(n) for n in step.cards]
    if not top:
        return ""
    n = len(top)
    if top[0].strength == INF:
        if len(mine) == 1 and _has(mine[0], Effect.ASSASSIN):
            if _has(top[0], Effect.ASSASSIN_IMMUNE):
                return f"{top[0].name} cannot be assassinated (its 〈毘沙門天〉)"
            return ""
        if mine[0].strength == INF:
            return "an ∞ cannot answer an ∞ (only 織田信長's 天下布武, holding 3 other hand cards)"
        return (
            "a numbered unit does not beat an ∞: only 暗殺 (刺客, 濃姫), 天下布武, 兵糧攻め or "
            "籠城 answer it — or pass"
        )
    if len(mine) != n:
        return (
            f"a set answering {n} card{'s' if n > 1 else ''} must have {n} "
            f"card{'s' if n > 1 else ''}"
        )
    if _is_run(top) != _is_run(mine):
        return (
            "a run (連隊) is answered only by a run of the same length"
            if _is_run(top)
            else "a run (連隊) answers only a run; this set has equal strengths"
        )
    if mine[0].strength == INF:
        return ""  # an ∞ single beats any numbered single; the engine had another reason
    high, beat = max(c.strength for c in mine), max(c.strength for c in top)
    if high <= beat:
        return (
            f"{_named(pool, step.cards)} does not beat {_named(pool, game.field()['top'])}: "
            f"an answer needs a higher strength (more than {beat})"
        )
    return ""


def _logistics(game: Game, step: Step, pool: CardPool, legal) -> str:
    if not game.rules.logistics:
        return ""
    have = len(game.zone(_seat(step), "logistics"))
    if step.kind in (L.A_LEAD, L.A_ANSWER) or (step.kind == L.A_TACTIC and step.cards):
        need = max(
            INF_AS_LOGISTICS if pool.get(n).strength == INF else pool.get(n).strength
            for n in step.cards
        )
        if need > have:
            return (
                f"needs logistics ≥ {need}: a set's highest strength (∞ as 10) may not "
                f"exceed your logistics cards, and you have {have}"
            )
    if step.kind == L.A_TACTIC:
        cost = pool.get(step.extra).cost
        if cost > have:
            return f"{step.extra} costs {cost} logistics card(s); you have {have}"
    return ""


def _tactic(game: Game, step: Step, pool: CardPool, legal) -> str:
    if step.kind != L.A_TACTIC:
        return ""
    card = pool.get(step.extra)
    if card.kind != Kind.TACTIC:
        return f"{card.name} is not a tactic (軍略)"
    ability = card.abilities[0].id if card.abilities else ""
    if ability == "kurumagakari":
        return "車懸り goes with a set: add +車懸り to a lead or an answer"
    if ability == "kagemusha":
        return "影武者 is never played: it acts by itself when your general is assassinated"
    top = _top(game, pool)
    target = TACTIC_TARGETS.get(ability)
    if not target or not top:
        return ""
    fits = {
        "koroshima": len(top) >= 3,
        "shingari": len(top) >= 2,
        "kakei": len(top) >= 2,
        "hyourouzeme": len(top) == 1,
        "kishuu": len(top) == 1 and top[0].strength != INF,
    }[ability]
    if not fits:
        return (
            f"{card.name} answers {target}; the top set is "
            f"{set_strength(pool, game.field()['top'])}"
        )
    if ability == "kishuu":
        if not step.cards:
            return "奇襲 goes with one numbered unit from your hand: `tactic 奇襲 CARD`"
        unit = pool.get(step.cards[0])
        if not unit.is_unit or unit.strength == INF:
            return "奇襲's unit is a numbered unit (not ∞, not a tactic or castle)"
    elif step.cards:
        return f"{card.name} takes no unit: `tactic {card.name}`"
    return ""


def _leader_actions(game: Game, step: Step, pool: CardPool, legal) -> str:
    seat = _seat(step)
    if step.kind == L.A_BUILD:
        card = pool.get(step.extra)
        if card.kind != Kind.CASTLE:
            return f"{card.name} is not a castle (城)"
        if game.zone(seat, "castle"):
            return f"a home castle already stands ({game.zone(seat, 'castle')}); 築城 needs none"
    if step.kind == L.A_SIEGE and pool.get(step.extra).kind != Kind.CASTLE:
        return f"{step.extra} is not a castle (城): 籠城 spends a castle card from your hand"
    if (
        step.kind == L.A_MIOKURI
        and game.rules.leader_pass == "only_if_no_play"
        and any(a.row[L.AX_KIND] == L.A_LEAD for a in legal)
    ):
        return (
            "見送り is allowed only when no set can be led (leader_pass = only_if_no_play); "
            "a lead is possible"
        )
    if step.kind in (L.A_LOGISTICS, L.A_FORTIFY) and not game.rules.logistics:
        return f"`{VERBS[step.kind]}` belongs to the legacy logistics rules (logistics = off)"
    return ""


def _flags(game: Game, step: Step, pool: CardPool, legal) -> str:
    same = [parse_step(a.text) for a in legal]
    same = [x for x in same if x.kind == step.kind and sorted(x.cards) == sorted(step.cards)]
    if step.fire and same and not any(x.fire for x in same):
        return "none of these cards is a gun unit (鉄砲) that may fire now"
    if step.kurumagakari and same and not any(x.kurumagakari for x in same):
        return "車懸り cannot go with this set now"
    return ""
