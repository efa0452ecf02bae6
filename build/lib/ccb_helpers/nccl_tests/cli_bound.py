"""The command line's bound: a preset (or ``auto`` from the log's devices), α/β by hand, the machine's
own topology (``--topology FILE``), the network, and what NCCL's INFO lines say.

:func:`add_bound_options` declares the options; :func:`check_bound` checks every number and reads
the topology file before any log is read (one line and exit 2 on bad input);
:func:`bound_for_run` turns them into the parameters of one run's report, with notes that say
where each came from (the device names, the topology's links and NICs, NCCL's transport, NVLS).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._validation import check_bandwidth, check_int, check_real
from .ceilings import check_link
from .cli_io import Refused, read_log
from .command import MAX_RANKS
from .machines import LINK_RATES, network_for, preset_contradiction, preset_for_devices
from .nccl_info import in_network_from_info, network_kind
from .records import COLLECTIVES


def add_bound_options(parser, side: str = "") -> None:
    """The bound's options (``side`` prefixes the preset options of one side of ``compare``)."""
    from ..hardware import NETWORK_PRESETS, PRESETS

    source = parser.add_mutually_exclusive_group(required=not side)
    source.add_argument(
        "--preset",
        choices=sorted(PRESETS) + ["auto"],
        help="hardware preset giving alpha, beta and ports; 'auto': from the device names in the log's rank lines",
    )
    source.add_argument("--alpha", type=float, help="latency per round, seconds (with --beta)")
    parser.add_argument("--beta", type=float, help="bandwidth per link per direction, bytes/s")
    parser.add_argument("--ports", type=int, default=1, help="links used in parallel (default 1)")
    network = parser.add_mutually_exclusive_group()
    network.add_argument(
        "--network",
        choices=sorted(NETWORK_PRESETS) + ["auto"],
        help="per-node network preset (adds the node cut); 'auto': from NCCL's transport and the GPUs",
    )
    network.add_argument(
        "--node-beta", type=float, help="network bandwidth per node per direction, bytes/s (adds the node cut)"
    )
    network.add_argument(
        "--rail-beta", type=float, help="bandwidth of each GPU's own NIC per direction, bytes/s (adds the node cut)"
    )
    parser.add_argument("--nodes", type=int, help="nodes for the network cut (default: the hosts the log lists)")
    parser.add_argument(
        "--topology",
        metavar="FILE",
        help="the node's 'nvidia-smi topo -m' or 'rocm-smi --showtopo' output (and 'ibstat' for NIC rates): "
        "the endpoint and network ceilings from its own links and NICs",
    )
    parser.add_argument(
        "--nic-gbps", type=float, help="one NIC's rate, Gb/s, for --topology's NICs (default: the file's 'Rate:')"
    )
    parser.add_argument("--collective", choices=COLLECTIVES, help="when the log does not name its program")
    parser.add_argument("--ranks", type=int, help="when the log does not determine its rank count")
    parser.add_argument(
        "--force", action="store_true", help="use --collective / --ranks even where the log contradicts them"
    )
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output (default: table)")


@dataclass
class Bound:
    """The bound's checked inputs (before any log is read)."""

    preset_key: str | None  # a preset, "auto", or None (alpha/beta by hand)
    alpha: float | None
    beta: float | None
    ports: int
    network: str | None  # a network preset key, "auto" or None
    node_beta: float | None
    rail_beta: float | None
    nodes: int | None
    ranks: int | None
    machine: object = None  # MachineTopology of --topology
    nic_rate: float | None = None
    notes: list = field(default_factory=list)


