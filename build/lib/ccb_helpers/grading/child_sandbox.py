"""The student process's sandbox (a part of :mod:`ccb_helpers.grading.child`, loaded by it by path).

Like ``child.py`` this file imports the standard library only, never the package: the student
process loads it before it confines itself. What it provides, in the order ``child.main`` applies it:

* :func:`limit_resources` — memory, CPU time, file size, open files (``setrlimit``);
* :func:`drop_capabilities` — run as root, give up every capability;
* :func:`landlock` — read access to the standard library, numpy and the system libraries only,
  nothing writable, no TCP, no signals or abstract UNIX sockets outside its own domain (as far as
  the kernel's Landlock ABI goes); :func:`loaded_libraries` and :func:`standard_library` list
  what it may read;
* :func:`install_audit_hook` — a second layer, and the only one for files where Landlock is missing.
"""

import os
import sys


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
    """Memory, CPU seconds, no file writes, no core dumps, 64 open files; and processes.

    ``RLIMIT_NPROC`` counts every process and thread of the user: it is set to the user's current
    count plus 16 (threads), so the student process can start no process of its own where the
    seccomp filter is missing. The kernel never applies it to root (uid 0), capabilities or not.
    """
    import resource

    limits = [
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NOFILE, 64),
    ]
    if os.getuid() != 0:
        limits.append((resource.RLIMIT_NPROC, _user_tasks(os.getuid()) + 16))
    for limit, value in limits:
        soft, hard = resource.getrlimit(limit)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(limit, (value, value))


def _user_tasks(uid):
    """Processes and threads of ``uid`` now (what ``RLIMIT_NPROC`` counts)."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:
            continue
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            count += int(fields.get("Threads", "1").strip() or 1)
    return count


def isolate_network():
    """Move this process into a network namespace of its own: no interface but a loopback that is
    down, so no datagram (or any packet) reaches another process, not even on 127.0.0.1; abstract
    UNIX sockets are per namespace too. As root it needs ``CAP_SYS_ADMIN`` (before
    :func:`drop_capabilities`); otherwise a user namespace comes with it, where the kernel allows
    unprivileged ones. Returns True, or raises OSError."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    clone_newnet, clone_newuser = 0x40000000, 0x10000000
    if libc.unshare(clone_newnet) == 0:
        return True
    error = ctypes.get_errno()
    if os.geteuid() != 0 and libc.unshare(clone_newuser | clone_newnet) == 0:
        return True
    raise OSError(error or ctypes.get_errno(), "unshare(CLONE_NEWNET)")


