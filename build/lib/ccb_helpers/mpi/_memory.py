"""How a message buffer sits in memory: numpy's huge-page advice and what the kernel made of it.

On Linux numpy asks the kernel for transparent huge pages (``madvise(MADV_HUGEPAGE)``) for
every allocation of 4 MiB or more (numpy's ``hugepage_setup``: on by default from kernel 4.6,
``NUMPY_MADVISE_HUGEPAGE=0`` turns it off). Where the system's THP mode is ``madvise`` — the
common default — only such advised memory gets 2 MiB pages. A buffer's page size changes how
fast MPICH's single-copy transfer (CMA, ``process_vm_readv``) and ``memcpy`` move it, so the
ping-pong records it (:func:`huge_page_bytes`) and allocates its buffers the way
``mpi4py.bench`` and an application do: one array per message size (issue #32).

Nothing here imports mpi4py; reading ``/proc/self/smaps`` needs no privileges.
"""

from __future__ import annotations

import contextlib
import re

import numpy as np

__all__: list[str] = []

#: Size of a transparent huge page on x86-64 and arm64 with 4 KiB base pages (bytes).
HUGE_PAGE = 2**21
#: numpy advises huge pages for allocations of at least this many bytes (numpy's alloc.c: ``1u << 22``).
NUMPY_HUGEPAGE_MIN = 2**22

_MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) ")


def thp_mode() -> str | None:
    """The system's transparent-huge-page mode (``always``, ``madvise``, ``never``), ``None`` if unknown.

    >>> thp_mode() in ("always", "madvise", "never", None)
    True
    """
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled", encoding="ascii") as handle:
            match = re.search(r"\[(\w+)\]", handle.read())
    except OSError:
        return None
    return match.group(1) if match else None


def huge_page_bytes(array) -> int | None:
    """Bytes of ``array`` that lie on transparent huge pages, read from ``/proc/self/smaps``.

    For each mapping the array overlaps, the kernel reports ``AnonHugePages`` for the whole
    mapping; the array is credited with its bytes inside the mapping's 2 MiB-aligned interior
    (a huge page is always 2 MiB-aligned), at most that ``AnonHugePages``. Exact when the
    mapping's aligned interior is all huge, as after an array numpy advised is written; an array
    that shares a mapping with other memory (glibc's heap) can be credited with huge pages that
    belong to its neighbours. ``None`` where ``/proc/self/smaps`` cannot be read (not Linux).

    Parameters
    ----------
    array : numpy.ndarray
        A C-contiguous array (its bytes ``array.ctypes.data`` … ``+ array.nbytes``).

    Examples
    --------
    >>> small = np.ones(4096, dtype=np.uint8)
    >>> found = huge_page_bytes(small)  # the mapping small lies in may hold huge pages elsewhere
    >>> found is None or 0 <= found <= small.nbytes
    True
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"array must be a numpy.ndarray, got {type(array).__name__}")
    if not array.flags.c_contiguous:
        raise ValueError("array must be C-contiguous")
    start = array.ctypes.data
    end = start + array.nbytes
    total = 0
    try:
        handle = open("/proc/self/smaps", encoding="ascii", errors="replace")
    except OSError:
        return None
    with handle:
        inside = False
        for line in handle:
            mapping = _MAPPING.match(line)
            if mapping:
                low, high = int(mapping.group(1), 16), int(mapping.group(2), 16)
                inside = low < end and start < high
                if inside:
                    # The mapping's 2 MiB-aligned interior (where huge pages can be), cut to the array.
                    first = max(-(-low // HUGE_PAGE) * HUGE_PAGE, start)
                    last = min(high // HUGE_PAGE * HUGE_PAGE, end)
                    frames = max(0, last - first)
            elif inside and line.startswith("AnonHugePages:"):
                total += min(frames, int(line.split()[1]) * 1024)
    return total


def _advice_switch():
    core = getattr(np, "_core", None)
    multiarray = getattr(core, "multiarray", None)
    return getattr(multiarray, "_get_madvise_hugepage", None), getattr(multiarray, "_set_madvise_hugepage", None)


def numpy_hugepage_advice_enabled() -> bool | None:
    """Whether numpy advises huge pages for its large allocations now (``None`` if numpy cannot say).

    >>> numpy_hugepage_advice_enabled() in (True, False, None)
    True
    """
    getter, _ = _advice_switch()
    return None if getter is None else bool(getter())


@contextlib.contextmanager
def numpy_hugepage_advice(enabled: bool):
    """Within the block numpy advises huge pages for large allocations iff ``enabled``; restored after.

    Uses numpy's own switch (``numpy._core.multiarray._set_madvise_hugepage``, the function the
    ``NUMPY_MADVISE_HUGEPAGE`` environment variable sets at import). Where numpy lacks it the
    block runs unchanged.

    >>> with numpy_hugepage_advice(False):
    ...     a = np.empty(2**22, dtype=np.uint8)
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool, got {type(enabled).__name__}")
    _, setter = _advice_switch()
    if setter is None:  # pragma: no cover - numpy < 2 or another platform's build
        yield
        return
    previous = setter(enabled)
    try:
        yield
    finally:
        setter(previous)
