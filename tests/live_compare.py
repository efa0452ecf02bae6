"""Comparing a live explorer's JavaScript with its Python explorer on many states (issue #25).

:func:`figure_differences` compares two FigureSpecs (JSON trees): strings, booleans, keys and
list lengths exactly, numbers to a relative 1e-9 (the page evaluates some sums in another order);
:func:`evaluate_all` runs ``CCBLive.evaluate`` on every state in one ``page.evaluate`` call and
returns every fiftieth figure whole and the others as a :func:`summary` (a figure's curves are
hundreds of numbers: whole, a thousand of them would take minutes to move between the processes).
"""

from __future__ import annotations

import json
import math

from live_support import TEXT_OF_JS

RELATIVE = 1e-9


def _same_number(a, b) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or math.isclose(a, b, rel_tol=RELATIVE, abs_tol=0.0)


def figure_differences(js, py, path: str = "figure") -> list[str]:
    """Where two JSON trees differ (numbers to :data:`RELATIVE`); empty if they agree."""
    if isinstance(py, bool) or isinstance(js, bool):
        return [] if js is py else [f"{path}: {js!r} != {py!r}"]
    if isinstance(py, int | float) and isinstance(js, int | float):
        return [] if _same_number(float(js), float(py)) else [f"{path}: {js!r} != {py!r}"]
    if py is None and js is None:
        return []
    if isinstance(py, dict) and isinstance(js, dict):
        if set(js) != set(py):
            return [f"{path}: keys {sorted(set(js) ^ set(py))} differ"]
        return [d for key in py for d in figure_differences(js[key], py[key], f"{path}.{key}")]
    if isinstance(py, list) and isinstance(js, list):
        if len(js) != len(py):
            return [f"{path}: length {len(js)} != {len(py)}"]
        return [d for i, (a, b) in enumerate(zip(js, py)) for d in figure_differences(a, b, f"{path}[{i}]")]
    return [] if js == py else [f"{path}: {js!r} != {py!r}"]


#: Lists longer than this are summarised: length, first, middle and last element, min and max.
SUMMARY_LENGTH = 12
FULL_EVERY = 50

SUMMARY_JS = f"""function summary(v) {{
  if (Array.isArray(v)) {{
    if (v.length > {SUMMARY_LENGTH} && v.every(x => typeof x === 'number')) {{
      return [v.length, v[0], v[v.length >> 1], v[v.length - 1], Math.min(...v), Math.max(...v)];
    }}
    return v.map(summary);
  }}
  if (v && typeof v === 'object') {{ const o = {{}}; for (const k of Object.keys(v)) o[k] = summary(v[k]); return o; }}
  return v;
}}"""


def summary(value):
    """A FigureSpec with each long list of numbers replaced by ``[len, first, middle, last, min, max]`` (as the page does)."""
    if isinstance(value, list | tuple):
        if len(value) > SUMMARY_LENGTH and all(isinstance(x, int | float) and not isinstance(x, bool) for x in value):
            return [len(value), value[0], value[len(value) >> 1], value[-1], min(value), max(value)]
        return [summary(v) for v in value]
    if isinstance(value, dict):
        return {k: summary(v) for k, v in value.items()}
    return value


def evaluate_all(page, name: str, data: dict, states: list[dict]) -> list[dict]:
    """``CCBLive.evaluate(name, data, state)`` for every state, in one call: ``[{text, figure}]``.

    The figure of state ``i`` is whole when ``i % FULL_EVERY == 0``, else its :func:`summary`.
    """
    return page.evaluate(
        f"""([name, data, states]) => {{ const textOf = {TEXT_OF_JS}; {SUMMARY_JS}
            return states.map((s, i) => {{ const r = CCBLive.evaluate(name, data, s);
              return {{text: textOf(r.readout), figure: i % {FULL_EVERY} === 0 ? r.figure : summary(r.figure)}}; }}); }}""",
        [name, data, states])


def compare(results: list[dict], states: list[dict], frame, text_of) -> None:
    """Assert that each page result equals ``frame(**state)`` (readout text, figure or its summary)."""
    for i, (state, result) in enumerate(zip(states, results)):
        expected = frame(**state)
        assert result["text"] == text_of(expected.readout), state
        figure = json_round_trip(expected.figure) if i % FULL_EVERY == 0 else summary(expected.figure)
        assert figure_differences(result["figure"], figure) == [], state


def json_round_trip(value):
    """``value`` as the page receives it (tuples become lists, numpy floats plain floats)."""
    return json.loads(json.dumps(value))
