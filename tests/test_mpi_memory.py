"""Huge-page state of message buffers (:mod:`ccb_helpers.mpi._memory`, issue #32); no MPI needed."""

from __future__ import annotations

import numpy as np
import pytest

from ccb_helpers.mpi._memory import HUGE_PAGE, huge_page_bytes, numpy_hugepage_advice, thp_mode

MADVISE = thp_mode() == "madvise"


def _advised(advice: bool) -> np.ndarray:
    with numpy_hugepage_advice(advice):
        array = np.empty(8 * 2**20, dtype=np.uint8)
    array.fill(1)  # faults every page in: huge where advised
    return array


@pytest.mark.skipif(not MADVISE, reason="needs THP mode 'madvise' (only advised memory gets huge pages)")
def test_huge_pages_where_numpy_advised_them():
    on, off = _advised(True), _advised(False)
    assert huge_page_bytes(off) == 0
    # numpy advises from the first page boundary after the allocation's start; every whole 2 MiB
    # frame after that is huge: of 8 MiB at least 3 frames, at most 4.
    assert 3 * HUGE_PAGE <= huge_page_bytes(on) <= 8 * 2**20
    # A page inside the first whole frame lies on a huge page; the array's first byte does not
    # (its page was not advised: numpy rounds the start up to the next page).
    frame = (-on.ctypes.data) % HUGE_PAGE
    frame += HUGE_PAGE if frame < 4096 else 0
    assert huge_page_bytes(on[frame : frame + 4096]) == 4096
    assert huge_page_bytes(on[:1]) == 0


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
