"""Human-readable sizes and times: binary prefixes for bytes, SI for seconds."""

from __future__ import annotations

import math

from ._validation import check_real

__all__ = ["KiB", "MiB", "GiB", "format_bytes", "format_time", "format_bandwidth"]

KiB = 1024
MiB = 1024**2
GiB = 1024**3


def format_bytes(value) -> str:
    """Bytes with a binary prefix.

    >>> format_bytes(0), format_bytes(1536), format_bytes(3 * 2**30), format_bytes(1e6)
    ('0 B', '1.5 KiB', '3 GiB', '976.6 KiB')
    """
    value = check_real("value", value, scalar=True)
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if value >= scale:
            return (
                f"{value / scale:.4g} {unit}"
                if value / scale >= 1000
                else f"{value / scale:.1f} {unit}".replace(".0 ", " ")
            )
    return f"{value:.0f} B" if value == int(value) else f"{value:.1f} B"


def format_time(seconds) -> str:
    """Seconds with an SI prefix (ns, µs, ms, s).

    >>> format_time(0), format_time(2.5e-6), format_time(0.0183), format_time(12)
    ('0 s', '2.5 µs', '18.3 ms', '12 s')
    """
    seconds = check_real("seconds", seconds, scalar=True)
    if seconds == 0:
        return "0 s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def format_bandwidth(bytes_per_second) -> str:
    """Bandwidth in decimal GB/s (the unit vendors and nccl-tests use).

    >>> format_bandwidth(450e9), format_bandwidth(2.5e7)
    ('450 GB/s', '0.025 GB/s')
    """
    value = check_real("bytes_per_second", bytes_per_second, scalar=True)
    return f"{value / 1e9:.3g} GB/s" if not math.isclose(value, 0) else "0 GB/s"