# The seccomp filter: per architecture, the audit arch and the numbers of the system calls the
# student process may not make. Process creation (fork, vfork; clone without CLONE_THREAD),
# sockets of any family (and io_uring, which can open and use sockets without the socket call),
# exec, signals to other processes, ptrace and reading or writing other processes, namespaces.
_SECCOMP_ARCH = {
    "x86_64": (
        0xC000003E,
        {
            "fork": 57,
            "vfork": 58,
            "clone": 56,
            "clone3": 435,
            "socket": 41,
            "socketpair": 53,
            "execve": 59,
            "execveat": 322,
            "kill": 62,
            "tkill": 200,
            "tgkill": 234,
            "rt_sigqueueinfo": 129,
            "rt_tgsigqueueinfo": 297,
            "pidfd_open": 434,
            "pidfd_send_signal": 424,
            "pidfd_getfd": 438,
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "unshare": 272,
            "setns": 308,
            "setsid": 112,
            "setpgid": 109,
            "mount": 165,
            "bpf": 321,
            "perf_event_open": 298,
            "userfaultfd": 323,
            "keyctl": 250,
            "add_key": 248,
            "request_key": 249,
            "personality": 135,
            "kcmp": 312,
            "seccomp": 317,
            # Calls that act on another process by pid with no more than a uid check (#40 teacher
            # review: as root, or as the teacher's user, ``prlimit`` set the grader's CPU limit and
            # autograde died for the rest of the class; Landlock has no rule for them): self only.
            "prlimit64": 302,
            "sched_setaffinity": 203,
            "sched_setscheduler": 144,
            "sched_setparam": 142,
            "sched_setattr": 314,
            "setpriority": 141,
            "ioprio_set": 251,
            "migrate_pages": 256,
            "move_pages": 279,
            "get_robust_list": 274,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "clone": 220,
            "clone3": 435,
            "socket": 198,
            "socketpair": 199,
            "execve": 221,
            "execveat": 281,
            "kill": 129,
            "tkill": 130,
            "tgkill": 131,
            "rt_sigqueueinfo": 138,
            "rt_tgsigqueueinfo": 240,
            "pidfd_open": 434,
            "pidfd_send_signal": 424,
            "pidfd_getfd": 438,
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "unshare": 97,
            "setns": 268,
            "setsid": 157,
            "setpgid": 154,
            "mount": 40,
            "bpf": 280,
            "perf_event_open": 241,
            "userfaultfd": 282,
            "keyctl": 219,
            "add_key": 217,
            "request_key": 218,
            "personality": 92,
            "kcmp": 272,
            "seccomp": 277,
            "prlimit64": 261,
            "sched_setaffinity": 122,
            "sched_setscheduler": 119,
            "sched_setparam": 118,
            "sched_setattr": 274,
            "setpriority": 140,
            "ioprio_set": 30,
            "migrate_pages": 238,
            "move_pages": 239,
            "get_robust_list": 100,
        },
    ),
}

#: Calls whose first argument is a pid: allowed for 0 (this process) and this process's pid only.
_OWN_PID_ONLY = frozenset(
    {
        "prlimit64",
        "sched_setaffinity",
        "sched_setscheduler",
        "sched_setparam",
        "sched_setattr",
        "migrate_pages",
        "move_pages",
        "get_robust_list",
    }
)


def seccomp_program(machine, pid):
    """The filter as ``(code, jt, jf, k)`` BPF instructions for ``machine`` (``os.uname().machine``).

    A call of another architecture (x86's 32-bit or x32 calls) kills the process; ``clone`` is
    allowed for threads only (``CLONE_THREAD``); ``clone3``, whose flags a filter cannot read,
    fails with ENOSYS, so that the C library falls back to ``clone``; ``kill``, ``tkill`` and
    ``tgkill`` are allowed towards ``pid`` (this process) only; the calls of :data:`_OWN_PID_ONLY`
    (``prlimit64``, scheduling, page migration) take pid 0 or ``pid`` only, ``setpriority`` only
    ``PRIO_PROCESS`` of 0 or ``pid``; every other listed call fails with EPERM; the rest is allowed.
    """
    arch, numbers = _SECCOMP_ARCH[machine]
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, kill = 0x7FFF0000, 0x80000000
    eperm, enosys = 0x00050000 | 1, 0x00050000 | 38
    program = [(load, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, kill), (load, 0, 0, 0)]
    if machine == "x86_64":
        program += [(jge, 0, 1, 0x40000000), (ret, 0, 0, kill)]  # x32 calls
    for name, number in numbers.items():
        if name == "clone":
            block = [(load, 0, 0, 16), (jset, 0, 1, 0x10000), (ret, 0, 0, allow), (ret, 0, 0, eperm)]
        elif name in _OWN_PID_ONLY or name == "setpriority":
            # setpriority(which, who, prio): which must be PRIO_PROCESS (0), who 0 or pid.
            which = [(load, 0, 0, 16), (jeq, 0, 3, 0)] if name == "setpriority" else []
            offset = 24 if name == "setpriority" else 16
            block = which + [
                (load, 0, 0, offset),
                (jeq, 2, 0, 0),
                (jeq, 1, 0, pid & 0xFFFFFFFF),
                (ret, 0, 0, eperm),
                (ret, 0, 0, allow),
            ]
        elif name in ("kill", "tkill", "tgkill"):
            block = [
                (load, 0, 0, 16),
                (jeq, 0, 3, pid & 0xFFFFFFFF),
                (load, 0, 0, 20),
                (jeq, 0, 1, 0),
                (ret, 0, 0, allow),
                (ret, 0, 0, eperm),
            ]
        else:
            block = [(ret, 0, 0, enosys if name == "clone3" else eperm)]
        program.append((jeq, 0, len(block), number))
        program += block
    program.append((ret, 0, 0, allow))
    return program


