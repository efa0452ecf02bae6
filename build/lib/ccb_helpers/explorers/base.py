"""The explorer base class: controls, one figure, one readout, thread-safe coalescing redraws.

An explorer owns its controls (ipywidgets), one matplotlib :class:`~matplotlib.figure.Figure`
(never shown through pyplot, so redraws never stack figures) rendered to PNG into an ``Image``
widget, and an HTML readout. In Jupyter / Colab the live widget is displayed; the static site
(no kernel) shows the PNG of the default state: ``_repr_mimebundle_`` returns both, and the
book's ``nb_mime_priority_overrides`` drops the widget view for HTML.
"""

from __future__ import annotations

import base64
import html
import logging
import math
import numbers
import struct
import threading
import zlib

import ipywidgets as widgets
import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .._validation import INT64_MAX, check_int, check_real
from ..plotting import BOOK_WIDTH, use_book_style
from ..plotting.alt_text import figure_alt_text

__all__ = ["Explorer", "PIXEL_RATIO", "STYLE", "slider_args"]

log = logging.getLogger("ccb_helpers.explorers")

#: Device pixels per CSS pixel of the PNGs (2: sharp on retina screens and phones).
PIXEL_RATIO = 2
#: CSS pixels per figure inch: a figure :data:`ccb_helpers.plotting.BOOK_WIDTH` wide fills the column.
CSS_PX_PER_INCH = 100
#: Axes made with a fixed title height: matplotlib otherwise measures every tick label on each
#: draw to lift the title clear of ticks on top (there are none here); a fifth of a draw.
_FIXED_TITLES = {"axes.titley": 1.0}
#: Control style shared by the explorers (the description takes the width it needs).
STYLE = {"description_width": "initial"}


def slider_args(description: str, **kwargs) -> dict:
    """Keyword arguments of a slider that follows the drag (the redraws are coalesced)."""
    return {"description": description, "style": STYLE, "continuous_update": True, **kwargs}


