"""Sphinx extension for the book's build: keep every page free of external and duplicate scripts.

Jupyter Book always loads ``sphinx_thebe``, whose configuration script names a CDN (unpkg) and
is added twice on Sphinx 7 (the browser then reports "Identifier 'THEBE_JS_URL' has already
been declared"). The book does not use Thebe (the launch buttons open Binder / Colab), so its
scripts are dropped from every page; any other script that appears twice is kept once.
"""

from __future__ import annotations


def _drop_thebe_and_duplicates(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    kept, seen = [], set()
    for script in scripts:
        filename = str(getattr(script, "filename", script) or "")
        body = str(getattr(script, "attributes", {}).get("body", ""))
        if "THEBE_JS_URL" in body or filename.endswith("sphinx-thebe.js") or ("thebe" in filename and "unpkg" in filename):
            continue
        key = (filename, body)
        if key in seen:
            continue
        seen.add(key)
        kept.append(script)
    context["script_files"] = kept


def setup(app):
    app.connect("html-page-context", _drop_thebe_and_duplicates, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
