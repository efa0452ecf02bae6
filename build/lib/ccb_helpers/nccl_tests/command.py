"""The command line that started a run: how many processes the launcher started, and ``-t`` / ``-g``.

nccl-tests runs ``processes x threads (-t) x GPUs per thread (-g)`` ranks. The process count is
the launcher's: ``mpirun -np 16``, ``mpiexec -n 16``, ``srun --ntasks=16`` or ``srun -N 2
--ntasks-per-node=8``, ``mpirun -ppn 8 -hosts a,b`` … — under whatever name the distribution
installs it (Debian and Ubuntu's ``mpirun.openmpi``, ``mpirun.mpich``, ``mpiexec.hydra``,
``/usr/bin/mpirun.openmpi``). A line with no launcher runs one process. A word before the
program that is neither a launcher nor a wrapper known to start one process (``sudo``,
``numactl``, an environment assignment …) may be a launcher the reader does not know, so the
line says nothing about the rank count then: the rows (their busbw factor) decide, not a guess.
"""

from __future__ import annotations

import bisect
import re

from .._tokens import read_number

#: Largest rank count the reader infers or accepts (nccl-tests runs reach thousands).
MAX_RANKS = 2**24
#: Launchers by the stem of their name (``mpirun.openmpi`` -> ``mpirun``, ``mpirun_rsh`` -> ``mpirun``).
LAUNCHERS = ("mpirun", "mpiexec", "orterun", "prterun", "prun", "srun", "jsrun", "aprun", "horovodrun", "flux")
#: Commands before the program that start no further processes.
WRAPPERS = frozenset(
    "sudo env time nohup stdbuf numactl taskset exec command nice ionice chrt unbuffer strace nsys ncu".split()
)
_PROCESS_OPTIONS = ("-np", "-n", "--np", "--n", "-c", "--ntasks")
_PER_NODE_OPTIONS = ("-N", "-npernode", "--npernode", "-ppn", "--ppn", "--ntasks-per-node", "--tasks-per-node")
_HOST_OPTIONS = ("-H", "--host", "-host", "-hosts", "--hosts")
_NODE_OPTIONS = ("--nodes",)  # srun -N is nodes too: handled with the launcher
_PROGRAM_TOKEN_RE = re.compile(
    r"(?:^|[\s/])((?:all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|gather|"
    r"scatter|sendrecv|hypercube)_perf(?:_mpi)?)(?=\s|$)"
)


def _stem(token: str) -> str:
    return re.split(r"[._]", token.rsplit("/", 1)[-1], maxsplit=1)[0]


def _is_prompt(token: str) -> bool:
    """A shell prompt or its parts (``user@host:~/nccl-tests$``, ``(base)``, ``+`` of ``set -x``)."""
    return token.endswith(("$", "#", "%", ">")) or "@" in token or (token.startswith("(") and token.endswith(")"))


def _options(tokens) -> dict:
    """``{option: value}`` of ``-x V``, ``--x=V`` tokens (the value as printed)."""
    found = {}
    for i, token in enumerate(tokens):
        if not token.startswith("-"):
            continue
        if "=" in token:
            name, value = token.split("=", 1)
            found.setdefault(name, value)
        elif i + 1 < len(tokens):
            found.setdefault(token, tokens[i + 1])
    return found


def _count(value, where: str) -> int | None:
    if value is None or not (value.isascii() and value.isdigit()):  # "$NP", "²", "١٦": no count
        return None
    return read_number(value, where, integer=True).value


def _processes(launcher: str, options: dict, where: str) -> int | None:
    """Processes a launcher starts, from its options; ``None`` when they do not say."""
    for name in _PROCESS_OPTIONS:
        if launcher == "srun" and name == "-c":
            continue  # srun -c is CPUs per task
        if (count := _count(options.get(name), where)) is not None:
            return count
    if launcher == "jsrun":
        sets, per_set = _count(options.get("-n"), where), _count(options.get("-a"), where)
        return None if sets is None or per_set is None else sets * per_set
    per_node = next((c for name in _PER_NODE_OPTIONS if (c := _count(options.get(name), where)) is not None), None)
    if launcher == "srun":
        nodes = _count(options.get("-N") or options.get("--nodes"), where)
        per_node = _count(options.get("--ntasks-per-node"), where)
        return None if nodes is None or per_node is None else nodes * per_node
    hosts = next((options[name] for name in _HOST_OPTIONS if name in options), None)
    if hosts is not None:
        names = [h for h in hosts.split(",") if h]
        slots = [h.rsplit(":", 1)[1] for h in names if ":" in h]
        if per_node is not None:
            return per_node * len(names)
        if slots and len(slots) == len(names) and all(s.isascii() and s.isdigit() for s in slots):
            return sum(_count(s, where) for s in slots)
    return None


