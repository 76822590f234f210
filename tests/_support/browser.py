"""A real browser for tests that look at a page: Debian's Chromium (/usr/bin/chromium, installed by
.ci/run) driven by Playwright for Python. No browser is ever downloaded; a test that needs one is
skipped, saying why, only when Chromium cannot be found. Screenshots go to results/screenshots/
in the repository (git-ignored), where a person can open them after the run.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "results" / "screenshots"


def chromium_path() -> str | None:
    for candidate in (
        os.environ.get("LAB_CHROMIUM"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@contextmanager
def browser():
    """A headless Chromium (Playwright's sync API); the test is skipped without Chromium."""
    path = chromium_path()
    if path is None:
        pytest.skip(
            "Chromium not found (/usr/bin/chromium; `apt-get install chromium`, as "
            ".ci/run does): the report's layout cannot be checked in a real browser"
        )
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright (the test extra) is not installed"
    )
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def screenshot_path(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / name
