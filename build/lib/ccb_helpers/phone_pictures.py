"""The site's figures on a phone: each notebook figure served in a ``<picture>`` with its phone rendering.

The book's PNG formatter (:mod:`ccb_helpers.plotting.style`) stores with every figure a phone
rendering, panels stacked and 350 CSS px wide (:mod:`ccb_helpers.plotting.phone`), in the output's
metadata (``ccb_phone``). myst-nb writes only the desktop PNG, named by the SHA-256 of its bytes;
at ``doctree-read`` this step reads the notebook myst-nb just wrote (executed, or as stored for
the student edition), writes each phone PNG beside its desktop PNG, and turns the image node into
a :class:`picture` node. Its HTML is::

    <picture class="ccb-picture">
      <source media="(max-width: W+31.98px)" srcset="….phone.png 2x" width=… height=…>
      <img src="….png" srcset="….png 2x" width=… height=… alt=…>
    </picture>

so a screen too narrow for the desktop figure (its CSS width W plus the page's 2 × 16 px
margins) gets the phone one, and the ``2x`` descriptors make both show at their CSS size with no
script. Numbers are not touched: both PNGs are the same matplotlib figure.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import pathlib
import posixpath

from docutils import nodes

__all__ = ["picture", "phone_renderings", "figure_alts", "media_query", "setup"]

#: The page's horizontal margins below 960 px (2 x 16 CSS px): a figure W px wide fits a screen
#: at least W + 32 px wide.
PAGE_MARGINS = 32


class picture(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """A figure with a phone rendering: children [desktop image, phone image]."""


def media_query(desktop_width: int) -> str:
    """The media query under which a figure ``desktop_width`` CSS px wide gets its phone rendering.

    >>> media_query(675)
    '(max-width: 706.98px)'
    """
    if isinstance(desktop_width, bool) or not isinstance(desktop_width, int):
        raise TypeError(f"desktop_width must be an int (CSS px), got {type(desktop_width).__name__}")
    if not 1 <= desktop_width <= 10_000:
        raise ValueError(f"desktop_width must be 1 to 10000 CSS px, got {desktop_width}")
    return f"(max-width: {desktop_width + PAGE_MARGINS - 1}.98px)"


def _size(data: bytes) -> tuple[int, int]:
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def phone_renderings(notebook: dict) -> dict[str, tuple[bytes, int]]:
    """``{sha256 of a desktop PNG: (phone PNG bytes, desktop CSS width)}`` for every figure of a notebook.

    >>> png = b"\\x89PNG" + bytes(40)
    >>> out = {"output_type": "display_data", "data": {"image/png": base64.b64encode(png).decode()},
    ...        "metadata": {"image/png": {"width": 600, "ccb_phone": {"image/png": "AAAA", "width": 350}}}}
    >>> nb = {"cells": [{"cell_type": "code", "outputs": [out]}]}
    >>> [(key[:8], value) for key, value in phone_renderings(nb).items()]
    [('ecc25f13', (b'\\x00\\x00\\x00', 600))]
    """
    if not isinstance(notebook, dict):
        raise TypeError(f"notebook must be a notebook's JSON (a dict), got {type(notebook).__name__}")
    found = {}
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            png = output.get("data", {}).get("image/png")
            meta = output.get("metadata", {}).get("image/png", {})
            phone = meta.get("ccb_phone") if isinstance(meta, dict) else None
            if not png or not isinstance(phone, dict) or "image/png" not in phone:
                continue
            desktop = base64.b64decode("".join(png) if isinstance(png, list) else png)
            found[hashlib.sha256(desktop).hexdigest()] = (base64.b64decode(phone["image/png"]), int(meta["width"]))
    return found


def _png_outputs(notebook: dict):
    """``(desktop PNG bytes, its metadata)`` of every PNG output of a notebook's code cells."""
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            png = output.get("data", {}).get("image/png")
            meta = output.get("metadata", {}).get("image/png", {})
            if png:
                yield (
                    base64.b64decode("".join(png) if isinstance(png, list) else png),
                    meta if isinstance(meta, dict) else {},
                )


