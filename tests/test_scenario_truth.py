# SPDX-License-Identifier: MIT
"""The scenario's ground truth agrees with its trace and with itself; runs are deterministic."""
import collections
import subprocess

import pytest

from conftest import BABELTRACE2, PLUGIN_DIR, run_babeltrace2
from scenario_fixtures import field_to_py, iterate, load_truth, make_scenario_trace

STATES = ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")


@pytest.fixture(scope="module")
def run(tmp_path_factory, plugin_dir):
    out = tmp_path_factory.mktemp("scenario-truth")
    truth = out / "truth.json"
    trace = make_scenario_trace(out / "trace", truth=truth, requests=120, **{"slow-ratio": 0.25})
    return trace, load_truth(truth)


def span_events(trace):
    """{span_id: (host, start ns, end ns, start payload, context)} read back from the trace."""
    spans = {}
    net_dev_queue = 0
    for msg in iterate(trace):
        name = msg.event.name
        if name == "net_dev_queue":
            net_dev_queue += 1
        if not name.startswith("deepspan_ust:"):
            continue
        payload = field_to_py(msg.event.payload_field)
        ts = msg.default_clock_snapshot.ns_from_origin
        host = str(msg.event.stream.trace.environment["hostname"])
        entry = spans.setdefault(payload["span_id"], {"host": host})
        if name == "deepspan_ust:span_start":
            entry["begin"] = ts
            entry["start"] = payload
            entry["ctx"] = field_to_py(msg.event.common_context_field)
        else:
            entry["end"] = ts
    return spans, net_dev_queue


def test_header(run):
    _, truth = run
    assert truth["generator"] == "source.deepspan.scenario"
    assert truth["preset"] == "hotrod" and truth["seed"] == 1 and truth["request_count"] == 120
    assert truth["span_schema"] == "deepspan_ust"
    assert [h["name"] for h in truth["hosts"]] == ["frontend", "customer", "driver"]
    assert truth["hosts"][0]["clock"]["offset_ns"] == 0 and truth["hosts"][0]["clock"]["drift_ppb"] == 0
    for host in truth["hosts"][1:]:
        assert abs(host["clock"]["offset_ns"]) <= 50_000_000 and abs(host["clock"]["drift_ppb"]) <= 50_000
        assert host["clock"]["offset_ns"] != 0


def test_states_sum_to_span_durations(run):
    _, truth = run
    assert len(truth["spans"]) == 120 * 23
    for span in truth["spans"]:
        assert set(span["states"]) == set(STATES)
        assert sum(span["states"].values()) == span["end"] - span["begin"], span
        assert all(v >= 0 for v in span["states"].values())
        for sc in span["syscalls"]:
            assert sc["count"] > 0 and 0 <= sc["duration"] <= span["end"] - span["begin"]
        # a span's thread is running when it starts and ends: no unknown time in this model
        assert span["states"]["unknown"] == 0


def test_span_bounds_equal_trace_timestamps(run):
    trace, truth = run
    events, net_dev_queue = span_events(trace)
    assert len(events) == len(truth["spans"])
    for span in truth["spans"]:
        ev = events[span["span_id"]]
        assert (ev["host"], ev["begin"], ev["end"]) == (span["host"], span["begin"], span["end"])
        assert ev["start"]["parent_span_id"] == span["parent_span_id"]
        assert ev["start"]["operation"] == span["operation"]
        assert (ev["ctx"]["vpid"], ev["ctx"]["vtid"]) == (span["pid"], span["tid"])
    assert truth["tcp_segments"] == net_dev_queue


def test_requests(run):
    _, truth = run
    requests = truth["requests"]
    assert len(requests) == 120
    roots = {(s["trace_id_high"], s["trace_id_low"]): s for s in truth["spans"] if s["parent_span_id"] == 0}
    for req in requests:
        root = roots[(req["trace_id_high"], req["trace_id_low"])]
        assert (req["begin"], req["end"]) == (root["begin"], root["end"])
        assert req["latency_ns"] == req["end"] - req["begin"]
        assert req["root_operation"] == "HTTP GET /dispatch" and req["root_service"] == "frontend"
        assert req["cause"] in ("lock", "cpu", "disk", "irq") if req["slow"] else req["cause"] == "none"
    slow = [r for r in requests if r["slow"]]
    fast = [r for r in requests if not r["slow"]]
    assert 15 <= len(slow) <= 45
    assert sum(r["latency_ns"] for r in slow) / len(slow) > 2 * sum(r["latency_ns"] for r in fast) / len(fast)


def test_parent_links_cross_hosts(run):
    _, truth = run
    by_id = {s["span_id"]: s for s in truth["spans"]}
    kinds = collections.Counter()
    for span in truth["spans"]:
        if span["parent_span_id"] == 0:
            continue
        parent = by_id[span["parent_span_id"]]
        kinds[(parent["kind"], span["kind"])] += 1
        if span["kind"] == 1:   # server span: its parent is the client span on the caller
            assert parent["kind"] == 2 and parent["operation"] == span["operation"]
            assert parent["begin"] < span["begin"] or parent["host"] != span["host"]
        if span["kind"] == 2:   # client span nested in its server span (same thread) or on a helper
            assert parent["host"] == span["host"]
    # every server span but the roots answers a client span; client spans nest in server spans
    assert kinds[(2, 1)] == 22 * 120 // 2 and kinds[(1, 2)] == kinds[(2, 1)]
    assert any(by_id[s["parent_span_id"]]["host"] != s["host"] for s in truth["spans"] if s["kind"] == 1)
    # the three route calls run in parallel, mostly on three different helper threads
    route_clients = collections.defaultdict(set)
    for span in truth["spans"]:
        if span["kind"] == 2 and span["operation"] == "HTTP GET /route":
            route_clients[span["parent_span_id"]].add(span["tid"])
    parallel = sum(1 for tids in route_clients.values() if len(tids) == 3)
    assert len(route_clients) == 120 and parallel >= 0.8 * len(route_clients)


