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
    if "filter.deepspan.span-attrib" not in classes or "sink.deepspan.diff" not in classes:
        pytest.skip("filter.deepspan.span-attrib and sink.deepspan.diff are not built in")
    out = tmp_path_factory.mktemp("nodejs-blocking")
    trace_dir, load = capture(out, REQUESTS, CONCURRENCY, SLOW_EVERY)
    return {"out": out, "trace": trace_dir, "load": load}


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


def test_diff_ranks_the_blocking_request_among_the_causes(blocking):
    report = blocking["out"] / "report"
    proc = run_babeltrace2(
        blocking["trace"], "-c", "filter.deepspan.nodejs-ctx", "-c", "filter.deepspan.span-attrib",
        "-c", "sink.deepspan.diff", "-p",
        f'output-dir="{report}",top=15,group-a={{root="HTTP GET /api",percentiles=[0,50]}},'
        'group-b={root="HTTP GET /api",percentiles=[75,100]}')
    print(proc.stdout)
    difference = re.search(r"Mean latency difference B - A: \+([\d.]+) ms", proc.stdout)
    assert difference and float(difference.group(1)) > 0
    causes = [line for line in proc.stdout.splitlines() if BUSY_SLOW in line]
    assert causes, f"'{BUSY_SLOW}' is not among the diff's causes"
    assert re.match(r"\s*\+[\d.]+ (ms|µs)", causes[0])
    assert (report / "diff.svg").exists() and BUSY_SLOW in (report / "explain.txt").read_text()
