"""What a reviewer of an nccl-tests log would point out, as warnings (``log.warnings``).

Ranks sharing a GPU, failed or absent correctness checks, rows left out of the paste (the footer's
average), maxBytes reduced, rows of several runs in one table, in-place far from out-of-place,
NCCL on sockets, NVLS unavailable. Each warning names the line it comes from.

The check column of the 2019-2021 format (``error``, NCCL 1's ``res``) is the largest error of
any element, and nccl-tests itself counts a row as failed when it exceeds
``DeltaMaxValue(type) * (N - 1)`` (``src/common.cu`` of that era: 1e-2 for half and bfloat16,
1e-5 for float, 1e-12 for double, and any non-zero error for integer types):
:func:`error_column_failures` applies that rule to both halves, once N is known.
"""

from __future__ import annotations

#: In-place and out-of-place busbw further apart than this (relative, rows of 1 MiB and more)
#: get a warning: one of the two halves did not measure what the other did.
INPLACE_GAP = 0.25
#: nccl-tests' ``DeltaMaxValue(type)`` of the 2019-2021 format (``src/common.cu``); other types 1e-200.
DELTA_MAX = {
    "half": 1e-2,
    "float16": 1e-2,
    "bfloat16": 1e-2,
    "float": 1e-5,
    "float32": 1e-5,
    "double": 1e-12,
    "float64": 1e-12,
}
_DELTA_OTHER = 1e-200


def _same_gpu(ranks):
    """``(first rank, second rank, where)`` of two rank lines naming one GPU, else ``None``.

    A full PCI address (``0000:07:00``) names one GPU on its host. The old ``[0x%02x]`` is the PCI
    *bus* number only, which several GPUs share on some clouds (Azure NC/ND, AWS p4d print
    ``[0x00]`` for all eight): there, two ranks share a GPU only if the host, the bus number and
    the device number are all the same.
    """
    where: dict = {}
    for index, host, device, busid, _, _ in ranks:
        if not (host or busid):
            continue
        key = (host, busid) if ":" in busid else (host, busid, device)
        where.setdefault(key, []).append(index)
    for key, indices in where.items():
        distinct = sorted(set(indices))
        if len(distinct) > 1:
            host = key[0] + " " if key[0] else ""
            device = f"device {key[2]} " if len(key) == 3 else ""
            return distinct[0], distinct[1], f"{host}{device}[{key[1]}]"
    return None


def early_warnings(warnings, table, ranks, info, avg, oob, nccl):
    """Warnings that need only the table and the lines around it (before N is resolved)."""
    rows = table.rows
    shared = _same_gpu(ranks)
    if shared:
        first, second, where = shared
        warnings.append(
            f"ranks {first} and {second} run on the same GPU ({where}): they share its links, so busbw "
            "does not measure them"
        )
    wrong = [r for r in rows if table.check == "#wrong" and any(w for w in (r.wrong, r.wrong_inplace) if w)]
    if (oob or 0) > 0 or wrong:
        if oob:
            count = f"{oob} out-of-bounds values"
        else:
            count = f"{sum(int(w) for r in wrong for w in (r.wrong, r.wrong_inplace) if w)} wrong values (first at line {wrong[0].line})"
        warnings.append(
            f"the log's own correctness check failed ({count}): these timings come from wrong results "
            "and do not measure a working collective"
        )
    if info["validation_off"] or (rows and all(r.wrong is None for r in rows)):
        warnings.append(
            "the data were not checked (-c 0, validation: 0): nothing shows the collective computed the right result"
        )
    if avg is not None and rows:
        values, rounding = [], []
        for row in rows:
            for half in row.printed:
                values.append(half[2].value)
                rounding.append(half[2].half_ulp)
        if values:
            mean = sum(values) / len(values)
            tolerance = sum(rounding) / len(rounding) + 5e-6 * max(mean, avg / 1e9) + 1e-9
            if abs(mean - avg / 1e9) > tolerance:
                warnings.append(
                    f"the footer's average bus bandwidth {avg / 1e9:.6g} GB/s is not the average of the "
                    f"rows shown ({mean:.6g} GB/s): rows were left out of the paste, or it joins several runs"
                )
    if info["reduced"] is not None:
        size, line = info["reduced"]
        warnings.append(
            f"nccl-tests reduced maxBytes to {size} bytes for lack of GPU memory (line {line}): the largest "
            "sizes asked for were not run"
        )
    if table.repeated_at:
        warnings.append(
            f"sizes start again at line {table.repeated_at}: the table holds rows of several runs or cycles "
            "(interleaved output of two processes, or -N repeats); they are kept in printed order"
        )
    gaps = [
        (abs(r.busbw_Bps - r.busbw_Bps_inplace) / max(r.busbw_Bps, r.busbw_Bps_inplace), r)
        for r in rows
        if r.size >= 2**20 and r.busbw_Bps_inplace and r.busbw_Bps and r.busbw_Bps >= 1e9
    ]
    if gaps:
        gap, row = max(gaps, key=lambda g: g[0])
        if gap > INPLACE_GAP:
            warnings.append(
                f"in-place and out-of-place busbw differ by {100 * gap:.0f} % at {row.size} bytes (line "
                f"{row.line}): the two halves did not measure the same thing; compare both"
            )
    if nccl.socket_line:
        warnings.append(
            f"NCCL used its socket (TCP) transport (line {nccl.socket_line}): network numbers are TCP's, "
            "not the RDMA fabric's (no IB device found, NCCL_IB_DISABLE set, or the net plugin missing)"
        )
    if nccl.nvls is False and nccl.nvls_line:
        warnings.append(
            f"NCCL INFO says NVLS (NVLink SHARP) is not available (line {nccl.nvls_line}): AllReduce "
            "cannot use in-switch reduction here"
        )


def error_column_failures(rows, check_column, n, collective=None) -> str | None:
    """A warning for rows whose ``error`` / ``res`` (largest error) fails nccl-tests' own rule, else ``None``.

    nccl-tests of 2019-2021 counted a result as wrong when its largest error exceeded
    ``DeltaMaxValue(type) * (N - 1)`` but printed the row all the same (:data:`DELTA_MAX`).
    AllToAll and SendRecv did not check their in-place half (``reportErrors = in_place ? 0 : 1``)
    and printed whatever error it had until 2022 (nccl-tests a0a1491), so their in-place column
    is not read, nor is it while the collective is unknown.
    """
    if check_column not in ("error", "res"):
        return None
    spread = max((n or 2) - 1, 1)
    halves = [("out-of-place", "wrong")]
    if collective is not None and collective not in ("all_to_all", "sendrecv"):
        halves.append(("in-place", "wrong_inplace"))
    failed = []
    for row in rows:
        limit = DELTA_MAX.get(row.type or "", _DELTA_OTHER) * spread
        for half, value in ((name, getattr(row, field)) for name, field in halves):
            if value is not None and value > limit:
                failed.append((row, half, value, limit))
    if not failed:
        return None
    row, half, value, limit = max(failed, key=lambda f: f[2] / f[3])
    halves = sorted({f[1] for f in failed})
    return (
        f"the log's own correctness check failed: {len(failed)} results ({' and '.join(halves)}) have an error "
        f"above nccl-tests' limit DeltaMaxValue({row.type}) x (N-1) = {limit:.3g}, the largest {value:.3g} "
        f"({half}, line {row.line}): these timings come from wrong results and do not measure a working collective"
    )
