"""What ``NCCL_DEBUG=INFO`` lines in a paste say about the run: ranks and nodes, transport, NVLS, CollNet, algorithms.

NCCL prints, with ``NCCL_DEBUG=INFO`` (and ``NCCL_DEBUG_SUBSYS=TUNING`` for the per-call lines):

=============================================================  =====================================
line (``host:pid:tid [dev] NCCL INFO …``)                      read as
=============================================================  =====================================
``comm 0x… rank 3 nranks 16 cudaDev 3 … Init COMPLETE``        ``nranks``
``comm 0x… rank 0 nRanks 16 nNodes 2 localRanks 8 …``          ``nranks``, ``nodes``, ``local_ranks``
``16 coll channels, 0 collnet channels, 16 nvls channels, …``  NVLS / CollNet on (channels > 0) or off
``NVLS multicast support is not available on dev 0``           NVLS off
``Connected NVLS tree`` / ``NVLS comm 0x… headRank``            NVLS on
``Using network IB`` / ``Socket`` / ``AWS Libfabric``           the network transport
``NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE …``            the NICs (count, InfiniBand or RoCE)
``Channel 00/0 : 0[0] -> 1[1] via P2P/IPC`` (``NET/IB``, …)      transports used between ranks
``AllReduce: 1048576 Bytes -> Algo 1 proto 2 time 29.0``        algorithm and protocol per size
``AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE …``        the same, NCCL 2.24 on
``NCCL_ALGO set by environment to Tree``                        a forced algorithm (``NCCL_PROTO`` …)
=============================================================  =====================================

Algorithm numbers are NCCL's (``src/include/plugin/nccl_tuner.h``): 0 Tree, 1 Ring,
2 CollNet (Direct), 3 CollNet Chain, 4 NVLS, 5 NVLS Tree, 6 PAT; protocols 0 LL, 1 LL128,
2 Simple. Every number is read with :func:`~ccb_helpers._tokens.read_number` (the line named on
refusal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .._tokens import read_number

ALGORITHMS = ("TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT")
PROTOCOLS = ("LL", "LL128", "SIMPLE")

_NRANKS = re.compile(r"\bcomm \S+ rank \d+ n[Rr]anks (\d+)\b")
_NNODES = re.compile(r"\bcomm \S+ rank \d+ nRanks \d+ nNodes (\d+) localRanks (\d+)\b")
_CHANNELS = re.compile(r"\b(\d+) coll channels, (\d+) collnet channels, (\d+) nvls channels\b")
_NVLS_OFF = re.compile(r"NVLS multicast support is not available")
_NVLS_ON = re.compile(r"Connected NVLS tree|NVLS comm \S+ headRank|NVLS multicast support is available")
_NETWORK = re.compile(r"\bUsing network (\S.*?)\s*$")
_NICS = re.compile(r"\bNET/IB ?: Using ((?:\[\d+\]\S+ ?)+)")
_VIA = re.compile(r"\bvia (P2P/\S+|SHM\S*|NET/[^\s/]+(?:/\d+)?(?:/\S+)?|COLLNET\S*|NVLS)")
_SOCKET = re.compile(r"via NET/Socket|Using network Socket|NET/Socket : Using")
_TUNING_NUMBERS = re.compile(r"\b([A-Za-z]+): (\d+) Bytes -> Algo (\d+) proto (\d+) time ")
_TUNING_NAMES = re.compile(r"\b([A-Za-z]+): (\d+) Bytes -> Algo ([A-Z_]+) proto ([A-Z0-9]+)\b")
_ENV = re.compile(r"\b(NCCL_[A-Z_]+) set by environment to (\S+)")
#: NCCL's function names (``ncclFuncToString``) -> the book's collectives.
FUNCTIONS = {
    "AllReduce": "all_reduce",
    "AllGather": "all_gather",
    "ReduceScatter": "reduce_scatter",
    "Broadcast": "broadcast",
    "Reduce": "reduce",
    "SendRecv": "sendrecv",
    "Send": "sendrecv",
    "Recv": "sendrecv",
}


@dataclass
class NcclInfo:
    """What the ``NCCL INFO`` lines of one run say (``None`` / empty where they say nothing)."""

    nranks: set = field(default_factory=set)
    nodes: set = field(default_factory=set)
    local_ranks: set = field(default_factory=set)
    nvls: bool | None = None
    nvls_line: int = 0
    collnet: bool | None = None
    collnet_line: int = 0
    network: str | None = None
    network_line: int = 0
    nics: tuple = ()
    transports: dict = field(default_factory=dict)  # kind ("P2P", "SHM", "NET/IB" …) -> first line
    socket_line: int = 0
    algorithms: dict = field(default_factory=dict)  # (collective, bytes) -> (algorithm, protocol)
    environment: dict = field(default_factory=dict)  # NCCL_ALGO … -> value

    def algorithm_for(self, collective: str, size: int):
        """``(algorithm, protocol)`` NCCL printed for ``collective`` at ``size`` bytes, else ``None``."""
        return self.algorithms.get((collective, size))

    def used_algorithms(self, collective: str) -> set:
        return {algo for (c, _), (algo, _) in self.algorithms.items() if c == collective}


def read_info_line(line: str, lineno: int, info: NcclInfo) -> None:
    """Add what one ``NCCL INFO`` line says to ``info``."""
    where = f"line {lineno}: NCCL INFO"
    if (m := _NRANKS.search(line)) is not None:
        info.nranks.add(read_number(m.group(1), f"{where} nranks", integer=True).value)
    if (m := _NNODES.search(line)) is not None:
        info.nodes.add(read_number(m.group(1), f"{where} nNodes", integer=True).value)
        info.local_ranks.add(read_number(m.group(2), f"{where} localRanks", integer=True).value)
    if (m := _CHANNELS.search(line)) is not None:
        collnet = read_number(m.group(2), f"{where} collnet channels", integer=True).value
        nvls = read_number(m.group(3), f"{where} nvls channels", integer=True).value
        if info.collnet is None or collnet:
            info.collnet, info.collnet_line = collnet > 0, lineno
        if info.nvls is None or nvls:
            info.nvls, info.nvls_line = nvls > 0, lineno
    if _NVLS_OFF.search(line):
        if not info.nvls:
            info.nvls, info.nvls_line = False, lineno
    elif _NVLS_ON.search(line):
        info.nvls, info.nvls_line = True, lineno
    if (m := _NETWORK.search(line)) is not None and info.network is None:
        info.network, info.network_line = m.group(1), lineno
    if (m := _NICS.search(line)) is not None and not info.nics:
        info.nics = tuple(m.group(1).split())
    if (m := _VIA.search(line)) is not None:
        kind = m.group(1)
        kind = (
            "P2P"
            if kind.startswith("P2P")
            else "SHM"
            if kind.startswith("SHM")
            else kind.split("/")[0] + ("/" + kind.split("/")[1] if kind.startswith("NET/") else "")
        )
        info.transports.setdefault(kind, lineno)
    if not info.socket_line and _SOCKET.search(line):
        info.socket_line = lineno
    if (m := _TUNING_NUMBERS.search(line)) is not None:
        algo = read_number(m.group(3), f"{where} Algo", integer=True).value
        proto = read_number(m.group(4), f"{where} proto", integer=True).value
        _algorithm(
            info,
            m.group(1),
            m.group(2),
            where,
            ALGORITHMS[algo] if 0 <= algo < len(ALGORITHMS) else str(algo),
            PROTOCOLS[proto] if 0 <= proto < len(PROTOCOLS) else str(proto),
        )
    elif (m := _TUNING_NAMES.search(line)) is not None:
        _algorithm(info, m.group(1), m.group(2), where, m.group(3), m.group(4))
    if (m := _ENV.search(line)) is not None:
        info.environment.setdefault(m.group(1), m.group(2))


def _algorithm(info: NcclInfo, function: str, size: str, where: str, algo: str, proto: str) -> None:
    collective = FUNCTIONS.get(function)
    if collective is None:
        return
    nbytes = read_number(size, f"{where} Bytes", integer=True).value
    info.algorithms.setdefault((collective, nbytes), (algo, proto))
    if algo.startswith("NVLS"):
        info.nvls = True
    if algo.startswith("COLLNET"):
        info.collnet = True


def network_kind(info: NcclInfo) -> str | None:
    """The network transport in plain words: ``"InfiniBand"``, ``"RoCE"``, ``"EFA"``, ``"TCP sockets"``,
    ``"GPUDirect-TCPX"`` …, or ``None`` when the lines do not say."""
    name = (info.network or "").lower()
    if info.socket_line or name.startswith("socket"):
        return "TCP sockets"
    if "libfabric" in name or "ofi" in name or "efa" in name:
        return "EFA"
    if "tcpx" in name or "fastrak" in name or "gpudirecttcpx" in name:
        return "GPUDirect-TCPX"
    if info.nics:
        return "RoCE" if all(nic.endswith("/RoCE") for nic in info.nics) else "InfiniBand"
    if name.startswith("ib"):
        return "InfiniBand"
    return info.network


def in_network_from_info(info: NcclInfo | None, collective: str, multi_node: bool):
    """``(in_network, note)`` for :func:`~ccb_helpers.nccl_tests.report.nccl_tests_report` from what
    the INFO lines say: per size where NCCL printed its algorithm, else NVLS / CollNet on or off.

    Allowing in-network reduction only raises an AllReduce's ceiling, so a bound that allows it
    where NCCL may not have used it still holds; ``note`` says what was read (``""``: nothing).
    """
    if info is None or collective != "all_reduce":
        return None, ""
    per_size = {size: algo for (c, size), (algo, _) in info.algorithms.items() if c == collective}
    if per_size:
        kinds = {}
        for size, algo in per_size.items():
            nvls, collnet = (
                algo.startswith("NVLS"),
                algo.startswith("COLLNET") or (algo == "NVLS_TREE" and multi_node and bool(info.collnet)),
            )
            kinds[size] = "nvls+collnet" if nvls and collnet else "nvls" if nvls else "collnet" if collnet else None
        used = sorted({a for a in per_size.values()})
        reduced = sum(1 for k in kinds.values() if k)
        note = f"NCCL INFO names the algorithm of {len(per_size)} sizes ({', '.join(used)}): " + (
            f"the {reduced} run with in-network reduction get its ceiling" if reduced else "none reduces in the network"
        )
        return kinds, note
    nvls = bool(info.nvls)
    collnet = bool(info.collnet) and multi_node
    if nvls and collnet:
        kind, what = "nvls+collnet", f"NVLS (line {info.nvls_line}) and CollNet (line {info.collnet_line}) on"
    elif nvls:
        kind, what = "nvls", f"NVLS on (line {info.nvls_line})"
    elif collnet:
        kind, what = "collnet", f"CollNet on (line {info.collnet_line})"
    else:
        return None, ""
    return (
        kind,
        f"NCCL INFO: {what}: the AllReduce ceiling allows in-network reduction (each GPU or node moves M, not c(N) M)",
    )
