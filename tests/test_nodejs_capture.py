# SPDX-License-Identifier: MIT
"""A real capture: the three-service Node.js demo recorded with LTTng, then filter.deepspan.nodejs-ctx.

gateway -> users -> store on 127.0.0.1, 60 requests, 4 in flight.  Every client request must be
linked to its parent server request and to the callee's server span, every external request
must form a three-level tree, and the gateway's spans must agree with the latencies the load
generator measured.
"""
import json
import shutil
import statistics
import subprocess

import pytest

from conftest import ASAN_BUILD_DIR, PLUGIN_DIR, REPORT_SCRIPT, run_babeltrace2
from test_nodejs_helpers import fields_of, capture, capture_unavailable, read_spans, assert_demo_trees

REQUESTS = 60
CONCURRENCY = 4


@pytest.fixture(scope="module")
def demo(tmp_path_factory, plugin_dir):
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("nodejs-demo")
    trace_dir, load = capture(out, REQUESTS, CONCURRENCY)
    stats_path = out / "stats.json"
    spans, events, _ = read_spans(trace_dir, "-p", f'stats="{stats_path}"')
    stats = json.loads(stats_path.read_text())
    print(f"nodejs-ctx counts: {json.dumps(stats)}")
    return {"load": load, "spans": spans, "events": events, "stats": stats, "trace": trace_dir}


def test_load_generator_completed(demo):
    load = demo["load"]
    assert load["requests"] == REQUESTS
    assert all(entry["status"] == 200 for entry in load["latencies"])


def test_every_request_seen(demo):
    stats = demo["stats"]
    # gateway, users and store each serve every request; gateway and users each call once.
    assert stats["server_requests"] == 3 * REQUESTS
    assert stats["server_responses"] == 3 * REQUESTS
    assert stats["client_requests"] == 2 * REQUESTS
    assert stats["client_responses"] == 2 * REQUESTS
    assert stats["open_at_end"] == 0 and stats["unmatched_responses"] == 0


def test_every_client_linked_to_parent_and_callee(demo):
    spans, stats = demo["spans"], demo["stats"]
    clients = [s for s in spans.values() if s["kind"] == 2]
    servers = [s for s in spans.values() if s["kind"] == 1]
    callee_of = {s["parent_span_id"]: s for s in servers if s["parent_span_id"]}
    with_parent = [c for c in clients if spans.get(c["parent_span_id"], {}).get("kind") == 1]
    with_callee = [c for c in clients if c["span_id"] in callee_of]
    print(f"{len(clients)} client spans: {len(with_parent)} linked to their server request, "
          f"{len(with_callee)} to the callee's server span")
    assert len(clients) == 2 * REQUESTS
    assert len(with_parent) == len(clients)
    assert len(with_callee) == len(clients)
    assert stats["clients_with_parent"] == stats["clients_with_callee"] == 2 * REQUESTS
    assert stats["roots"] == REQUESTS
    # A callee runs in another process than its caller.
    assert all(callee_of[c["span_id"]]["vpid"] != c["vpid"] for c in with_callee)


def test_three_level_trees(demo):
    spans = demo["spans"]
    for chain in assert_demo_trees(spans, REQUESTS):
        assert (chain[0]["service"], chain[0]["operation"], chain[0]["kind"]) == ("gateway", "HTTP GET /api", 1)
        assert all(s["begin"] <= c["begin"] for s, c in zip(chain, chain[1:]))
        assert all(s["end"] is not None for s in chain)
        # A child never outlives its parent (a callee ends when its caller got the response).
        assert all(c["end"] <= s["end"] for s, c in zip(chain, chain[1:]))


def test_durations_match_load_generator(demo):
    roots = sorted(s["end"] - s["begin"] for s in demo["spans"].values() if s["parent_span_id"] == 0)
    measured = sorted(int(entry["ms"] * 1e6) for entry in demo["load"]["latencies"])
    # Each gateway span lies inside its request as the load generator timed it, so the sorted
    # durations are bounded elementwise.  The gap is loopback, HTTP parsing, the time a request
    # waits in gateway's socket while its loop runs other requests (4 in flight), and the
    # load generator's own loop: small against the whole on an idle machine, larger on a busy one.
    assert all(span <= latency for span, latency in zip(roots, measured))
    gap_ms = (statistics.mean(measured) - statistics.mean(roots)) / 1e6
    print(f"gateway span mean {statistics.mean(roots) / 1e6:.3f} ms, load generator mean "
          f"{statistics.mean(measured) / 1e6:.3f} ms, gap {gap_ms:.3f} ms")
    assert gap_ms >= 0
    assert statistics.mean(roots) > 0.5 * statistics.mean(measured)
    assert statistics.median(roots) > 0.5 * statistics.median(measured)


def test_event_loop_busy_spans_hang_off_waiting_clients(demo):
    spans = demo["spans"]
    busy = [s for s in spans.values() if s["kind"] == 0]
    print(f"{len(busy)} event-loop-busy spans")
    assert demo["stats"]["busy_spans"] == len(busy)
    for span in busy:
        client = spans[span["parent_span_id"]]
        assert client["kind"] == 2 and span["operation"].startswith("event loop busy: ")
        assert client["begin"] <= span["begin"] < span["end"] <= client["end"]
        assert span["trace_id_low"] == client["trace_id_low"] and span["vpid"] != client["vpid"]


