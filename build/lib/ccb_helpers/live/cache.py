"""An on-disk cache of precomputed live-explorer data, keyed by a hash of the package's files.

Precomputing every state of an explorer runs the real Python code thousands of times (5-10 s
each for chapters 5 and 8 on this machine). The result depends only on the package's code and
data, so :func:`cached` stores it under ``<repository>/_build/.live-cache/`` named by a SHA-256
of every file of ``ccb_helpers`` (any change to any of them recomputes). The book's build fills
it and the tests read it. Outside a repository checkout (an installed wheel, no ``_build``), or
with ``CCB_LIVE_CACHE=0``, nothing is cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import tempfile
from functools import lru_cache

__all__ = ["cached", "package_hash"]

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
ROOT = PACKAGE.parent


@lru_cache(maxsize=1)
def package_hash() -> str:
    """SHA-256 of the package's files (paths and contents), computed once per process."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
            digest.update(path.relative_to(PACKAGE).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def _folder() -> pathlib.Path | None:
    if os.environ.get("CCB_LIVE_CACHE", "1") == "0":
        return None
    build = ROOT / "_build"
    if not (ROOT / "_config.yml").is_file():
        return None  # not a checkout of the book: no place of ours to write to
    return build / ".live-cache"


def cached(name: str, compute) -> dict:
    """``compute()`` (JSON-serialisable, string keys only), or its stored result for this package.

    >>> cached("doctest-example", lambda: {"x": [1, 2.5]})["x"]
    [1, 2.5]
    """
    if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"name must be letters, digits, '-' and '_', got {name!r}")
    if not callable(compute):
        raise TypeError("compute must be callable")
    folder = _folder()
    path = None if folder is None else folder / f"{name}-{package_hash()}.json"
    if path is not None and path.is_file():
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass  # a damaged entry is recomputed
    value = compute()
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if json.loads(text) != value:
        raise ValueError(f"{name}: the data does not survive JSON (non-string keys or tuples?)")
    if path is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for old in folder.glob(f"{name}-*.json"):  # entries of older code
                old.unlink(missing_ok=True)
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, delete=False, suffix=".tmp") as tmp:
                tmp.write(text)
            os.replace(tmp.name, path)  # atomic: a parallel reader never sees half a file
        except OSError:
            pass  # a read-only checkout: just not cached
    return value
