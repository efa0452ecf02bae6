"""Huge-page state of message buffers (:mod:`ccb_helpers.mpi._memory`, issue #32); no MPI needed."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from ccb_helpers.mpi._memory import HUGE_PAGE, huge_page_bytes, numpy_hugepage_advice, thp_mode

MADVISE = thp_mode() == "madvise"


# Run in a fresh interpreter: in a long-lived test worker glibc's adaptive mmap threshold can put
# an 8 MiB array into the heap mapping next to memory other tests allocated (huge or not), and
# /proc/self/smaps reports huge pages per mapping, not per array.
_PROBE = r"""
import json
import numpy as np
from ccb_helpers.mpi._memory import HUGE_PAGE, huge_page_bytes, numpy_hugepage_advice

def advised(advice):
    with numpy_hugepage_advice(advice):
        array = np.empty(8 * 2**20, dtype=np.uint8)
    array.fill(1)  # faults every page in: huge where advised
    return array

on, off = advised(True), advised(False)
frame = (-on.ctypes.data) % HUGE_PAGE
frame += HUGE_PAGE if frame < 4096 else 0
print(json.dumps({
    "off": huge_page_bytes(off),
    "on": huge_page_bytes(on),
    "page_in_first_frame": huge_page_bytes(on[frame : frame + 4096]),
    "first_byte": huge_page_bytes(on[:1]),
}))
"""


@pytest.mark.skipif(not MADVISE, reason="needs THP mode 'madvise' (only advised memory gets huge pages)")
def test_huge_pages_where_numpy_advised_them():
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=True)
    found = json.loads(done.stdout)
    assert found["off"] == 0
    # numpy advises from the first page boundary after the allocation's start; every whole 2 MiB
    # frame after that is huge: of 8 MiB at least 3 frames, at most 4.
    assert 3 * HUGE_PAGE <= found["on"] <= 8 * 2**20
    # A page inside the first whole frame lies on a huge page; the array's first byte does not
    # (its page was not advised: numpy rounds the start up to the next page).
    assert found["page_in_first_frame"] == 4096
    assert found["first_byte"] == 0


def test_huge_page_bytes_rejects():
    with pytest.raises(TypeError, match="array must be a numpy.ndarray"):
        huge_page_bytes(b"x")
    with pytest.raises(ValueError, match="C-contiguous"):
        huge_page_bytes(np.zeros((4, 4), dtype=np.uint8)[:, 0])
    with pytest.raises(TypeError, match="enabled must be a bool"):
        with numpy_hugepage_advice(1):
            pass


def test_advice_is_restored():
    before = np._core.multiarray._get_madvise_hugepage()
    with numpy_hugepage_advice(not before):
        assert np._core.multiarray._get_madvise_hugepage() == (not before)
    assert np._core.multiarray._get_madvise_hugepage() == before
