"""Messages a new user met (issue 27, item 5): a missing key says it is missing, a missing
``extra_cards`` file names the config key that asks for it, and a bad --scheduler port reads as a
port error — each one line, exit 2, before any work."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from _support.sim_cases import write_config
from test_cli import assert_one_line_error, invoke

REPO = Path(__file__).resolve().parent.parent

TINY = """
name = "tiny"
seed = 3
games = 2
armies = ["oda", "takeda"]
bots = "random"
"""


@pytest.mark.parametrize(
    "kind, fix",
    [
        ("unit", "add strength = <whole number 1–10>"),
        ("warlord", "add strength = <whole number 1–10>"),
        ("general", "add strength = \"inf\""),
    ],
)
def test_a_card_without_strength_says_strength_is_missing(tmp_path, kind, fix):
    cards = tmp_path / "mine.toml"
    cards.write_text(
        f'cards = [{{ id = "foo", name = "フー", kind = "{kind}" }}]\n', encoding="utf-8"
    )
    line = assert_one_line_error(
        invoke("cards", "--cards", str(cards)),
        str(cards),
        'cards[0] "フー"',
        "strength is missing",
        fix,
    )
    assert "None" not in line


def test_a_missing_extra_cards_file_names_the_config_key(tmp_path):
    config = write_config(tmp_path, TINY + 'extra_cards = "my_cards.toml"\n')
    line = assert_one_line_error(
        invoke("run", str(config), "--out", str(tmp_path / "r")),
        f"{config}: ",
        'extra_cards = "my_cards.toml"',
        str(tmp_path / "my_cards.toml"),
        "is not found",
        "relative to the config",
    )
    assert not (tmp_path / "r").exists(), line


def test_an_extra_cards_entry_that_is_a_folder_names_the_key(tmp_path):
    (tmp_path / "cards").mkdir()
    config = write_config(tmp_path, TINY + 'extra_cards = ["cards"]\n')
    assert_one_line_error(
        invoke("run", str(config), "--out", str(tmp_path / "r")),
        'extra_cards = "cards"',
        "is a folder, not a card file",
    )


@pytest.mark.parametrize(
    "address, port",
    [
        ("tcp://127.0.0.1:abc", "abc"),
        ("127.0.0.1:80x", "80x"),
        ("tcp://127.0.0.1:99999", "99999"),
        ("tcp://[::1]:0", "0"),
    ],
)
def test_a_bad_scheduler_port_is_a_port_error_at_once(tmp_path, address, port):
    config = write_config(tmp_path, TINY)
    started = time.monotonic()
    result = invoke(
        "run",
        str(config),
        "--out",
        str(tmp_path / "r"),
        "--backend",
        "dask",
        "--scheduler",
        address,
    )
    line = assert_one_line_error(
        result,
        f"--scheduler {address}",
        f"port \"{port}\" is not a port number",
        "whole numbers 1–65535",
    )
    assert "invalid literal" not in line
    assert time.monotonic() - started < 10  # no connection is tried (it timed out after 15 s)
    assert not (tmp_path / "r").exists()


def test_lab_balance_reads_the_port_too(tmp_path):
    config = write_config(tmp_path, TINY)
    line = assert_one_line_error(
        invoke(
            "balance",
            str(config),
            "--out",
            str(tmp_path / "b"),
            "--backend",
            "dask",
            "--scheduler",
            "tcp://127.0.0.1:8786x",
            "--budget-games",
            "100",
        ),
        "port \"8786x\" is not a port number",
    )
    assert "invalid literal" not in line
    assert not (tmp_path / "b").exists()


def test_good_scheduler_addresses_pass_the_port_check():
    from lab.sim.runner import check_scheduler_address

    for address in (
        "tcp://10.0.0.5:8786",
        "10.0.0.5:8786",
        "tcp://[::1]:8786",
        "tls://host:8786/",
        "inproc://x",
        "notanaddress",
    ):
        check_scheduler_address(address)  # the last two are left to Dask's own words