def test_activations_bracket_callbacks(demo):
    """Per process, at most one server span is active, only between its own start and end."""
    spans, events = demo["spans"], demo["events"]
    active = {}
    count = 0
    for ts, kind, context, payload in events:
        vpid = context["vpid"]
        if kind == "span_activate":
            span = spans[payload["span_id"]]
            assert active.get(vpid) is None
            assert span["kind"] == 1 and span["begin"] <= ts <= span["end"]
            active[vpid] = payload["span_id"]
            count += 1
        elif kind == "span_deactivate":
            span = spans[payload["span_id"]]
            if span["kind"] == 2:
                # A client span is a remote wait: deactivated once, at its start.
                assert ts == span["begin"]
                continue
            assert active.get(vpid) == payload["span_id"]
            active[vpid] = None
    assert count >= 3 * REQUESTS
    assert not any(active.values())


def test_output_in_time_order(demo):
    stamps = [event[0] for event in demo["events"]]
    assert stamps == sorted(stamps)


def test_span_attrib_accounts_every_span(demo, plugin_dir):
    """filter.deepspan.span-attrib after nodejs-ctx: one deepspan:span per span, exact state sums."""
    assert "filter.deepspan.span-attrib" in run_babeltrace2("list-plugins").stdout
    proc = run_babeltrace2(demo["trace"], "-c", "filter.deepspan.nodejs-ctx",
                           "-c", "filter.deepspan.span-attrib")
    records = []
    for line in proc.stdout.splitlines():
        if " deepspan:span: " in line:
            head = line.split(" deepspan:span: ", 1)[1].split(", syscalls = [", 1)[0]
            records.append(fields_of(head))
    spans = demo["spans"]
    assert len(records) == len(spans)
    states = ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")
    for record in records:
        span = spans[record["span_id"]]
        assert (record["begin"], record["end"]) == (span["begin"], span["end"])
        assert sum(record[s] for s in states) == record["end"] - record["begin"]
        assert record["service"] == span["service"] and record["host"]
        if span["kind"] == 2:
            # A remote call never runs on the loop: inactive (blocked) all along.
            assert record["blocked"] == record["end"] - record["begin"]
    servers = [r for r in records if spans[r["span_id"]]["kind"] == 1]
    assert any(r["blocked"] > 0 for r in servers) and any(r["unknown"] > 0 for r in servers)


@pytest.mark.skipif(not ASAN_BUILD_DIR, reason="DEEPSPAN_ASAN_BUILD_DIR not set (scripts/dev test sets it)")
def test_asan_on_the_real_capture(demo, tmp_path):
    from test_sanitizers import asan_graph
    asan_graph(tmp_path, demo["trace"], "-c", "filter.deepspan.nodejs-ctx", "-p", "match-window=\"1ms\"",
               "-c", "filter.deepspan.span-attrib", "-c", "sink.utils.dummy")


def test_valgrind_on_the_real_capture(demo, plugin_dir):
    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed")
    proc = subprocess.run(["valgrind", "--error-exitcode=99", "--leak-check=full",
                           "--errors-for-leak-kinds=definite", "-q", "babeltrace2",
                           f"--plugin-path={plugin_dir}", str(demo["trace"]),
                           "-c", "filter.deepspan.nodejs-ctx", "-c", "sink.utils.dummy"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-6000:]


def test_diff_critical_path_keeps_every_level(demo, tmp_path):
    """The critical path of every request walks gateway -> users -> store without skipping a level.

    An event-loop-busy span begins exactly when its client span does; such equal begins once let a
    child be counted before its parent's count was reset, and the diff then showed `users: HTTP GET
    127.0.0.1:N/item` straight under the gateway's client span, without `users: HTTP GET /user`."""
    out = tmp_path / "report"
    run_babeltrace2(str(demo["trace"]), "-c", "filter.deepspan.nodejs-ctx",
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}",summary=false')
    above = {"users: HTTP GET /user": "gateway: HTTP GET 127.0.0.1:",
             "users: HTTP GET 127.0.0.1:": "users: HTTP GET /user",
             "store: HTTP GET /item": "users: HTTP GET 127.0.0.1:"}
    stacks = 0
    for name in ("a.folded", "b.folded"):
        for line in (out / name).read_text().splitlines():
            frames = line.rsplit(" ", 1)[0].split(";")
            stacks += 1
            for parent, frame in zip(frames, frames[1:]):
                for child_prefix, parent_prefix in above.items():
                    if frame.startswith(child_prefix):
                        assert parent.startswith(parent_prefix), line
    assert stacks > 0
    assert "users: HTTP GET /user;users: HTTP GET 127.0.0.1:" in (out / "a.folded").read_text()


def test_deepspan_report_nodejs(demo, tmp_path):
    """`deepspan-report --nodejs` (muxer -> nodejs-ctx -> span-attrib -> diff) equals the convert-mode pipeline."""
    proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "--nodejs", "-o", str(tmp_path / "run"),
                           "-p", "summary=false", str(demo["trace"])], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    run_babeltrace2(str(demo["trace"]), "-c", "filter.deepspan.nodejs-ctx",
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "convert"}",summary=false')
    for name in ("a.folded", "b.folded", "explain.txt", "report.html"):
        assert (tmp_path / "run" / name).read_bytes() == (tmp_path / "convert" / name).read_bytes(), name
