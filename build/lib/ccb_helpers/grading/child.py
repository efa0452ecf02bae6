"""The student process of isolated grading: runs a notebook's answer cells, answers calls.

Started by :mod:`ccb_helpers.grading.isolation` as ``python -I child.py REPLY_FD`` — a script,
not a module of the package: it imports the standard library and numpy only, so the real
``ccb_helpers`` is never loaded here. Before any student code runs it

1. sends its own stdout and stderr to ``/dev/null`` (replies go to ``REPLY_FD`` only);
2. imports numpy, caps memory, CPU time, file size, open files and processes (``setrlimit``);
3. moves into a network namespace of its own (no network, not even 127.0.0.1);
4. when running as root, drops every capability (``capset``);
5. confines itself with Landlock (Linux ≥ 5.13): read access to the standard library, numpy
   and the system libraries only, nothing writable, no TCP, no signals or abstract UNIX sockets
   outside its own domain (as far as the kernel's Landlock ABI goes) — so the course folder,
   the gradebook, other students' files and the real ``ccb_helpers`` are unreadable;
6. installs a seccomp filter: no process, no socket (UDP included), no signal to another process,
   no change to another process's limits, priority or scheduling;
7. replaces ``ccb_helpers`` by a stub: every library function is unavailable (calling it
   records the call and raises), except the data records ``Transfer`` and ``Schedule`` that a
   construction part returns;
8. installs an audit hook refusing process creation, ``ctypes``, sockets and signals (a second
   layer whose state is in its closure, and the only one for files where Landlock is missing).

The sandbox is ``child_sandbox.py``, the stub ``child_stub.py`` (loaded by path: this script
imports nothing of the package). The grader is told which layers are in place.

Requests and replies are length-prefixed JSON. Returned values cross as plain data
(:func:`encode`): builtin values, genuine numpy scalars and arrays, ``Fraction`` as two ints;
any other object crosses as "an object of another type", so a look-alike (an ``int`` subclass,
a class claiming ``__module__ = "numpy"``, a ``Fraction`` whose parts compare equal to
anything) cannot reach the grader's comparisons.
"""

import builtins
import contextlib
import fractions
import io
import json
import os
import struct
import sys

MAX_MESSAGE = 32 * 2**20  # as isolation.MAX_MESSAGE: what the grader reads
MAX_ITEMS = 1_000_000  # as values.MAX_ITEMS: a longer list is not graded anyway
MAX_DEPTH = 64
MAX_OUTPUT = 20_000


