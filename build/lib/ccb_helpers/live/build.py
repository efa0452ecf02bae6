"""The Sphinx build step of the live explorers: each explorer's output on a page becomes live.

:func:`explorer_call` recognises a notebook cell whose code is one explorer call
(``ccb.PropagationExplorer(n=64, k=1)``); :func:`live_html` runs the explorer's export
(:mod:`ccb_helpers.live.<snake_name>`, :func:`module_name`) and writes the live element of the
DOM contract (issue #25) with the data inline. :func:`setup` connects both to Sphinx: the element
is inserted at the top of the cell's output (the default-state PNG stays after it as the no-JS
fallback; ``ccb-live.js`` hides it once the live figure is drawn), and ``ccb-live.js``,
``ccb-live.css`` and the explorer's own script are added to the pages that have one.
"""

from __future__ import annotations

import ast
import base64
import gzip
import html
import importlib
import json
import operator
import pathlib
import re

__all__ = ["module_name", "explorer_call", "live_html", "setup", "live_explorers"]

STATIC = pathlib.Path(__file__).resolve().parents[1] / "_static" / "live"
#: The runtime's scripts, in the order the page loads them (before the explorers' own scripts):
#: the core (controls, state, readout), the SVG renderer, the crosshair, the inflater used where
#: the browser has no DecompressionStream.
RUNTIME = ("ccb-live.js", "ccb-live-svg.js", "ccb-live-hover.js", "ccb-live-inflate.js")
#: Exports larger than this (bytes of JSON) are embedded gzip-compressed and base64-encoded; the
#: page inflates them with the browser's DecompressionStream.
INLINE_LIMIT = 16_384
#: Largest number a cell's keyword argument may compute (``2**30``): the build evaluates no code.
_MAX_LITERAL = 2**64
_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def module_name(class_name: str) -> str:
    """The snake-case module (and script) name of an explorer class: ``ccb_helpers.live.<it>``.

    >>> module_name("PropagationExplorer"), module_name("MPIResultExplorer")
    ('propagation_explorer', 'mpi_result_explorer')
    """
    if not isinstance(class_name, str) or not re.fullmatch(r"[A-Z][A-Za-z0-9]*", class_name):
        raise ValueError(f"class_name must be a CamelCase class name, got {class_name!r}")
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", class_name).lower()


def live_explorers() -> set[str]:
    """Module names (:func:`module_name`) of the explorers with a live module and a script."""
    here = pathlib.Path(__file__).parent
    return {path.stem for path in here.glob("*_explorer.py") if (STATIC / f"{path.stem}.js").exists()}


def _literal(node):
    """A literal of a notebook cell: constants, lists, tuples, dicts and +-*/** on numbers."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float | bool | type(None)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ValueError("unary minus on a non-number")
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _literal(node.left), _literal(node.right)
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right)):
            raise ValueError("arithmetic on non-numbers")
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ValueError("exponent too large")
        value = _OPS[type(node.op)](left, right)
        if abs(value) > _MAX_LITERAL:
            raise ValueError("number too large")
        return value
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(e) for e in node.elts]
    raise ValueError(f"not a literal: {ast.dump(node)[:60]}")


def explorer_call(source: str) -> tuple[str, list, dict] | None:
    """``(class name, args, kwargs)`` if ``source`` is one call of an explorer with literal arguments.

    >>> explorer_call('ccb.BandwidthExplorer(primitive="all_reduce", m=2**30)')
    ('BandwidthExplorer', [], {'primitive': 'all_reduce', 'm': 1073741824})
    >>> explorer_call("x = 1") is None
    True
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be str, got {type(source).__name__}")
    if len(source) > 10_000:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr) or not isinstance(tree.body[0].value, ast.Call):
        return None
    call = tree.body[0].value
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if not name or not name.endswith("Explorer") or not re.fullmatch(r"[A-Z][A-Za-z0-9]*", name):
        return None
    try:
        args = [_literal(a) for a in call.args]
        kwargs = {kw.arg: _literal(kw.value) for kw in call.keywords if kw.arg is not None}
    except ValueError:
        return None
    if any(kw.arg is None for kw in call.keywords):
        return None
    return name, args, kwargs


_CACHE: dict[str, dict] = {}


def export(name: str, args: list) -> dict:
    """The export of explorer ``name`` with ``args`` (cached for the build's process)."""
    key = json.dumps([name, args])
    if key not in _CACHE:
        module = importlib.import_module(f"ccb_helpers.live.{module_name(name)}")
        data = module.export(*args)
        if data.get("explorer") != name:
            raise ValueError(
                f"ccb_helpers.live.{module_name(name)}.export returned explorer {data.get('explorer')!r}, not {name!r}"
            )
        _CACHE[key] = data
    return _CACHE[key]