class Explorer:
    """Base class of the explorers: controls, a figure and a readout that follow each other.

    **Simple API** (enough for most explorers): define

    * ``_controls(self) -> dict`` -- the controls (ipywidgets value widgets) by name; the names
      are the keyword arguments of the constructor, of :meth:`update` and of ``draw``;
    * ``draw(self, figure, **values) -> str`` -- draw the (already cleared) ``figure`` for
      these control values and return the readout HTML. Called after every change.

    **Fast API** (update in place; what the book's own explorers use): define ``setup`` instead
    of ``draw``

    * ``setup(self, figure)`` -- create the axes and every artist once (empty data), with a
      fixed layout (``figure.subplots_adjust``; ``tight_layout`` on every update is slow);
    * ``refresh(self, **values) -> str`` -- update those artists in place (``set_data``,
      ``set_offsets``, ``set_text``, ``set_xlim`` ...), set every limit explicitly, and return
      the readout HTML. A refresh must depend only on ``values``: the same values give the same
      pixels whatever was shown before (the race test compares against a fresh explorer).

    Either way the base class draws the canvas once per update and encodes the PNG from the
    canvas buffer (no second draw); figures are rendered at :data:`PIXEL_RATIO` x and shown at
    ``figsize`` x 100 CSS px (keep ``figsize[0] <= BOOK_WIDTH`` so no text is shrunk).

    **Redrawing only what moved** (fast API): a ``refresh`` that knows most of the figure is as
    it was may call :meth:`_keep_background` with a key of everything the rest of the figure
    depends on and the artists that changed (an Axes counts as one, its contents included). When
    the key is the last one drawn, the base restores the pixels of the rest and draws only those
    artists (matplotlib's blitting); otherwise it draws the rest anew, keeps its pixels, and draws
    those artists on top. The artists are always drawn last (above the others, whatever their
    z-order), so a fresh explorer's PNG and an updated one's are the same pixels. A slider that
    moves one mark over fixed curves (NcclExplorer's size) then costs a few ms, not a whole draw.

    **Optional hooks**: ``_adjust(self, name)`` adapts other controls after control ``name``
    changed (e.g. a slider's range; use :meth:`_set_range`); ``_validate(self, values)`` raises
    ``ValueError`` for a combination of values the ranges cannot express.

    **Threads.** Jupyter may deliver control changes on several threads at once (JupyterLab 4.6
    runs comms over subshells). Every change bumps a generation counter; the thread that finds
    no redraw in flight redraws, and keeps redrawing while changes arrived during its redraw;
    any other thread returns at once (its change is merged into the next redraw). So at most
    one redraw is in flight, none is lost, and the figure ends on the controls' final values by
    the time the last changing thread returns -- no event loop needed. An exception while
    redrawing is logged (logger ``ccb_helpers.explorers``) and shown in the readout; the last
    good PNG stays. :meth:`update` (also used by the constructor) sets several controls with
    one redraw, validates them (``TypeError`` / ``ValueError`` naming the control) and raises
    a redraw's exception. :meth:`close` releases the widgets and the figure.

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> class Square(Explorer):
    ...     figsize = (3, 2)
    ...     def _controls(self):
    ...         return {"x": widgets.IntSlider(value=2, min=0, max=10)}
    ...     def draw(self, figure, x):
    ...         figure.subplots().bar([0], [x * x])
    ...         return f"x² = {x * x}"
    >>> e = Square(x=3); e.readout.value
    'x² = 9'
    >>> e.controls["x"].value = 4; e.readout.value   # what a reader's slider does
    'x² = 16'
    >>> e.update(x=11)
    Traceback (most recent call last):
    ...
    ValueError: x must be between 0 and 10 here, got 11
    >>> e.close()
    """

    figsize = (BOOK_WIDTH, 3.6)
    #: Positional arguments the constructor needs besides the control values (e.g. the result an
    #: MPI explorer browses): ``type(e)(*e._init_args, **e.values)`` rebuilds an explorer's state.
    _init_args: tuple = ()
    #: Lines of text the readout reserves (at the figure's width), so the figure does not jump
    #: when the text changes: the most lines the readout ever takes.
    readout_lines = 2

    def __init__(self, **values):
        use_book_style()
        self._lock = threading.RLock()
        self._idle = threading.Condition(self._lock)
        self._local = threading.local()
        self._generation = 0  # bumped by every change
        self._drawn = 0  # generation shown by the figure
        self._rendering = False
        self._render_thread = None
        self._last_error = None
        self._closed = False
        self.error = None  #: the exception of the last redraw, or None
        self.redraws = 0  #: redraws done
        self._fast = type(self).setup is not Explorer.setup
        if not self._fast and type(self).draw is Explorer.draw:
            raise TypeError(
                f"{type(self).__name__} must define draw(figure, **values) or setup(figure) + refresh(**values)"
            )
        controls = self._controls()
        if not isinstance(controls, dict) or not all(isinstance(c, widgets.ValueWidget) for c in controls.values()):
            raise TypeError("_controls() must return a dict of ipywidgets value widgets by name")
        self.controls: dict[str, widgets.ValueWidget] = controls
        unknown = set(values) - set(self.controls)
        if unknown:
            self._close_widgets(list(self.controls.values()))
            raise TypeError(f"unknown control(s) {sorted(unknown)}; controls are {sorted(self.controls)}")
        self._names = {id(control): name for name, control in self.controls.items()}
        self.figure = Figure(figsize=self.figsize, dpi=CSS_PX_PER_INCH * PIXEL_RATIO)
        self.canvas = FigureCanvasAgg(self.figure)
        self._png = b""
        width = f"{round(self.figsize[0] * CSS_PX_PER_INCH)}px"
        self.image = widgets.Image(format="png", layout=widgets.Layout(width="100%", max_width=width))
        # ipywidgets set an HTML line 28 px high (--jp-widgets-inline-height): reserve whole lines.
        self.readout = widgets.HTML(layout=widgets.Layout(min_height=f"{28 * self.readout_lines}px", max_width=width))
        self.widget = widgets.VBox(
            [
                widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap")),
                self.readout,
                self.image,
            ]
        )
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self._own = set(vars(self)) | {"_own"}  # what close() keeps; a subclass's artists and results go
        try:
            if self._fast:
                with matplotlib.rc_context(_FIXED_TITLES):
                    self.setup(self.figure)
            self.update(**values)
        except BaseException:
            self.close()
            raise

    # -- subclass API ---------------------------------------------------------------------
    def _controls(self) -> dict:
        """The controls, by name (their names are the keyword arguments of ``draw``/``refresh``)."""
        raise NotImplementedError

    def draw(self, figure: Figure, **values) -> str:
        """Simple API: draw ``figure`` (already cleared) for these values; return the readout HTML."""
        raise NotImplementedError

    def setup(self, figure: Figure) -> None:
        """Fast API: create the axes and artists once (see the class docstring)."""

    def refresh(self, **values) -> str:
        """Fast API: update the artists of :meth:`setup` in place; return the readout HTML."""
        raise NotImplementedError

    def _adjust(self, name: str) -> None:
        """Hook: after control ``name`` changed, adapt other controls (e.g. a slider's range)."""

    def _validate(self, values: dict) -> None:
        """Hook: raise ``ValueError`` if this combination of control values is not allowed."""

    def _keep_background(self, key, moving) -> None:
        """Fast API: in this ``refresh``, ``moving`` artists changed and nothing else of the figure
        did unless ``key`` differs from the last call's (see "Redrawing only what moved")."""
        self._background_request = (key, tuple(moving))

    def _set_range(self, name: str, lo, hi, value=None) -> None:
        """Give slider ``name`` the range ``[lo, hi]`` (and a value), valid at every step."""
        control = self.controls[name]
        control.min, control.max = min(control.min, lo), max(control.max, hi)  # widen first
        if value is not None:
            control.value = value
        control.min, control.max = lo, hi

    # -- public ---------------------------------------------------------------------------
    @property
    def values(self) -> dict:
        """Current control values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def update(self, **values) -> None:
        """Set any controls (validated, one redraw for all of them) and redraw figure and readout.

        Each named control is set and adjusted in the order given, then every named value is
        set again, so an explicit value wins over an adjustment (``family`` then ``size``).
        Raises ``TypeError`` for an unknown control or a value of the wrong type and
        ``ValueError`` for a value outside the control's options or range (nothing changes
        then); re-raises an exception of the redraw.
        """
        if self._closed:
            raise ValueError(f"this {type(self).__name__} was closed; make a new one")
        for name in values:
            if name not in self.controls:
                raise TypeError(f"unknown control {name!r}; controls are {sorted(self.controls)}")
        checked = {name: self._coerce(name, value) for name, value in values.items()}
        with self._lock:
            saved = self._save()
            self._local.quiet = True
            try:
                for name, value in checked.items():
                    self.controls[name].value = (
                        value if not hasattr(self.controls[name], "min") else self._clamp(name, value)
                    )
                    self._adjust(name)
                for name, value in checked.items():
                    self._check_range(name, value)
                    self.controls[name].value = value
                self._validate(self.values)
            except BaseException:
                self._restore(saved)
                raise
            finally:
                self._local.quiet = False
            self._generation += 1
        error = self._request(wait=True)
        if error is not None:
            raise error

    def png(self) -> bytes:
        """The PNG the image widget shows (the current figure; no redraw)."""
        return self._png

    def close(self) -> None:
        """Release the widgets (closed on the kernel and in the page) and the figure."""
        with self._lock:
            if self._closed or not hasattr(self, "_own"):
                self._closed = True
                return
            self._closed = True
        for control in self.controls.values():
            try:
                control.unobserve(self._on_change, names="value")
            except ValueError:
                pass
        self._close_widgets([getattr(self, "widget", None)] + list(self.controls.values()))
        figure = getattr(self, "figure", None)
        if figure is not None:
            figure.clear()
        self.figure = self.canvas = None
        self._png = b""
        for name in set(vars(self)) - self._own:  # artists made by setup() hold the figure
            delattr(self, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        text = f"<{type(self).__name__}: {self.values}>"
        if self._closed:
            return {"text/plain": text + " (closed)"}, {}
        data = {
            "text/plain": text,
            "image/png": base64.b64encode(self._png).decode("ascii"),
            # Written out (not widget._repr_mimebundle_) so ipywidgets 7 (Colab) works too.
            "application/vnd.jupyter.widget-view+json": {
                "version_major": 2,
                "version_minor": 0,
                "model_id": self.widget.model_id,
            },
        }
        # The PNG is 2x: its CSS width goes with it, or a notebook opened without a kernel shows
        # it as wide as the output area (968 px in a 1280 px JupyterLab) and Run All, which
        # draws the live widget at its CSS width, appears to shrink it to 688 px.
        width = struct.unpack(">I", self._png[16:20])[0] // PIXEL_RATIO  # the PNG header's IHDR width
        alt = f"{type(self).__name__}（默认参数下的静态图）：{figure_alt_text(self.figure).removeprefix('图：')}"
        return data, {"image/png": {"width": width, "ccb_alt": alt}}

    # -- validation of control values ----------------------------------------------------
    def _coerce(self, name: str, value):
        """``value`` checked against control ``name``'s kind and options (not yet its range)."""
        control = self.controls[name]
        if isinstance(control, (widgets.Checkbox, widgets.ToggleButton)):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
            return bool(value)
        if hasattr(control, "options") and not isinstance(control, widgets.SelectMultiple):
            pairs = [o if isinstance(o, tuple) else (str(o), o) for o in control.options]
            for _, option in pairs:
                if _same(option, value):
                    return option
            allowed = ", ".join(repr(option) for _, option in pairs)
            raise ValueError(f"{name} must be one of {allowed}; got {value!r}")
        # Scalars only (#28: a list reached the widget as a TraitError, an array as "truth value
        # is ambiguous"); integers beyond int64 are refused here, before _check_range formats them.
        if isinstance(control, widgets.IntRangeSlider):
            return check_int(name, value, minimum=-INT64_MAX, maximum=INT64_MAX)
        if isinstance(control, (widgets.IntSlider, widgets.BoundedIntText, widgets.IntText)):
            return check_int(name, value, minimum=-INT64_MAX, maximum=INT64_MAX, scalar=True)
        if isinstance(
            control, (widgets.FloatSlider, widgets.FloatLogSlider, widgets.BoundedFloatText, widgets.FloatText)
        ):
            return check_real(name, value, minimum=-math.inf, scalar=True)
        return value

    def _bounds(self, name: str):
        control = self.controls[name]
        if isinstance(control, widgets.FloatLogSlider):
            return control.base**control.min, control.base**control.max
        if hasattr(control, "min") and hasattr(control, "max"):
            return control.min, control.max
        return None

    def _clamp(self, name: str, value):
        bounds = self._bounds(name)
        return value if bounds is None else min(max(value, bounds[0]), bounds[1])

    def _check_range(self, name: str, value) -> None:
        bounds = self._bounds(name)
        if bounds is None:
            return
        lo, hi = bounds
        slack = 1e-9 * max(abs(lo), abs(hi), 1.0) if isinstance(value, float) else 0
        if not lo - slack <= value <= hi + slack:
            raise ValueError(f"{name} must be between {lo:g} and {hi:g} here, got {value:g}")

    # -- state save / restore (a rejected update leaves nothing changed) ------------------
    def _save(self) -> dict:
        return {
            name: (c.value, getattr(c, "min", None), getattr(c, "max", None), c.disabled)
            for name, c in self.controls.items()
        }

    def _restore(self, saved: dict) -> None:
        for name, (value, lo, hi, disabled) in saved.items():
            control = self.controls[name]
            if lo is not None:
                self._set_range(name, lo, hi, value)
            else:
                control.value = value
            control.disabled = disabled

    # -- the redraw machinery -------------------------------------------------------------
    def _on_change(self, change) -> None:
        if getattr(self._local, "quiet", False) or self._closed:
            return  # our own adjustment in this thread: the outer change redraws
        old, new = change.get("old"), change.get("new")
        if isinstance(old, float) and isinstance(new, float) and abs(new - old) <= 1e-9 * max(abs(old), abs(new)):
            return  # the page echoing a float with its last bits changed (10 ** log10(x)): nothing to redraw
        name = self._names.get(id(change["owner"]))
        with self._lock:
            self._local.quiet = True
            try:
                self._adjust(name)
            except Exception as exc:  # a reader's change must never vanish silently
                self._report(exc, f"adjusting the controls after {name} changed")
            finally:
                self._local.quiet = False
            self._generation += 1
        self._request(wait=False)

    def _request(self, wait: bool):
        """Make the figure show the current generation: redraw here, or leave it to the redrawing thread."""
        me = threading.get_ident()
        with self._lock:
            target = self._generation
            if self._rendering:
                if not wait or self._render_thread == me:
                    return None
                while self._rendering and self._drawn < target:
                    self._idle.wait()
                if self._drawn >= target:
                    return self._last_error
            self._rendering, self._render_thread = True, me
        try:
            while True:
                with self._lock:
                    if self._closed:
                        self._rendering = self._render_thread = None
                        return None
                    generation = self._generation
                    values = self._snapshot()
                error = self._render(values)
                with self._lock:
                    self._drawn, self._last_error = generation, error
                    self._idle.notify_all()
                    if self._generation == generation:
                        self._rendering, self._render_thread = False, None
                        return error
        except BaseException:
            with self._lock:
                self._rendering, self._render_thread = False, None
                self._idle.notify_all()
            raise

    def _snapshot(self) -> dict:
        """The control values to draw (called under the lock); a value outside its range is clamped."""
        values = {}
        for name, control in self.controls.items():
            value = control.value
            if self._bounds(name) is not None:
                clamped = self._clamp(name, value)
                if clamped != value:  # only a race between a value and a range change can do this
                    self._local.quiet = True
                    try:
                        control.value = value = clamped
                    finally:
                        self._local.quiet = False
            values[name] = value
        return values

    def _render(self, values: dict):
        try:
            self._background_request = None
            if self._fast:
                readout = self.refresh(**values)
            else:
                self.figure.clear()
                with matplotlib.rc_context(_FIXED_TITLES):
                    readout = self.draw(self.figure, **values)
            self._draw_canvas(self._background_request)
            png = self._encode_png()
        except Exception as exc:
            self._report(exc, "redrawing")
            return exc
        self.error = None
        self._png = png
        self.readout.value = _steady_lines(readout)
        self.image.value = png
        self.redraws += 1
        return None

    def _draw_canvas(self, request) -> None:
        """One canvas draw; with a background request (:meth:`_keep_background`) only what moved."""
        previous = getattr(self, "_background", None)
        if request is None:
            if previous is not None:  # the last draw hid some artists from the background
                for artist in previous[2]:
                    artist.set_animated(False)
                self._background = None
            self.canvas.draw()
            return
        key, moving = request
        if previous is None or previous[0] != key or previous[2] != moving:
            if previous is not None:
                for artist in previous[2]:
                    artist.set_animated(False)
            for artist in moving:
                artist.set_animated(True)  # left out of the background
            self.canvas.draw()
            self._background = (key, self.canvas.copy_from_bbox(self.figure.bbox), moving)
        else:
            self.canvas.restore_region(previous[1])
        renderer = self.canvas.get_renderer()
        for artist in moving:
            artist.draw(renderer)

    def _encode_png(self) -> bytes:
        """PNG of what the canvas just drew, from its pixel buffer (no second draw)."""
        return encode_png(np.asarray(self.canvas.buffer_rgba())[:, :, :3])

    def _report(self, exc: Exception, where: str) -> None:
        self.error = exc
        log.error("%s: error while %s", type(self).__name__, where, exc_info=exc)
        message = html.escape(f"{type(exc).__name__}: {exc}")
        self.readout.value = (
            f'<span style="color:#b00020">⚠ 出错（{html.escape(where)}）：{message}。'
            f"图停在上一次成功的状态；详情见日志 ccb_helpers.explorers。</span>"
        )

    @staticmethod
    def _close_widgets(roots) -> None:
        seen = set()
        stack = [w for w in roots if w is not None]
        while stack:
            w = stack.pop()
            if id(w) in seen or not isinstance(w, widgets.Widget):
                continue
            seen.add(id(w))
            stack += list(getattr(w, "children", ()))
            stack += [getattr(w, "layout", None), getattr(w, "style", None)]
            stack = [s for s in stack if s is not None]
            w.close()