def command_ranks(line: str, program_at: int, lineno: int = 0) -> tuple[int, int, int] | None:
    """``(processes, threads, GPUs per thread)`` a command line starts: the launcher's process
    count (1 without a launcher) and the program's ``-t`` and ``-g``.

    ``program_at`` is where the program's name starts. ``None`` when the line has a launcher
    whose process count it does not give (``srun`` with its allocation's defaults), a word before
    the program that may be an unknown launcher, or options that cannot be read.

    >>> command_ranks("mpirun -np 2 ./build/all_reduce_perf -b 8 -g 4", 13)
    (2, 1, 4)
    >>> command_ranks("mpirun.mpich -np 16 -env X=1 ./build/all_reduce_perf -g 1", 33)
    (16, 1, 1)
    >>> command_ranks("./build/all_gather_perf -b 16M -g 2 -d bfloat16", 0)
    (1, 1, 2)
    >>> command_ranks("charmrun +p4 ./build/all_gather_perf -g 1", 12) is None   # an unknown launcher
    True
    """
    where = f"line {lineno}: command line"
    head = line[:program_at]
    before, after = head.split(), line[program_at:].split()[1:]
    if head and not head[-1].isspace() and before:
        before = before[:-1]  # the program's own directory ("./build/")
    while any(_is_prompt(t) for t in before):  # drop a shell prompt and everything before it
        before = before[max(i for i, t in enumerate(before) if _is_prompt(t)) + 1 :]
    launchers = [i for i, token in enumerate(before) if _stem(token) in LAUNCHERS]
    procs = 1
    if launchers:
        first = launchers[0]
        procs = _processes(_stem(before[first]), _options(before[first + 1 :]), where)
        if procs is None:
            return None
    else:
        words = [t for t in before if not t.startswith("-") and not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", t)]
        if any(_stem(w) not in WRAPPERS for w in words):
            return None  # a word that may be a launcher the reader does not know
    per_process = {"-t": 1, "-g": 1}
    for i, token in enumerate(after):
        key = {"-t": "-t", "--nthreads": "-t", "-g": "-g", "--ngpus": "-g"}.get(token)
        if key and i + 1 < len(after):
            if not (after[i + 1].isascii() and after[i + 1].isdigit()):
                return None
            per_process[key] = read_number(after[i + 1], f"{where} {token}", integer=True).value
    n = procs * per_process["-t"] * per_process["-g"]
    return (procs, per_process["-t"], per_process["-g"]) if 1 <= n <= MAX_RANKS else None


#: Most physical lines one command may span with ``\`` continuations (a README's ``mpirun \``
#: with one ``-x`` option a line runs to a few dozen); a longer chain is read in pieces.
MAX_CONTINUED_LINES = 256


def _logical_lines(lines):
    """``(offset of the first physical line, text, where each physical line starts in text)`` of
    each shell command line: lines ending in a backslash are joined with the next, as the shell
    does (at most :data:`MAX_CONTINUED_LINES`)."""
    parts, starts, first, width = [], [], 0, 0
    for offset, line in enumerate(lines):
        if not parts:
            first, width = offset, 0
        body = line.rstrip()
        starts.append(width)
        if body.endswith("\\") and len(parts) < MAX_CONTINUED_LINES - 1:
            parts.append(body[:-1])
            width += len(body)  # the part and the blank that joins it
            continue
        parts.append(line)
        yield first, " ".join(parts) if len(parts) > 1 else line, starts
        parts, starts = [], []
    if parts:
        yield first, " ".join(parts), starts


def _app_contexts(line: str, program_at: int):
    """An MPMD command (``mpirun -np 1 prog … : -np 1 prog …``) split at its ``:`` tokens into one
    ``(text, program_at)`` per application context; a single context otherwise."""
    if " : " not in line[program_at:]:
        return [(line, program_at)]
    pieces = re.split(r"\s:\s", line)
    contexts, launcher = [], None
    for piece in pieces:
        match = _PROGRAM_TOKEN_RE.search(piece)
        if match is None:
            return None  # a context that runs no nccl-tests program: not read
        if launcher is None:
            launcher_at = next((m.start() for m in re.finditer(r"\S+", piece) if _stem(m.group()) in LAUNCHERS), None)
            if launcher_at is None:
                return None
            launcher = piece[launcher_at:].split()[0]
            contexts.append((piece, match.start(1)))
        else:  # the next context's options, under the first context's launcher
            contexts.append((f"{launcher} {piece}", len(launcher) + 1 + match.start(1)))
    return contexts


def find_command(lines, start: int) -> tuple[tuple[int, int, int] | None, int, str | None]:
    r""":func:`command_ranks` of the last command line (one that runs an ``…_perf`` program), its
    line number, and a note when a command line names the program but not the rank count.

    A command continued over several lines with ``\`` is read whole (its line number is the
    program's); an MPMD command (``mpirun -np 1 prog : -np 1 prog``) starts the sum of its
    contexts' ranks.

    >>> find_command(["mpirun --bind-to none \\", "  --np 8 \\", "  ./all_reduce_perf -b 8 -g 1"], 0)[:2]
    ((8, 1, 1), 3)
    >>> find_command(["mpirun -np 1 env A=1 ./all_reduce_perf -g 1 : -np 1 env A=2 ./all_reduce_perf -g 1"], 0)[:2]
    ((2, 1, 1), 1)
    """
    found, where, note = None, 0, None
    for first, line, starts in _logical_lines(lines):
        if "_perf" not in line:  # a C-level scan before the regular expression
            continue
        match = _PROGRAM_TOKEN_RE.search(line)
        if match is None or "Collective test" in line:
            continue
        program_line = start + first + bisect.bisect_right(starts, match.start(1))  # 1-based
        contexts = _app_contexts(line, match.start(1))
        if contexts is None:
            continue
        counted = [command_ranks(text, at, program_line) for text, at in contexts]
        if any(c is None for c in counted) or len({c[1:] for c in counted}) != 1:
            continue
        found, where = (sum(c[0] for c in counted), *counted[0][1:]), program_line
    return found, where, note
