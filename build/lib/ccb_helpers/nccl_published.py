"""Published nccl-tests outputs the book reads, with their sources and the hardware they ran on.

The logs ship with the package (``ccb_helpers/data/nccl_tests/``, package data; their ``SOURCES``
file gives each origin), so chapter 8 reads them offline, on Colab or from a wheel, without the
repository. The hardware figures below are the vendors'
published link rates, per direction (NVLink: the GPU's total into the NVSwitch fabric; network:
the NICs of one node together); they are what the bound charges, not what NCCL reaches.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from ._validation import check_choice, check_fields, check_int

__all__ = [
    "PublishedLog",
    "PUBLISHED_LOGS",
    "published_log_text",
    "read_published_log",
    "published_summary_table",
    "in_switch_busbw_ceiling",
]

#: Where the logs live: package data, installed with ``ccb_helpers`` (a directory-like traversable).
DATA_DIR = resources.files("ccb_helpers") / "data" / "nccl_tests"


@dataclass(frozen=True)
class PublishedLog:
    """One published nccl-tests output and the system it ran on.

    Attributes
    ----------
    key : str
        File name without ``.txt``.
    system : str
        Short description (Chinese, for tables).
    source : str
        Where it was published (issue or document URL).
    nccl : str or None
        NCCL version the output or its document states.
    collective : str or None
        To pass to the reader when the log does not name its program.
    n_nodes : int
        Nodes the ranks ran on.
    gpu_beta : float
        Per-GPU link rate per direction, bytes/s.
    node_beta : float or None
        Network rate per node per direction, bytes/s (``None`` on one node).
    spec : str
        Where the link rates come from.
    n_ranks : int or None
        Ranks, for a log that does not list them (the 2019-2021 format printed no rank lines);
        passed to the reader, which raises if the log's own numbers contradict it.
    in_switch_reduction : bool
        The NVSwitch can reduce (H100 and later: NVLink SHARP). NCCL runs NVLS there on one node
        (since 2.17) and NVLS-Tree on several nodes (since 2.18) for large AllReduces by default, which no
        endpoint ceiling covers: the row is held against :func:`in_switch_busbw_ceiling`.
    nic_shares_link : bool
        The node's network is reached over the same link ``gpu_beta`` describes (PCIe-only GPUs),
        so it is no second way out of the GPU (:func:`~ccb_helpers.two_level_ceiling_terms`).
    """

    key: str
    system: str
    source: str
    nccl: str | None
    collective: str | None
    n_nodes: int
    gpu_beta: float
    node_beta: float | None
    spec: str
    in_switch_reduction: bool = False
    n_ranks: int | None = None
    nic_shares_link: bool = False

    def __post_init__(self):
        check_fields(
            self,
            {
                "key": "str",
                "system": "str",
                "source": "str",
                "nccl": "str?",
                "collective": "str?",
                "gpu_beta": "real",
                "node_beta": "real?",
                "spec": "str",
                "in_switch_reduction": "bool",
                "nic_shares_link": "bool",
            },
        )
        object.__setattr__(self, "n_nodes", check_int("n_nodes", self.n_nodes, minimum=1, maximum=2**40, scalar=True))
        if self.n_ranks is not None:
            object.__setattr__(
                self, "n_ranks", check_int("n_ranks", self.n_ranks, minimum=1, maximum=2**40, scalar=True)
            )


PUBLISHED_LOGS: dict[str, PublishedLog] = {
    p.key: p
    for p in [
        PublishedLog(
            "nccl1_titanx_all_reduce",
            "4 × GTX TITAN X，PCIe",
            "https://github.com/NVIDIA/nccl/blob/v1.3.4-1/README.md",
            "1.x",
            None,
            1,
            15.75e9,
            None,
            "PCIe Gen3 x16: 8 GT/s x 16 lanes x 128/130 / 8 = 15.75 GB/s per direction (NCCL's own "
            "effective figure is 12 GB/s, PCI_BW in src/graph/topo.h).",
        ),
        PublishedLog(
            "dgx2_v100_all_reduce",
            "DGX-2，12 × V100，NVSwitch",
            "https://github.com/wohlbier/nccl-tests/blob/33ee81a3ec6c5e8fdd1e61f713a5c5185b000cd1/README.md",
            None,
            None,
            1,
            150e9,
            None,
            "V100 SXM3: 6 NVLink2 links x 25 GB/s per direction (NVIDIA DGX-2 datasheet: 300 GB/s bidirectional).",
        ),
        PublishedLog(
            "dgx2_v100_all_gather",
            "DGX-2，12 × V100，NVSwitch",
            "https://github.com/wohlbier/nccl-tests/blob/33ee81a3ec6c5e8fdd1e61f713a5c5185b000cd1/README.md",
            None,
            None,
            1,
            150e9,
            None,
            "as dgx2_v100_all_reduce",
        ),
        PublishedLog(
            "dgx2_v100_reduce_scatter",
            "DGX-2，12 × V100，NVSwitch",
            "https://github.com/wohlbier/nccl-tests/blob/33ee81a3ec6c5e8fdd1e61f713a5c5185b000cd1/README.md",
            None,
            None,
            1,
            150e9,
            None,
            "as dgx2_v100_all_reduce",
        ),
        PublishedLog(
            "dgx2_v100_broadcast",
            "DGX-2，12 × V100，NVSwitch",
            "https://github.com/wohlbier/nccl-tests/blob/33ee81a3ec6c5e8fdd1e61f713a5c5185b000cd1/README.md",
            None,
            None,
            1,
            150e9,
            None,
            "as dgx2_v100_all_reduce",
        ),
        PublishedLog(
            "dgx2_v100_reduce",
            "DGX-2，12 × V100，NVSwitch",
            "https://github.com/wohlbier/nccl-tests/blob/33ee81a3ec6c5e8fdd1e61f713a5c5185b000cd1/README.md",
            None,
            None,
            1,
            150e9,
            None,
            "as dgx2_v100_all_reduce",
        ),
        PublishedLog(
            "eks_efa_t4_2node_all_reduce",
            "2 节点 × 1 T4，EFA 100 Gb/s",
            "https://github.com/aws-ia/terraform-aws-eks-blueprints/blob/a56919dfbf25588d0db77e1d4c08ffe31639bd8c/examples/eks-efa/README.md",
            "2.12.7",
            "all_reduce",
            2,
            15.75e9,
            12.5e9,
            "g4dn.metal: T4 on PCIe Gen3 x16 (15.75 GB/s per direction), EFA 100 Gb/s = 12.5 GB/s per node; "
            "the T4's PCIe link is its only way out, to the NIC too.",
            nic_shares_link=True,
        ),
        PublishedLog(
            "oke_a100_2node_all_reduce",
            "2 节点 × 8 A100，RoCE 16 × 100 Gb/s",
            "https://github.com/oracle-quickstart/oci-hpc-oke/blob/1402938d8c77b586e20ec9d40849e2177feef411/README.md",
            None,
            "all_reduce",
            2,
            300e9,
            200e9,
            "A100 SXM4: 12 NVLink3 links x 25 GB/s per direction; OCI BM.GPU4.8: 16 x 100 Gb/s RDMA = 200 GB/s per node.",
        ),
        PublishedLog(
            "a3mega_h100_2node_all_reduce",
            "2 节点 × 8 H100，TCPXO 8 × 200 Gb/s",
            "https://github.com/lessizzmore/create-a3mega-ztan-fork/blob/02dd8f455c43ced1cf442ef29334bda97149264b/ztan-NCCL-test-result",
            None,
            None,
            2,
            450e9,
            200e9,
            "H100 SXM: 18 NVLink4 links x 25 GB/s per direction; Google A3 Mega: 8 x 200 Gb/s NICs = 200 GB/s per node.",
            in_switch_reduction=True,
        ),
        PublishedLog(
            "hgx_h100_2node_all_reduce_issue319",
            "2 节点 × 8 H100，IB 8 × 400 Gb/s",
            "https://github.com/NVIDIA/nccl-tests/issues/319",
            "2.26.2",
            None,
            2,
            450e9,
            400e9,
            "H100 SXM: 450 GB/s NVLink per direction; 8 x ConnectX-7 400 Gb/s = 400 GB/s per node. "
            "The INFO log the reporter posted later in the issue prints 'NVLS Head' lines: NVLS-Tree was set up.",
            in_switch_reduction=True,
        ),
        PublishedLog(
            "issue78_v100_8node_all_reduce",
            "8 节点 × 8 V100，IB 100 Gb/s",
            "https://github.com/NVIDIA/nccl-tests/issues/78",
            None,
            "all_reduce",
            8,
            150e9,
            12.5e9,
            "V100 SXM2: 6 NVLink2 links x 25 GB/s per direction; the reporter's InfiniBand 100 Gb/s = 12.5 GB/s "
            "per node. The node term binds (it is ~10x smaller), so the GPU figure does not matter here.",
            n_ranks=64,
        ),
        PublishedLog(
            "issue78_v100_8node_alltoall",
            "8 节点 × 8 V100，IB 100 Gb/s",
            "https://github.com/NVIDIA/nccl-tests/issues/78",
            None,
            "all_to_all",
            8,
            150e9,
            12.5e9,
            "as issue78_v100_8node_all_reduce (same cluster, same comment)",
            n_ranks=64,
        ),
    ]
}


#: Published outputs the reader must reject (kept for the chapter's example of a clear error).
FAILED_LOGS = ("h800_2node_alltoall_failed_issue355",)


def published_log_text(key: str) -> str:
    """The text of a published log, read from the package data (no network).

    ``key`` is a key of :data:`PUBLISHED_LOGS` or of :data:`FAILED_LOGS`.

    >>> published_log_text("nccl1_titanx_all_reduce").splitlines()[0]
    '$ ./build/test/single/all_reduce_test 10000000'
    """
    key = check_choice("key", key, tuple(PUBLISHED_LOGS) + FAILED_LOGS)
    return (DATA_DIR / f"{key}.txt").read_text(encoding="utf-8")


def read_published_log(key: str):
    """:func:`~ccb_helpers.read_nccl_tests` of a published log (with its collective when the text lacks it).

    >>> log = read_published_log("a3mega_h100_2node_all_reduce")
    >>> log.n_ranks, log.collective, log.hosts
    (16, 'all_reduce', ('ztan-mig-235z', 'ztan-mig-gq73'))
    """
    from .nccl_tests import read_nccl_tests

    entry = PUBLISHED_LOGS[check_choice("key", key, PUBLISHED_LOGS)]
    return read_nccl_tests(published_log_text(key), collective=entry.collective, n_ranks=entry.n_ranks)


def _nbsp(text: str) -> str:
    """Keep a number and its unit on one line in narrow tables."""
    return text.replace(" ", "\u00a0")


def in_switch_busbw_ceiling(primitive, n_ranks, n_nodes, beta, node_beta=None, rail_beta=None, nic_shares_link=False):
    """Large-message busbw ceiling when the NVSwitch reduces but the network between nodes does not.

    Both terms of :func:`~ccb_helpers.two_level_ceiling_terms` assume endpoint reduction: the GPU
    term that no switch adds (no NVLS), the node term that no network switch adds (no SHARP).
    NVLS / NVLS-Tree break the first only: a GPU then sends and receives ``max(S, R) = M`` of an
    AllReduce (chapter 3's in-network volume) through the same two ways out, its links and its
    share of the network, so its term becomes :func:`~ccb_helpers.busbw_limit` with
    ``in_network=True`` of that egress (``2(N-1)/N (β + β_node / r)`` for AllReduce, unchanged
    for the other primitives), while NVLS-Tree still reduces *between* nodes with a tree of
    endpoints, so each node keeps the endpoint forced volume ``c(K) M``:

    .. math:: \\text{busbw} \\le \\min\\Big(\\frac{2(N-1)}{N}\\,\\Big(p\\beta + \\frac{\\beta_{\\text{node}}}{r}\\Big),\\
              \\frac{c(N)}{c(K)}\\,\\beta_{\\text{node}}\\Big).

    Arguments as in :func:`~ccb_helpers.two_level_ceiling_terms` (one port).

    Examples
    --------
    Two nodes of 8 H100 with 8 x 400 Gb/s NICs: the node term 1.875 x 400 = 750 GB/s binds, not
    the GPU's 1.875 x (450 + 50); one node of 8 H100: 1.75 x 450 = 787.5 GB/s.

    >>> in_switch_busbw_ceiling("all_reduce", 16, 2, 450e9, 400e9) / 1e9
    750.0
    >>> in_switch_busbw_ceiling("all_reduce", 8, 1, 450e9) / 1e9
    787.5
    """
    from ._validation import check_bandwidth
    from .in_network import busbw_limit
    from .nccl_tests import two_level_ceiling_terms
    from .primitives import PRIMITIVES

    primitive = check_choice("primitive", primitive, PRIMITIVES)
    beta = check_bandwidth("beta", beta, scalar=True)
    terms = two_level_ceiling_terms(
        primitive, n_ranks, n_nodes, beta, node_beta, rail_beta=rail_beta, nic_shares_link=nic_shares_link
    )
    gpu_term = busbw_limit(primitive, n_ranks, terms.endpoint, in_network=True)
    return float(gpu_term if terms.node_cut is None else min(gpu_term, terms.node_cut))


def published_summary_table(keys=None):
    """Each published log's largest message against the two-level busbw ceiling.

    Columns: the log (system, primitive, NCCL version; "校验失败" when the log's own correctness
    check failed), the efficiency at large messages (measured busbw over the ceiling; second, so
    it stays visible on a phone; "超上限" instead of a number above 1, which only in-network
    reduction can produce), the measured busbw (out-of-place, largest size; with several data
    types or operators, the first row of that size), the ceiling of
    :func:`~ccb_helpers.two_level_busbw_ceiling` with the published link rates (NVLink and each
    GPU's share of the node's network: both ways out of a GPU), and N.
    A log whose NVSwitch can reduce (``in_switch_reduction``: NCCL runs NVLS / NVLS-Tree there by
    default) is held against :func:`in_switch_busbw_ceiling` instead, its efficiency marked ``†``.
    ``values`` also holds the in-place busbw of the same row (``busbw_inplace``), the endpoint
    ceiling (``endpoint_ceiling``) and the flag (``in_switch``).

    >>> t = published_summary_table(["a3mega_h100_2node_all_reduce", "hgx_h100_2node_all_reduce_issue319"])
    >>> [[cell.replace("\u00a0", " ") for cell in row[1:]] for row in t.rows]
    [['0.90†', '339 GB/s', '375 GB/s', '16'], ['0.12†', '89.2 GB/s', '750 GB/s', '16']]
    """
    from .nccl_tests import two_level_busbw_ceiling
    from .primitives import PRIMITIVE_LABELS
    from .tables import Table
    from .units import format_bandwidth

    if keys is not None and (
        isinstance(keys, str) or not isinstance(keys, (list, tuple)) or len(keys) > len(PUBLISHED_LOGS) * 4
    ):
        raise TypeError(f"keys must be a list of keys of PUBLISHED_LOGS (or None for all), got {type(keys).__name__}")
    keys = (
        list(PUBLISHED_LOGS)
        if keys is None
        else [check_choice(f"keys[{i}]", k, PUBLISHED_LOGS) for i, k in enumerate(keys)]
    )
    if len(set(keys)) != len(keys):
        raise ValueError("keys must not repeat a log")
    rows, values = [], []
    for key in keys:
        entry = PUBLISHED_LOGS[key]
        log = read_published_log(key)
        largest = max(r.size for r in log.rows)
        last = next(r for r in log.rows if r.size == largest)
        link = {"nic_shares_link": entry.nic_shares_link}
        endpoint = two_level_busbw_ceiling(
            log.collective, log.n_ranks, entry.n_nodes, entry.gpu_beta, entry.node_beta, **link
        )
        in_switch = entry.in_switch_reduction
        ceiling = (
            in_switch_busbw_ceiling(log.collective, log.n_ranks, entry.n_nodes, entry.gpu_beta, entry.node_beta, **link)
            if in_switch
            else endpoint
        )
        ratio = last.busbw_Bps / ceiling
        failed = (log.out_of_bounds or 0) > 0
        values.append(
            {
                "key": key,
                "busbw": last.busbw_Bps,
                "busbw_inplace": last.busbw_Bps_inplace,
                "ceiling": ceiling,
                "endpoint_ceiling": endpoint,
                "in_switch": in_switch,
                "efficiency": ratio if ratio <= 1 else None,
                "size": last.size,
                "check_failed": failed,
            }
        )
        version = f"（NCCL {entry.nccl}）" if entry.nccl else ""
        flag = "（校验失败）" if failed else ""
        shown = (f"{ratio:.2f}" if ratio <= 1 else "超上限") + ("†" if in_switch else "")
        rows.append(
            [
                f"{entry.system}：{PRIMITIVE_LABELS[log.collective]}{version}{flag}",
                shown,
                _nbsp(format_bandwidth(last.busbw_Bps)),
                _nbsp(format_bandwidth(ceiling)),
                str(log.n_ranks),
            ]
        )
    headers = ["日志", "效率", "busbw", "上限", "N"]
    caption = (
        "每个日志最大消息的 busbw，对照两级带宽上限 min(pβ + β_node/G, 节点割)，节点割 = c(N)/c(K)·β_node"
        "（AllToAll：(N−1)·β_node/(G(N−G))，G = 每节点的 rank 数）；"
        "† NVSwitch 能做归约（H100），NCCL 默认用 NVLS / NVLS-Tree：GPU 一项换成网内归约的 2(N−1)/N·(pβ + β_node/G)"
    )
    return Table(headers, rows, caption, values)
