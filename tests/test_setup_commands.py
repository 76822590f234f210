"""The README's two set-up commands are the ones the cold-start benchmark times and CI runs.

benchmarks/coldstart.py reads the install it times from the README's first command, so a README
whose command changes shape (or a benchmark that stops finding it) would publish a figure for a
command nobody types; .ci/run installs the test extra and runs pytest as the second command does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from _support.benchmarks import load

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def _coldstart():
    return load("coldstart")


def _set_up_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    return [b.strip() for b in blocks if "python3 -m venv" in b]


def test_readme_has_exactly_two_set_up_commands_main_job_then_tests():
    main, tests = _set_up_commands()
    assert main.endswith("lab run configs/default.toml")
    assert "pip install" in main and "'.[test]'" not in main
    assert tests.endswith("pytest") and "pip install" in tests and "'.[test]'" in tests


def test_coldstart_times_the_readmes_own_install():
    main, _ = _set_up_commands()
    install = _coldstart().readme_install(README)
    # the same command, quietened: only pip's progress options added
    assert install.replace(" --progress-bar off -q", "") == main.split(" && lab run")[0]


def test_coldstart_refuses_a_readme_without_the_install(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n```sh\nlab run configs/default.toml\n```\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="README.md: its first sh block"):
        _coldstart().readme_install(readme)


def test_ci_runs_the_readmes_test_install_and_pytest():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^pip install .*-e '\.\[test\]'$", ci, flags=re.M)
    assert re.search(r"^pytest -q$", ci, flags=re.M)
