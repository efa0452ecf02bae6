"""A linear-programming bound on the rounds per chunk of two-step schedules, for every chunk count.

The solver of :mod:`ccb_helpers.synthesis` decides one instance ``(S, R, C)`` at a time, so its
proofs of infeasibility cover the chunk counts it was asked about (``C <= 6`` in chapter 7).
For two steps a linear program covers **every** ``C`` at once:

* A piece of a source's data is *typed* by the set ``A`` of neighbours it reaches in step 1
  (any subset of the source's neighbours, possibly empty). After step 1 it is held by
  ``H = {source} ∪ A``; in step 2 every other node that needs it must receive it from a holder
  adjacent to it (a type leaving some node with no adjacent holder is impossible).
* ``x[v, A]`` is the fraction of source ``v``'s data of type ``A`` (they sum to 1), ``y[v, A, w, u]``
  the part of it node ``w`` receives from holder ``u`` in step 2, and ``rho_s = r_s / C`` the
  rounds per chunk of step ``s``. A link ``u -> w`` of multiplicity ``b`` carries at most
  ``b rho_s`` in step ``s``. Minimise ``rho_1 + rho_2 = R / C``.

Any schedule with ``C`` chunks is a feasible point (``x[v, A]`` = its chunks of type ``A`` over
``C``), so the LP optimum is a lower bound on ``R / C`` of every two-step schedule, whatever
``C``. It is solved with OR-Tools' GLOP (already a dependency for CP-SAT), and the value is
made exact by its **dual**: the dual values are rounded to fractions and checked, in exact
arithmetic, to be dual-feasible with objective ``q``; weak duality then proves ``R/C >= q`` for
every ``C``. On DGX-1 AllGather ``q = 3/2``, which the stored ``(2, 3, 2)`` schedule attains:
the two-step frontier point is optimal for every chunk count.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import lcm

from ._validation import check_cap, check_choice, check_int

__all__ = ["two_step_rounds_per_chunk", "MAX_LP_VARIABLES", "MAX_LP_BYTES"]

#: Largest LP built (variables, estimated from the node degrees before building it).
MAX_LP_VARIABLES = 200_000
#: Memory budget of one call, bytes (issue #28). The peak is estimated from the LP's exact size
#: (:func:`_lp_size`, counted before anything is built) by :func:`_lp_memory`; at
#: :data:`MAX_LP_VARIABLES` the estimate is at most about 0.7 GiB (a type of the degree estimate
#: has at most three nonzeros per estimated variable, a row at most one), so the budget binds only
#: when lowered. tests/test_memory_caps.py measures peak <= estimate near the variable cap.
MAX_LP_BYTES = 2 * 2**30
# Resident bytes per nonzero and per row: the Python model (a dict entry and a Fraction per
# nonzero, a tuple per row and column) plus GLOP's copy (MPVariable/MPConstraint objects, their
# coefficient maps, the solver's sparse matrix). Measured at 660-700 resident bytes per nonzero
# (tracemalloc: 280) on fully_connected(9) AllGather and a 64-node broadcast near the cap;
# rounded up by half so that another shape of LP stays below.
_BYTES_PER_NONZERO = 1024
_BYTES_PER_ROW = 512
# OR-Tools' solver object and GLOP's fixed buffers (its import is not counted: once per process).
_LP_FIXED_BYTES = 8 * 2**20
_PRIMITIVES = ("all_gather", "broadcast")


def _estimate_variables(links, sources) -> int:
    n = len(links)
    total = 0
    for v in sources:
        degree = sum(1 for a in range(n) if links[v][a])
        total += 2**degree * (1 + n * (degree + 1))
    return total


def _types(links, sources):
    """Every admissible type: ``(source, reached, targets, options)`` as :func:`_build` uses them."""
    n = len(links)
    for v in sources:
        neighbours = [a for a in range(n) if links[v][a]]
        for size in range(len(neighbours) + 1):
            for reached in combinations(neighbours, size):
                holders = {v, *reached}
                targets = [w for w in range(n) if w not in holders]
                options = [[u for u in holders if links[u][w]] for w in targets]
                if any(not o for o in options):
                    continue  # some node has no adjacent holder after step 1: impossible type
                yield v, reached, targets, options


def _lp_size(links, sources) -> tuple[int, int, int]:
    """(rows, columns, nonzeros) of the LP :func:`_build` would build, counted without building it."""
    arcs = sum(1 for row in links for b in row if b)
    rows, columns, nonzeros = 2 * arcs + len(sources), 2, 2 * arcs
    for _, reached, targets, options in _types(links, sources):
        routes = sum(len(o) for o in options)
        rows += len(targets)
        columns += 1 + routes
        nonzeros += 1 + len(reached) + len(targets) + 2 * routes
    return rows, columns, nonzeros


def _lp_memory(rows: int, nonzeros: int) -> int:
    """Estimated peak resident bytes of building and solving an LP of this size."""
    return _BYTES_PER_NONZERO * nonzeros + _BYTES_PER_ROW * rows + _LP_FIXED_BYTES


def _build(links, sources):
    """Rows and columns of the LP: ``columns[j]`` is ``(cost, {row: coefficient})``; ``rows[i]`` ``(sense, rhs)``."""
    n = len(links)
    rows, columns = [], []
    step1 = {}  # arc (v, a) -> row: b rho_1 - load >= 0
    step2 = {}
    for u in range(n):
        for w in range(n):
            if links[u][w]:
                step1[u, w] = len(rows)
                rows.append((">=", 0))
                step2[u, w] = len(rows)
                rows.append((">=", 0))
    rho1 = {row: Fraction(links[u][w]) for (u, w), row in step1.items()}
    rho2 = {row: Fraction(links[u][w]) for (u, w), row in step2.items()}
    columns.append((Fraction(1), rho1))
    columns.append((Fraction(1), rho2))
    for v in sources:
        share = len(rows)  # sum over types of x[v, A] = 1
        rows.append(("==", 1))
        neighbours = [a for a in range(n) if links[v][a]]
        for size in range(len(neighbours) + 1):
            for reached in combinations(neighbours, size):
                holders = {v, *reached}
                targets = [w for w in range(n) if w not in holders]
                options = [[u for u in holders if links[u][w]] for w in targets]
                if any(not o for o in options):
                    continue  # some node has no adjacent holder after step 1: impossible type
                x_column = {share: Fraction(1)}
                x_column.update({step1[v, a]: Fraction(-1) for a in reached})
                routes = []
                for w, senders in zip(targets, options):
                    route = len(rows)  # sum over holders of y[v, A, w, u] - x[v, A] = 0
                    rows.append(("==", 0))
                    x_column[route] = Fraction(-1)
                    routes.extend((route, step2[u, w]) for u in senders)
                columns.append((Fraction(0), x_column))
                for route, capacity in routes:
                    columns.append((Fraction(0), {route: Fraction(1), capacity: Fraction(-1)}))
    return rows, columns


def _solve_glop(rows, columns):
    """Primal objective and dual values (floats) of the LP, by GLOP."""
    from ortools.linear_solver import pywraplp

    from .synthesis import SolverError

    solver = pywraplp.Solver.CreateSolver("GLOP")
    if solver is None:  # pragma: no cover - GLOP ships with every OR-Tools wheel
        raise SolverError("OR-Tools' GLOP linear solver is not available")
    variables = [solver.NumVar(0.0, solver.infinity(), f"z{j}") for j in range(len(columns))]
    constraints = []
    for sense, rhs in rows:
        constraint = solver.Constraint(float(rhs), float(rhs) if sense == "==" else solver.infinity())
        constraints.append(constraint)
    for variable, (_, column) in zip(variables, columns):
        for row, coefficient in column.items():
            constraints[row].SetCoefficient(variable, float(coefficient))
    objective = solver.Objective()
    for variable, (cost, _) in zip(variables, columns):
        objective.SetCoefficient(variable, float(cost))
    objective.SetMinimization()
    status = solver.Solve()
    if status != pywraplp.Solver.OPTIMAL:
        raise SolverError(f"GLOP did not solve the two-step LP (status {status})")
    return objective.Value(), [c.dual_value() for c in constraints]


def _exact_dual(rows, columns, duals):
    """The dual values as fractions, checked dual-feasible in exact arithmetic; their objective."""
    from .synthesis import SolverError

    # The check runs in integers, each side scaled by the lcm of its denominators: the same exact
    # comparison without a Fraction per term (seconds for an LP of 10^5 columns, 3x under tracemalloc).
    coefficient_scale = lcm(
        *(cost.denominator for cost, _ in columns), *(c.denominator for _, column in columns for c in column.values())
    )
    scaled_columns = [
        (
            cost.numerator * (coefficient_scale // cost.denominator),
            [(row, c.numerator * (coefficient_scale // c.denominator)) for row, c in column.items()],
        )
        for cost, column in columns
    ]
    for limit in (12, 60, 840, 2520, 10**4, 10**6):
        values = [Fraction(d).limit_denominator(limit) for d in duals]
        values = [max(v, Fraction(0)) if sense == ">=" else v for v, (sense, _) in zip(values, rows)]
        value_scale = lcm(*(v.denominator for v in values))
        scaled_values = [v.numerator * (value_scale // v.denominator) for v in values]
        if all(
            sum(coefficient * scaled_values[row] for row, coefficient in column) <= cost * value_scale
            for cost, column in scaled_columns
        ):
            return sum(Fraction(rhs) * v for v, (_, rhs) in zip(values, rows))
    raise SolverError("the LP's dual values could not be made an exact certificate")


def two_step_rounds_per_chunk(topology, primitive="all_gather", root=0) -> Fraction:
    """The fewest rounds per chunk ``R/C`` any two-step schedule can have, for every chunk count.

    The optimum of the linear relaxation described in the module docstring, made exact by its
    dual (a proof that no two-step schedule, with any ``C``, has ``R/C`` below it). When a
    schedule attains it, it is the exact two-step optimum.

    Parameters
    ----------
    topology : Topology
        A direct network (links between endpoints; no switches), ``2 <= n <= 64``, in which
        every node is within two hops of every source.
    primitive : str, default ``"all_gather"``
        ``"all_gather"`` or ``"broadcast"`` (every node needs the data of every source / the root).
    root : int, default 0
        The source of a Broadcast.

    Returns
    -------
    fractions.Fraction
        The bound on ``R/C`` (in units of ``u / beta``, as ``eq:cc-synth-cost``).

    Raises
    ------
    ValueError
        A switched topology, a node more than two hops from a source (no two-step schedule),
        or an LP above :data:`MAX_LP_VARIABLES` variables (estimated before it is built), or
        whose estimated memory exceeds :data:`MAX_LP_BYTES` (counted before it is built).

    Examples
    --------
    DGX-1 AllGather: 3/2 for every chunk count (the solver's proofs stop at ``C <= 6``); the cut
    bound 7/6 needs a third step. On a 4-node ring two steps reach the cut bound 3/2:

    >>> import ccb_helpers as ccb
    >>> two_step_rounds_per_chunk(ccb.dgx1())
    Fraction(3, 2)
    >>> two_step_rounds_per_chunk(ccb.ring(4))
    Fraction(3, 2)
    """
    import networkx as nx

    from .synthesis import _check_topology
    from .user_topology import _link_matrix

    topology = _check_topology(topology)
    primitive = check_choice("primitive", primitive, _PRIMITIVES)
    if topology.switched:
        raise ValueError(f"two_step_rounds_per_chunk handles direct networks; {topology.name} has switches")
    n = topology.n
    if n > 64:
        raise ValueError(f"topology has n={n} nodes; two_step_rounds_per_chunk accepts n <= 64")
    root = check_int("root", root, minimum=0, maximum=n - 1, scalar=True)
    sources = list(range(n)) if primitive == "all_gather" else [root]
    hops = (
        dict(nx.all_pairs_shortest_path_length(topology.graph))
        if primitive == "all_gather"
        else {root: nx.single_source_shortest_path_length(topology.graph, root)}
    )
    far = [(v, w) for v in sources for w in range(n) if hops[v].get(w, 3) > 2]
    if far:
        v, w = far[0]
        raise ValueError(
            f"node {w} is more than two hops from source {v} in {topology.name}: no two-step schedule exists"
        )
    links = _link_matrix(topology).tolist()
    estimate = _estimate_variables(links, sources)
    if estimate > MAX_LP_VARIABLES:
        raise ValueError(
            f"the two-step LP of {topology.name} would have about {estimate} variables; "
            f"at most {MAX_LP_VARIABLES} are built"
        )
    size_rows, _, nonzeros = _lp_size(links, sources)  # bounded by the variable cap just checked
    check_cap(
        f"two_step_rounds_per_chunk: the LP of topology={topology.name} ({size_rows} rows, {nonzeros} nonzeros): memory",
        _lp_memory(size_rows, nonzeros),
        MAX_LP_BYTES,
        "bytes",
        hint="a topology with fewer nodes or lower degrees",
    )
    rows, columns = _build(links, sources)
    value, duals = _solve_glop(rows, columns)
    exact = _exact_dual(rows, columns, duals)
    if abs(float(exact) - value) > 1e-6 * max(1.0, value):
        from .synthesis import SolverError

        raise SolverError(f"the exact dual bound {exact} does not match GLOP's optimum {value}")
    return exact
