"""A figure described in words: the text alternative (``alt``) of its PNG on the site (issue #43).

Every figure of the site had the alt text "图（由代码生成）", which tells a screen reader's user
nothing. :func:`figure_alt_text` writes what the figure itself says: its title, each panel's
title, axes and legend, in the book's Chinese. The book's PNG formatter stores it with the figure
(output metadata ``ccb_alt``, :mod:`ccb_helpers.plotting.style`), as do the explorers for their
PNG; the site's build puts it in the ``<img alt>`` (:mod:`ccb_helpers.phone_pictures`).
"""

from __future__ import annotations

import re

__all__ = ["figure_alt_text", "plain_text", "MAX_ALT_CHARS"]

#: Longest alt text written (screen readers read it in one go; the readout and the prose say more).
MAX_ALT_CHARS = 600
#: Most legend entries named per panel.
_MAX_LEGEND = 10

_TEX = [
    (r"\lceil", "⌈"),
    (r"\rceil", "⌉"),
    (r"\lfloor", "⌊"),
    (r"\rfloor", "⌋"),
    (r"\alpha", "α"),
    (r"\beta", "β"),
    (r"\gamma", "γ"),
    (r"\leq", "≤"),
    (r"\geq", "≥"),
    (r"\le", "≤"),
    (r"\ge", "≥"),
    (r"\cdot", "·"),
    (r"\times", "×"),
    (r"\infty", "∞"),
    (r"\log", "log"),
    (r"\max", "max"),
    (r"\min", "min"),
    (r"\,", " "),
    (r"\;", " "),
    (r"\ ", " "),
]
_SUB = str.maketrans("0123456789+-", "₀₁₂₃₄₅₆₇₈₉₊₋")
_SUP = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")


def plain_text(text: str) -> str:
    r"""A matplotlib label as plain text: mathtext's TeX turned into the characters it shows.

    >>> plain_text(r"$\lceil \log_{2} N \rceil$ 轮")
    '⌈log₂ N⌉ 轮'
    >>> plain_text(r"$\frac{M}{\beta}$ and $2^{10}$, $(k+1)^t$")
    'M/β and 2¹⁰, (k+1)^t'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")

    def math(match: re.Match) -> str:
        body = match.group(1)
        body = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", body)
        for tex, char in _TEX:
            body = body.replace(tex, char)
        body = re.sub(r"_\{([0-9+\-]+)\}|_([0-9+\-])", lambda m: (m.group(1) or m.group(2)).translate(_SUB), body)
        body = re.sub(r"\^\{([0-9+\-]+)\}|\^([0-9+\-])", lambda m: (m.group(1) or m.group(2)).translate(_SUP), body)
        body = re.sub(r"\\(?:mathrm|text|mathit|mathbf|operatorname)\{([^{}]*)\}", r"\1", body)
        body = re.sub(r"\\[A-Za-z]+", "", body).replace("{", "").replace("}", "").replace("_", "")  # "^t" stays
        body = re.sub(r"([⌈⌊(])\s+", r"\1", re.sub(r"\s+([⌉⌋)])", r"\1", body))  # mathtext sets no space there
        return re.sub(r"\s+", " ", body).strip()

    out = re.sub(r"(?<!\\)\$(.+?)(?<!\\)\$", math, text)
    return re.sub(r"\s*\n\s*", " ", out.replace(r"\$", "$")).strip()


def _panel_text(ax) -> str:
    title = " ".join(plain_text(ax.get_title(loc)) for loc in ("left", "center", "right") if ax.get_title(loc))
    xlabel, ylabel = plain_text(ax.get_xlabel()), plain_text(ax.get_ylabel())
    pieces = [title] if title else []
    axes = "；".join(
        part for part in (f"横轴：{xlabel}" if xlabel else "", f"纵轴：{ylabel}" if ylabel else "") if part
    )
    if axes:
        pieces.append(f"（{axes}）")
    legend = ax.get_legend()
    if legend is not None and legend.get_visible():
        names = [plain_text(t.get_text()) for t in legend.get_texts() if t.get_text()]
        if names:
            more = f" 等 {len(names)} 项" if len(names) > _MAX_LEGEND else ""
            pieces.append("，图例：" + "、".join(names[:_MAX_LEGEND]) + more)
    return "".join(pieces)


def figure_alt_text(figure) -> str:
    """``"图：…"``: the figure's title and, per visible panel, its title, axis labels and legend.

    Panels without any of them (a drawing with no title) are counted, not described; a figure
    with nothing to say gives ``"图（由代码生成）"``. At most :data:`MAX_ALT_CHARS` characters.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(); ax = fig.subplots()
    >>> _ = ax.plot([1, 2], [3, 4], label="ring"); _ = ax.legend()
    >>> _ = ax.set_title("AllReduce"); _ = ax.set_xlabel("消息大小 M"); _ = ax.set_ylabel("时间")
    >>> figure_alt_text(fig)
    '图：AllReduce（横轴：消息大小 M；纵轴：时间），图例：ring'
    """
    from matplotlib.figure import Figure

    if not isinstance(figure, Figure):
        raise TypeError(f"figure must be a matplotlib Figure, got {type(figure).__name__}")
    parts = []
    suptitle = getattr(figure, "_suptitle", None)
    if suptitle is not None and suptitle.get_text():
        parts.append(plain_text(suptitle.get_text()))
    visible = [ax for ax in figure.axes if ax.get_visible() and (ax.axison or ax.get_title())]
    described = [text for text in (_panel_text(ax) for ax in visible) if text]
    parts += described
    if len(visible) > 1:
        parts.insert(0, f"{len(visible)} 个子图")
    if not described and not parts:
        return "图（由代码生成）"
    text = "图：" + "；".join(parts)
    return text if len(text) <= MAX_ALT_CHARS else text[: MAX_ALT_CHARS - 1] + "…"
