"""The :class:`Table` every chapter shows: Markdown in Jupyter and on the pages, aligned text elsewhere."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence


@dataclass
class Table:
    """Headers, rows of cells (already formatted strings) and an optional caption."""

    headers: Sequence[str]
    rows: list[Sequence[str]]
    caption: str = ""
    values: list = field(default_factory=list, repr=False)  # the raw numbers, for tests

    def __post_init__(self):
        if not isinstance(self.headers, (list, tuple)) or not all(isinstance(h, str) for h in self.headers):
            raise TypeError("headers must be a list of strings")
        if not isinstance(self.rows, list) or not all(isinstance(r, (list, tuple)) for r in self.rows):
            raise TypeError("rows must be a list of rows (lists of cells)")
        bad = [i for i, r in enumerate(self.rows) if len(r) != len(self.headers)]
        if bad:
            raise ValueError(
                f"rows must have one cell per header ({len(self.headers)}); row {bad[0]} has {len(self.rows[bad[0]])}"
            )
        if not isinstance(self.caption, str):
            raise TypeError(f"caption must be a string, got {type(self.caption).__name__}")
        if not isinstance(self.values, list):
            raise TypeError(f"values must be a list, got {type(self.values).__name__}")

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(self.headers) + " |", "|" + "---|" * len(self.headers)]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in self.rows]
        if self.caption:
            lines.append("")
            lines.append(f"*{self.caption}*")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        cells = [list(map(str, self.headers))] + [list(map(str, r)) for r in self.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.headers))]
        out = ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in cells]
        return "\n".join(([self.caption] if self.caption else []) + out)