def _script_json(value) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def live_html(name: str, args: list, initial: dict, data: dict) -> str:
    """The live element: ``<div data-explorer=name data-args=...>`` with the export inline.

    ``initial`` holds the values the notebook's call set (applied in order, as ``update`` does).
    Large exports are gzip-compressed and base64-encoded (``"encoding": "gzip+base64"``).
    """
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if len(payload.encode("utf-8")) > INLINE_LIMIT:
        body = {
            "encoding": "gzip+base64",
            "initial": initial,
            "payload": base64.b64encode(gzip.compress(payload.encode("utf-8"), 9, mtime=0)).decode("ascii"),
        }
    else:
        body = {"encoding": "json", "initial": initial, "payload": data}
    # data-args always (README's DOM contract), "[]" for a call without positional arguments.
    attrs = f'data-explorer="{html.escape(name)}" data-args="{html.escape(json.dumps(list(args), ensure_ascii=False))}"'
    return (
        f'<div class="ccb-live" {attrs}><script type="application/json" class="ccb-live-data">'
        f"{_script_json(body)}</script></div>"
    )


def _cell_source(container) -> str | None:
    from docutils import nodes

    for child in container.children:
        if child.get("nb_element") == "cell_code_source":
            for block in child.findall(nodes.literal_block):
                return block.astext()
    return None


def _repo_relative(arg, docdir: pathlib.Path, root: pathlib.Path):
    """A string argument naming a file next to the notebook, as a path relative to the repository root."""
    if isinstance(arg, str) and arg and not arg.startswith("/"):
        candidate = (docdir / arg).resolve()
        if candidate.is_file() and root in candidate.parents:
            return candidate.relative_to(root).as_posix()
    return arg


def _make_live(app, doctree) -> None:
    """doctree-read: put the live element at the top of every explorer cell's output."""
    from docutils import nodes

    live = live_explorers()
    _forget(app, app.env, app.env.docname)
    root = pathlib.Path(app.srcdir).resolve()
    docdir = (root / app.env.docname).parent
    for container in list(doctree.findall(nodes.container)):
        if container.get("nb_element") != "cell_code":
            continue
        source = _cell_source(container)
        call = explorer_call(source) if source else None
        if call is None:
            continue
        # The explorer's PNG carries its CSS width for JupyterLab without a kernel; on the site
        # that width would fix the <img> at 688 px and make the HTML builder wrap it in a link:
        # the page shows it as before, at the column's width.
        for image in container.findall(nodes.image):
            for size in ("width", "height", "scale"):
                image.attributes.pop(size, None)
            # Shown at its CSS width (the PNG is 2x), at most the column's: without JavaScript it
            # is the figure, and on a phone it was 1376 CSS px wide (ccb.css).
            if "ccb-live-png" not in image["classes"]:
                image["classes"].append("ccb-live-png")
        if module_name(call[0]) not in live:
            continue
        name, args, kwargs = call
        _remember(app.env, app.env.docname)
        outputs = [c for c in container.children if c.get("nb_element") == "cell_code_output"]
        if not outputs:
            continue
        args = [_repo_relative(a, docdir, root) for a in args]
        cwd_args = [str(root / a) if isinstance(a, str) and (root / a).is_file() else a for a in args]
        data = dict(export(name, cwd_args))
        data["args"] = args
        outputs[0].insert(0, nodes.raw("", live_html(name, args, kwargs, data), format="html"))


# -- incremental builds: a page with an explorer is read again when the package changed ------------
# Its live data is computed when the page is read; Sphinx re-reads a page only when its source
# changed, so without this a changed ccb_helpers would leave old data next to the new scripts.


def _remember(env, docname: str) -> None:
    from .cache import package_hash

    if not hasattr(env, "ccb_live_docs"):
        env.ccb_live_docs = {}
    env.ccb_live_docs[docname] = package_hash()


def _forget(app, env, docname: str) -> None:
    getattr(env, "ccb_live_docs", {}).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    if not hasattr(env, "ccb_live_docs"):
        env.ccb_live_docs = {}
    env.ccb_live_docs.update({d: h for d, h in getattr(other, "ccb_live_docs", {}).items() if d in docnames})


def _outdated(app, env, added, changed, removed) -> list[str]:
    from .cache import package_hash

    return [
        doc
        for doc, digest in getattr(env, "ccb_live_docs", {}).items()
        if digest != package_hash() and doc in env.found_docs and doc not in removed
    ]


def _add_assets(app, pagename, templatename, context, doctree) -> None:
    """html-page-context: the runtime, its stylesheet and each explorer's script, on pages that need them."""
    body = context.get("body") or ""
    names = sorted(set(re.findall(r'<div class="ccb-live" data-explorer="([A-Za-z0-9]+)"', body)))
    if not names:
        return
    app.add_css_file("live/ccb-live.css")
    for script in RUNTIME:
        app.add_js_file(f"live/{script}")
    for name in names:
        app.add_js_file(f"live/{module_name(name)}.js")


def setup(app) -> None:
    """Connect the build step (called by :mod:`ccb_helpers.sphinxext`)."""
    app.connect("doctree-read", _make_live)
    app.connect("env-purge-doc", _forget)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    app.connect("html-page-context", _add_assets, priority=400)
