"""What a game's ``play_chunk`` hands back to the runner for one chunk: a small receipt (no game
data crosses process boundaries); the runner adds its files to the manifest."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Receipt:
    chunk: int
    games: int  # games played
    seconds: float  # wall time in the worker, play and write
    errors: int  # games that hit an engine limit (the error flag)
    written: int  # games recorded: the games played, once per chunk they were written to
    files: dict  # {chunk id: {kind: {"rows", "sha256"}}} of the files written, for the manifest
