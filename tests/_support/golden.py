"""Golden playthroughs: for every registered game and preset, whole games from fixed seeds written
as stable text — at each decision the seat to move, what every seat sees, the legal steps and the
step taken, then the result — and replayed step by step against the engine (tests/test_golden.py).

It owns the set of recorded games (``CASES``), the choice rule that picks their steps, the file
format (tests/golden/README.md) and the replay that names the first difference. It reaches the
games only through the registry (``lab.games.GAMES``: ``rules``, ``seats``, ``new_game``) and the
game objects' public methods (``legal_actions``, ``step``, ``observation``, ``is_over``,
``winner``, ``summary``), never through a module path of an engine, so a refactor that moves an
engine is checked by the same files (the no-peeking re-deal is the game objects' own
``redeal_hidden``, the end their own ``result``: nothing here branches on a game's name). It must not hold a rule: what is legal and what a
seat sees come from the games.

From the repository root:

    python -m tests._support.golden --update   # rewrite every file (only for an intended rules change)
    python -m tests._support.golden --check    # replay every file; exit 1 with the first difference
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
POLICY = "kinds 3:1 against pass/miokuri, then uniform; splitmix64(seed)"
MAX_DECISIONS = 2000  # a game that runs longer is a bug in the engine, not a golden file
DEPTH = 3  # observation fields are written one line each down to this depth
MASK64 = (1 << 64) - 1
_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class Case:
    game: str
    preset: str
    seed: int
    armies: tuple[str, ...] = ()  # 大天下's two armies; Rumble Nation has none

    @property
    def path(self) -> Path:
        tail = "-".join([self.preset, f"s{self.seed}", *self.armies])
        return GOLDEN_DIR / self.game / f"{tail}.txt"


# two games per preset; the 大天下 pairs between them field all nine armies, and
# sekigahara_trial plays its own armies (東軍, 西軍) both ways round
CASES = (
    Case("daitenka", "second_edition", 1, ("oda", "takeda")),
    Case("daitenka", "second_edition", 2, ("uesugi", "mouri")),
    Case("daitenka", "sekigahara_trial", 1, ("tougun", "seigun")),
    Case("daitenka", "sekigahara_trial", 2, ("seigun", "tougun")),
    Case("daitenka", "legacy_testlab", 1, ("honganji", "saika")),
    Case("daitenka", "legacy_testlab", 2, ("houjou", "oda")),
    Case("rumble_nation", "base_2p", 1),
    Case("rumble_nation", "base_2p", 2),
    Case("rumble_nation", "base_3p", 1),
    Case("rumble_nation", "base_3p", 2),
    Case("rumble_nation", "base_4p", 1),
    Case("rumble_nation", "base_4p", 2),
    Case("rumble_nation", "advanced_4p", 1),
    Case("rumble_nation", "advanced_4p", 2),
)


class GoldenMismatch(AssertionError):
    """The engine no longer plays a golden file: the message names the first difference."""


class GoldenLeak(AssertionError):
    """A seat's observation changed when only what it cannot see was re-dealt."""


# ------------------------------------------------------------------ the choice rule
class KindBalanced:
    """Picks a step kind (the verb: lead, answer, tactic, logistics, place, reroll …) among the
    kinds legal now, then a step of that kind uniformly, so rare kinds come up far more often
    than under a uniform pick over steps. Every kind weighs 3 but giving way (pass, 見送り),
    which weighs 1: 見送り costs a wall under second_edition, and a game of walls lost to it
    would end before most kinds were played. The stream is splitmix64 written out here, so the
    choices depend on the seed and the legal texts only (not on numpy's or an engine's
    generator), and on the texts as a set: a new order of the legal list changes no choice."""

    WEIGHT, GIVE_WAY, GIVE_WAY_WEIGHT = 3, ("pass", "miokuri"), 1

    def __init__(self, seed: int):
        self.state = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def __call__(self, texts: list[str]) -> str:
        kinds = sorted({_kind(t) for t in texts})
        weights = [self.GIVE_WAY_WEIGHT if k in self.GIVE_WAY else self.WEIGHT for k in kinds]
        r = self.next() % sum(weights)
        for kind, w in zip(kinds, weights):
            if r < w:
                break
            r -= w
        of_kind = sorted(t for t in texts if _kind(t) == kind)
        return of_kind[self.next() % len(of_kind)]


