# SPDX-License-Identifier: MIT
"""The blocking-function scenario: users' GET /slow runs a 50 ms synchronous loop.

Every 4th load-generator request goes to /api/slow (4 in flight), so ordinary /api requests
wait for users' loop.  filter.deepspan.nodejs-ctx must report that wait as
"event loop busy: users: HTTP GET /slow" spans under the waiting client spans, and
sink.deepspan.diff (after filter.deepspan.span-attrib) must rank it among the causes that make
the slow /api requests slower than the fast ones.
"""
import re

import pytest

from conftest import run_babeltrace2
from test_nodejs_helpers import capture, capture_unavailable, read_spans

REQUESTS = 80
CONCURRENCY = 4
SLOW_EVERY = 4
BUSY_SLOW = "event loop busy: users: HTTP GET /slow"


@pytest.fixture(scope="module")
def blocking(tmp_path_factory, plugin_dir):
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    classes = run_babeltrace2("list-plugins").stdout
    assert "filter.deepspan.span-attrib" in classes and "sink.deepspan.diff" in classes, classes
    out = tmp_path_factory.mktemp("nodejs-blocking")
    baseline_dir, _ = capture(out / "baseline", REQUESTS, CONCURRENCY, 0)
    trace_dir, load = capture(out / "blocking", REQUESTS, CONCURRENCY, SLOW_EVERY)
    return {"out": out, "baseline": baseline_dir, "trace": trace_dir, "load": load}


def test_busy_spans_point_at_the_blocking_request(blocking):
    spans, _, _ = read_spans(blocking["trace"])
    busy = [s for s in spans.values() if s["operation"] == BUSY_SLOW]
    assert busy, "no request was reported waiting for users' blocked loop"
    for span in busy:
        client = spans[span["parent_span_id"]]
        assert client["kind"] == 2 and client["service"] == "gateway" and span["service"] == "users"
    longest_ms = max(s["end"] - s["begin"] for s in busy) / 1e6
    print(f"{len(busy)} spans '{BUSY_SLOW}', longest {longest_ms:.1f} ms")
    # The 50 ms loop holds users' loop at least that long when a call arrives just before it
    # (longer when the machine is busy: the stretch is wall time, preemption included).
    assert longest_ms >= 20
    victims = {spans[s["parent_span_id"]]["trace_id_low"] for s in busy}
    roots = {s["trace_id_low"]: s for s in spans.values() if s["parent_span_id"] == 0}
    assert any(roots[t]["operation"] == "HTTP GET /api" for t in victims), \
        "only /api/slow requests themselves were slowed"


def _ust_trace(session_dir):
    (metadata,) = session_dir.glob("ust/**/metadata")
    return metadata.parent


def test_diff_shows_requests_slowed_by_the_blocking_request(blocking):
    """Baseline run (port a) against the run with /slow (port b), both GET /api only."""
    report = blocking["out"] / "report"
    args = ["run"]
    for port, trace in (("a", blocking["baseline"]), ("b", blocking["trace"])):
        args += [f"--component={port}src:source.ctf.fs", f'--params=inputs=["{_ust_trace(trace)}"]',
                 f"--component={port}mux:filter.utils.muxer",
                 f"--component={port}ctx:filter.deepspan.nodejs-ctx",
                 f"--component={port}attrib:filter.deepspan.span-attrib",
                 f"--connect={port}src:{port}mux", f"--connect={port}mux:{port}ctx",
                 f"--connect={port}ctx:{port}attrib", f"--connect={port}attrib:diff.{port}"]
    args += ["--component=diff:sink.deepspan.diff",
             f'--params=output-dir="{report}",top=20,group-a={{root="HTTP GET /api"}},'
             'group-b={root="HTTP GET /api"}']
    proc = run_babeltrace2(*args)
    print(proc.stdout)
    difference = re.search(r"Mean latency difference B - A: \+([\d.]+) ms", proc.stdout)
    assert difference and float(difference.group(1)) > 0, "the blocking run is not slower"
    explain = (report / "explain.txt").read_text()
    increases = explain.split("Largest decreases")[0]
    causes = [line for line in increases.splitlines() if BUSY_SLOW in line]
    assert causes, f"'{BUSY_SLOW}' is not among the diff's causes:\n{explain}"
    assert re.match(r"\s*\+[\d.]+ (ms|µs)", causes[0])
    assert (report / "diff.svg").exists() and BUSY_SLOW in (report / "diff.svg").read_text()
