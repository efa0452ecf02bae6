"""The long fuzz run of issue #15: tests/test_fuzz.py with many examples per public function.

CI runs the fuzz test with a few dozen examples per entry (under 60 s); this runs it with
``--examples`` (default 300) per entry — about 30,000 calls over the whole API, each under the
same time and memory limits — and prints pytest's report.

    python tools/fuzz_long.py                      # every entry, 300 examples each
    python tools/fuzz_long.py --examples 2000 -k simulate
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=300, help="examples per fuzz entry (default 300)")
    parser.add_argument("--seconds", type=float, default=40.0, help="time limit of one call (default 40 s)")
    parser.add_argument("-k", default="", help="only entries matching this pytest -k expression")
    args = parser.parse_args()
    env = dict(
        os.environ, CCB_FUZZ_EXAMPLES=str(args.examples), CCB_FUZZ_SECONDS=str(args.seconds), CCB_FUZZ_RANDOM="1"
    )
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-o",
        "addopts=-p no:cacheprovider",
        "--durations=10",
        str(ROOT / "tests" / "test_fuzz.py"),
    ]
    if args.k:
        command += ["-k", args.k]
    start = time.monotonic()
    code = subprocess.call(command, cwd=ROOT, env=env)
    print(f"fuzz_long: {args.examples} examples per entry, {time.monotonic() - start:.0f} s, exit code {code}")
    return code


if __name__ == "__main__":
    sys.exit(main())