def install_seccomp():
    """Install :func:`seccomp_program` for this process (all its threads). Returns True, or raises
    OSError (an architecture without a table here, or a kernel without seccomp filters)."""
    import ctypes

    machine = os.uname().machine
    if machine not in _SECCOMP_ARCH:
        raise OSError(0, f"no seccomp table for {machine}")
    program = seccomp_program(machine, os.getpid())

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

    filters = (Instruction * len(program))(*[Instruction(*row) for row in program])
    fprog = Program(len(program), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    number = _SECCOMP_ARCH[machine][1]["seccomp"]
    # SECCOMP_SET_MODE_FILTER (1) with SECCOMP_FILTER_FLAG_TSYNC (1): every thread of the process.
    if libc.syscall(ctypes.c_long(number), ctypes.c_uint(1), ctypes.c_uint(1), ctypes.byref(fprog)) != 0:
        raise OSError(ctypes.get_errno(), "seccomp(SECCOMP_SET_MODE_FILTER)")
    return True


#: Audit events the student's code may not raise (prefixes). The hook below copies this tuple
#: into its closure when it is installed: changing this name afterwards changes nothing.
REFUSED_EVENTS = (
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.setsid",
    "os.setpgid",
    "os.unshare",
    "os.setns",
    "subprocess.Popen",
    "ctypes.",
    "socket.",
    "os.kill",
    "os.killpg",
    "resource.prlimit",
    "signal.pthread_kill",
    "pty.",
    "mmap.",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
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


def install_audit_hook(readable, listable):
    """Install the audit hook: refuse :data:`REFUSED_EVENTS`, and file access outside ``readable``.

    The hook's state — the refused events, the readable and listable paths and every function it
    calls — lives in its closure, copied when it is installed, never in a module's globals: the
    student's code can reach this module (``sys.modules``, frames) and rebind its names, but not
    the hook, which only the interpreter holds (``gc``'s object walks, the way to find it, are
    refused). Python's audit hooks are a second layer, not a boundary (Landlock, seccomp and the
    network namespace are the kernel's): the path rule repeats Landlock's for kernels without it.
    """
    refused = tuple(str(event) for event in REFUSED_EVENTS)
    roots = tuple(str(root) for root in readable)
    prefixes = tuple(root.rstrip("/") + "/" for root in roots)
    lists = frozenset(str(path) for path in listable)
    file_events = frozenset({"open", "os.listdir", "os.scandir"})
    refuse, is_instance, realpath, fsdecode = PermissionError, isinstance, os.path.realpath, os.fsdecode
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT

    def hook(event, args):
        if event.startswith(refused):
            raise refuse(f"{event}: not available while grading")
        if event in file_events and args and args[0] is not None and not is_instance(args[0], int):
            path = realpath(fsdecode(args[0]))
            if (
                event == "open"
                and is_instance(args[1], str)
                and ("w" in args[1] or "a" in args[1] or "x" in args[1] or "+" in args[1])
            ):
                raise refuse(f"{event}: nothing is writable while grading")
            if event == "open" and is_instance(args[2], int) and args[2] & writing:
                raise refuse(f"{event}: nothing is writable while grading")
            if event != "open" and path in lists:
                return
            if not (path in roots or path.startswith(prefixes)):
                raise refuse(f"{event}: {path} is not readable while grading")

    sys.addaudithook(hook)


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
