"""Key press -> new figure, measured from the reader's side in a real JupyterLab (issues #43, #44).

For each chapter given (default: 06, 07, 08): JupyterLab (headless Chromium) opens the notebook,
runs all cells, waits for the kernel to go idle; then a slider handle of the explorer gets the
keyboard focus and receives ``--presses`` arrow keys (right and left in turn, so it stays in range),
one at a time: each time the page records the ``keydown`` event's time and the time the
explorer's ``<img>`` has the new PNG decoded (``src`` changed, ``decode()`` resolved), and the script
waits for the kernel to go idle before the next key. It prints, per explorer, the median, p90
and max of keydown -> new figure, and the load average.

``--package DIR`` runs the kernels with the ``ccb_helpers`` of that checkout (put first on
``PYTHONPATH``): how the "before" column of benchmarks/README.md was measured, with a
``git worktree`` of the commit before the change.

Usage::

    python benchmarks/bench_jupyterlab_explorers.py [notebooks/06_mpi_runs.ipynb ...]
        [--presses 12] [--package DIR] [--sliders 0,1]

Needs requirements.txt (JupyterLab, playwright) and Debian's chromium.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import jupyterlab_explorers as lab  # noqa: E402  (its server and kernel helpers)

WATCH = """(img) => {
  window.__keys = []; window.__figures = [];
  if (!window.__watching) document.addEventListener('keydown', e => window.__keys.push(performance.now()), true);
  window.__watching = true;
  // a new PNG in the image's src, decoded (ready to be painted)
  new MutationObserver(() => img.decode().then(() => window.__figures.push(performance.now()), () => {}))
    .observe(img, {attributes: true, attributeFilter: ['src']});
}"""


def measure(page, base: str, kernel_id: str, output, presses: int, slider: int) -> list[float]:
    image = output.locator("img.widget-image").first
    image.evaluate(WATCH)
    handle = output.locator(".noUi-handle").nth(slider)
    handle.focus()
    times = []
    for i in range(presses):
        before = page.evaluate("window.__figures.length")
        # back and forth, away from an end of the range (a key at the end changes nothing)
        now, low, high = handle.evaluate(
            "h => ['aria-valuenow', 'aria-valuemin', 'aria-valuemax'].map(a => parseFloat(h.getAttribute(a)))"
        )
        right = now <= low or (now < high and i % 2 == 0)
        page.keyboard.press("ArrowRight" if right else "ArrowLeft")
        deadline = time.time() + 30
        while page.evaluate("window.__figures.length") == before:
            if time.time() > deadline:
                raise TimeoutError("no new figure 30 s after a key press")
            page.wait_for_timeout(5)
        key, shown = page.evaluate(
            "[window.__keys[window.__keys.length - 1], window.__figures[window.__figures.length - 1]]"
        )
        times.append(shown - key)
        lab.wait_idle(base, kernel_id, quiet=0.3)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path)
    parser.add_argument("--presses", type=int, default=12)
    parser.add_argument("--sliders", default="0,1", help="which sliders of the explorer, in order (0: the first)")
    parser.add_argument(
        "--package", type=pathlib.Path, default=None, help="a checkout whose ccb_helpers the kernels use"
    )
    parser.add_argument("--port", type=int, default=8113)
    args = parser.parse_args()
    notebooks = args.notebooks or [
        ROOT / "notebooks" / n for n in ("06_mpi_runs.ipynb", "07_synthesis.ipynb", "08_nccl.ipynb")
    ]
    if args.package is not None:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(args.package.resolve()), os.environ.get("PYTHONPATH", "")])
    from playwright.sync_api import sync_playwright

    with lab_server(args.port) as (base, scratch, runtime):
        print(f"load average at the start: {os.getloadavg()[0]:.2f}; package: {args.package or ROOT}")
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium", args=lab.CHROMIUM_ARGS, env=lab.browser_env(scratch)
            )
            for notebook in notebooks:
                rel = f"notebooks/{notebook.name}"
                page = browser.new_page(viewport={"width": 1280, "height": 1000})
                page.goto(f"{base}/lab/workspaces/{notebook.stem}/tree/{rel}?reset")
                page.wait_for_selector(".jp-Notebook", timeout=120_000)
                kernel_id = wait_kernel(base, rel)
                lab.wait_idle(base, kernel_id)
                page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
                page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
                page.wait_for_selector(".widget-vbox img.widget-image", timeout=300_000)
                lab.wait_idle(base, kernel_id)
                output = page.locator(".jp-OutputArea-output", has=page.locator(".widget-vbox img.widget-image")).last
                output.scroll_into_view_if_needed()
                for slider in [int(k) for k in args.sliders.split(",")]:
                    if output.locator(".noUi-handle").count() <= slider:
                        continue
                    name = output.locator(".widget-slider").nth(slider).inner_text().strip().split("\n")[0]
                    times = measure(page, base, kernel_id, output, args.presses, slider)
                    ordered = sorted(times)
                    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
                    print(
                        f"{notebook.stem} slider {slider} ({name}): key -> new figure median "
                        f"{statistics.median(times):.0f} ms, p90 {p90:.0f} ms, max {max(times):.0f} ms "
                        f"({len(times)} presses; load {os.getloadavg()[0]:.2f} now)"
                    )
                page.close()
            browser.close()
    return 0


def wait_kernel(base: str, rel: str) -> str:
    deadline = time.time() + 120
    while not (sessions := [s for s in lab.get_json(f"{base}/api/sessions") if s["path"].endswith(rel)]):
        if time.time() > deadline:
            raise TimeoutError(f"no kernel for {rel}")
        time.sleep(0.5)
    return sessions[0]["kernel"]["id"]


class lab_server:  # noqa: N801 (a context manager used like a function)
    """JupyterLab serving copies of the notebooks (as tools/jupyterlab_explorers.py does)."""

    def __init__(self, port: int):
        self.port = port

    def __enter__(self):
        import shutil
        import tempfile

        self.scratch = pathlib.Path(tempfile.mkdtemp(prefix="jl-bench-"))
        runtime = self.scratch / "runtime"
        settings = self.scratch / "settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True)
        (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
        env = dict(
            os.environ,
            JUPYTER_RUNTIME_DIR=str(runtime),
            JUPYTERLAB_SETTINGS_DIR=str(self.scratch / "settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(self.scratch / "workspaces"),
        )
        shutil.copytree(ROOT / "notebooks", self.scratch / "notebooks")
        port = lab.free_port(self.port)
        self.base = f"http://127.0.0.1:{port}"
        self.server = subprocess.Popen(
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
                f"--ServerApp.root_dir={self.scratch}",
                "--LabApp.news_url=None",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            cwd=self.scratch,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.scratch / "server.log", "w"),
        )
        for _ in range(240):
            try:
                lab.get_json(f"{self.base}/api/status")
                break
            except OSError:
                if self.server.poll() is not None:
                    raise RuntimeError("JupyterLab did not start") from None
                time.sleep(0.5)
        return self.base, self.scratch, runtime

    def __exit__(self, *exc):
        import shutil

        self.server.terminate()
        try:
            self.server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.server.kill()
        shutil.rmtree(self.scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