def cause_share(truth, cause, operation, state):
    """Mean share of `state` in `operation` server spans of requests slowed by `cause`."""
    slow = {(r["trace_id_high"], r["trace_id_low"]) for r in truth["requests"] if r["cause"] == cause}
    spans = [s for s in truth["spans"] if (s["trace_id_high"], s["trace_id_low"]) in slow
             and s["operation"] == operation and s["kind"] == 1]
    return sum(s["states"][state] for s in spans) / max(1, sum(s["end"] - s["begin"] for s in spans))


@pytest.mark.parametrize("cause,operation,state", [
    ("lock", "SQL SELECT", "blocked"),
    ("disk", "SQL SELECT", "blocked"),
    ("cpu", "HTTP GET /route", "wait_cpu"),
    ("irq", "GetDriver", "interrupted"),
])
def test_injected_cause_dominates(tmp_path, plugin_dir, cause, operation, state):
    truth_path = tmp_path / "truth.json"
    run_babeltrace2("-c", "source.deepspan.scenario", "-p",
                    f'requests=12,slow-ratio=0.5,cause="{cause}",truth="{truth_path}"',
                    "-c", "sink.utils.dummy")
    truth = load_truth(truth_path)
    assert any(r["cause"] == cause for r in truth["requests"])
    assert cause_share(truth, cause, operation, state) > 0.5


def details(*params):
    cmd = [BABELTRACE2, f"--plugin-path={PLUGIN_DIR}", "-c", "source.deepspan.scenario",
           "-p", ",".join(params), "-c", "sink.text.details"]
    return subprocess.run(cmd, capture_output=True, check=True).stdout


def test_deterministic(tmp_path, plugin_dir):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    out_a = details("requests=15", f'truth="{a}"')
    out_b = details("requests=15", f'truth="{b}"')
    assert out_a == out_b and len(out_a) > 100000
    assert a.read_bytes() == b.read_bytes()
    assert details("requests=15", "seed=2") != out_a


@pytest.mark.parametrize("hosts", [2, 5, 8])
def test_host_counts(tmp_path, plugin_dir, hosts):
    truth_path = tmp_path / "truth.json"
    trace = make_scenario_trace(tmp_path / "trace", truth=truth_path, requests=8, hosts=hosts, cpus=2)
    truth = load_truth(truth_path)
    assert len(truth["hosts"]) == hosts
    assert len(list(trace.rglob("metadata"))) == 2 * hosts
    span_hosts = {s["host"] for s in truth["spans"]}
    assert span_hosts == {h["name"] for h in truth["hosts"]}
    for span in truth["spans"]:
        assert sum(span["states"].values()) == span["end"] - span["begin"]


def test_jaeger_schema(tmp_path, plugin_dir):
    truth_path = tmp_path / "truth.json"
    trace = make_scenario_trace(tmp_path / "trace", truth=truth_path, requests=5,
                                **{"span-schema": "jaeger_ust"})
    truth = load_truth(truth_path)
    starts, ends = {}, {}
    for msg in iterate(trace):
        if msg.event.name == "jaeger_ust:start_span":
            p = field_to_py(msg.event.payload_field)
            assert set(p) == {"trace_id_high", "trace_id_low", "span_id", "parent_span_id", "op_name",
                              "start_time"}
            starts[p["span_id"]] = msg.default_clock_snapshot.ns_from_origin
            assert p["start_time"] == starts[p["span_id"]]
        elif msg.event.name == "jaeger_ust:end_span":
            p = field_to_py(msg.event.payload_field)
            ends[p["span_id"]] = (msg.default_clock_snapshot.ns_from_origin, p["duration"])
        assert not msg.event.name.startswith("deepspan_ust:")
    assert truth["span_schema"] == "jaeger_ust" and len(starts) == len(truth["spans"])
    for span in truth["spans"]:
        assert starts[span["span_id"]] == span["begin"]
        assert ends[span["span_id"]] == (span["end"], span["end"] - span["begin"])


def test_explicit_clocks(tmp_path, plugin_dir):
    truth_path = tmp_path / "truth.json"
    run_babeltrace2("-c", "source.deepspan.scenario", "-p",
                    f'requests=3,hosts=2,clock="0:0,1500000:-20000",truth="{truth_path}"',
                    "-c", "sink.utils.dummy")
    hosts = load_truth(truth_path)["hosts"]
    assert [(h["clock"]["offset_ns"], h["clock"]["drift_ppb"]) for h in hosts] == [(0, 0), (1500000, -20000)]
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", f'requests=3,clock="none",truth="{truth_path}"',
                    "-c", "sink.utils.dummy")
    assert all(h["clock"]["offset_ns"] == 0 and h["clock"]["drift_ppb"] == 0
               for h in load_truth(truth_path)["hosts"])
