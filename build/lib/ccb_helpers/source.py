"""The source chapter's claims, as data, so the book can compare them with the computation.

Each entry records what ``theory-lower-bounds.zh.txt`` prints (the LaTeX, verbatim in meaning)
and the same formula as a function of ``(n, m[, beta])``. Nothing here is used to compute a
bound: the tables put these values next to :mod:`ccb_helpers.bandwidth` and say where they differ.
"""

from __future__ import annotations

__all__ = ["SOURCE_BW_1PORT", "SOURCE_BW_2PORT", "SOURCE_RING_STEPS_2PORT", "OUR_BW_FORMULAS", "SOURCE_BISECTION"]

# tbl-cc-bound-bw-1port: per primitive, (S, R, bound) as printed, and as functions.
SOURCE_BW_1PORT = {
    "broadcast": {
        "S": ("$M$ (root) / 0", lambda n, m: m),
        "R": ("$M$（非 root）", lambda n, m: m),
        "bound": (r"$M / \beta$", lambda n, m, b: m / b),
    },
    "scatter": {
        "S": ("$M$ (root)", lambda n, m: m),
        "R": ("$M / N$", lambda n, m: m / n),
        "bound": (r"$M / \beta$（root 端）", lambda n, m, b: m / b),
    },
    "reduce": {
        "S": ("$M$（非 root）", lambda n, m: m),
        "R": ("$M$ (root)", lambda n, m: m),
        "bound": (r"$M / \beta$", lambda n, m, b: m / b),
    },
    "gather": {
        "S": ("$M / N$", lambda n, m: m / n),
        "R": ("$M$ (root)", lambda n, m: m),
        "bound": (r"$M / \beta$（root 端）", lambda n, m, b: m / b),
    },
    "reduce_scatter": {
        "S": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
        "R": ("$M / N$", lambda n, m: m / n),
        "bound": (r"$\frac{(N-1) M}{N \beta}$", lambda n, m, b: (n - 1) * m / (n * b)),
    },
    "all_gather": {
        "S": ("$M / N$", lambda n, m: m / n),
        "R": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
        "bound": (r"$\frac{(N-1) M}{N \beta}$", lambda n, m, b: (n - 1) * m / (n * b)),
    },
    "all_reduce": {
        "S": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
        "R": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
        "bound": (r"$\frac{2 (N-1) M}{N \beta}$", lambda n, m, b: 2 * (n - 1) * m / (n * b)),
    },
    "all_to_all": {
        "S": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
        "R": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
        "bound": (r"$\frac{(N-1) M}{N \beta}$", lambda n, m, b: (n - 1) * m / (n * b)),
    },
}

# tbl-cc-bound-bw-2port: the bound column.
SOURCE_BW_2PORT = {
    "reduce_scatter": (r"$\frac{(N-1) M}{2 N \beta}$", lambda n, m, b: (n - 1) * m / (2 * n * b)),
    "all_gather": (r"$\frac{(N-1) M}{2 N \beta}$", lambda n, m, b: (n - 1) * m / (2 * n * b)),
    "all_reduce": (r"$\frac{(N-1) M}{N \beta}$", lambda n, m, b: (n - 1) * m / (n * b)),
    "all_to_all": (r"$\frac{(N-1) M}{2 N \beta}$", lambda n, m, b: (n - 1) * m / (2 * n * b)),
}

# tbl-cc-bound-bw-2port: the "Ring 实际步数" column.
SOURCE_RING_STEPS_2PORT = {
    "reduce_scatter": (r"$\lceil N / 2 \rceil$", lambda n: -(-n // 2)),
    "all_gather": (r"$\lceil N / 2 \rceil$", lambda n: -(-n // 2)),
    "all_reduce": ("$N$", lambda n: n),
}

# This book's per-node volumes (bottleneck node, with byte conservation) as LaTeX, for tables;
# tests check that each formula evaluates to ccb_helpers.forced_volume.
OUR_BW_FORMULAS = {
    "broadcast": {"S": ("$M$ (root)", lambda n, m: m), "R": ("$M$（每个非 root）", lambda n, m: m)},
    "scatter": {"S": (r"$\frac{N-1}{N} M$ (root)", lambda n, m: (n - 1) * m / n), "R": ("$M / N$", lambda n, m: m / n)},
    "gather": {"S": ("$M / N$", lambda n, m: m / n), "R": (r"$\frac{N-1}{N} M$ (root)", lambda n, m: (n - 1) * m / n)},
    "reduce": {"S": ("$M$（每个非 root）", lambda n, m: m), "R": ("$M$ (root)", lambda n, m: m)},
    "reduce_scatter": {
        "S": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
        "R": (r"$\frac{N-1}{N} M$（守恒；单节点至少 $M/N$）", lambda n, m: (n - 1) * m / n),
    },
    "all_gather": {
        "S": (r"$\frac{N-1}{N} M$（守恒；单节点至少 $M/N$）", lambda n, m: (n - 1) * m / n),
        "R": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
    },
    "all_reduce": {
        "S": (r"$\frac{2(N-1)}{N} M$（gossip 计数）", lambda n, m: 2 * (n - 1) * m / n),
        "R": (r"$\frac{2(N-1)}{N} M$（gossip 计数）", lambda n, m: 2 * (n - 1) * m / n),
    },
    "all_to_all": {
        "S": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
        "R": (r"$\frac{N-1}{N} M$", lambda n, m: (n - 1) * m / n),
    },
}

# tbl-cc-bound-bisection-cmp: (B_bisection as printed, bisection bound as printed, its function,
# node-level bound as printed, the source's verdict).
SOURCE_BISECTION = {
    "ring": (r"$2 \beta$", r"$\frac{M}{4 \beta}$", lambda n, m, b: m / (4 * b), r"$\frac{(N-1) M}{N \beta}$", "节点级"),
    "fat_tree": (
        r"$\frac{N}{2} \beta$",
        r"$\frac{M}{N \beta}$",
        lambda n, m, b: m / (n * b),
        r"$\frac{(N-1) M}{N \beta}$",
        "节点级",
    ),
    "torus2d": (
        r"$2 \sqrt{N} \beta$",
        r"$\frac{M}{4 \sqrt{N} \beta}$",
        lambda n, m, b: m / (4 * n**0.5 * b),
        r"$\frac{(N-1) M}{N \beta}$",
        "N 大时 bisection 紧",
    ),
}
