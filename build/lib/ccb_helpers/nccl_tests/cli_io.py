"""The command line's input and output checks: log files, output paths, one-line refusals.

Everything here runs before any work: a path that is a directory, a device, a FIFO, a file that
would block, an ELF binary or UTF-16 without a byte-order mark is refused with one line
(:class:`Refused`, exit code 2 in :mod:`~ccb_helpers.nccl_tests.cli`).
"""

from __future__ import annotations

import argparse
import os
import stat

from .reader import MAX_TEXT_CHARS

#: Most bytes read from a log file (UTF-16 doubles a text's size).
MAX_FILE_BYTES = 4 * MAX_TEXT_CHARS
#: Longest file name (bytes) accepted for --plot (NAME_MAX of common file systems).
MAX_NAME_BYTES = 255


class Refused(Exception):
    """Bad input found before any work: the CLI prints it on one line and exits with 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        raise Refused(f"{message} (see {self.prog} --help)")


def _decode(data: bytes) -> str:
    """Log bytes as text: UTF-8 (with or without BOM) or UTF-16 with a BOM (PowerShell's ``>``)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    head = data[:4000]
    if head[:4] == b"\x7fELF":
        raise ValueError("the file is an ELF binary (a program or core file), not a log")
    if head.count(b"\x00"):
        odd = head[1::2]
        if odd.count(b"\x00") > len(odd) * 0.9 and head[0::2].count(b"\x00") < len(head[0::2]) * 0.1:
            raise ValueError("the file looks like UTF-16 without a byte-order mark; save it as UTF-8")
        raise ValueError("the file is binary (it holds NUL bytes), not a log")
    return data.decode("utf-8", errors="replace")


def _kind(mode) -> str | None:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def read_log(path: str) -> str:
    """A log file's text; devices, FIFOs and directories are refused before they are opened."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise Refused(f"cannot read {path}: {error.strerror or error}") from None
    kind = _kind(info.st_mode)
    if kind is not None:
        raise Refused(f"cannot read {path}: it is {kind}, not a file (save the log to a file first)")
    if info.st_size > MAX_FILE_BYTES:
        raise Refused(
            f"{path} has {info.st_size} bytes; the reader accepts at most {MAX_TEXT_CHARS} characters "
            "(split the log into runs)"
        )
    try:
        # O_NONBLOCK: a regular file that blocks on read (/proc/kmsg hung the CLI, #28) or a path
        # swapped for a FIFO after the stat fails now instead of waiting forever; what was opened
        # is checked again (fstat) before reading.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        with open(fd, "rb", closefd=True) as handle:
            opened = os.fstat(fd)
            kind = _kind(opened.st_mode)
            if kind is not None:
                raise Refused(f"cannot read {path}: it is {kind}, not a file (save the log to a file first)")
            data = handle.read(MAX_FILE_BYTES + 1)
            if data is None:  # nothing available and the file would block
                raise Refused(f"cannot read {path}: reading it would block (not a plain file)")
    except OSError as error:
        raise Refused(f"cannot read {path}: {error.strerror or error}") from None
    if opened.st_size == 0 and data:
        # /proc/kmsg with messages queued (a freshly booted machine): "regular", 0 bytes, yet it
        # yields text and never ends. A saved log has the size it reads as.
        raise Refused(f"cannot read {path}: it reports 0 bytes yet yields data (a kernel or device file, not a log)")
    if len(data) > MAX_FILE_BYTES:
        raise Refused(f"{path} grew past {MAX_FILE_BYTES} bytes while being read")
    try:
        return _decode(data)
    except ValueError as error:
        raise Refused(f"{path}: {error}") from None


def plot_paths(path: str, count: int) -> list[str]:
    """``OUT.png`` for one run; ``OUT-1.png``, ``OUT-2.png`` … for several; ``.png`` added when missing."""
    root, ext = os.path.splitext(path)
    if not ext:
        root, ext = path, ".png"
    if count == 1:
        return [root + ext]
    return [f"{root}-{i + 1}{ext}" for i in range(count)]


def check_output(path: str) -> None:
    """Refuse an output path that cannot be written, before any work."""
    name = os.path.basename(path)
    if not name:
        raise Refused(f"cannot write {path}: it names a directory, not a file")
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise Refused(f"cannot write {path[:60]}…: the file name has more than {MAX_NAME_BYTES} bytes")
    if os.path.splitext(name)[1].lower() not in ("", ".png"):
        raise Refused(f"cannot write {path}: --plot writes PNG; name it OUT.png")
    if os.path.lexists(path):
        try:
            kind = _kind(os.stat(path).st_mode)
        except OSError as error:
            raise Refused(f"cannot write {path}: {error.strerror or error}") from None
        if kind is not None:
            raise Refused(f"cannot write {path}: it is {kind}, not a file")
        if not os.access(path, os.W_OK):
            raise Refused(f"cannot write {path}: permission denied")
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        raise Refused(f"cannot write {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise Refused(f"cannot write {path}: the directory {parent} is not writable")
