"""Errors meant for people: one line naming the file, the entry and the fix.

The CLI prints a ``LabError`` as a single line and exits with code 2; it never shows a traceback
for one. Code that finds bad input raises ``LabError``; code that finds a bug raises anything else.
"""

from __future__ import annotations


class LabError(Exception):
    """A problem with the user's input (a file, a key, a value) that the user can fix."""

    exit_code = 2

    def __init__(self, message: str, *, source: str | None = None):
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)


def closest(name: str, candidates, n: int = 3) -> list[str]:
    """The candidates nearest to ``name``, for 'did you mean' hints (works on Japanese names)."""
    import difflib

    cands = list(candidates)
    found = difflib.get_close_matches(name, cands, n=n, cutoff=0.4)
    if not found:
        found = [c for c in cands if name and (name in c or c in name)][:n]
    return found


def did_you_mean(name: str, candidates) -> str:
    """The 'did you mean A, B? ' part of an error line (its trailing space included), or '' when
    nothing is close."""
    hint = closest(name, candidates)
    return f"did you mean {', '.join(hint)}? " if hint else ""


def read_toml(path, what: str = "a .toml file") -> dict:
    """Read a TOML file; every way it can fail becomes one ``LabError`` naming the file."""
    return parse_toml(read_text(path, what), str(path))


def read_text(path, what: str = "a .toml file") -> str:
    """A text file's content (UTF-8, no byte-order mark), or one ``LabError`` naming it."""
    src = str(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise LabError("file not found", source=src) from None
    except IsADirectoryError:
        raise LabError(f"is a directory; give the path of {what}", source=src) from None
    except OSError as e:
        raise LabError(f"cannot read the file: {e.strerror}", source=src) from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raise LabError(
            "not valid TOML: the file starts with a UTF-8 byte-order mark (BOM); "
            "save it as UTF-8 without BOM",
            source=src,
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LabError("not valid TOML: the file is not UTF-8 text", source=src) from None


def parse_toml(text: str, source: str) -> dict:
    """TOML text read from ``source`` (a file name), or one ``LabError`` naming it."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise LabError(f"not valid TOML: {_toml_problem(str(e), text)}", source=source) from None


def _toml_problem(message: str, text: str) -> str:
    """tomllib's message, with the duplicate-key cases said in a designer's words."""
    import re

    at = re.search(r"\(at line (\d+), column \d+\)", message)
    line = int(at.group(1)) if at else 0
    if message.startswith("Cannot overwrite a value") and line:
        key = text.splitlines()[line - 1].partition("=")[0].strip()
        return f"key {key} is set twice (again at line {line}); keep one of them"
    declared = re.match(r"Cannot declare \((.*?),?\) twice", message)
    if declared and line:
        name = ".".join(part.strip().strip("'\"") for part in declared.group(1).split(","))
        return f"table [{name}] is declared twice (again at line {line}); merge them into one"
    return message
