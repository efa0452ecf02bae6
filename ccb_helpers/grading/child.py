"""The student process of isolated grading: runs a notebook's answer cells, answers calls.

Started by :mod:`ccb_helpers.grading.isolation` as ``python -I child.py REPLY_FD`` — a script,
not a module of the package: it imports the standard library and numpy only, so the real
``ccb_helpers`` is never loaded here. Before any student code runs it

1. sends its own stdout and stderr to ``/dev/null`` (replies go to ``REPLY_FD`` only);
2. imports numpy, caps memory, CPU time, file size and open files (``setrlimit``);
3. when running as root, drops every capability (``capset``);
4. confines itself with Landlock (Linux ≥ 5.13): read access to the standard library, numpy
   and the system libraries only, nothing writable, no TCP, no signals or abstract UNIX sockets
   outside its own domain (as far as the kernel's Landlock ABI goes) — so the course folder,
   the gradebook, other students' files and the real ``ccb_helpers`` are unreadable;
5. installs an audit hook refusing process creation, ``ctypes``, sockets and signals (a second
   layer, and the only one where Landlock is missing);
6. replaces ``ccb_helpers`` by a stub: every library function is unavailable (calling it
   records the call and raises), except the data records ``Transfer`` and ``Schedule`` that a
   construction part returns.

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
import types

MAX_MESSAGE = 32 * 2**20  # as isolation.MAX_MESSAGE: what the grader reads
MAX_ITEMS = 1_000_000  # as values.MAX_ITEMS: a longer list is not graded anyway
MAX_DEPTH = 64
MAX_OUTPUT = 20_000

_library_calls = []


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


def _syscall_numbers():
    # Landlock's syscalls have the same numbers on every architecture that has them.
    return 444, 445, 446


def landlock(read_paths, read_files, list_paths=()):
    """Confine this process (and its children) with Landlock; return the ABI used (0: none).

    ``read_paths``: folders whose files may be read and listed; ``read_files``: single files;
    ``list_paths``: folders that may only be listed (the standard library's root, so that its
    ``site-packages`` stays unreadable). Nothing is writable or executable.
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    create, add_rule, restrict = _syscall_numbers()
    abi = libc.syscall(create, None, ctypes.c_size_t(0), ctypes.c_uint32(1))  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        return 0
    fs = (1 << 13) - 1  # ABI 1: execute, write, read, read_dir, remove, make_*
    if abi >= 2:
        fs |= 1 << 13  # refer
    if abi >= 3:
        fs |= 1 << 14  # truncate
    if abi >= 5:
        fs |= 1 << 15  # ioctl_dev
    net = 0b11 if abi >= 4 else 0  # bind_tcp, connect_tcp
    scoped = 0b11 if abi >= 6 else 0  # abstract unix sockets, signals

    class RulesetAttr(ctypes.Structure):
        _fields_ = [
            ("handled_access_fs", ctypes.c_uint64),
            ("handled_access_net", ctypes.c_uint64),
            ("scoped", ctypes.c_uint64),
        ]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    attr = RulesetAttr(fs, net, scoped)
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    ruleset = libc.syscall(create, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    read_file, read_dir = 1 << 2, 1 << 3
    rules = (
        [(path, read_file | read_dir) for path in read_paths]
        + [(path, read_file) for path in read_files]
        + [(path, read_dir) for path in list_paths]
    )
    for path, access in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            rule = PathBeneath(access, fd)
            if (
                libc.syscall(add_rule, ctypes.c_int(ruleset), ctypes.c_int(1), ctypes.byref(rule), ctypes.c_uint32(0))
                != 0
            ):
                raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
        finally:
            os.close(fd)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.syscall(restrict, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    os.close(ruleset)
    return abi


def drop_capabilities():
    """As root: give up every capability (the files stay root's, but root's powers are gone)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    for cap in range(64):  # the bounding set first (needs CAP_SETPCAP, which we still have)
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP
    header, data = Header(0x20080522, 0), (Data * 2)()  # _LINUX_CAPABILITY_VERSION_3
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def limit_resources(memory, cpu_seconds):
    import resource

    for limit, value in (
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NOFILE, 64),
    ):
        soft, hard = resource.getrlimit(limit)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(limit, (value, value))


_REFUSED_EVENTS = (
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "subprocess.Popen",
    "ctypes.",
    "socket.",
    "os.kill",
    "os.killpg",
    "signal.pthread_kill",
    "pty.",
    "mmap.",
    "sys._current_frames",
    "os.putenv",
    "os.unsetenv",
    "os.chdir",
    "os.chmod",
    "os.chown",
    "os.link",
    "os.symlink",
    "os.rename",
    "os.remove",
    "os.rmdir",
    "os.mkdir",
    "shutil.",
    "sqlite3.",
    "webbrowser.",
)


_readable = ()
_listable = ()


def _audit(event, args):
    if event.startswith(_REFUSED_EVENTS):
        raise PermissionError(f"{event}: not available while grading")
    if event in ("open", "os.listdir", "os.scandir") and args and args[0] is not None and not isinstance(args[0], int):
        # The same rule as Landlock's, for kernels without it: read the allowed folders only.
        path = os.path.realpath(os.fsdecode(args[0]))
        if event == "open" and isinstance(args[1], str) and any(c in args[1] for c in "wax+"):
            raise PermissionError(f"{event}: nothing is writable while grading")
        if event == "open" and isinstance(args[2], int) and args[2] & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise PermissionError(f"{event}: nothing is writable while grading")
        if event != "open" and path in _listable:
            return
        if not any(path == root or path.startswith(root.rstrip("/") + "/") for root in _readable):
            raise PermissionError(f"{event}: {path} is not readable while grading")


_PACKAGE_FOLDERS = ("site-packages", "dist-packages")


def loaded_libraries():
    """Shared libraries this process has loaded: ``(system folders, other files)``.

    A library in a system folder (``/lib``, ``/usr/lib``…) may load its neighbours later (a
    standard-library extension imported by a student's cell); any other library file is allowed
    on its own, so that no folder holding installed packages becomes readable.
    """
    folders, files = set(), set()
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            for line in maps:
                fields = line.split(None, 5)
                path = os.path.realpath(fields[5].strip()) if len(fields) == 6 else ""
                if not path.startswith("/") or ".so" not in os.path.basename(path):
                    continue
                folder = os.path.dirname(path)
                if folder.startswith(("/lib", "/usr/lib")) and not any(word in path for word in _PACKAGE_FOLDERS):
                    folders.add(folder)
                else:
                    files.add(path)
    except OSError:
        pass
    return sorted(folders), sorted(files)


def standard_library(stdlib):
    """The standard library's entries (files and folders) except the installed packages."""
    try:
        return sorted(os.path.join(stdlib, entry) for entry in os.listdir(stdlib) if entry not in _PACKAGE_FOLDERS)
    except OSError:
        return []


# ------------------------------------------------------------------------------------------
# The library stub
# ------------------------------------------------------------------------------------------


class LibraryUnavailable(Exception):
    """A library function was called: it is not available while grading."""


class _LibraryFunction:
    __slots__ = ("_path",)

    def __init__(self, path):
        object.__setattr__(self, "_path", path)

    def __call__(self, *args, **kwargs):
        _library_calls.append(self._path)
        raise LibraryUnavailable(f"ccb.{self._path} 在评分时不可用：本题要自己实现")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _LibraryFunction(f"{self._path}.{name}")

    def __repr__(self):
        return f"<ccb.{self._path} (not available while grading)>"


class Transfer:
    """The data of ``ccb.Transfer`` (the grader rebuilds and validates the real one)."""

    __slots__ = ("src", "dst", "offset", "length", "op", "buffer", "dst_offset", "dst_buffer")

    def __init__(self, src, dst, offset, length, op="copy", buffer="data", dst_offset=None, dst_buffer=None):
        self.src, self.dst, self.offset, self.length = src, dst, offset, length
        self.op, self.buffer, self.dst_offset, self.dst_buffer = op, buffer, dst_offset, dst_buffer

    def __repr__(self):
        return f"Transfer({self.src}, {self.dst}, {self.offset}, {self.length})"


class Schedule:
    """The data of ``ccb.Schedule.from_transfers`` (the grader rebuilds and validates the real one)."""

    __slots__ = ("primitive", "n", "m", "rounds", "root", "prologue", "epilogue")

    def __init__(self, *args, **kwargs):
        raise TypeError("评分时请用 ccb.Schedule.from_transfers(primitive, n, m, rounds) 组装调度")

    @classmethod
    def from_transfers(cls, primitive, n, m, rounds, root=0, prologue=(), epilogue=()):
        self = object.__new__(cls)
        self.primitive, self.n, self.m, self.rounds = primitive, n, m, rounds
        self.root, self.prologue, self.epilogue = root, prologue, epilogue
        return self


_RECORDS = {"Transfer": Transfer, "Schedule": Schedule}


def _stub_module(name):
    module = types.ModuleType(name, "ccb_helpers is not available while grading (a stub).")
    module.__path__ = []
    prefix = name.split(".", 1)[1] + "." if "." in name else ""

    def __getattr__(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if attr in _RECORDS:
            return _RECORDS[attr]
        return _LibraryFunction(prefix + attr)

    module.__getattr__ = __getattr__
    module.__all__ = []
    return module


class _StubFinder:
    """Serves a stub for ``ccb_helpers`` and every ``ccb_helpers.*`` module."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname == "ccb_helpers" or fullname.startswith("ccb_helpers."):
            import importlib.machinery

            return importlib.machinery.ModuleSpec(fullname, cls, is_package=True)
        return None

    @staticmethod
    def create_module(spec):
        return _stub_module(spec.name)

    @staticmethod
    def exec_module(module):
        pass


def install_stub():
    for name in [n for n in sys.modules if n == "ccb_helpers" or n.startswith("ccb_helpers.")]:
        del sys.modules[name]
    sys.meta_path.insert(0, _StubFinder)
    sys.modules["ccb_helpers"] = _stub_module("ccb_helpers")
    sys.modules["ccb_helpers.grading"] = _stub_module("ccb_helpers.grading")


class _Shell:
    """``get_ipython()`` of the grading process: ``%time``/``%%time`` run their code, other magics nothing."""

    def __init__(self):
        self.namespace = {}

    def run_line_magic(self, name, line, *args, **kwargs):
        if name in ("time", "timeit") and line.strip():
            exec(compile(line, "<magic>", "exec"), self.namespace)

    def run_cell_magic(self, name, line, cell, *args, **kwargs):
        if name in ("time", "timeit", "capture"):
            exec(compile(cell, "<magic>", "exec"), self.namespace)

    def system(self, *args, **kwargs):
        return None

    def getoutput(self, *args, **kwargs):
        return []


# ------------------------------------------------------------------------------------------
# Values as plain data
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
        reply["library"] = list(_library_calls)
        del _library_calls[:]
        write_message(reply_fd, reply)


def main(reply_fd=None):
    global _readable, _listable
    reply_fd = int(sys.argv[1]) if reply_fd is None else reply_fd
    config = read_message(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    import numpy

    codec = _Codec(numpy)
    abi = 0
    problem = ""
    stdlib = os.path.realpath(config["stdlib"])
    entries = standard_library(stdlib)
    system_folders, library_files = loaded_libraries()
    read_paths = [os.path.realpath(p) for p in config["read_paths"]] + system_folders
    read_paths += [p for p in entries if os.path.isdir(p)]
    read_files = list(config["read_files"]) + library_files + [p for p in entries if not os.path.isdir(p)]
    _readable = tuple(read_paths) + tuple(os.path.realpath(p) for p in read_files)
    _listable = (stdlib,)
    problems = []
    for step in (
        lambda: limit_resources(config["memory"], config["cpu_seconds"]),
        lambda: drop_capabilities() if os.geteuid() == 0 else None,
    ):
        try:
            step()
        except (OSError, ValueError) as error:
            problems.append(str(error))
    try:
        abi = landlock(read_paths, read_files, _listable)
    except OSError as error:
        problems.append(str(error))
    problem = "; ".join(problems)
    install_stub()
    shell = _Shell()
    sys.addaudithook(_audit)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    write_message(reply_fd, {"ready": True, "landlock": abi, "problem": problem, "pid": os.getpid()})
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

    At the end of the socket every student left is killed and reaped, so their CPU time is
    counted in the server's, and the server's in the grader's when it reaps the server.
    """
    import numpy  # noqa: F401 - the shared start-up (main imports it again: already loaded)

    before = set(sys.modules)
    import socket

    own = tuple(set(sys.modules) - before)  # the server's modules: a student process has none of them
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=control_fd)
    students = set()

    def reap(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, 9)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        students.discard(pid)

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
