# SPDX-License-Identifier: MIT
"""Real LTTng-UST recordings of the instrumented examples (user space only on this machine).

The build made the programs (`make check`: examples/microservices/ds-*, examples/jaeger/ds-span-emitter);
these tests record them with scripts/deepspan-record into temporary directories under unique session
names, then check the raw span events, the pipeline through filter.deepspan.span-attrib (when that class
is in the plugin), and the recorder's own behaviour (snapshot mode, errors).
"""
import json
import os
import pathlib
import re
import shutil
import signal
import statistics
import subprocess
import time
import uuid

import pytest

from conftest import BUILD_DIR, SRC_DIR, run_babeltrace2, session_processes

LOADGEN = BUILD_DIR / "examples" / "microservices" / "ds-loadgen"
EMITTER = BUILD_DIR / "examples" / "jaeger" / "ds-span-emitter"
RECORD = SRC_DIR / "scripts" / "deepspan-record"


def instrumentation_enabled():
    makefile = BUILD_DIR / "Makefile"
    return makefile.exists() and not re.search(r"^ENABLE_INSTRUMENTATION_TRUE = #", makefile.read_text(), re.M)


pytestmark = [
    pytest.mark.skipif(not instrumentation_enabled(), reason="configured with --disable-instrumentation"),
    pytest.mark.skipif(shutil.which("lttng") is None, reason="lttng-tools is not installed"),
]

# The spans of one request, as (service, operation, parent's (service, operation)).
CHECKOUT_TREE = sorted([
    ("loadgen", "GET /checkout", None),
    ("gateway", "HTTP GET /checkout", ("loadgen", "GET /checkout")),
    ("gateway", "GET account", ("gateway", "HTTP GET /checkout")),
    ("account", "GET /account", ("gateway", "GET account")),
    ("account", "verify token", ("account", "GET /account")),
    ("gateway", "price cart", ("gateway", "HTTP GET /checkout")),
    ("gateway", "GET store/reserve", ("gateway", "HTTP GET /checkout")),
    ("store", "GET /reserve", ("gateway", "GET store/reserve")),
    ("store", "reserve items", ("store", "GET /reserve")),
], key=repr)
BALANCE_TREE = sorted([
    ("loadgen", "GET /balance", None),
    ("gateway", "HTTP GET /balance", ("loadgen", "GET /balance")),
    ("gateway", "GET account", ("gateway", "HTTP GET /balance")),
    ("account", "GET /account", ("gateway", "GET account")),
    ("account", "verify token", ("account", "GET /account")),
], key=repr)

# deepspan_ust `kind`: 0 internal, 1 server, 2 client.
SPAN_KINDS = {
    ("loadgen", "GET /checkout"): 2, ("loadgen", "GET /balance"): 2,
    ("gateway", "HTTP GET /checkout"): 1, ("gateway", "HTTP GET /balance"): 1,
    ("gateway", "GET account"): 2, ("gateway", "GET store/reserve"): 2, ("gateway", "price cart"): 0,
    ("account", "GET /account"): 1, ("account", "verify token"): 0,
    ("store", "GET /reserve"): 1, ("store", "reserve items"): 0,
}
# A big cart (every 50th request) spends >= 200 x 200 us pricing and >= 200 x 100 us holding the store's
# lock: >= 60 ms, far above the other requests (~3 ms; those queued behind it wait <= 20 ms for the lock).
LOADGEN_ARGS = ["--requests=150", "--warmup=5", "--concurrency=2", "--big-every=50", "--big-items=200",
                "--gateway-work-us=200", "--store-work-us=100", "--account-work-us=150", "--max-seconds=60"]
GATEWAY_WORK_NS = 200_000
STORE_WORK_NS = 100_000
BIG_ITEMS = 200


# --- the session daemon and recordings -------------------------------------------------------

def lttng(*args, check=False):
    return subprocess.run(["lttng", *args], capture_output=True, text=True, timeout=60, check=check)


