"""The explorers live on the static site (issue #25): data exported from the Python code.

One module per explorer, ``ccb_helpers/live/<snake_name>.py`` (:func:`~ccb_helpers.live.build.module_name`
of the class name), with ``export(*args) -> dict``; :mod:`~ccb_helpers.live.controls` turns an
explorer's widgets into data, :mod:`~ccb_helpers.live.compress` stores precomputed states compactly
and exactly, :mod:`~ccb_helpers.live.figure` builds the FigureSpecs the page draws, and
:mod:`~ccb_helpers.live.build` is the Sphinx build step. The page side is
``ccb_helpers/_static/live/`` (``ccb-live.js`` and one script per explorer).
"""
