"""Time a clean site build and the full test run with the README's commands (report, not assert).

Targets on this 2-core machine: build <= 180 s, tests <= 120 s. Run from the repository root in
an environment where `pip install -r requirements.txt` has been done.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    build = timed(["jupyter-book", "build", ".", "-W", "-n", "--keep-going"])
    tests = timed(["pytest", "-q"])
    print(f"clean build: {build:6.1f} s (target <= 180 s, {'ok' if build <= 180 else 'over'})")
    print(f"full tests : {tests:6.1f} s (target <= 120 s, {'ok' if tests <= 120 else 'over'})")


if __name__ == "__main__":
    main()
