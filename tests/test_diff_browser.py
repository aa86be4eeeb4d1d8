# SPDX-License-Identifier: MIT
"""report.html and diff.svg in headless Chromium: screenshots, no script errors, a click zooms, search matches.

The page's own script replays a click or a search named in the URL hash (`#click=fg-diff:N`,
`#search=fg-diff:TEXT`), so `--dump-dom` shows the DOM after a real click event went through the same
handler a user's click does. Screenshots are kept in BUILD_DIR/screenshots for people to look at.
"""
import re
import shutil
import subprocess

import pytest

from conftest import BUILD_DIR
from span_fixtures import MS, dispatch_request, run_sink

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM), reason="chromium is not installed")


def chromium(*args):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
           "--allow-file-access-from-files", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def script_errors(stderr):
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line and ("Uncaught" in line or "Error" in line)]


@pytest.fixture(scope="module")
def report(bt2_plugin, tmp_path_factory):
    out = tmp_path_factory.mktemp("browser") / "report"
    spans = []
    for i in range(99):
        spans += dispatch_request(i + 1, i * 100 * MS)
    spans += dispatch_request(1000, 100 * 100 * MS, mysql_block=100 * MS, route_wait=5 * MS)
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False}, spans)
    return out


def frame_number(svg_text, label):
    m = re.search(r'<g class="f" data-n="(\d+)"[^>]*data-label="' + re.escape(label) + '"', svg_text)
    assert m, label
    return m.group(1)


def test_screenshots(report):
    shots = BUILD_DIR / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    for name, size in (("report.html", "1280,2400"), ("diff.svg", "1220,260")):
        png = shots / (name.replace(".", "-") + ".png")
        png.unlink(missing_ok=True)
        proc = chromium(f"--screenshot={png}", f"--window-size={size}", (report / name).as_uri())
        assert png.exists() and png.stat().st_size > 10_000, proc.stderr[-2000:]
        assert not script_errors(proc.stderr), script_errors(proc.stderr)
    svg = (report / "diff.svg").read_text()
    n = frame_number(svg, "mysql: SELECT")
    png = shots / "diff-svg-zoomed.png"
    chromium(f"--screenshot={png}", "--window-size=1220,260", (report / "diff.svg").as_uri() + f"#click=fg-diff:{n}")
    assert png.exists()


def test_report_has_no_script_errors(report):
    proc = chromium("--dump-dom", (report / "report.html").as_uri())
    dom = proc.stdout
    assert 'data-ready="1"' in dom.split("<head>")[0]  # the page's own script finished
    assert "data-script-errors=" not in dom.split("<head>")[0]
    assert dom.count('data-ready="1"') == 4  # the page and its three graphs
    assert not script_errors(proc.stderr), script_errors(proc.stderr)
    assert "futex" in dom and "Waterfalls" in dom


def test_click_zooms_in_report(report):
    svg = (report / "diff.svg").read_text()
    n = frame_number(svg, "mysql: SELECT")
    proc = chromium("--dump-dom", (report / "report.html").as_uri() + f"#click=fg-diff:{n}")
    dom = proc.stdout
    graph = dom[dom.index('id="fg-diff"'):]
    graph = graph[:graph.index("</svg>")]
    assert f'data-zoomed="{n}"' in graph
    mysql = re.search(r'<g class="f" data-n="' + n + r'".*?<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', graph, re.S)
    assert mysql and float(mysql.group(1)) == pytest.approx(10.0) and float(mysql.group(2)) == pytest.approx(1180.0)
    route = re.search(r'<g class="f"[^>]*data-label="route: GET /route"[^>]*style="display: none;"', graph)
    assert route, "frames outside the zoomed one are hidden"
    assert not script_errors(proc.stderr)


def test_standalone_svg_click_and_search(report):
    svg_path = report / "diff.svg"
    n = frame_number(svg_path.read_text(), "customer: GET /customer")
    proc = chromium("--dump-dom", svg_path.as_uri() + f"#click=fg-diff:{n}")
    assert f'data-zoomed="{n}"' in proc.stdout and 'data-ready="1"' in proc.stdout
    proc = chromium("--dump-dom", svg_path.as_uri() + "#search=fg-diff:futex")
    matched = re.search(r'data-matched="([\d.]+)"', proc.stdout)
    assert matched and 80 < float(matched.group(1)) < 100  # the futex frame is most of B
    assert "rgb(230,0,230)" in proc.stdout
    assert not script_errors(proc.stderr)


def test_chain_report_renders(bt2_plugin, tmp_path):
    """A report with chains (doc/critical-path.md): no script error, the waterfall's chain rows and the
    chain frames are in the page a browser built, a click on a chain frame zooms to it."""
    from test_diff_chains import requests
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False}, requests())
    shots = BUILD_DIR / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    png = shots / "report-chains.png"
    png.unlink(missing_ok=True)
    proc = chromium(f"--screenshot={png}", "--window-size=1280,2400", (out / "report.html").as_uri())
    assert png.exists() and png.stat().st_size > 10_000, proc.stderr[-2000:]
    assert not script_errors(proc.stderr), script_errors(proc.stderr)
    dom = chromium("--dump-dom", (out / "report.html").as_uri()).stdout
    assert "chain depth 1 (its waker)" in dom and "ran instead: compactor/991" in dom
    svg = (out / "diff.svg").read_text()
    n = frame_number(svg, "mysqld [Waited CPU]")
    proc = chromium("--dump-dom", (out / "diff.svg").as_uri() + f"#click=fg-diff:{n}")
    assert not script_errors(proc.stderr), script_errors(proc.stderr)
    assert "ran instead: compactor" in proc.stdout
