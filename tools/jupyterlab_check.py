"""Open the chapters in a real JupyterLab (headless Chromium) and check that their MyST reads well.

Usage: python tools/jupyterlab_check.py [--out DIR] [notebooks/NAME.ipynb ...]
       (default: every chapter; screenshots go to screenshots/jupyterlab/)

Starts ``jupyter lab`` on 127.0.0.1 (no token, a private settings directory with notebook
windowing off so that every cell is rendered), opens each chapter, and fails (exit status 1) if a
rendered Markdown cell still shows MyST source (directive fences, ``{prf:…}``, ``{doc}``/``{eq}``
roles) or an undefined TeX macro (``\\ceil`` …) instead of typeset math. It saves screenshots of a
勘误 box, a theorem, an exercise and a formula that uses the book's macros, at 1280 px, plus the
top of each notebook. Needs what ``requirements-reader.txt`` installs (JupyterLab, jupyterlab-myst)
plus playwright and Debian's chromium (``requirements.txt`` has them).
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from browser import launch  # noqa: E402

RAW_MYST = ["```{", ":::{", "{prf:", "{doc}`", "{eq}`", "{numref}`", "{cite", ":label:", ":class: dropdown"]
RAW_MACROS = ["\\ceil", "\\floor", "\\Bbis", "\\Tamin", "\\Tbmin", "\\Ta ", "\\Tb "]
TARGETS = {  # what to photograph: (name, Markdown cell containing this text)
    "errata": "勘误",
    "theorem": "Theorem",
    "exercise": "练习",
    "macros": "⌈",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_lab(port: int, settings: pathlib.Path, token: str = "", expose_app: bool = False) -> subprocess.Popen:
    """``jupyter lab`` on 127.0.0.1:``port`` serving the repository, settings in ``settings``
    (notebook windowing off: every cell rendered), with ``token`` (none by default); with
    ``expose_app`` the page's app is ``window.jupyterapp`` (to open documents by its commands)."""
    (settings / "@jupyterlab" / "notebook-extension").mkdir(parents=True, exist_ok=True)
    (settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}), encoding="utf-8"
    )
    # No autosave: opening a chapter starts its kernel, which makes JupyterLab rewrite the kernel's
    # display name, and an autosave would then write the repository's notebook.
    (settings / "@jupyterlab" / "docmanager-extension").mkdir(parents=True, exist_ok=True)
    (settings / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings").write_text(
        json.dumps({"autosave": False}), encoding="utf-8"
    )
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True, exist_ok=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8"
    )
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTERLAB_WORKSPACES_DIR=str(settings / "ws"))
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={ROOT}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--allow-root",
            *(["--LabApp.expose_app_in_browser=True"] if expose_app else []),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(settings / "lab.log").open("w"),
        start_new_session=True,
    )


def wait_for(url: str, timeout: float = 90) -> None:
    end = time.time() + timeout
    while time.time() < end:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"JupyterLab did not answer at {url}")


def check_notebook(browser, base: str, path: pathlib.Path, out: pathlib.Path) -> list[str]:
    problems = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.route(
        "**/*",
        lambda r: r.continue_() if r.request.url.startswith(("http://127.0.0.1", "data:", "blob:")) else r.abort(),
    )
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    rel = path.relative_to(ROOT).as_posix()
    page.goto(f"{base}/lab/tree/{rel}", wait_until="domcontentloaded")
    # (the first cell, the macro front matter, renders empty: wait for the cells after it)
    page.wait_for_function(
        "document.querySelectorAll('.jp-Notebook .jp-MarkdownCell.jp-mod-rendered').length > 3", timeout=90000
    )
    page.wait_for_timeout(6000)  # MyST rendering of every cell
    stem = path.stem
    page.screenshot(path=str(out / f"{stem}_top.png"), timeout=120000)
    cells = page.locator(".jp-Notebook .jp-MarkdownCell")
    texts = [cells.nth(i).inner_text() for i in range(cells.count())]
    for i, text in enumerate(texts):
        for raw in RAW_MYST:
            if raw in text:
                problems.append(f"{rel}: cell {i} shows MyST source {raw!r}: {text[:80]!r}")
        for raw in RAW_MACROS:
            if raw in text:
                problems.append(f"{rel}: cell {i} shows an undefined macro {raw!r}: {text[:80]!r}")
    red = page.locator(".jp-Notebook .katex-error, .jp-Notebook mjx-merror").count()
    if red:
        problems.append(f"{rel}: {red} math errors")
    for name, needle in TARGETS.items():
        for i, text in enumerate(texts):
            cell = cells.nth(i)
            if needle not in text or len(text) > 3000 or not cell.is_visible():
                continue
            cell.scroll_into_view_if_needed(timeout=5000)
            page.wait_for_timeout(300)
            cell.screenshot(path=str(out / f"{stem}_{name}.png"), timeout=120000)
            break
    if not any(needle in t for t in texts for needle in ("勘误", "定理")):
        problems.append(f"{rel}: neither a 勘误 box nor a theorem found among {len(texts)} Markdown cells")
    page.close()
    return problems + [f"{rel}: page error {e}" for e in errors]


def main(argv: list[str]) -> int:
    out = ROOT / "screenshots" / "jupyterlab"
    if "--out" in argv:
        i = argv.index("--out")
        out = pathlib.Path(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    out.mkdir(parents=True, exist_ok=True)
    paths = [pathlib.Path(p).resolve() for p in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    port = _free_port()
    settings = pathlib.Path(tempfile.mkdtemp(prefix="ccb-lab-settings-"))
    lab = start_lab(port, settings)
    problems = []
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/lab")
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = launch(p)
            for path in paths:
                found = check_notebook(browser, base, path, out)
                print(f"{path.name}: {'OK' if not found else f'{len(found)} problems'}")
                problems += found
            browser.close()
    finally:
        os.killpg(lab.pid, 15)
        lab.wait(timeout=30)
    for problem in problems:
        print("  ", problem)
    print(f"screenshots in {out}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
