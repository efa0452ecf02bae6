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


#: ``JSON.stringify`` with the values JSON cannot hold spelled out (NaN, ±Infinity, -0, undefined),
#: so :func:`from_page_json` gives back exactly what Playwright's own transfer would.
TO_JSON_JS = """v => JSON.stringify(v, (k, x) => x === undefined ? {'$undefined': 1}
  : typeof x === 'number' && (!Number.isFinite(x) || Object.is(x, -0)) ? {'$number': Object.is(x, -0) ? '-0' : String(x)} : x)"""
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}


def _special(obj: dict):
    if obj.keys() == {"$number"}:
        return _SPECIAL[obj["$number"]]
    return None if obj.keys() == {"$undefined"} else obj


def from_page_json(text: str):
    """A value the page sent as ``TO_JSON_JS`` text, as Playwright would have returned it."""
    return json.loads(text, object_hook=_special)


def evaluate_all(page, name: str, data: dict, states: list[dict]) -> list[dict]:
    """``CCBLive.evaluate(name, data, state)`` for every state, in one call: ``[{text, figure}]``.

    The figure of state ``i`` is whole when ``i % FULL_EVERY == 0``, else its :func:`summary`.
    The results come back as one JSON string: Playwright's own transfer of the same nested
    values checks every number against its protocol schema, 40 % of these tests' CPU.
    """
    return from_page_json(
        page.evaluate(
            f"""([name, data, states]) => {{ const textOf = {TEXT_OF_JS}; {SUMMARY_JS}
            return ({TO_JSON_JS})(states.map((s, i) => {{ const r = CCBLive.evaluate(name, data, s);
              return {{text: textOf(r.readout), figure: i % {FULL_EVERY} === 0 ? r.figure : summary(r.figure)}}; }})); }}""",
            [name, data, states],
        )
    )


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


# -- the built site: a reader's drags and taps ------------------------------------------------------

#: The DOM controls of a live explorer: name, kind and (for a range) its min, max, step; (select) its option values.
CONTROLS_JS = """r => Array.from(r.querySelectorAll('[data-control]')).map(c => ({name: c.getAttribute('data-control'),
  tag: c.tagName, type: c.type, min: +c.min, max: +c.max, step: +c.step, disabled: c.disabled,
  options: c.tagName === 'SELECT' ? Array.from(c.options).map(o => o.value) : null}))"""
READOUT_JS = f"r => ({TEXT_OF_JS})(r.querySelector('[data-readout]').innerHTML)"
SVG_JS = "r => r.querySelector('svg').outerHTML"


def random_target(rng, control: dict):
    """A value to set a DOM control to, as a reader could: a slider position, an option, a toggle."""
    if control["type"] == "checkbox":
        return rng.random() < 0.5
    if control["tag"] == "SELECT":
        return rng.choice(control["options"])
    positions = round((control["max"] - control["min"]) / control["step"])
    return str(round(control["min"] + rng.randint(0, positions) * control["step"], 9))


def drive(page, handle, rng, steps: int, typed, expected_text, skip=()) -> list[dict]:
    """Set ``steps`` random controls through the DOM (drag-like ``input`` events), checking the readout each time.

    ``typed(raw) -> values`` types the DOM's strings; ``expected_text(values)`` is Python's readout text.
    Returns the states seen.
    """
    from live_support import READ_CONTROLS_JS, SET_CONTROL_JS

    seen = []
    for i in range(steps):
        controls = [c for c in page.evaluate(CONTROLS_JS, handle) if not c["disabled"] and c["name"] not in skip]
        control = controls[i % len(controls)]
        page.evaluate(SET_CONTROL_JS, [handle, control["name"], random_target(rng, control)])
        values = typed(page.evaluate(READ_CONTROLS_JS, handle))
        assert page.evaluate(READOUT_JS, handle) == expected_text(values), values
        seen.append(values)
    return seen


def phone_check(page, handle) -> dict:
    """Sizes at a phone viewport: the explorer's widths, its controls' tap targets, its SVG text sizes."""
    return page.evaluate(
        """r => ({scroll: r.scrollWidth, width: r.getBoundingClientRect().width,
        targets: Array.from(r.querySelectorAll('[data-control]')).map(c => Math.min(c.getBoundingClientRect().height, c.getBoundingClientRect().width)),
        fonts: Array.from(r.querySelectorAll('svg text')).map(t => parseFloat(getComputedStyle(t).fontSize))})""",
        handle,
    )


def check_drags_on_site(
    site, name: str, typed, expected_text, python_text, seed: int, args=None, steps: int = 22
) -> None:
    """The site's explorer ``name`` follows ``steps`` random DOM changes (readout = Python's each time).

    ``python_text(values)`` builds the real explorer at the end (the DOM contract's check);
    ``args``, when given, is what ``data-args`` must hold.
    """
    import random

    from live_support import READ_CONTROLS_JS

    page = site.page
    root = page.locator(f'[data-explorer="{name}"]')
    assert root.count() == 1
    handle = root.element_handle()
    if args is not None:
        assert json.loads(root.get_attribute("data-args")) == args
    default_svg = page.evaluate(SVG_JS, handle)
    assert page.evaluate(READOUT_JS, handle) == expected_text(typed(page.evaluate(READ_CONTROLS_JS, handle)))
    seen = drive(page, handle, random.Random(seed), steps, typed, expected_text)
    assert page.evaluate(SVG_JS, handle) != default_svg
    assert page.evaluate(READOUT_JS, handle) == python_text(seen[-1])
    assert site.errors == [] and site.external == [] and site.failed == []


def check_phone(site, name: str, control: str, typed, expected_text) -> None:
    """At 390 px (touch): the explorer fits, tap targets >= 32 px, SVG text >= 9 px; a tap on ``control`` redraws."""
    from live_support import READ_CONTROLS_JS

    page = site.page
    root = page.locator(f'[data-explorer="{name}"]')
    root.scroll_into_view_if_needed()
    handle = root.element_handle()
    sizes = phone_check(page, handle)
    assert sizes["scroll"] <= 390 and sizes["width"] <= 390, sizes
    assert min(sizes["targets"]) >= 32, sizes["targets"]
    assert min(sizes["fonts"]) >= 9, sizes["fonts"]
    before, values = page.evaluate(SVG_JS, handle), typed(page.evaluate(READ_CONTROLS_JS, handle))
    slider = page.locator(f'[data-explorer="{name}"] [data-control="{control}"]')
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] * 0.8, box["y"] + box["height"] / 2)
    after = typed(page.evaluate(READ_CONTROLS_JS, handle))
    assert after[control] != values[control]
    assert page.evaluate(SVG_JS, handle) != before
    assert page.evaluate(READOUT_JS, handle) == expected_text(after)
    assert site.errors == [] and site.external == []
