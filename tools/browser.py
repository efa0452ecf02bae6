"""Headless Chromium for looking at the built site (tests/test_site.py, tools/site_screenshots.py, tools/jupyterlab_check.py).

Launches Debian's ``chromium`` through playwright with the flags the book uses everywhere and,
so that Chinese text is laid out with real CJK glyph widths on a machine without system CJK
fonts, with a fontconfig file that adds the Noto Sans SC font the package depends on
(``pylopdf-fonts-zh-cn``).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import tempfile

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _cjk_font_dir() -> str | None:
    """The folder of the package's CJK font: Noto Sans SC (``pylopdf-fonts-zh-cn``), else the TC face."""
    try:
        import pylopdf_fonts_zh_cn as font_pkg  # type: ignore[import-not-found]
    except ImportError:
        try:
            import cvttf_NotoSansCJK_Regular as font_pkg  # type: ignore[import-not-found]
        except ImportError:
            return None
    return os.path.dirname(font_pkg.__file__)


def chromium_env() -> dict[str, str]:
    """The environment for chromium: the system's fonts plus the package's CJK font."""
    env = dict(os.environ)
    folder = _cjk_font_dir()
    if folder is None:
        return env
    conf_dir = pathlib.Path(tempfile.mkdtemp(prefix="ccb-fonts-"))
    system = '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
    (conf_dir / "fonts.conf").write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n'
        f"<fontconfig>{system}<dir>{folder}</dir><cachedir>{conf_dir}/cache</cachedir></fontconfig>\n",
        encoding="utf-8",
    )
    env["FONTCONFIG_FILE"] = str(conf_dir / "fonts.conf")
    return env


def launch(playwright):
    """A headless chromium browser (raises if Debian's chromium is not installed)."""
    if CHROMIUM is None:
        raise RuntimeError("chromium not found: `apt-get install chromium`")
    # 2 minutes, not playwright's 30 s: under a full test run (two workers, notebooks and a class
    # being graded beside it) a cold Chromium start has been slower than 30 s.
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, env=chromium_env(), timeout=120_000)