def _kind(text: str) -> str:
    parts = text.split()
    return parts[1] if len(parts) > 1 else text


# ------------------------------------------------------------------ stable values
def canon(value, where: str = "value"):
    """The value as JSON reads it back (tuples → lists, int keys → strings); floats refused,
    since a float's last digits may vary between machines and a golden file must not."""
    if isinstance(value, float):
        raise TypeError(f"{where} is a float ({value!r}); golden files hold no floats")
    if isinstance(value, dict):
        return {str(k): canon(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [canon(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    raise TypeError(
        f"{where} is a {type(value).__name__} ({value!r}); golden files hold JSON values only"
    )


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def flatten(obs: dict, where: str = "observation") -> dict[str, object]:
    """An observation as {dotted path: value}, dicts and lists opened down to ``DEPTH`` levels
    (``players.A.hand`` → {"足軽3": 2}, ``areas.4.soldiers`` → {"P1": 3}), so a change is one
    short line and a difference names its field."""
    out: dict[str, object] = {}

    def walk(v, path: tuple[str, ...]):
        if len(path) < DEPTH and isinstance(v, dict) and v:
            for k, x in v.items():
                walk(x, path + (str(k),))
        elif (
            len(path) < DEPTH
            and isinstance(v, (list, tuple))
            and v
            and path
            and all(isinstance(x, dict) for x in v)
        ):  # records (areas); a list of
            # cards or dice stays one value, its order part of it
            for i, x in enumerate(v):
                walk(x, path + (str(i),))
        else:
            key = ".".join(path)
            if not key or _SPACE.search(key):
                raise ValueError(f"{where}: field {key!r} cannot be written as one path")
            out[key] = canon(v, f"{where}.{key}")

    walk(obs, ())
    return out


def _path_key(path: str):
    # areas.10 after areas.9: numbers compared as numbers
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in path.split(".")]


# ------------------------------------------------------------------ one game, decision by decision
@dataclass
class Decision:
    to_move: str
    observations: dict[str, dict]  # seat → flattened observation
    legal: list[str]
    action: str | None = None


@dataclass
class Playthrough:
    header: dict
    decisions: list[Decision] = field(default_factory=list)
    final: dict[str, dict] = field(default_factory=dict)  # seat → flattened last observation
    result: dict | None = None


def header(case: Case) -> dict:
    from lab.games import GAMES

    entry = GAMES[case.game]
    rules = entry.rules(case.preset)
    h = {"game": case.game, "preset": case.preset, "seed": case.seed}
    if case.armies:
        h["armies"] = list(case.armies)
    h["policy"] = POLICY
    h["seats"] = list(entry.seats(rules))
    h["rules"] = canon(rules.as_dict(), "rules")
    return h


def new_game(h: dict):
    from lab.games import GAMES

    entry = GAMES[h["game"]]
    return entry.new_game(entry.rules(h["preset"]), h["seed"], None, *h.get("armies", ()))


def result_of(g) -> dict:
    """The end of a game as its facade states it: winner, summary line and the game's own
    ``result()`` (大天下: end reason, length, walls; Rumble Nation: scores, ranks, chips,
    tokens)."""
    return canon({"winner": g.winner, "summary": g.summary(), "result": g.result()}, "result")


def play(h: dict, choose, hidden_rng_seed: int = 0):
    """Play the game ``h`` describes, asking ``choose(decision_number, legal_texts)`` for every
    step; yields each ``Decision`` as soon as it is known (before its step is chosen) and
    returns the finished ``Playthrough``. At every decision each seat's observation is checked
    against a re-deal of what that seat cannot see (``GoldenLeak``)."""
    g = new_game(h)
    seats = h["seats"]
    rng = np.random.default_rng(hidden_rng_seed)
    pt = Playthrough(header=h)
    redealt = 0
    private = False  # a seat has fields another lacks (a hand): a re-deal must move them
    while not g.is_over:
        k = len(pt.decisions)
        if k >= MAX_DECISIONS:
            raise GoldenMismatch(
                f"decision {k}: the game is still running after {MAX_DECISIONS} decisions"
            )
        legal = g.legal_actions()  # first: it rolls due dice (RN) and draws for a due turn
        texts = [a.text for a in legal]
        d = Decision(
            to_move=str(g.to_move),
            legal=texts,
            observations={s: flatten(g.observation(s), f"observation({s})") for s in seats},
        )
        private = private or any(
            set(d.observations[s]) != set(d.observations[seats[0]]) for s in seats
        )
        for s in seats:
            redealt += check_hidden(g, s, d.observations, rng, k)
        yield d
        d.action = choose(k, texts)
        if d.action not in texts:
            raise GoldenMismatch(
                f"decision {k}, action: {_show(d.action)} is not one of the "
                f"legal steps {_show(texts)}"
            )
        pt.decisions.append(d)
        g.step(legal[texts.index(d.action)])
    pt.final = {s: flatten(g.observation(s), f"observation({s})") for s in seats}
    pt.result = result_of(g)
    if private and not redealt:
        raise GoldenLeak(
            "the seats have private fields, yet no re-deal moved what another "
            "seat sees: the no-peeking check checked nothing"
        )
    return pt


def check_hidden(g, seat: str, seen: dict[str, dict], rng, k: int, observe=None) -> bool:
    """Re-deal what ``seat`` cannot see (the game's own ``redeal_hidden``) and require the
    same observation of ``seat`` (``seen``: every seat's flattened observation); True when the
    re-deal moved something another seat sees."""
    observe = observe or (lambda game, s: game.observation(s))
    h = g.redeal_hidden(seat, rng)
    moved = any(
        flatten(observe(h, other), f"observation({other})") != seen[other]
        for other in seen
        if other != seat
    )
    seen = seen[seat]
    again = flatten(observe(h, seat), f"observation({seat})")
    if again != seen:
        path = next(
            p
            for p in sorted(set(seen) | set(again), key=_path_key)
            if seen.get(p, _ABSENT) != again.get(p, _ABSENT)
        )
        raise GoldenLeak(
            f"decision {k}: observation({seat}).{path} changed when only what "
            f"{seat} cannot see was re-dealt: {_show(seen.get(path, _ABSENT))} → "
            f"{_show(again.get(path, _ABSENT))}"
        )
    return moved


def generate(case: Case) -> Playthrough:
    pick = KindBalanced(case.seed)
    gen = play(header(case), lambda k, texts: pick(texts), case.seed)
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


# ------------------------------------------------------------------ text
_ABSENT = object()


def _delta(before: dict, now: dict) -> dict:
    """{path: new value or _ABSENT} for what changed from ``before`` to ``now``."""
    out = {p: v for p, v in now.items() if before.get(p, _ABSENT) != v}
    out.update({p: _ABSENT for p in before if p not in now})
    return out


def _change_lines(delta: dict) -> list[str]:
    return [
        f"  del {p}" if v is _ABSENT else f"  {p} = {dumps(v)}"
        for p, v in sorted(delta.items(), key=lambda kv: _path_key(kv[0]))
    ]


def render(pt: Playthrough) -> str:
    lines = [
        "# Golden playthrough: tests/golden/README.md says how it is read and when it may be",
        "# regenerated (python -m tests._support.golden --update).",
    ]
    lines += [f"{k} = {dumps(v)}" for k, v in pt.header.items()]
    prev = {s: {} for s in pt.header["seats"]}

    def changes(seats_now: dict[str, dict]) -> list[str]:
        # each seat's changes since its own last observation; a seat whose changes are mostly
        # an earlier seat's at this decision (every seat sees the board in Rumble Nation)
        # is written "like" it, with only the paths where it differs
        out, written = [], {}
        for s, obs in seats_now.items():
            mine = _delta(prev[s], obs)
            best, rest = None, mine
            for t, theirs in written.items():
                fix = {}
                for p in set(theirs) | set(mine):
                    after_like = theirs[p] if p in theirs else prev[s].get(p, _ABSENT)
                    if after_like != obs.get(p, _ABSENT):
                        fix[p] = obs.get(p, _ABSENT)
                if len(fix) < len(rest):
                    best, rest = t, fix
            written[s] = mine
            prev[s] = obs
            if best is not None:
                out.append(f"observation({s}): like {best}")
            elif mine:
                out.append(f"observation({s}):")
            out += _change_lines(rest)
        return out

    for k, d in enumerate(pt.decisions):
        lines += ["", f"# decision {k}", f"to_move = {dumps(d.to_move)}"]
        lines += changes(d.observations)
        lines += [f"legal = {dumps(d.legal)}", f"action = {dumps(d.action)}"]
    lines += ["", "# end"]
    lines += changes(pt.final)
    lines += [f"decisions = {len(pt.decisions)}", f"result = {dumps(pt.result)}", ""]
    return "\n".join(lines)


_SEAT = re.compile(r"^observation\((\w+)\):(?: like (\w+))?$")
_CHANGE = re.compile(r"^  (?:del (\S+)|(\S+) = (.*))$")
_FIELD = re.compile(r"^(\w+) = (.*)$")


def _no_float(text: str):
    raise ValueError(f"{text} is a float; golden files hold no floats")


def _load(text: str):
    return json.loads(text, parse_float=_no_float)


def parse(text: str, source: str = "golden file") -> Playthrough:
    """A golden file back into a ``Playthrough`` (observations whole again, not as changes)."""
    pt = Playthrough(header={})
    current = {}  # seat → full flattened observation so far
    delta: dict[str, dict] = {}  # this section's changes, seat → {path: value | _ABSENT}
    seat = None  # the seat whose changes the indented lines write
    section = "header"

    def close():
        nonlocal delta
        for s, ch in delta.items():
            for p, v in ch.items():
                if v is _ABSENT:
                    current[s].pop(p, None)
                else:
                    current[s][p] = v
        snap = {s: dict(o) for s, o in current.items()}
        delta = {}
        return snap

    for n, line in enumerate(text.splitlines(), 1):
        try:
            if not line or line.startswith("#"):
                if line.startswith("# decision ") or line == "# end":
                    if section == "header":
                        current.update({s: {} for s in pt.header["seats"]})
                    section = "end" if line == "# end" else "decision"
                    if section == "decision":
                        pt.decisions.append(Decision(to_move="", observations={}, legal=[]))
                continue
            if m := _SEAT.match(line):
                seat = m[1]
                if seat not in current or seat in delta:
                    raise ValueError(f"seat {seat} unknown or written twice")
                delta[seat] = dict(delta[m[2]]) if m[2] else {}
            elif m := _CHANGE.match(line):
                if seat is None:
                    raise ValueError("a change before its `observation(SEAT):` line")
                if m[1]:
                    delta[seat][m[1]] = _ABSENT
                else:
                    delta[seat][m[2]] = _load(m[3])
            elif m := _FIELD.match(line):
                seat = None
                key, value = m[1], _load(m[2])
                if section == "header":
                    pt.header[key] = value
                elif section == "decision" and key == "to_move":
                    pt.decisions[-1].to_move = value
                elif section == "decision" and key == "legal":
                    pt.decisions[-1].observations = close()
                    pt.decisions[-1].legal = value
                elif section == "decision" and key == "action":
                    pt.decisions[-1].action = value
                elif section == "end" and key == "decisions":
                    pt.final = close()
                    if value != len(pt.decisions):
                        raise ValueError(f"decisions = {value} but {len(pt.decisions)} written")
                elif section == "end" and key == "result":
                    pt.result = value
                else:
                    raise ValueError(f"unexpected `{key}` in the {section} section")
            else:
                raise ValueError("not a `key = JSON`, `observation(SEAT):` or indented change line")
        except (ValueError, KeyError) as e:
            raise GoldenMismatch(f"{source}:{n}: cannot read \"{line[:80]}\": {e}") from None
    return pt


# ------------------------------------------------------------------ the replay
def _show(v, limit: int = 240) -> str:
    s = "(absent)" if v is _ABSENT else dumps(v)
    return s if len(s) <= limit else s[:limit] + f"… ({len(s)} characters)"


def _first_obs_difference(want: dict[str, dict], got: dict[str, dict]):
    for s, w in want.items():
        g = got.get(s, {})
        if w == g:
            continue
        for p in sorted(set(w) | set(g), key=_path_key):
            if w.get(p, _ABSENT) != g.get(p, _ABSENT):
                return f"observation({s}).{p}", w.get(p, _ABSENT), g.get(p, _ABSENT)
    return None


def _legal_difference(want: list[str], got: list[str]) -> str:
    if sorted(want) == sorted(got):
        return (
            f"the same {len(want)} steps in another order: expected {_show(want)}, got {_show(got)}"
        )
    missing = [t for t in want if t not in got]
    extra = [t for t in got if t not in want]
    return (
        f"expected {len(want)} steps, got {len(got)}; missing {_show(missing)}; "
        f"extra {_show(extra)}"
    )


def check(path: Path | str) -> Playthrough:
    """Replay a golden file step by step; raise ``GoldenMismatch`` at the first difference
    (decision number, field, expected and got) and ``GoldenLeak`` if a seat sees what is
    hidden from it. Returns the replayed game."""
    path = Path(path).resolve()
    name = (
        path.relative_to(GOLDEN_DIR.parent.parent)
        if path.is_relative_to(GOLDEN_DIR.parent.parent)
        else path
    )
    text = path.read_text(encoding="utf-8")
    want = parse(text, str(name))

    def fail(where: str, what: str):
        raise GoldenMismatch(
            f"{name}: {where}, {what}\n(replay: python -m tests._support.golden "
            f"--check {name}; regenerate only for an intended rules change, "
            "tests/golden/README.md)"
        )

    case_header = _expected_header(want.header)
    for key in sorted(set(want.header) | set(case_header)):
        if want.header.get(key, _ABSENT) != case_header.get(key, _ABSENT):
            fail(
                "header",
                f"{key}: expected {_show(want.header.get(key, _ABSENT))}, got "
                f"{_show(case_header.get(key, _ABSENT))}",
            )

    def choose(k: int, texts: list[str]) -> str:
        return want.decisions[k].action

    gen = play(want.header, choose, want.header["seed"])
    k = -1
    while True:
        try:
            got = next(gen)
        except StopIteration as stop:
            pt = stop.value
            break
        k += 1
        if k >= len(want.decisions):
            fail(
                f"decision {k}",
                f"to_move: expected the game over, got {got.to_move} to move "
                f"(legal: {_show(got.legal)})",
            )
        w = want.decisions[k]
        if w.to_move != got.to_move:
            fail(f"decision {k}", f"to_move: expected {_show(w.to_move)}, got {_show(got.to_move)}")
        diff = _first_obs_difference(w.observations, got.observations)
        if diff:
            fail(f"decision {k}", f"{diff[0]}: expected {_show(diff[1])}, got {_show(diff[2])}")
        if w.legal != got.legal:
            fail(f"decision {k}", f"legal: {_legal_difference(w.legal, got.legal)}")
    if len(pt.decisions) < len(want.decisions):
        w = want.decisions[len(pt.decisions)]
        fail(
            f"decision {len(pt.decisions)}",
            f"to_move: expected {_show(w.to_move)}, got the game over ({_show(pt.result)})",
        )
    diff = _first_obs_difference(want.final, pt.final)
    if diff:
        fail("end", f"{diff[0]}: expected {_show(diff[1])}, got {_show(diff[2])}")
    if want.result != pt.result:
        rw, rg = want.result or {}, pt.result or {}
        key = next(k for k in sorted(set(rw) | set(rg)) if rw.get(k, _ABSENT) != rg.get(k, _ABSENT))
        fail(
            "end",
            f"result.{key}: expected {_show(rw.get(key, _ABSENT))}, got "
            f"{_show(rg.get(key, _ABSENT))}",
        )
    again = render(pt)
    if again != text:
        a, b = text.splitlines(), again.splitlines()
        n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        fail(
            f"line {n + 1}",
            "the same game written differently (edited by hand, or the format "
            f"changed): expected {_show(a[n] if n < len(a) else '')}, got "
            f"{_show(b[n] if n < len(b) else '')}",
        )
    return pt


def _expected_header(h: dict) -> dict:
    """The header the file's own game, preset, seed and armies give today (rules, seats,
    choice rule): a preset changed under the file is a difference before decision 0."""
    from lab.errors import LabError
    from lab.games import GAMES

    missing = [k for k in ("game", "preset", "seed", "seats") if k not in h]
    if missing:
        raise GoldenMismatch(f"header: no {', '.join(missing)}")
    if h["game"] not in GAMES:
        raise GoldenMismatch(
            f"header: game {h['game']!r} is not registered; registered: {', '.join(GAMES)}"
        )
    try:
        return header(Case(h["game"], h["preset"], h["seed"], tuple(h.get("armies", ()))))
    except LabError as e:
        raise GoldenMismatch(f"header: {e}") from None


# ------------------------------------------------------------------ command line
def update(cases=CASES) -> list[Path]:
    """Write every case's file (and remove golden files no case names), then replay each."""
    written = []
    for case in cases:
        case.path.parent.mkdir(parents=True, exist_ok=True)
        case.path.write_text(render(generate(case)), encoding="utf-8")
        check(case.path)
        written.append(case.path)
    if cases is CASES:
        for stale in sorted(set(GOLDEN_DIR.glob("*/*.txt")) - set(written)):
            stale.unlink()
            print(f"removed {stale.relative_to(GOLDEN_DIR)} (no case names it)")
    return written


def files() -> list[Path]:
    return sorted(GOLDEN_DIR.glob("*/*.txt"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tests._support.golden",
        description="Golden playthroughs (tests/golden/README.md): replay them against the "
        "engine, or rewrite them after an intended rules change.",
    )
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--check",
        nargs="*",
        metavar="FILE",
        help="replay these golden files (default: all); exit 1 at the first difference",
    )
    mode.add_argument(
        "--update",
        action="store_true",
        help="regenerate every golden file from its case (only when a rules "
        "change is intended; cite the rule in the commit)",
    )
    args = ap.parse_args(argv)
    if args.update:
        for path in update():
            print(
                f"wrote {path.relative_to(GOLDEN_DIR.parent.parent)} "
                f"({path.stat().st_size:,} bytes)"
            )
        return 0
    paths = [Path(f) for f in args.check] or files()
    if not paths:
        print(f"no golden files under {GOLDEN_DIR}", file=sys.stderr)
        return 2
    absent = [str(p) for p in paths if not p.is_file()]
    if absent:
        print(
            f"no such golden file: {', '.join(absent)} (they are under {GOLDEN_DIR})",
            file=sys.stderr,
        )
        return 2
    import numba

    print(f"numba JIT {'off' if numba.config.DISABLE_JIT else 'on'}")
    bad = 0
    for path in paths:
        try:
            pt = check(path)
            print(f"ok {path.name}: {len(pt.decisions)} decisions")
        except (GoldenMismatch, GoldenLeak) as e:
            print(f"FAIL {e}")
            bad += 1
    if bad:
        print(f"{bad} of {len(paths)} golden files differ", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