def figure_alts(notebook: dict) -> dict[str, str]:
    """``{sha256 of a PNG: its alt text}`` for every figure whose output carries one (``ccb_alt``,
    :func:`ccb_helpers.plotting.alt_text.figure_alt_text`): what the site writes in ``<img alt>``.

    >>> png = b"\\x89PNG" + bytes(40)
    >>> out = {"output_type": "display_data", "data": {"image/png": base64.b64encode(png).decode()},
    ...        "metadata": {"image/png": {"width": 600, "ccb_alt": "图：AllReduce"}}}
    >>> list(figure_alts({"cells": [{"cell_type": "code", "outputs": [out]}]}).values())
    ['图：AllReduce']
    """
    if not isinstance(notebook, dict):
        raise TypeError(f"notebook must be a notebook's JSON (a dict), got {type(notebook).__name__}")
    return {
        hashlib.sha256(png).hexdigest(): str(meta["ccb_alt"])
        for png, meta in _png_outputs(notebook)
        if isinstance(meta.get("ccb_alt"), str) and meta["ccb_alt"].strip()
    }


def _add_pictures(app, doctree) -> None:
    docname = app.env.docname
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    executed = pathlib.Path(app.outdir).parent / "jupyter_execute" / f"{docname}.ipynb"
    if not executed.exists():
        return
    notebook = json.loads(executed.read_text(encoding="utf-8"))
    renderings, alts = phone_renderings(notebook), figure_alts(notebook)
    srcdir = pathlib.Path(app.srcdir)
    for image in list(doctree.findall(nodes.image)):
        uri = image["uri"]
        stem = posixpath.basename(uri).removesuffix(".png")
        if stem in alts and not image.get("alt"):
            image["alt"] = alts[stem]  # the figure in words (#43), not "图（由代码生成）"
        if stem not in renderings or not uri.startswith("/"):
            continue
        data, desktop_width = renderings[stem]
        phone_uri = uri.removesuffix(".png") + ".phone.png"
        path = srcdir / phone_uri.lstrip("/")
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        desktop = (srcdir / uri.lstrip("/")).read_bytes()
        phone_image = nodes.image(uri=phone_uri, alt=image.get("alt", ""))
        node = picture(
            "",
            media=media_query(desktop_width),
            desktop_size=[s // 2 for s in _size(desktop)],
            phone_size=[s // 2 for s in _size(data)],
        )
        for size in ("width", "height", "scale"):  # the <img> gets its size from the PNG (and the HTML
            image.attributes.pop(size, None)  # builder would wrap a sized image in a link of its own)
        image.replace_self(node)
        node += image
        node += phone_image


def _visit_picture_html(self, node) -> None:
    def url(image) -> str:
        uri = image["uri"]
        if uri in self.builder.images:
            return posixpath.join(self.builder.imgpath, self.builder.images[uri])
        return uri

    desktop, phone = list(node.findall(nodes.image))
    (dw, dh), (pw, ph) = node["desktop_size"], node["phone_size"]
    alt = html.escape(desktop.get("alt", ""), quote=True)
    src, small = html.escape(url(desktop), quote=True), html.escape(url(phone), quote=True)
    self.body.append(
        f'<picture class="ccb-picture"><source media="{node["media"]}" srcset="{small} 2x" width="{pw}" height="{ph}" />'
        f'<img src="{src}" srcset="{src} 2x" width="{dw}" height="{dh}" alt="{alt}" /></picture>'
    )
    raise nodes.SkipNode


def _visit_picture_other(self, node) -> None:
    node.children = node.children[:1]  # other builders: the desktop figure alone


def _depart(self, node) -> None:
    pass


def setup(app) -> None:
    app.add_node(
        picture,
        html=(_visit_picture_html, _depart),
        latex=(_visit_picture_other, _depart),
        text=(_visit_picture_other, _depart),
    )
    app.connect("doctree-read", _add_pictures, priority=400)  # before Sphinx collects the images (500)
