"""Fuzz the readers of printed output with the mutation classes an outside fuzzer broke them with (#42).

Published nccl-tests logs (the package's and tests/data's) and ``nvidia-smi`` / ``rocm-smi``
printouts, each with one to three mutations of these kinds:

* **exponents** — a number token replaced by one with a large or tiny exponent (``0e400``,
  ``1e400``, ``1e308``, ``1e-300``, ``0e-400`` …);
* **subnormals** — a number token replaced by a subnormal (``1e-320``, ``2e-308``, ``5e-324``);
* **zero and huge counts** — ``# nThread T nGpus G``, the launcher's ``-np``, the program's
  ``-g`` / ``-t``, NCCL's ``nranks``, a rank line's index set to 0 or to a count above the
  reader's ``MAX_RANKS``;
* **rows outside a run** — rows copied before the header, after the footer, or the header repeated.

The rule, for every mutated text: the reader returns a log or raises ``ValueError`` naming a
line (or ``text:``); a log it returns yields a report (given the collective and rank count it
could not determine) or a ``ValueError``; the CLI exits 0, or 2 with one line on stderr; every
number of a report is finite. The examples are the same on every run (``derandomize``).
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ccb_helpers as ccb
from ccb_helpers.nccl_tests import main
from ccb_helpers.nccl_tests.evidence import MAX_RANKS

CORPUS = Path(__file__).parent / "data" / "nccl_tests"
SMI = Path(__file__).parent / "data" / "nvidia_smi"
LOGS = [ccb.published_log_text(key) for key in sorted(ccb.PUBLISHED_LOGS)] + [
    path.read_text() for path in sorted(CORPUS.glob("*.txt"))
]
PRINTOUTS = [path.read_text() for path in sorted(SMI.glob("*.txt"))]
EXPONENTS = ["0e400", "1e400", "1e308", "9.9e307", "1e-300", "0e-400", "1.5e+02", "0.0e309", "1e-307"]
SUBNORMALS = ["1e-320", "1e-310", "2e-308", "5e-324", "4.9e-324"]
COUNTS = ["0", "00", str(MAX_RANKS + 1), "99999999999", "1" + "0" * 30]
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
SETTINGS = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _replace_number(draw, lines, tokens):
    """Replace one number token of one line that has numbers."""
    candidates = [i for i, line in enumerate(lines) if _NUMBER.search(line)]
    if not candidates:
        return
    i = draw(st.sampled_from(candidates))
    spans = [m.span() for m in _NUMBER.finditer(lines[i])]
    start, end = draw(st.sampled_from(spans))
    lines[i] = lines[i][:start] + draw(st.sampled_from(tokens)) + lines[i][end:]


def _count_mutation(draw, lines):
    """Set a count the log states to 0 or beyond MAX_RANKS (or add a line stating one)."""
    value = draw(st.sampled_from(COUNTS))
    patterns = [
        (r"(nThread )\d+", rf"\g<1>{value}"),
        (r"(nGpus )\d+", rf"\g<1>{value}"),
        (r"(-np )\d+", rf"\g<1>{value}"),
        (r"(-g )\d+", rf"\g<1>{value}"),
        (r"(-t )\d+", rf"\g<1>{value}"),
        (r"(nranks )\d+", rf"\g<1>{value}"),
        (r"(Rank +)\d+", rf"\g<1>{value}"),
    ]
    present = [(p, r) for p, r in patterns if any(re.search(p, line) for line in lines)]
    if present and draw(st.booleans()):
        pattern, replacement = draw(st.sampled_from(present))
        i = next(i for i, line in enumerate(lines) if re.search(pattern, line))
        lines[i] = re.sub(pattern, replacement, lines[i], count=1)
        return
    extra = draw(
        st.sampled_from(
            [
                f"# nThread 1 nGpus {value} minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20",
                f"# nThread {value} nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20",
                f"mpirun -np {value} ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1",
                f"mpirun.openmpi -np 2 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g {value}",
                f"host:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks {value} cudaDev 0 busId 1000 - Init COMPLETE",
                f"#  Rank {value} Group  0 Pid   1 on      node0 device  0 [0x07] NVIDIA A100-SXM4-40GB",
            ]
        )
    )
    lines.insert(draw(st.integers(0, len(lines))), extra)


def _rows_outside(draw, lines):
    """Copy rows before the header or after the footer, or print the header twice."""
    rows = [line for line in lines if line.strip()[:1].isdigit() and len(line.split()) >= 11]
    header = next(
        (i for i, line in enumerate(lines) if "busbw" in line and "size" in line.replace("bytes", "size")), None
    )
    if not rows:
        return
    how = draw(st.sampled_from(["before", "after", "header twice", "middle"]))
    copied = rows[: draw(st.integers(1, min(len(rows), 12)))]
    if how == "before":
        at = header if header is not None else 0
        lines[at:at] = copied + [""]
    elif how == "after":
        lines.extend(["", "more rows:"] + copied)
    elif how == "header twice" and header is not None:
        lines.insert(header + 1, lines[header])
    else:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(copied)))


@st.composite
def mutated_log(draw):
    lines = draw(st.sampled_from(LOGS)).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["exponent", "subnormal", "count", "outside"]))
        if kind == "exponent":
            _replace_number(draw, lines, EXPONENTS)
        elif kind == "subnormal":
            _replace_number(draw, lines, SUBNORMALS)
        elif kind == "count":
            _count_mutation(draw, lines)
        else:
            _rows_outside(draw, lines)
    return "\n".join(lines) + "\n"


def _names_a_place(message: str) -> bool:
    return bool(re.match(r"^(line \d+|text: |collective=|n_ranks=)", message)) or " line " in message


def _finite_report(run) -> None:
    for value in run.table.values:
        for key, number in value.items():
            if isinstance(number, float):
                assert math.isfinite(number), (key, number)


@SETTINGS
@given(text=mutated_log())
def test_mutated_logs_read_or_refused_naming_the_line(text):
    try:
        runs = ccb.read_nccl_tests_runs(text)
    except ValueError as error:
        assert _names_a_place(str(error)), str(error)
        return
    for log in runs:
        collective = log.collective or (log.collective_candidates or ("all_reduce",))[0]
        n = log.n_ranks if log.n_ranks and log.n_ranks >= 2 else 8
        try:
            run = ccb.nccl_tests.run_report(log, 1e-6, 50e9, collective=collective, n_ranks=n)
        except ValueError as error:
            message = str(error)
            assert message and "must be finite" not in message, message
            continue
        _finite_report(run)


@settings(SETTINGS, max_examples=25)
@given(text=mutated_log())
def test_mutated_logs_give_the_cli_exit_0_or_2_and_one_line(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "log.txt"
    path.write_text(text)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main([str(path), "--preset", "h100_nvswitch", "--format", "json"])
    assert code in (0, 2)
    if code == 2:
        assert err.getvalue().count("\n") == 1 and err.getvalue().startswith("error: "), err.getvalue()


@st.composite
def mutated_printout(draw):
    lines = draw(st.sampled_from(PRINTOUTS)).splitlines()
    for _ in range(draw(st.integers(1, 2))):
        tokens = draw(st.sampled_from([EXPONENTS, SUBNORMALS, COUNTS]))
        i = draw(st.sampled_from([i for i, line in enumerate(lines) if re.search(r"GPU\d|NV\d", line)]))
        spans = [m.span(1) for m in re.finditer(r"(?:GPU|NV)(\d+)", lines[i])]
        if spans:
            start, end = draw(st.sampled_from(spans))
            lines[i] = lines[i][:start] + draw(st.sampled_from(tokens)) + lines[i][end:]
    return "\n".join(lines) + "\n"


@SETTINGS
@given(text=mutated_printout())
def test_mutated_smi_printouts_read_or_refused_naming_the_line(text):
    try:
        topology = ccb.parse_nvidia_smi_topo(text)
    except ValueError as error:
        assert str(error).startswith("text"), str(error)
        return
    assert topology.n >= 2


@pytest.mark.parametrize("token", EXPONENTS + SUBNORMALS)
def test_every_exponent_and_subnormal_in_every_column_of_a_row(token):
    # Each column of one real row in turn: the row is read with the token's exact value, or refused
    # naming line 44 (the 16 MiB row of the A3 Mega log).
    text = ccb.published_log_text("a3mega_h100_2node_all_reduce")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["16777216"])
    for column in range(len(lines[at].split())):
        tokens = lines[at].split()
        tokens[column] = token
        changed = "\n".join(lines[:at] + ["   ".join(tokens)] + lines[at + 1 :])
        try:
            log = ccb.read_nccl_tests(changed)
        except ValueError as error:
            assert str(error).startswith(f"line {at + 1}:"), (column, str(error))
            continue
        run = ccb.nccl_tests.run_report(log, 1e-6, 450e9, ports=1)
        _finite_report(run)