def _sibling(name):
    """A module of this folder loaded by path (``python -I`` puts no folder of ours on ``sys.path``,
    and the package must not be imported here): ``child_sandbox``, ``child_stub``."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"ccb_grading_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sandbox = _sibling("child_sandbox")
stub = _sibling("child_stub")
Transfer, Schedule = stub.Transfer, stub.Schedule


# ------------------------------------------------------------------------------------------
# Messages
# ------------------------------------------------------------------------------------------


def read_message(fd):
    header = _read_exact(fd, 4)
    if header is None:
        return None
    (size,) = struct.unpack(">I", header)
    if size > MAX_MESSAGE:
        raise SystemExit(3)
    return json.loads(_read_exact(fd, size).decode("utf-8"))


def _read_exact(fd, size):
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def write_message(fd, message):
    data = json.dumps(message, ensure_ascii=True).encode("utf-8")
    data = struct.pack(">I", len(data)) + data
    while data:
        written = os.write(fd, data)
        data = data[written:]


# ------------------------------------------------------------------------------------------
# Sandbox
# ------------------------------------------------------------------------------------------


class _Codec:
    # The genuine numpy scalar types, by identity: the same sets as grading.values._NUMPY_*, written
    # again because this script must not import the package (module docstring);
    # tests/test_grading.py checks that the two agree.
    def __init__(self, np):
        self.np = np
        ints = {
            np.int8,
            np.int16,
            np.int32,
            np.int64,
            np.uint8,
            np.uint16,
            np.uint32,
            np.uint64,
            np.intc,
            np.uintc,
            np.intp,
            np.uintp,
            np.longlong,
            np.ulonglong,
            np.byte,
            np.ubyte,
            np.short,
            np.ushort,
            np.long,
            np.ulong,
        }
        self.ints = frozenset(ints)
        self.floats = frozenset({np.float16, np.float32, np.float64, np.longdouble})
        self.bool_, self.str_, self.ndarray = np.bool_, np.str_, np.ndarray
        self.fraction = fractions.Fraction
        self.shown = frozenset(
            {
                "complex",
                "bytes",
                "bytearray",
                "range",
                "map",
                "filter",
                "zip",
                "generator",
                "function",
                "method",
                "builtin_function_or_method",
                "dict_keys",
                "dict_values",
                "dict_items",
                "Decimal",
                "type",
                "module",
                "list_iterator",
                "enumerate",
                "reversed",
                "ndarray",
            }
        )

    def encode(self, value):
        self.items = 0
        return self._encode(value, 0)

    def _int(self, value):
        return value if -(2**53) < value < 2**53 else ["I", hex(value)]

    def _encode(self, value, depth):
        self.items += 1
        if self.items > MAX_ITEMS or depth > MAX_DEPTH:
            raise ValueError("the returned value is too large or too deeply nested")
        kind = type(value)
        if value is None or kind is bool or kind is str:
            return value
        if kind is int:
            return self._int(value)
        if kind is float:
            return value
        if kind in self.ints:
            return self._int(int(value))
        if kind in self.floats:
            return float(value)
        if kind is self.bool_:
            return bool(value)
        if kind is self.str_:
            return str.__str__(value)
        if kind in (list, tuple, set, frozenset):
            tag = {list: "L", tuple: "T", set: "S", frozenset: "Z"}[kind]
            return [tag, [self._encode(item, depth + 1) for item in value]]
        if kind is dict:
            return ["D", [[self._encode(k, depth + 1), self._encode(v, depth + 1)] for k, v in dict.items(value)]]
        if kind is self.fraction:
            numerator, denominator = value.numerator, value.denominator
            if type(numerator) is int and type(denominator) is int:
                return ["F", hex(numerator), hex(denominator)]
            return ["?", ""]
        if kind is self.ndarray and value.dtype.kind in "biuf":
            if value.size > MAX_ITEMS:
                raise ValueError("the returned array is too large")
            return ["A", value.dtype.kind, list(value.shape), value.ravel().tolist()]
        if kind is Transfer:
            return ["X", [self._encode(getattr(value, f), depth + 1) for f in Transfer.__slots__]]
        if kind is Schedule:
            return ["Y", [self._encode(getattr(value, f), depth + 1) for f in Schedule.__slots__]]
        name = (
            kind.__name__ if kind.__module__ in ("builtins", "decimal", "numpy") and kind.__name__ in self.shown else ""
        )
        return ["?", name]

    def decode(self, data):
        # Arguments come from the grader: plain data only.
        if isinstance(data, list):
            tag = data[0]
            if tag == "I":
                return int(data[1], 16)
            if tag == "F":
                return fractions.Fraction(int(data[1], 16), int(data[2], 16))
            if tag == "D":
                return {self.decode(k): self.decode(v) for k, v in data[1]}
            if tag == "A":
                return self.np.array(
                    data[3], dtype={"b": bool, "i": self.np.int64, "u": self.np.uint64, "f": float}[data[1]]
                ).reshape(data[2])
            items = [self.decode(item) for item in data[1]]
            return {"L": list, "T": tuple, "S": set, "Z": frozenset}[tag](items)
        return data


# ------------------------------------------------------------------------------------------
# The loop
# ------------------------------------------------------------------------------------------


class _Sink(io.TextIOBase):
    """Captures at most MAX_OUTPUT characters of output."""

    def __init__(self, keep=True):
        self.parts, self.size, self.keep = [], 0, keep

    def writable(self):
        return True

    def write(self, text):
        if self.keep and self.size < MAX_OUTPUT and isinstance(text, str):
            self.parts.append(text[: MAX_OUTPUT - self.size])
            self.size += len(self.parts[-1])
        return len(text) if isinstance(text, str) else 0

    def text(self):
        return "".join(self.parts)


def _error_of(error):
    try:
        message = str(error)
    except BaseException:  # noqa: BLE001 - a student's exception may refuse to print
        message = ""
    return [type(error).__name__, message[:2000]]


def serve(reply_fd, codec, shell):
    namespaces = {}

    def fresh():
        namespace = {"__name__": "__main__", "__builtins__": builtins, "get_ipython": lambda: shell}
        return namespace

    while True:
        request = read_message(0)
        if request is None:
            return
        op = request.get("op")
        reply = {}
        if op == "exec":
            namespace = namespaces.setdefault(request["namespace"], fresh())
            shell.namespace = namespace
            sink = _Sink(keep=request.get("capture", False))
            try:
                code = compile(request["source"], request.get("filename", "<cell>"), "exec")
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    exec(code, namespace)
            except BaseException as error:  # noqa: BLE001 - the cell may raise anything (SystemExit too)
                reply["error"] = _error_of(error)
            reply["stdout"] = sink.text()
            reply["names"] = [
                name
                for name in list(namespace)
                if isinstance(name, str) and name.isidentifier() and not name.startswith("__")
            ]
        elif op == "call":
            namespace = namespaces.get(request["namespace"], {})
            sink = _Sink(keep=False)
            try:
                if request["name"] not in namespace:
                    raise NameError(f"name {request['name']!r} is not defined")
                func = namespace[request["name"]]
                args = codec.decode(request["args"])
                kwargs = codec.decode(request["kwargs"])
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    value = func(*args, **kwargs)
                reply["value"] = codec.encode(value)
            except BaseException as error:  # noqa: BLE001 - the student's code may raise anything
                reply["raised"] = _error_of(error)
        elif op == "reset":
            namespaces.pop(request["namespace"], None)
        reply["library"] = list(stub.library_calls)
        del stub.library_calls[:]
        write_message(reply_fd, reply)


def main(reply_fd=None):
    reply_fd = int(sys.argv[1]) if reply_fd is None else reply_fd
    config = read_message(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    import numpy

    codec = _Codec(numpy)
    abi = 0
    stdlib = os.path.realpath(config["stdlib"])
    entries = sandbox.standard_library(stdlib)
    system_folders, library_files = sandbox.loaded_libraries()
    read_paths = [os.path.realpath(p) for p in config["read_paths"]] + system_folders
    read_paths += [p for p in entries if os.path.isdir(p)]
    read_files = list(config["read_files"]) + library_files + [p for p in entries if not os.path.isdir(p)]
    readable = tuple(read_paths) + tuple(os.path.realpath(p) for p in read_files)
    listable = (stdlib,)
    layers = dict(config.get("layers", {}))
    problems = []
    try:
        sandbox.limit_resources(config["memory"], config["cpu_seconds"])
    except (OSError, ValueError) as error:
        problems.append(str(error))
    netns = seccomp = False
    if layers.get("network_namespace", True):
        try:  # as root before the capabilities go: it needs CAP_SYS_ADMIN
            netns = sandbox.isolate_network()
        except OSError as error:
            problems.append(str(error))
    if os.geteuid() == 0:
        try:
            sandbox.drop_capabilities()
        except OSError as error:
            problems.append(str(error))
    try:
        abi = sandbox.landlock(read_paths, read_files, listable)
    except OSError as error:
        problems.append(str(error))
    if layers.get("seccomp", True):
        try:
            seccomp = sandbox.install_seccomp()
        except OSError as error:
            problems.append(str(error))
    problem = "; ".join(problems)
    stub.install_stub()
    shell = stub.Shell()
    if layers.get("audit_hook", True):
        sandbox.install_audit_hook(readable, listable)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    write_message(
        reply_fd,
        {"ready": True, "landlock": abi, "seccomp": seccomp, "netns": netns, "problem": problem, "pid": os.getpid()},
    )
    serve(reply_fd, codec, shell)


# ------------------------------------------------------------------------------------------
# The fork server
# ------------------------------------------------------------------------------------------


def _student(fds, control):
    """In a fresh fork of the fork server: become a student process, exactly as ``main`` starts one."""
    to_child, reply_fd = fds
    control.close()
    os.setsid()  # its own session and process group, as ``start_new_session`` gives (killpg)
    os.dup2(to_child, 0)
    os.close(to_child)
    # Nothing of the server's stays open but the two pipes (``close_fds`` of a fresh start).
    os.closerange(3, reply_fd)
    os.closerange(reply_fd + 1, 1 << 16)
    main(reply_fd)


def fork_server(control_fd):
    """Start student processes by fork: the start-up every one of them shares is done once here.

    Started by the grader as ``python -I child.py --fork-server FD`` with the student processes'
    environment, working folder and ``/dev/null`` outputs; it imports numpy (most of a student
    process's start: 0.1 CPU-s each, a class has ~20 of them per set) and then only forks. It runs
    no student code itself, so every fork is what a fresh ``python -I child.py`` is at the same
    point: ``main`` then limits, confines and serves it as usual. Requests on the UNIX socket
    ``FD`` (one byte, then):

    * ``f`` with two file descriptors (the student's request pipe, its reply pipe) as
      ``SCM_RIGHTS``: fork a student process; the reply is its pid (4 bytes, -1 if fork failed);
    * ``k`` and a pid (4 bytes) of one of its students: kill its process group and reap it (the
      grader's ``kill`` + ``wait`` of a child it started itself); the reply is 4 bytes.

    The server is a *subreaper* (``PR_SET_CHILD_SUBREAPER``): a process a student started that
    outlives its parent becomes the server's child, not init's — even one that left the student's
    process group with ``setsid`` — and is killed and reaped after each ``k`` (where the seccomp
    filter is missing; with it, a student process can start none). At the end of the socket every
    student left is killed and reaped, so their CPU time is counted in the server's, and the
    server's in the grader's when it reaps the server.
    """
    import numpy  # noqa: F401 - the shared start-up (main imports it again: already loaded)

    before = set(sys.modules)
    import ctypes
    import socket

    own = tuple(set(sys.modules) - before)  # the server's modules: a student process has none of them
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=control_fd)
    students = set()

    def orphans():
        """Children of the server that are not students: processes students left behind."""
        me, found = os.getpid(), []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in students:
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    data = stat.read()
            except OSError:
                continue
            fields = data[data.rfind(b")") + 2 :].split()
            if len(fields) > 1 and fields[1] == str(me).encode():
                found.append(int(entry))
        return found

    def sweep():
        for _ in range(1000):  # until none is left (each pass kills what the last one let fork)
            left = orphans()
            if not left:
                return
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, 9)
            for pid in left:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)

    def reap(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, 9)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        students.discard(pid)
        sweep()

    try:
        while True:
            message, fds, _, _ = socket.recv_fds(control, 5, 2)
            if not message:
                break
            if message[:1] == b"f" and len(fds) == 2:
                try:
                    pid = os.fork()
                except OSError:
                    pid = -1
                if pid == 0:
                    try:
                        for name in own:
                            sys.modules.pop(name, None)
                        _student(fds, control)
                    finally:
                        os._exit(0)
                for fd in fds:
                    os.close(fd)
                if pid > 0:
                    students.add(pid)
                control.sendall(struct.pack(">i", pid))
            elif message[:1] == b"k" and len(message) == 5 and not fds:
                (pid,) = struct.unpack(">i", message[1:])
                if pid in students:
                    reap(pid)
                control.sendall(struct.pack(">i", 0))
            else:
                for fd in fds:
                    os.close(fd)
                break
    except OSError:
        pass
    finally:
        for pid in list(students):
            reap(pid)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--fork-server"]:
        fork_server(int(sys.argv[2]))
    else:
        main()
