"""No command branches on a game's name (issue 28 item 2): outside lab/games/, the platform —
runner, records, statistics, report, design, CLI, lab serve and its templates — reaches a game
only through its entry (lab.games.protocol), so a third game needs no edit there. A comparison
with a registered game's name ("daitenka", "rumble_nation") in lab/ outside lab/games/ fails
here, naming the file and line."""

import re
from pathlib import Path

import pytest

from lab.games import GAMES

LAB = Path(__file__).resolve().parents[1] / "lab"
NAMES = "|".join(re.escape(n) for n in GAMES)
QUOTED = rf"""["'](?:{NAMES})["']"""
# x == "name", x != 'name', x in ("name", …), "name" == x, match/case "name", and the Jinja
# forms of the same ({% if game == 'name' %}, … if g == 'name' else …)
COMPARISON = re.compile(
    rf"(?:==|!=|\bis\b|\bin\b)\s*[(\[{{]?\s*(?:[^)\]}}\n]*,\s*)?{QUOTED}"
    rf"|{QUOTED}\s*(?:==|!=|\bin\b)"
    rf"|\bcase\s+{QUOTED}"
)


def comparisons(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if COMPARISON.search(line)]


@pytest.mark.parametrize(
    "line",
    [
        'if game == "rumble_nation":',
        "if setup.game == 'daitenka' else x",
        'if exp.game != "daitenka":',
        '.get("game", "daitenka") != "daitenka":',
        'if game in ("daitenka", "rumble_nation"):',
        'if name in ("rumble_nation",):',
        "{% if view.game == 'daitenka' %}",
        "{{ '大天下' if g == 'daitenka' else 'Rumble Nation' }}",
        '    case "rumble_nation":',
        'if "daitenka" == game:',
    ],
)
def test_the_pattern_catches_a_branch_on_a_name(line):
    assert comparisons(line) == [line.strip()]


@pytest.mark.parametrize(
    "line",
    [
        'game: str = "daitenka",',  # a default value names a game without branching on it
        'GAMES = Registry(Registered("daitenka", "大天下", "lab.games.daitenka.entry"))',
        'help="The game: daitenka (大天下, the default) or rumble_nation.")] = "daitenka",',
        "if form.get('game') in GAMES else DEFAULT",
    ],
)
def test_the_pattern_lets_a_name_that_is_not_compared_pass(line):
    assert comparisons(line) == []


def test_no_command_branches_on_a_game_name():
    found = []
    for path in sorted(LAB.rglob("*")):
        if path.suffix not in (".py", ".html") or LAB / "games" in path.parents:
            continue
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if COMPARISON.search(line):
                found.append(f"{path.relative_to(LAB.parent)}:{k}: {line.strip()}")
    assert not found, (
        "a branch on a game's name outside lab/games/ (ask the entry instead, "
        "lab.games.protocol):\n" + "\n".join(found)
    )
