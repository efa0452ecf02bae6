"""Drive every chapter's explorer in a real JupyterLab (headless Chromium) the way a reader does.

For each chapter notebook: open it in JupyterLab, run all cells, screenshot the explorer, then
quickly change a dropdown and drag sliders (while the previous redraw may still be running),
wait for the kernel to go idle and check

* the kernel side: the explorer's figure and readout equal those of a fresh explorer built with
  the controls' final values (no stale figure), no redraw error, the PNG not blank;
* the browser side: the image the page shows is byte for byte the kernel's current PNG;

and screenshot again. JupyterLab 4.6 runs widget comms over subshells, so the changes reach
the kernel on several threads: this is the race of issue #16 in its natural habitat.

Usage::

    python tools/jupyterlab_explorers.py [notebooks/01_information_propagation.ipynb ...]
        [--out DIR] [--port 8103]

Needs the packages of requirements.txt (JupyterLab, playwright) and Debian's chromium. Prints
one line per explorer and exits non-zero if any check fails; screenshots go to ``--out``
(default ``/tmp/jupyterlab_explorers``): ``<notebook>-before.png`` and ``<notebook>-after.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

CHECK = r"""
import gc, hashlib, json, re
from ccb_helpers.explorers import Explorer
found = []
for e in [o for o in gc.get_objects() if isinstance(o, Explorer) and not o._closed]:
    fresh = type(e)(*e._init_args, **e.values)
    found.append({
        "explorer": type(e).__name__,
        "values": {k: (v if isinstance(v, (int, float, str, bool)) else str(v)) for k, v in e.values.items()},
        "sha1": hashlib.sha1(bytes(e.image.value)).hexdigest(),
        "same_as_fresh": e.png() == fresh.png() and e.readout.value == fresh.readout.value,
        "image_is_png": bytes(e.image.value) == e.png(),
        "error": None if e.error is None else repr(e.error),
        "redraws": e.redraws,
        "readout": re.sub(r"<[^>]+>", "", e.readout.value),
    })
    fresh.close()
print("CHECK" + json.dumps(found))
"""

BROWSER_SHA1 = """async (img) => {
    const data = await (await fetch(img.src)).arrayBuffer();
    const digest = await crypto.subtle.digest('SHA-1', data);
    return Array.from(new Uint8Array(digest)).map(b => b.toString(16).padStart(2, '0')).join('');
}"""


def free_port(preferred: int) -> int:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", preferred))
            return preferred
        except OSError:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]


def browser_env(scratch: pathlib.Path) -> dict:
    """Let Chromium use the bundled CJK font too (a bare machine may have none for the page's text)."""
    try:
        import pylopdf_fonts_zh_cn as font_pkg  # type: ignore[import-not-found]
    except ImportError:
        return dict(os.environ)
    conf = scratch / "fonts.conf"
    conf.write_text(
        f'<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        f'<include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
        f"<dir>{os.path.dirname(font_pkg.__file__)}</dir></fontconfig>"
    )
    return dict(os.environ, FONTCONFIG_FILE=str(conf))


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def wait_idle(base: str, kernel_id: str, quiet: float = 1.5, timeout: float = 300) -> None:
    """Until the kernel has been idle for ``quiet`` seconds."""
    deadline, since = time.time() + timeout, None
    while time.time() < deadline:
        state = get_json(f"{base}/api/kernels/{kernel_id}")["execution_state"]
        if state == "idle":
            since = since or time.time()
            if time.time() - since >= quiet:
                return
        else:
            since = None
        time.sleep(0.2)
    raise TimeoutError(f"kernel {kernel_id} still busy after {timeout} s")


def kernel_check(runtime: pathlib.Path, kernel_id: str) -> list[dict]:
    """Run CHECK in the notebook's own kernel (a second client on the same kernel)."""
    from jupyter_client import BlockingKernelClient

    client = BlockingKernelClient(connection_file=str(runtime / f"kernel-{kernel_id}.json"))
    client.load_connection_file()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        lines = []
        client.execute_interactive(
            CHECK, timeout=300, output_hook=lambda msg: lines.append(msg["content"].get("text", ""))
        )
    finally:
        client.stop_channels()
    text = "".join(lines)
    match = re.search(r"CHECK(\[.*\])", text)
    if not match:
        raise RuntimeError(f"kernel check printed nothing usable: {text[:500]}")
    return json.loads(match.group(1))


def drag(page, handle, fraction: float, steps: int = 12, pause_ms: int = 30) -> None:
    """Drag a slider handle by ``fraction`` of its track, quickly, like a hand."""
    track = handle.locator("xpath=ancestor::*[contains(@class, 'noUi-target')][1]")
    box, track_box = handle.bounding_box(), track.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, steps + 1):
        page.mouse.move(x + fraction * track_box["width"] * i / steps, y)
        page.wait_for_timeout(pause_ms)
    page.mouse.up()
    RELEASES.append(page.evaluate("performance.now()"))


