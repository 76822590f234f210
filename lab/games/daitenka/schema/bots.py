"""The one command-line grammar for a bot: what ``--bot``, ``--bots`` and the play-again prompt's
``bot=`` accept.

A bot is written as a kind (random, heuristic, strong, search, expert), a heuristic persona
(tuned, aggressive, defensive, balanced), ``KIND:KEY=VALUE,…`` (search:simulations=200,
heuristic:persona=defensive,card=30) or a TOML inline table as a config writes it
('{ kind = "search", simulations = 100 }'). The text becomes the table a config would hold and
``lab.games.daitenka.bots.match.parse_bot`` — the single validator of bot parameters — checks it. Nothing else
parses a bot.
"""

from __future__ import annotations

import tomllib

from lab.games.daitenka.bots.match import KINDS, BotSpec, parse_bot
from lab.games.daitenka.bots.personas import PERSONAS
from lab.errors import did_you_mean, LabError

BOT_FORMS = (
    "a kind (random, heuristic, strong, search, expert), a heuristic persona (tuned, "
    "aggressive, defensive, balanced), KIND:KEY=VALUE,… (e.g. search:simulations=200 or "
    "heuristic:persona=defensive,card=30) or a TOML inline table such as "
    "'{ kind = \"search\", simulations = 100 }'"
)


def bot_from_text(text: str, option: str = "--bot") -> BotSpec:
    """A bot typed after ``option``, checked by ``parse_bot`` (one-line ``LabError``)."""
    raw = text.strip()
    if not raw:
        raise LabError(f"{option} is empty; give {BOT_FORMS}")
    where = f"{option} \"{text}\""
    if raw.startswith("{"):
        try:
            spec = tomllib.loads(f"bot = {raw}")["bot"]
        except tomllib.TOMLDecodeError as e:
            raise LabError(f"{where}: not a TOML inline table ({e})") from None
        return parse_bot(spec, source=where)
    kind, _, rest = raw.partition(":")
    kind = kind.strip().lower()
    if kind in PERSONAS:
        spec: dict = {"kind": "heuristic", "persona": kind}
    elif kind in KINDS:
        spec = {"kind": kind}
    else:
        names = list(KINDS) + list(PERSONAS)
        did = did_you_mean(kind, names)
        raise LabError(
            f"{where} is not a bot; {did}use one of {', '.join(names)} or "
            "KIND:KEY=VALUE,… (e.g. search:simulations=200)"
        )
    for part in rest.split(",") if rest.strip() else ():
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise LabError(
                f"{where}: \"{part.strip()}\" is not KEY=VALUE (e.g. search:simulations=200)"
            )
        if key == "kind":
            raise LabError(f"{where}: give the kind before the colon, not as a key")
        if key in spec and key != "persona":
            raise LabError(f"{where}: {key} is given twice")
        spec[key] = value if key == "persona" else _whole(value, key, where)
    return parse_bot(spec, source=where)


def bot_text(spec: BotSpec) -> str:
    """The command-line form of a spec (``bot_from_text(bot_text(s)) == s``)."""
    if not spec.params:
        return spec.kind
    return spec.kind + ":" + ",".join(f"{k}={v}" for k, v in spec.params)


def _whole(value: str, key: str, where: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise LabError(f"{where}: {key} = \"{value}\" must be a whole number") from None