def check_bound(args) -> Bound:
    """Every number and the topology file checked, with the library's limits (one line, exit 2)."""
    try:
        if args.preset is None and args.beta is None:
            raise Refused("--alpha needs --beta (bytes/s), e.g. --alpha 2e-6 --beta 50e9")
        if args.preset is not None and args.beta is not None:
            raise Refused("--preset gives beta; pass --beta only with --alpha")
        alpha = beta = None
        ports = 1
        if args.preset is None:
            alpha = check_real("alpha", args.alpha, maximum=1e9, scalar=True)
            beta, ports = check_link(args.beta, args.ports)
        node_beta = rail_beta = None
        if args.node_beta is not None:
            node_beta = check_bandwidth("node_beta", args.node_beta, scalar=True)
        if args.rail_beta is not None:
            rail_beta = check_bandwidth("rail_beta", args.rail_beta, scalar=True)
        nodes = (
            None if args.nodes is None else check_int("n_nodes", args.nodes, minimum=1, maximum=MAX_RANKS, scalar=True)
        )
        if (
            nodes is not None
            and node_beta is None
            and rail_beta is None
            and args.network is None
            and args.topology is None
        ):
            raise ValueError("n_nodes needs node_beta (--node-beta, --rail-beta, --network or --topology)")
        ranks = (
            None if args.ranks is None else check_int("n_ranks", args.ranks, minimum=2, maximum=MAX_RANKS, scalar=True)
        )
        nic_rate = None if args.nic_gbps is None else check_bandwidth("nic_gbps", args.nic_gbps, scalar=True) * 1e9 / 8
    except (ValueError, TypeError) as error:
        raise Refused(str(error)) from None
    bound = Bound(args.preset, alpha, beta, ports, args.network, node_beta, rail_beta, nodes, ranks, nic_rate=nic_rate)
    if args.topology is not None:
        from .topology_file import read_topology_file

        try:
            bound.machine = read_topology_file(read_log(args.topology))
        except (ValueError, TypeError) as error:
            raise Refused(f"{args.topology}: {error}") from None
    return bound


@dataclass
class RunBound:
    """The parameters of one run's report, and where each came from."""

    alpha: float
    beta: float
    ports: int
    latency_ports: int
    label: str
    node_beta: float | None = None
    rail_beta: float | None = None
    nodes: int | None = None
    in_network: object = None
    notes: list = field(default_factory=list)


def bound_for_run(log, bound: Bound) -> RunBound:
    """The bound of one run: the preset (``auto``: from its devices), the topology, the network."""
    from ..hardware import PRESETS

    notes = []
    n = log.n_ranks
    key = bound.preset_key
    if key == "auto":
        key, how = preset_for_devices(log.devices)
        if key is None:
            keys = ", ".join(sorted(k for k in PRESETS if k != "auto"))
            hint = "" if "pass --preset" in how else ": pass --preset KEY, or --alpha and --beta"
            raise Refused(f"--preset auto: {how}{hint} (KEY one of {keys})")
        notes.append(f"preset {key} {how}")
    elif key is not None and (why := preset_contradiction(key, log.devices)):
        notes.append(why)
    if key is not None:
        preset = PRESETS[key]
        alpha, beta, ports = preset.alpha, preset.beta, preset.ports or 1
        latency_ports = preset.ports_for(n) if n and n >= 2 else ports
        label = f"preset {preset.key}: {preset.label}"
    else:
        alpha, beta, ports, latency_ports = bound.alpha, bound.beta, bound.ports, bound.ports
        label = "alpha/beta from the command line"
    run = RunBound(alpha, beta, ports, latency_ports, label, bound.node_beta, bound.rail_beta, bound.nodes)
    if bound.machine is not None:
        _apply_topology(run, bound, key, n, log.collective, notes)
        if (why := topology_contradiction(bound.machine, key, n, log.n_hosts)) is not None:
            notes.append(why)
    _apply_network(run, bound, log, key, notes)
    run.in_network, note = in_network_from_info(log.nccl, log.collective or "", (run.nodes or log.n_hosts or 1) > 1)
    if note:
        notes.append(note)
    run.notes = notes
    return run


#: Presets of one vendor's GPU links (``rocm-smi --showtopo`` prints AMD's, ``nvidia-smi topo -m``
#: NVIDIA's); the PCIe and network presets fit either.
_AMD_PRESETS = ("mi300x_xgmi", "mi355x_xgmi")
_NVIDIA_PRESETS = ("a100_nvlink", "b200_nvlink5", "h100_nvswitch", "v100_nvlink2")