RELEASES: list[float] = []  # page times (ms) of the mouse releases
WATCH_IMAGE = """(img) => {
    window.__imageUpdates = [];
    new MutationObserver(() => window.__imageUpdates.push(performance.now()))
        .observe(img, {attributes: true, attributeFilter: ['src']});
}"""


def exercise(page, output) -> list[str]:
    """Change the explorer's controls quickly: dropdowns and sliders interleaved."""
    done = []
    selects = output.locator(".widget-dropdown select")
    handles = output.locator(".noUi-handle")
    for i in range(selects.count()):
        select = selects.nth(i)
        if select.is_disabled():
            continue
        options = select.locator("option").all_inner_texts()
        current = select.evaluate("s => s.selectedIndex")
        select.select_option(index=(current + 1) % len(options))  # no waiting for the redraw
        done.append(f"dropdown {i} -> {options[(current + 1) % len(options)][:24]}")
        if handles.count() > i:
            drag(page, handles.nth(i), 0.35 if i % 2 == 0 else -0.25)
            done.append(f"slider {i} dragged")
    for j in range(selects.count(), handles.count()):
        if handles.nth(j).is_visible():
            drag(page, handles.nth(j), 0.3)
            done.append(f"slider {j} dragged")
    checkboxes = output.locator(".widget-checkbox input[type=checkbox]")
    for k in range(checkboxes.count()):
        if checkboxes.nth(k).is_enabled():
            checkboxes.nth(k).click()
            done.append(f"checkbox {k} toggled")
            if handles.count():
                drag(page, handles.nth(0), -0.2, steps=6)
                done.append("slider 0 dragged")
    return done


