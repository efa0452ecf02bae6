"""The controls of an explorer as data: what the static site's live element rebuilds as HTML inputs.

:func:`controls_spec` reads an :class:`~ccb_helpers.explorers.base.Explorer` instance's
ipywidgets and returns, per control and in the explorer's order, a JSON-serialisable dict
(the *live-explorer contract*, issue #25): names, labels, ranges, steps, defaults and options
come from the Python explorer, never retyped in JavaScript.
"""

from __future__ import annotations

import math
import numbers

import ipywidgets as widgets

__all__ = ["controls_spec", "log_slider_values"]

#: Most options a select control may carry, and most positions a slider may have: the page
#: builds one ``<option>`` per option, and a precomputed explorer one state per position.
MAX_OPTIONS = 4096
MAX_POSITIONS = 100_000


def _json_value(name: str, value):
    """A control value as JSON holds it (str, bool, int or finite float), or TypeError."""
    if isinstance(value, bool | str) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and math.isfinite(float(value)):
        return float(value)
    raise TypeError(f"control {name!r}: value {value!r} ({type(value).__name__}) cannot be exported to the page")


def log_slider_values(control: widgets.FloatLogSlider) -> list[float]:
    """The Python values of a log slider at each of its positions: ``base ** (min + i * step)``.

    The page's ``<input type=range>`` moves the exponent; these values are what its
    ``data-value`` holds, so Python and the page agree on every position bit for bit.

    >>> log_slider_values(widgets.FloatLogSlider(value=10, base=10, min=0, max=2, step=0.5))
    [1.0, 3.1622776601683795, 10.0, 31.622776601683793, 100.0]
    """
    if not isinstance(control, widgets.FloatLogSlider):
        raise TypeError(f"control must be a FloatLogSlider, got {type(control).__name__}")
    positions = round((control.max - control.min) / control.step)
    if not 0 <= positions < MAX_POSITIONS:
        raise ValueError(f"a log slider must have 1 to {MAX_POSITIONS} positions, got {positions + 1}")
    return [float(control.base) ** round(control.min + i * control.step, 12) for i in range(positions + 1)]


def controls_spec(explorer) -> list[dict]:
    """The explorer's controls as data, in order (contract of issue #25).

    Each entry has ``name`` (the Python keyword), ``kind`` (``"range"``, ``"select"`` or
    ``"checkbox"``), ``widget`` (the ipywidgets class name), ``label`` (the description),
    ``default`` (the current Python value) and ``disabled``; a range adds ``min``, ``max``,
    ``step`` (of the exponent for a log slider, which adds ``log_base`` and ``values``, the
    Python value at each position); a select (``Dropdown``, ``SelectionSlider`` ...) adds
    ``options``, a list of ``[label, value]``, and ``floats: True`` when every value is a float
    (JSON cannot tell ``1.0`` from ``1``; the page writes ``data-value="1.0"`` as Python would).

    Parameters
    ----------
    explorer : ccb_helpers.explorers.Explorer
        An explorer instance (its controls' current values become the defaults).

    Examples
    --------
    >>> from ccb_helpers.explorers import PropagationExplorer
    >>> e = PropagationExplorer(n=64, k=1)
    >>> [(c["name"], c["kind"], c["default"]) for c in controls_spec(e)]
    [('n', 'range', 64), ('k', 'range', 1), ('all_port', 'checkbox', False)]
    >>> controls_spec(e)[0]["min"], controls_spec(e)[0]["max"], controls_spec(e)[0]["step"]
    (2, 1024, 1)
    >>> e.close()
    """
    from ..explorers.base import Explorer

    if not isinstance(explorer, Explorer):
        raise TypeError(f"explorer must be an Explorer instance, got {type(explorer).__name__}")
    if getattr(explorer, "_closed", False):
        raise ValueError("explorer was closed; make a new one")
    spec = []
    for name, control in explorer.controls.items():
        entry = {
            "name": name,
            "widget": type(control).__name__,
            "label": str(control.description or name),
            "default": _json_value(name, control.value),
            "disabled": bool(control.disabled),
        }
        if isinstance(control, widgets.Checkbox | widgets.ToggleButton):
            entry["kind"] = "checkbox"
        elif isinstance(control, widgets.FloatLogSlider):
            entry.update(
                kind="range",
                min=float(control.min),
                max=float(control.max),
                step=float(control.step),
                log_base=float(control.base),
                values=log_slider_values(control),
            )
        elif isinstance(control, widgets.IntSlider | widgets.FloatSlider):
            kind = int if isinstance(control, widgets.IntSlider) else float
            positions = (control.max - control.min) / control.step
            if positions >= MAX_POSITIONS:
                raise ValueError(f"control {name!r} has {positions:g} positions, more than {MAX_POSITIONS}")
            entry.update(kind="range", min=kind(control.min), max=kind(control.max), step=kind(control.step))
        elif hasattr(control, "options") and hasattr(control, "_options_labels"):
            labels, values = list(control._options_labels), list(control._options_values)
            if not 1 <= len(values) <= MAX_OPTIONS:
                raise ValueError(f"control {name!r} must have 1 to {MAX_OPTIONS} options, got {len(values)}")
            entry.update(
                kind="select", options=[[str(label), _json_value(name, value)] for label, value in zip(labels, values)]
            )
            if all(isinstance(value, float) for value in values):
                entry["floats"] = True  # JSON writes 1.0 as 1: the page writes data-value "1.0", as Python
        else:
            raise TypeError(
                f"control {name!r}: {type(control).__name__} has no live counterpart "
                "(IntSlider, FloatSlider, FloatLogSlider, Dropdown, SelectionSlider, Checkbox)"
            )
        spec.append(entry)
    return spec