def topology_contradiction(machine, key: str | None, n: int | None, hosts: int | None) -> str | None:
    """A warning when ``--topology`` cannot be a node of this run: more ranks a host than it has
    GPUs, or another vendor's printout than the preset's GPUs; else ``None``."""
    amd = machine.source == "rocm-smi --showtopo"
    if key in (_NVIDIA_PRESETS if amd else _AMD_PRESETS):
        return (
            f"--topology is {machine.source} output, and preset {key} is for {'NVIDIA' if amd else 'AMD'} GPUs: "
            "the printout is of another machine than the preset's, and its links are counted at the preset's "
            "link rate"
        )
    if n is not None and hosts:
        per_host = -(-n // hosts)  # at least one host runs this many ranks
        if per_host > machine.gpus:
            return (
                f"--topology lists {machine.gpus} GPUs, but the log runs {n} ranks on {hosts} host"
                f"{'s' if hosts != 1 else ''} ({per_host} on a host): unless ranks share GPUs, the printout is of "
                "another machine, and the ceilings from its links are not this run's"
            )
    return None


def _apply_topology(run: RunBound, bound: Bound, key: str | None, n: int | None, collective, notes: list) -> None:
    """The endpoint ceiling from the machine's links, and its NICs as rails."""
    from .topology_file import single_node_ceiling

    machine = bound.machine
    rate = LINK_RATES.get(key) if key is not None else run.beta
    if rate is None:
        raise Refused(f"--topology: no per-link rate for preset {key}: pass --alpha and --beta (one link's bytes/s)")
    links = machine.links_per_gpu
    from ..primitives import PRIMITIVES

    if n == machine.gpus and collective in PRIMITIVES:
        ceiling, binds = single_node_ceiling(collective, machine, rate)
        run.beta, run.ports = ceiling, 1
        notes.append(
            f"--topology ({machine.source}, {machine.topology.name}): {machine.gpus} GPUs, {links} link"
            f"{'s' if links != 1 else ''} per GPU at {rate / 1e9:.4g} GB/s; one node: the ceiling is "
            f"{ceiling / 1e9:.4g} GB/s, set by {binds}"
        )
    else:
        run.beta, run.ports = rate, links
        notes.append(
            f"--topology ({machine.source}): {links} link{'s' if links != 1 else ''} per GPU at {rate / 1e9:.4g} GB/s "
            f"= {links * rate / 1e9:.4g} GB/s per GPU"
            + (f"; the run's {n} ranks are not the topology's {machine.gpus} GPUs" if n and n < machine.gpus else "")
        )
    if machine.nics and run.node_beta is None and run.rail_beta is None and bound.network in (None, "auto"):
        nic_rate = bound.nic_rate or machine.nic_rate
        if nic_rate is None:
            notes.append(
                f"--topology: {machine.nics} NICs at PIX/PXB of the GPUs, but no rate (no 'Rate:' lines): pass "
                "--nic-gbps for the network cut"
            )
            return
        per_gpu = machine.nics / machine.gpus
        run.rail_beta = per_gpu * nic_rate
        notes.append(
            f"--topology: {machine.nics} NICs of {nic_rate * 8 / 1e9:.4g} Gb/s at PIX/PXB of the {machine.gpus} GPUs: "
            f"{run.rail_beta / 1e9:.4g} GB/s of network per GPU"
        )


def _apply_network(run: RunBound, bound: Bound, log, key: str | None, notes: list) -> None:
    """The network preset (``auto``: the common node for NCCL's transport and the GPUs)."""
    from ..hardware import NETWORK_PRESETS

    name = bound.network
    if name == "auto" and (run.rail_beta is not None or run.node_beta is not None):
        return  # the topology's NICs already give the network
    if name == "auto":
        kind = network_kind(log.nccl) if log.nccl is not None else None
        name = network_for(kind, key)
        if name is None:
            if run.rail_beta is None and (log.n_hosts or 1) > 1:
                notes.append(
                    f"--network auto: no network preset for {kind or 'an unnamed transport'} with "
                    f"{key or 'these GPUs'}: pass --network KEY or --node-beta BPS for the node cut"
                )
            return
        notes.append(f"network {name} chosen from NCCL's transport ({kind}, line {log.nccl.network_line}) and the GPUs")
    if name is not None:
        run.node_beta = NETWORK_PRESETS[name].node_beta
        run.label += f"; network {name}"