def encode_png(rgb: np.ndarray, level: int = 3) -> bytes:
    """A PNG of an ``(height, width, 3)`` uint8 image: filter "none" and zlib ``level``.

    Half the time of Pillow's encoder (whose adaptive row filters cost more than they save on
    a plot's flat colours) for the same size within a few per cent.

    >>> png = encode_png(np.zeros((2, 3, 3), dtype=np.uint8))
    >>> png[1:4], int.from_bytes(png[16:20], "big")   # the signature's name, the width
    (b'PNG', 3)
    """
    height, width, _ = rgb.shape
    rows = np.empty((height, 1 + 3 * width), dtype=np.uint8)
    rows[:, 0] = 0  # filter type of each row: none
    rows[:, 1:] = rgb.reshape(height, 3 * width)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, level)) + chunk(b"IEND", b"")
    )


def _steady_lines(readout: str) -> str:
    """The readout with sub/superscripts that do not make their line taller.

    A ``<sub>`` raises its line box by a few pixels, so a readout of two lines with one would
    outgrow the two 28 px lines reserved and push the figure down (seen in JupyterLab: 5 px).

    >>> _steady_lines("log<sub>2</sub> N")
    'log<sub style="line-height:0">2</sub> N'
    """
    return readout.replace("<sub>", '<sub style="line-height:0">').replace("<sup>", '<sup style="line-height:0">')


def _same(option, value) -> bool:
    """Option equality without numpy surprises (2 == 2.0, "a" != 2)."""
    if isinstance(option, str) or isinstance(value, str):
        return isinstance(option, str) and isinstance(value, str) and option == value
    if isinstance(option, numbers.Number) and isinstance(value, numbers.Number) and not isinstance(value, bool):
        return option == value
    if isinstance(value, (np.ndarray, list, tuple, dict, set)):
        return option is value  # no elementwise comparison (an array's truth value is ambiguous)
    return option is value or option == value