def run(notebooks: list[pathlib.Path], out: pathlib.Path, port: int) -> int:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="jl-explorers-"))
    runtime = scratch / "runtime"
    settings = scratch / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    env = dict(
        os.environ,
        JUPYTER_RUNTIME_DIR=str(runtime),
        JUPYTERLAB_SETTINGS_DIR=str(scratch / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"),
    )
    # Serve copies: JupyterLab autosaves what it runs, and the committed outputs must not change.
    shutil.copytree(ROOT / "notebooks", scratch / "notebooks")
    port = free_port(port)
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            f"--port={port}",
            "--ip=127.0.0.1",
            "--allow-root",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            "--ServerApp.disable_check_xsrf=True",
            "--LabApp.extension_manager=readonly",
            f"--ServerApp.root_dir={scratch}",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        cwd=scratch,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(scratch / "server.log", "w"),
    )
    failures = 0
    try:
        for _ in range(240):
            try:
                get_json(f"{base}/api/status")
                break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError(
                        "JupyterLab did not start:\n" + (scratch / "server.log").read_text()[-3000:]
                    ) from None
                time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, env=browser_env(scratch)
            )
            for notebook in notebooks:
                rel = f"notebooks/{notebook.name}"
                page = browser.new_page(viewport={"width": 1280, "height": 1000})
                page.goto(f"{base}/lab/workspaces/{notebook.stem}/tree/{rel}?reset")  # a workspace of its own
                page.wait_for_selector(".jp-Notebook", timeout=120_000)
                deadline = time.time() + 120
                while not (sessions := [s for s in get_json(f"{base}/api/sessions") if s["path"].endswith(rel)]):
                    if time.time() > deadline:
                        raise TimeoutError(f"no kernel for {rel}")
                    time.sleep(0.5)
                kernel_id = sessions[0]["kernel"]["id"]
                wait_idle(base, kernel_id)
                page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
                page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
                page.wait_for_selector(".widget-vbox img.widget-image", timeout=300_000)
                wait_idle(base, kernel_id)
                output = page.locator(".jp-OutputArea-output", has=page.locator(".widget-vbox img.widget-image")).last
                output.scroll_into_view_if_needed()
                page.wait_for_timeout(500)
                name = notebook.stem
                output.screenshot(path=str(out / f"{name}-before.png"))
                for found in kernel_check(runtime, kernel_id):  # showing the explorer must not change it
                    if found["redraws"] != 1:
                        failures += 1
                        print(
                            f"FAIL {name}: {found['explorer']} redrew {found['redraws']} times before any change "
                            f"(the page sent values back?): {found['values']}"
                        )
                image = output.locator("img.widget-image").first
                image.evaluate(WATCH_IMAGE)
                offset_before = image.bounding_box()["y"] - output.bounding_box()["y"]
                RELEASES.clear()
                start = time.time()
                actions = exercise(page, output)
                wait_idle(base, kernel_id, quiet=2.0)
                settle = time.time() - start
                page.wait_for_timeout(500)
                output.screenshot(path=str(out / f"{name}-after.png"))
                shown = image.evaluate(BROWSER_SHA1)
                jump = image.bounding_box()["y"] - output.bounding_box()["y"] - offset_before
                updates = page.evaluate("window.__imageUpdates")
                follow = (
                    f"{len(updates)} image updates; last release -> last image "
                    f"{(max(updates) - RELEASES[-1]) / 1e3:.2f} s"
                    if updates and RELEASES
                    else "no image update"
                )
                page_readout = re.sub(r"\s+", "", output.locator(".widget-html-content").first.inner_text())
                for found in kernel_check(runtime, kernel_id):
                    readout_matches = re.sub(r"\s+", "", found["readout"]) == page_readout
                    ok = (
                        found["same_as_fresh"]
                        and found["image_is_png"]
                        and found["error"] is None
                        and found["sha1"] == shown
                        and readout_matches
                        and abs(jump) < 1
                    )
                    failures += not ok
                    print(
                        f"{'ok  ' if ok else 'FAIL'} {name}: {found['explorer']} {found['values']} "
                        f"same_as_fresh={found['same_as_fresh']} page_shows_kernel_png={found['sha1'] == shown} "
                        f"page_readout_matches={readout_matches} figure_moved={jump:.0f}px "
                        f"error={found['error']} redraws={found['redraws']} "
                        f"({len(actions)} changes: {'; '.join(actions)}; {follow}; idle after {settle:.1f} s)"
                    )
                page.close()
                request = urllib.request.Request(f"{base}/api/sessions/{sessions[0]['id']}", method="DELETE")
                urllib.request.urlopen(request, timeout=30).close()  # stop this chapter's kernel
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(scratch, ignore_errors=True)
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("/tmp/jupyterlab_explorers"))
    parser.add_argument("--port", type=int, default=8103)
    args = parser.parse_args()
    notebooks = args.notebooks or sorted((ROOT / "notebooks").glob("0[1-8]_*.ipynb"))
    failures = run(notebooks, args.out, args.port)
    print(f"{failures} failure(s); screenshots in {args.out}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
