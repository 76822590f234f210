"""Scenario files (../shared/spec/scenarios.md): what every game's share — the steps of a
scenario and a file of several ``[[scenario]]`` tables. A game's own keys (its position, zones
and expectations) are its table, declared in its folder with these parts (大天下's:
``lab.games.daitenka.scenario_file``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from lab.schema.base import Table, field, problem


def words(values) -> str:
    return ", ".join(repr(v) for v in values)


class Step(Table):
    do: str = field(example="do = \"<step>\"")
    expect_illegal: bool = False


STEPS = field(
    example="steps = [\"A lead …\", …]",
    allowed="a list of step strings or { do = \"…\", expect_illegal = true }",
)  # a scenario table's ``steps``: list[Union[str, Step]]


def illegal_only_last(table):
    """A scenario table's check (its ``model_validator``): only the last step may be expected
    to be illegal."""
    for k, st in enumerate(table.steps[:-1]):
        if isinstance(st, Step) and st.expect_illegal:
            raise problem(f"steps[{k}]: expect_illegal is allowed on the last step only")
    return table


class ScenarioFile(Table):
    """A file of several scenarios: nothing beside its ``[[scenario]]`` tables."""

    KEYS_LABEL = "a file of several scenarios holds only [[scenario]] tables; allowed"
    scenario: Annotated[list[dict], Field(min_length=1)] = field(
        allowed="an array of tables ([[scenario]])"
    )