def sessiond_pid_file():
    home = pathlib.Path(os.environ.get("LTTNG_HOME", pathlib.Path.home()))
    return pathlib.Path("/var/run/lttng/lttng-sessiond.pid") if os.geteuid() == 0 else home / ".lttng" / "lttng-sessiond.pid"


@pytest.fixture(scope="module")
def sessiond():
    """A running session daemon: the machine's own, or one started here and stopped afterwards."""
    started_pid = None
    if lttng("list").returncode != 0:
        subprocess.run(["lttng-sessiond", "--daemonize", "--no-kernel"], check=True, timeout=60,
                       capture_output=True)
        started_pid = int(sessiond_pid_file().read_text().strip())
        assert lttng("list").returncode == 0, "the session daemon started here does not answer"
    yield
    if started_pid is None:
        return
    # Stop only the daemon this module started, and only when no session (another test's) remains.
    if "no available recording session" in lttng("list").stdout.lower():
        os.kill(started_pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and pathlib.Path(f"/proc/{started_pid}").exists():
            time.sleep(0.1)


def unique_session(tag):
    return f"ds-test-{tag}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def run_recorder(args, timeout=180):
    """Runs deepspan-record in its own process group (killed whole on timeout); returns (rc, stdout, stderr)."""
    proc = subprocess.Popen([str(RECORD), *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"deepspan-record timed out after {timeout} s:\n{err[-3000:]}")
    return proc.returncode, out, err


def record(tmp_dir, tag, command, extra=()):
    """Records `command` (UST only) into tmp_dir/trace; always destroys the session."""
    session = unique_session(tag)
    trace = pathlib.Path(tmp_dir) / "trace"
    try:
        rc, out, err = run_recorder(["--no-kernel", "-n", session, "-o", trace, *extra, "--", *command])
    finally:
        lttng("destroy", session)   # already destroyed by the recorder unless it failed midway
    assert rc == 0, f"deepspan-record failed ({rc}):\n{out}\n{err}"
    return trace, out, err


# --- reading spans ----------------------------------------------------------------------------

class RawSpan:
    """A span from its raw start/end events (either schema); times are clock values (ns)."""
    __slots__ = ("key", "parent", "service", "operation", "vpid", "vtid", "procname",
                 "start", "end", "start_ns", "end_ns", "schema", "kind", "status")


def read_raw_spans(trace):
    """{(trace_id_high, trace_id_low, span_id): RawSpan} from the deepspan_ust and jaeger_ust events of `trace`."""
    import bt2
    spans = {}
    for msg in bt2.TraceCollectionMessageIterator(str(trace)):
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        event = msg.event
        name = event.name
        if name not in ("deepspan_ust:span_start", "deepspan_ust:span_end",
                        "jaeger_ust:start_span", "jaeger_ust:end_span"):
            continue
        snapshot = msg.default_clock_snapshot
        assert snapshot.clock_class.frequency == 1_000_000_000
        payload = event.payload_field
        key = (int(payload["trace_id_high"]), int(payload["trace_id_low"]), int(payload["span_id"]))
        if name in ("deepspan_ust:span_start", "jaeger_ust:start_span"):
            assert key not in spans, f"span {key} started twice"
            ctx = event.common_context_field
            span = spans[key] = RawSpan()
            span.key = key
            span.schema = name.split(":")[0]
            span.parent = int(payload["parent_span_id"])
            span.procname = str(ctx["procname"])
            span.vpid, span.vtid = int(ctx["vpid"]), int(ctx["vtid"])
            if span.schema == "deepspan_ust":
                span.service, span.operation = str(payload["service"]), str(payload["operation"])
                span.kind = int(payload["kind"])
            else:
                span.service, span.operation, span.kind = span.procname, str(payload["op_name"]), None
            span.start, span.start_ns = snapshot.value, snapshot.ns_from_origin
            span.end = span.end_ns = None
        elif key not in spans:
            # LTTng's per-user buffers record every process of the user: another program's span may have
            # started before this session did. The tests check their own spans by trace id.
            continue
        else:
            assert spans[key].end is None, f"span {key} ended twice"
            spans[key].end, spans[key].end_ns = snapshot.value, snapshot.ns_from_origin
            spans[key].status = int(payload["status"]) if name == "deepspan_ust:span_end" else None
    return spans


def spans_by_trace(spans):
    by_trace = {}
    for span in spans.values():
        by_trace.setdefault(span.key[:2], []).append(span)
    return by_trace


def tree_shape(trace_spans):
    by_id = {s.key[2]: s for s in trace_spans}
    shape = []
    for s in trace_spans:
        parent = by_id.get(s.parent)
        shape.append((s.service, s.operation, (parent.service, parent.operation) if parent else None))
    return sorted(shape, key=repr)


def span_attrib_events(plugin, trace, params=None):
    """The deepspan:span events that filter.deepspan.span-attrib adds to `trace`, as dicts."""
    import bt2
    spec = bt2.ComponentSpec(plugin.filter_component_classes["span-attrib"], params or {"pass-through": False})
    rows = []
    for msg in bt2.TraceCollectionMessageIterator(str(trace), [spec]):
        if isinstance(msg, bt2._EventMessageConst) and msg.event.name == "deepspan:span":
            payload = msg.event.payload_field
            rows.append({name: (str(payload[name]) if isinstance(payload[name], bt2._StringFieldConst)
                                else int(payload[name]))
                         for name in ("trace_id_high", "trace_id_low", "span_id", "parent_span_id", "host",
                                      "service", "operation", "pid", "tid", "begin", "end", "user", "syscall",
                                      "blocked", "wait_cpu", "interrupted", "unknown")})
    return rows


def require_class(plugin, kind, name):
    classes = getattr(plugin, f"{kind}_component_classes")
    assert name in classes, f"{kind}.deepspan.{name} is missing from the deepspan plugin"
    return classes[name]


# --- the microservice application ----------------------------------------------------------------

@pytest.fixture(scope="module")
def shop_recording(sessiond, tmp_path_factory):
    """The example application recorded for a bounded number of requests: (trace dir, loadgen JSON)."""
    assert LOADGEN.exists(), f"{LOADGEN} is missing: `make check` builds the examples"
    tmp = tmp_path_factory.mktemp("shop")
    result = tmp / "loadgen.json"
    trace, _, _ = record(tmp, "shop", [LOADGEN, *LOADGEN_ARGS, f"--output={result}"])
    measured = json.loads(result.read_text())
    return trace, measured


def test_loadgen_requests_all_succeeded(shop_recording):
    _, measured = shop_recording
    requests = measured["requests"]
    assert len(requests) == 150
    assert all(r["ok"] for r in requests)
    assert sum(r["slow"] for r in requests) == 3            # requests 25, 75, 125
    assert {r["route"] for r in requests} == {"/checkout", "/balance"}


def test_every_request_has_its_complete_span_tree(shop_recording):
    trace, measured = shop_recording
    spans = read_raw_spans(trace)
    by_trace = spans_by_trace(spans)
    procs = {}
    for req in measured["requests"]:
        trace_spans = by_trace.get((req["trace_id_high"], req["trace_id_low"]))
        assert trace_spans, f"request {req['index']}: no span recorded"
        assert all(s.end is not None for s in trace_spans), f"request {req['index']}: a span never ended"
        expected = CHECKOUT_TREE if req["route"] == "/checkout" else BALANCE_TREE
        assert tree_shape(trace_spans) == expected, f"request {req['index']}: wrong span tree"
        roots = [s for s in trace_spans if s.parent == 0]
        assert [r.key[2] for r in roots] == [req["span_id"]], "the loadgen's span is the only root"
        for s in trace_spans:
            assert s.procname == f"ds-{s.service}", "each service runs in its own process"
            assert s.status == 1, "every span ended OK"
            assert s.kind == SPAN_KINDS[(s.service, s.operation)], f"{s.service}: {s.operation} has kind {s.kind}"
            procs.setdefault(s.service, set()).add(s.vpid)
    assert {service: len(pids) for service, pids in procs.items()} == \
        {"loadgen": 1, "gateway": 1, "account": 1, "store": 1}
    assert len({pid for pids in procs.values() for pid in pids}) == 4


def test_span_durations_agree_with_measured_latencies(shop_recording):
    """LTTng-UST stamps with CLOCK_MONOTONIC, the clock ds-loadgen measures with: exact containment."""
    trace, measured = shop_recording
    spans = read_raw_spans(trace)
    by_trace = spans_by_trace(spans)
    overheads = []
    for req in measured["requests"]:
        trace_spans = by_trace[(req["trace_id_high"], req["trace_id_low"])]
        by_id = {s.key[2]: s for s in trace_spans}
        root = by_id[req["span_id"]]
        assert req["begin_ns"] <= root.start <= root.end <= req["end_ns"], f"request {req['index']}"
        overheads.append(req["latency_ns"] - (root.end - root.start))
        for s in trace_spans:
            if s.parent in by_id:   # a child lies within its parent, across processes (one clock)
                parent = by_id[s.parent]
                assert parent.start <= s.start <= s.end <= parent.end, f"{s.operation} outside {parent.operation}"
    # The recording overhead (two tracepoints and clock reads around the call) is microseconds.
    assert statistics.median(overheads) < 100_000, f"median overhead {statistics.median(overheads)} ns"
    for req in (r for r in measured["requests"] if r["slow"]):
        by_operation = {s.operation: s for s in by_trace[(req["trace_id_high"], req["trace_id_low"])]}
        reserve, price = by_operation["reserve items"], by_operation["price cart"]
        assert reserve.end - reserve.start >= BIG_ITEMS * STORE_WORK_NS, "a big cart holds the lock long"
        assert price.end - price.start >= BIG_ITEMS * GATEWAY_WORK_NS, "a big cart takes long to price"
    slow = [r["latency_ns"] for r in measured["requests"] if r["slow"]]
    fast = [r["latency_ns"] for r in measured["requests"] if not r["slow"]]
    assert min(slow) > statistics.median(fast), "the slow requests are slow"


def test_span_attrib_reads_the_recording(shop_recording, bt2_plugin):
    require_class(bt2_plugin, "filter", "span-attrib")
    trace, measured = shop_recording
    raw = read_raw_spans(trace)
    rows = span_attrib_events(bt2_plugin, trace)
    ours = {(r["trace_id_high"], r["trace_id_low"]) for r in measured["requests"]}
    rows = [r for r in rows if (r["trace_id_high"], r["trace_id_low"]) in ours]
    by_key = {}
    for row in rows:
        key = (row["trace_id_high"], row["trace_id_low"], row["span_id"])
        assert key not in by_key, f"span {key} emitted twice"
        by_key[key] = row
    expected = {k: s for k, s in raw.items() if k[:2] in ours}
    assert set(by_key) == set(expected), "span-attrib emits exactly the recorded spans"
    for key, row in by_key.items():
        span = expected[key]
        assert (row["parent_span_id"], row["service"], row["operation"]) == (span.parent, span.service, span.operation)
        assert (row["begin"], row["end"]) == (span.start_ns, span.end_ns), "bounds are the LTTng timestamps"
        states = [row[s] for s in ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")]
        assert sum(states) == row["end"] - row["begin"], "states sum to the span's duration"
        # No kernel trace here: every nanosecond is Unknown (documented behaviour).
        assert row["unknown"] == row["end"] - row["begin"]


# --- the jaeger_ust schema -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def schema_recording(sessiond, tmp_path_factory):
    """ds-span-emitter run once per schema in one session: (trace, {schema: emitter JSON})."""
    assert EMITTER.exists(), f"{EMITTER} is missing: `make check` builds the examples"
    tmp = tmp_path_factory.mktemp("schemas")
    outputs = {schema: tmp / f"{schema}.json" for schema in ("jaeger", "deepspan")}
    script = " && ".join(f"'{EMITTER}' --schema={schema} --requests=15 --output='{path}'"
                         for schema, path in outputs.items())
    trace, _, _ = record(tmp, "schemas", ["sh", "-c", script])
    return trace, {schema: json.loads(path.read_text()) for schema, path in outputs.items()}


def check_emitted_spans(spans, emitted):
    """The recorded spans are exactly the emitted ones, with the same parents, names, and bounds."""
    assert len(spans) == len(emitted["spans"]) == 15 * 4
    for e in emitted["spans"]:
        s = spans[(e["trace_id_high"], e["trace_id_low"], e["span_id"])]
        assert (s.parent, s.service, s.operation) == (e["parent_span_id"], emitted["service"], e["operation"])
        assert e["begin_ns"] <= s.start <= s.end <= e["end_ns"]


def test_both_schemas_are_recorded_alike(schema_recording):
    trace, emitted = schema_recording
    spans = read_raw_spans(trace)
    for schema, provider in (("jaeger", "jaeger_ust"), ("deepspan", "deepspan_ust")):
        ids = {(e["trace_id_high"], e["trace_id_low"], e["span_id"]) for e in emitted[schema]["spans"]}
        mine = {k: s for k, s in spans.items() if k in ids}
        assert {s.schema for s in mine.values()} == {provider}
        check_emitted_spans(mine, emitted[schema])


def read_activations(trace):
    """{span key: [(event name, clock value, ns from origin)]} of the span_activate/span_deactivate events."""
    import bt2
    seen = {}
    for msg in bt2.TraceCollectionMessageIterator(str(trace)):
        if isinstance(msg, bt2._EventMessageConst) and msg.event.name in (
                "deepspan_ust:span_activate", "deepspan_ust:span_deactivate"):
            p = msg.event.payload_field
            key = (int(p["trace_id_high"]), int(p["trace_id_low"]), int(p["span_id"]))
            snapshot = msg.default_clock_snapshot
            seen.setdefault(key, []).append((msg.event.name.split(":")[1], snapshot.value, snapshot.ns_from_origin))
    return seen


def test_activate_and_deactivate_are_recorded(schema_recording):
    """deepspan_ust:span_activate/span_deactivate carry the span's ids, in order, inside the span."""
    trace, emitted = schema_recording
    redis = {(e["trace_id_high"], e["trace_id_low"], e["span_id"]): e for e in emitted["deepspan"]["spans"]
             if e["operation"] == "redis GET"}
    seen = read_activations(trace)
    mine = {k: v for k, v in seen.items() if k in redis or k[:2] in {r[:2] for r in redis}}
    assert set(mine) == set(redis), "exactly the redis GET spans activate"
    for key, events in mine.items():
        assert [name for name, _, _ in events] == ["span_activate", "span_deactivate"]
        assert redis[key]["begin_ns"] <= events[0][1] <= events[1][1] <= redis[key]["end_ns"]


def test_span_attrib_reads_jaeger_ust_like_deepspan_ust(schema_recording, bt2_plugin):
    require_class(bt2_plugin, "filter", "span-attrib")
    trace, emitted = schema_recording
    raw = read_raw_spans(trace)
    rows = {(r["trace_id_high"], r["trace_id_low"], r["span_id"]): r for r in span_attrib_events(bt2_plugin, trace)}
    activations = read_activations(trace)
    shapes = {}
    for schema in ("jaeger", "deepspan"):
        keys = [(e["trace_id_high"], e["trace_id_low"], e["span_id"]) for e in emitted[schema]["spans"]]
        assert all(k in rows for k in keys), f"span-attrib lost {schema} spans"
        for k in keys:
            row, span = rows[k], raw[k]
            assert (row["parent_span_id"], row["service"], row["operation"]) == (span.parent, span.service, span.operation)
            assert (row["begin"], row["end"]) == (span.start_ns, span.end_ns)
            # Without kernel events a running span is all Unknown; after span_deactivate it is not running
            # on any thread, which span-attrib charges as Waited blocked ("inactive").
            inactive = row["end"] - activations[k][-1][2] if k in activations else 0
            assert (row["unknown"], row["blocked"]) == (row["end"] - row["begin"] - inactive, inactive)
        shapes[schema] = sorted((rows[k]["service"], rows[k]["operation"], rows[k]["parent_span_id"] == 0) for k in keys)
    assert shapes["jaeger"] == shapes["deepspan"], "one schema or the other: the same spans"


# --- the recorder itself ---------------------------------------------------------------------------

def test_snapshot_mode_writes_a_snapshot_per_request_and_at_the_end(sessiond, tmp_path):
    session = unique_session("snap")
    trace = tmp_path / "snap"
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    # USR1 to the recorder (its pid is the shell's parent), then the `snapshot` sub-command.
    script = (f"'{LOADGEN}' --requests=20 --output='{first}' && kill -USR1 $PPID && sleep 0.5 && "
              f"'{LOADGEN}' --requests=20 --output='{second}' && '{RECORD}' snapshot {session}")
    try:
        rc, out, err = run_recorder(["--snapshot", "--no-kernel", "-n", session, "-o", trace, "--", "sh", "-c", script])
    finally:
        lttng("destroy", session)
    assert rc == 0, err
    snapshots = sorted(trace.glob("snapshot-*"), key=lambda p: int(p.name.rsplit("-", 1)[1]))
    assert len(snapshots) == 3, f"expected USR1, sub-command and final snapshots, got {snapshots}"
    assert str(snapshots[-1]) in out, "the printed command names the last snapshot"
    batches = [json.loads(p.read_text())["requests"] for p in (first, second)]
    in_first = {k[:2] for k in read_raw_spans(snapshots[0])}
    in_last = {k[:2] for k in read_raw_spans(snapshots[-1])}
    assert {(r["trace_id_high"], r["trace_id_low"]) for r in batches[0]} <= in_first
    everything = {(r["trace_id_high"], r["trace_id_low"]) for batch in batches for r in batch}
    assert everything <= in_last


def test_recorder_help_and_errors(tmp_path):
    rc, out, _ = run_recorder(["--help"])
    assert rc == 0
    for word in ("--snapshot", "--output", "--no-kernel", "--kernel", "snapshot SESSION", "vpid", "deepspan_ust:*"):
        assert word in out
    rc, _, err = run_recorder(["--frobnicate"])
    assert rc == 2 and "unknown option '--frobnicate'" in err
    rc, _, err = run_recorder(["-n", "bad name!", "--", "true"])
    assert rc == 2 and "session name 'bad name!'" in err
    rc, _, err = run_recorder(["-o", tmp_path, "--", "true"])
    assert rc == 2 and "already exists" in err


def test_recorder_says_when_kernel_tracing_is_unavailable(sessiond, tmp_path):
    if lttng("list", "-k").returncode == 0:
        pytest.skip("kernel tracing works on this machine")
    session = unique_session("kernel")
    try:
        rc, _, err = run_recorder(["--kernel", "-n", session, "-o", tmp_path / "k", "--", "true"])
    finally:
        lttng("destroy", session)
    assert rc == 1 and "kernel tracing is unavailable" in err
    rc, out, err = run_recorder(["-n", session, "-o", tmp_path / "auto", "--", "true"])
    assert rc == 0 and "recording user-space spans only" in err and "thread states are Unknown" in out


def test_default_diff_puts_the_slow_requests_in_group_b(shop_recording, plugin_dir, tmp_path):
    """The default diff (most frequent root, B = slowest 1 %) picks requests the loadgen made slow."""
    import bt2
    plugins = {p.name: p for p in bt2.find_plugins_in_path(str(plugin_dir))}
    require_class(plugins["deepspan"], "filter", "span-attrib")
    require_class(plugins["deepspan"], "sink", "diff")
    trace, measured = shop_recording
    report = tmp_path / "report"
    proc = run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.diff", "-p", f'output-dir="{report}",waterfalls=50',
                           plugin_dir=plugin_dir)
    group_b = re.search(r"^Group B: (\d+) requests? of (\d+) in its pool.*root loadgen: GET /checkout", proc.stdout, re.M)
    assert group_b, proc.stdout
    checkouts = sum(r["route"] == "/checkout" for r in measured["requests"])
    assert int(group_b.group(2)) >= checkouts, "the pool is the most frequent root operation"
    # report.html draws a waterfall of every B request (waterfalls=50 > |B|), titled with its trace id.
    html = (report / "report.html").read_text()
    in_b = {int(h, 16) for h in re.findall(r"Slowest B request #\d+: trace 0x([0-9a-f]{1,32})", html)}
    assert len(in_b) == int(group_b.group(1)) >= 1
    slow = {(r["trace_id_high"] << 64) | r["trace_id_low"] for r in measured["requests"] if r["slow"]}
    by_id = {(r["trace_id_high"] << 64) | r["trace_id_low"]: r for r in measured["requests"]}
    slowest = sorted(measured["requests"], key=lambda r: -r["latency_ns"])[:5]
    assert in_b <= slow, ("group B holds only requests made slow on purpose: B = "
                          f"{[(by_id[t]['index'], by_id[t]['latency_ns']) for t in in_b if t in by_id]}, "
                          f"slowest measured = {[(r['index'], r['slow'], r['latency_ns']) for r in slowest]}")
    # The explanation names the work a big cart does: pricing it and holding the store's lock.
    explain = (report / "explain.txt").read_text()
    causes = explain.split("Top causes", 1)[1].split("\n\n", 1)[0]
    assert "gateway: price cart" in causes and "store: reserve items" in causes, explain


# --- examples/python/analyze.py --------------------------------------------------------------------

ANALYZE = SRC_DIR / "examples" / "python" / "analyze.py"


def run_analyze(plugin_dir, *args):
    proc = subprocess.run(["/usr/bin/python3", str(ANALYZE), f"--plugin-path={plugin_dir}", *map(str, args)],
                          capture_output=True, text=True, timeout=300)
    return proc


def test_analyze_py_metrics_sink_and_python_table_agree(shop_recording, plugin_dir, bt2_plugin):
    require_class(bt2_plugin, "filter", "span-attrib")
    require_class(bt2_plugin, "sink", "metrics")
    trace, measured = shop_recording
    sink = run_analyze(plugin_dir, "--format=json", trace)
    assert sink.returncode == 0, sink.stderr
    rows = {f"{r['service']}: {r['operation']}": r for r in json.loads(sink.stdout)["rows"]}
    python = run_analyze(plugin_dir, "--python", trace)
    assert python.returncode == 0, python.stderr
    lines = python.stdout.splitlines()
    assert lines[0].split()[:7] == ["operation", "count", "mean", "p50", "p95", "p99", "max"]
    table = {}
    for line in lines[1:-1]:
        cells = re.split(r"\s{2,}", line.strip())
        table[cells[0]] = cells[1:]
    assert set(table) == set(rows)
    for frame, cells in table.items():
        row = rows[frame]
        assert int(cells[0]) == row["count"], frame
        for cell, column in zip(cells[1:6], ("mean", "p50", "p95", "p99", "max")):
            assert abs(float(cell) - row[column] / 1e6) < 0.0011, f"{frame} {column}: {cell} ms vs {row[column]} ns"
    checkouts = sum(r["route"] == "/checkout" for r in measured["requests"])
    assert rows["loadgen: GET /checkout"]["count"] >= checkouts
    assert rows["store: reserve items"]["count"] >= checkouts
    assert rows["loadgen: warm-up GET /checkout"]["count"] >= 5


def test_analyze_py_reports_bad_input(plugin_dir, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_analyze(plugin_dir, empty)
    assert proc.returncode != 0 and f"no CTF trace (no 'metadata' file) under {empty}" in proc.stderr
    proc = run_analyze(plugin_dir, tmp_path / "absent")
    assert proc.returncode != 0 and "is not a directory" in proc.stderr
    proc = run_analyze(plugin_dir, "--by=nope", empty)
    assert proc.returncode == 2 and "invalid choice: 'nope'" in proc.stderr
    proc = subprocess.run(["/usr/bin/python3", str(ANALYZE), f"--plugin-path={empty}", str(empty)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and f"no deepspan plugin in {empty}" in proc.stderr


def test_recorder_without_command_records_until_interrupted(sessiond, tmp_path):
    """No COMMAND: record whatever runs until SIGINT (Ctrl-C), then stop and print the command."""
    session = unique_session("ctrlc")
    trace = tmp_path / "trace"
    result = tmp_path / "loadgen.json"
    recorder = subprocess.Popen([str(RECORD), "--no-kernel", "-n", session, "-o", str(trace)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while f"Recording session {session}: [active]" not in lttng("list", session).stdout:
            assert recorder.poll() is None and time.monotonic() < deadline, "the session never started"
            time.sleep(0.1)
        subprocess.run([str(LOADGEN), "--requests=20", f"--output={result}"], check=True, timeout=120)
        recorder.send_signal(signal.SIGINT)
        try:
            out, err = recorder.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            # say where it waited: a second Ctrl-C stops the recorder's wait for `lttng stop`
            sessions = lttng("list", session).stdout
            processes = session_processes(recorder.pid)
            recorder.send_signal(signal.SIGINT)
            try:
                out, err = recorder.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                err = f"(still running 60 s after a second Ctrl-C; then:\n{session_processes(recorder.pid)})"
            pytest.fail(f"deepspan-record still ran 120 s after Ctrl-C; stderr:\n{err}\nlttng list:\n{sessions}\n"
                        f"processes at 120 s:\n{processes}")
    finally:
        if recorder.poll() is None:
            os.killpg(recorder.pid, signal.SIGKILL)
            recorder.communicate()
        lttng("destroy", session)
    assert recorder.returncode == 0, err
    assert "recording until Ctrl-C" in err and f"babeltrace2 {trace}" in out
    assert session not in lttng("list").stdout, "the session is destroyed"
    requests = json.loads(result.read_text())["requests"]
    recorded = {k[:2] for k in read_raw_spans(trace)}
    assert {(r["trace_id_high"], r["trace_id_low"]) for r in requests} <= recorded


def test_full_pipeline_on_the_recording(shop_recording, plugin_dir, bt2_plugin, tmp_path):
    """DESIGN.md's whole chain (sync, nodejs-ctx, span-attrib, diff) on a real one-host recording: sync has
    one host to align and nodejs-ctx no vnode events, so the explanation is that of span-attrib alone."""
    for kind, name in (("filter", "sync"), ("filter", "nodejs-ctx"), ("filter", "span-attrib"), ("sink", "diff")):
        require_class(bt2_plugin, kind, name)
    trace, _ = shop_recording
    explained = {}
    for label, chain in (("short", []), ("full", ["-c", "filter.deepspan.sync", "-c", "filter.deepspan.nodejs-ctx"])):
        out = tmp_path / label
        run_babeltrace2(trace, *chain, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                        "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}"', plugin_dir=plugin_dir)
        explained[label] = (out / "explain.txt").read_text()
        assert (out / "diff.folded").stat().st_size > 0
    assert explained["full"] == explained["short"]
