# SPDX-License-Identifier: MIT
"""sink.deepspan.diff on hand-made span trees (tests/span_fixtures.py): exact folded numbers, the
explanation, groups, modes, two inputs, truncated and skewed input, bad parameters and bad input."""
import os
import pty
import subprocess
import sys

import bt2
import pytest

from conftest import PLUGIN_DIR, run_babeltrace2
from span_fixtures import MS, Span, dispatch_request, error_text, run_sink

BLOCKED = "[Waited blocked] futex \u2190 mysqld/4242"
MYSQL = "frontend: /dispatch;customer: GET /customer;mysql: SELECT"


def fast_and_one_slow(n_fast=99, **slow):
    spans = []
    for i in range(n_fast):
        spans += dispatch_request(i + 1, i * 100 * MS)
    spans += dispatch_request(1000, (n_fast + 1) * 100 * MS, **(slow or {"mysql_block": 100 * MS}))
    return spans


def folded(path):
    return sorted(path.read_text().splitlines())


def test_default_groups_and_exact_outputs(bt2_plugin, tmp_path, capfd):
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, fast_and_one_slow())
    stdout = capfd.readouterr().out
    top = f"+100.0 ms (100%)  frontend: /dispatch > customer: GET /customer > mysql: SELECT > {BLOCKED}"
    assert top in stdout
    assert f"Report: {out}/report.html" in stdout
    explain = (out / "explain.txt").read_text()
    assert "Group A: 50 requests of 100 in its pool, mean latency 10.0 ms" in explain
    assert "Group B: 1 request of 100 in its pool, mean latency 110.0 ms" in explain
    assert "latency percentiles [0, 50] (default)" in explain
    assert "leaves' differences sum to the latency difference exactly" in explain
    causes = explain.split("Top causes")[1].splitlines()
    assert causes[1].strip() == top
    assert folded(out / "a.folded") == sorted([
        "frontend: /dispatch;[User] 3000000",
        "frontend: /dispatch;route: GET /route;[User] 2000000",
        "frontend: /dispatch;customer: GET /customer;[System call] recvfrom 2000000",
        f"{MYSQL};[User] 2000000",
        f"{MYSQL};[System call] read 1000000",
    ])
    assert f"{MYSQL};{BLOCKED} 100000000" in folded(out / "b.folded")
    assert folded(out / "diff.folded") == sorted([
        "frontend: /dispatch;[User] 3000000 3000000",
        "frontend: /dispatch;route: GET /route;[User] 2000000 2000000",
        "frontend: /dispatch;customer: GET /customer;[System call] recvfrom 2000000 2000000",
        f"{MYSQL};[User] 2000000 2000000",
        f"{MYSQL};[System call] read 1000000 1000000",
        f"{MYSQL};{BLOCKED} 0 100000000",
    ])
    for name in ("diff.svg", "a.svg", "b.svg", "report.html"):
        assert (out / name).stat().st_size > 1000
    svg = (out / "diff.svg").read_text()
    assert 'fill="rgb(255,0,0)"' in svg  # the new blocked frame is pure red
    assert "new in B" in svg and "States B: " in svg


def test_group_maps_durations(bt2_plugin, tmp_path):
    out = tmp_path / "r"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "group-a": {"max-duration": "10ms"},
                                  "group-b": {"min-duration": "50ms", "root": "frontend: /dispatch"}},
             fast_and_one_slow(), )
    explain = (out / "explain.txt").read_text()
    assert "Group A: 99 requests" in explain and "latency <= 10000000 ns" in explain
    assert "Group B: 1 request " in explain and "latency >= 50000000 ns" in explain


def test_group_maps_percentiles_trace_id_window(bt2_plugin, tmp_path):
    spans = []
    for i in range(10):  # latencies 10 ms + i ms of blocking
        spans += dispatch_request(i + 1, i * 200 * MS, mysql_block=i * MS)
    out = tmp_path / "p"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "group-a": {"percentiles": [0, 20]},
                                  "group-b": {"percentiles": [80, 100.0]}}, spans)
    explain = (out / "explain.txt").read_text()
    assert "Group A: 2 requests" in explain and "mean latency 10.5 ms" in explain
    assert "Group B: 2 requests" in explain and "mean latency 18.5 ms" in explain
    out = tmp_path / "t"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "group-a": {"trace-id": 1},
                                  "group-b": {"trace-id": "0xa"}}, spans)
    explain = (out / "explain.txt").read_text()
    # 128-bit ids as 32 hex digits (they used to print the high half unpadded: 17 digits)
    assert "trace id 0x00000000000000000000000000000001)" in explain
    assert "trace id 0x0000000000000000000000000000000a)" in explain
    assert "Group A: 1 request " in explain and "Group B: 1 request " in explain
    assert f"+9.0 ms (100%)  frontend: /dispatch > customer: GET /customer > mysql: SELECT > {BLOCKED}" \
        in explain
    out = tmp_path / "w"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "group-a": {"end": 400 * MS},
                                  "group-b": {"begin": "1.8s", "min-self": "1ms", "max-self": "1s"}}, spans)
    explain = (out / "explain.txt").read_text()
    assert "Group A: 2 requests" in explain and "Group B: 1 request " in explain


def test_two_inputs_cpu_cause(bt2_plugin, tmp_path):
    before = [s for i in range(5) for s in dispatch_request(i + 1, i * 100 * MS)]
    after = [s for i in range(5) for s in dispatch_request(i + 1, i * 100 * MS, route_wait=20 * MS)]
    out = tmp_path / "ab"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False}, before, spans_b=after)
    explain = (out / "explain.txt").read_text()
    assert "Group A: 5 requests of 5" in explain and "Group B: 5 requests of 5" in explain
    assert "+20.0 ms (100%)  frontend: /dispatch > route: GET /route > [Waited CPU]" in explain


@pytest.mark.parametrize("mode, line", [
    ("inclusive", "frontend: /dispatch;[User] 10000000 110000000"),
    ("inclusive", f"{MYSQL};{BLOCKED} 0 100000000"),
    ("self", "frontend: /dispatch;[User] 3000000 3000000"),
    ("self", f"{MYSQL};[User] 2000000 2000000"),
])
def test_modes(bt2_plugin, tmp_path, mode, line):
    out = tmp_path / mode
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "mode": mode}, fast_and_one_slow())
    assert line in folded(out / "diff.folded")
    assert f"mode {mode}" in (out / "explain.txt").read_text()


def test_parallel_children_critical_path_vs_self(bt2_plugin, tmp_path):
    def request(trace, start, slow):
        b = start
        return [Span(trace, 1, 0, "api", "GET /", b, b + 100, host="x"),
                Span(trace, 2, 1, "db", "q1", b + 10, b + 80 + slow, host="y"),
                Span(trace, 3, 1, "cache", "get", b + 20, b + 60, host="y")]
    spans = request(1, 0, 0) + request(2, 1000, 10)
    out = tmp_path / "cp"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "group-a": {"trace-id": 1},
                                  "group-b": {"trace-id": 2}}, spans)
    lines = folded(out / "diff.folded")
    assert "api: GET /;db: q1;[User] 70 80" in lines
    assert not any("cache" in line for line in lines)  # hidden by db on the critical path
    out = tmp_path / "self"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "mode": "self", "group-a": {"trace-id": 1},
                                  "group-b": {"trace-id": 2}}, spans)
    assert "api: GET /;cache: get;[User] 40 40" in folded(out / "diff.folded")


def test_truncated_requests_left_out(bt2_plugin, tmp_path):
    spans = fast_and_one_slow()
    extra = dispatch_request(2000, 300 * 100 * MS, mysql_block=500 * MS)
    extra[2].truncated = True
    out = tmp_path / "tr"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, spans + extra, schema={"truncated": True})
    explain = (out / "explain.txt").read_text()
    assert "Left out: 1 request with truncated spans" in explain
    assert "mean latency 110.0 ms" in explain  # the 510 ms truncated request is not in B


def test_skew_warning(bt2_plugin, tmp_path, capfd):
    spans = fast_and_one_slow()
    spans += dispatch_request(3000, 400 * 100 * MS, host_skew=-1500_000)
    out = tmp_path / "sk"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, spans, logging_level=bt2.LoggingLevel.WARNING)
    err = capfd.readouterr().err
    assert err.count("filter.deepspan.sync") == 1 and "worst 500000 ns" in err
    explain = (out / "explain.txt").read_text()
    assert "1 cross-host child span outside its parent (worst 500.0 \u00b5s, customer: GET /customer on host cust" \
        in explain
    assert "add filter.deepspan.sync" in explain


def test_other_events_ignored(bt2_plugin, tmp_path):
    out = tmp_path / "x"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, fast_and_one_slow(), schema={"extra_event": True})
    assert "+100.0 ms (100%)" in (out / "explain.txt").read_text()


BAD_PARAMS = [
    ({"colour": 1}, "unknown parameter `colour`"),
    ({"mode": "fastest"}, "parameter `mode`"),
    ({"group-a": "slow"}, "parameter `group-a`: expected a map"),
    ({"group-a": {"percentiles": [60, 10]}}, "`group-a`: parameter `percentiles`: expected an array of two numbers"),
    ({"group-b": {"min-duration": "fast"}}, "`group-b`: parameter `min-duration`"),
    ({"group-b": {"trace-id": "xyz"}}, "parameter `trace-id`: expected a trace id"),
    ({"group-b": {"slowest": True}}, "unknown parameter `slowest`"),
    ({"white-band": 0.5, "saturation": 0.2}, "parameter `saturation`: expected a value greater than `white-band`"),
    ({"top": 0}, "parameter `top`"),
    ({"output-dir": ""}, "parameter `output-dir`: expected a directory path"),
]


@pytest.mark.parametrize("params, text", BAD_PARAMS, ids=[str(p) for p, _ in BAD_PARAMS])
def test_bad_parameters(bt2_plugin, tmp_path, params, text):
    params = {"output-dir": str(tmp_path / "o"), **params}
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "diff", params, fast_and_one_slow(5))
    assert text in error_text(info.value)
    assert "sink.deepspan.diff" in error_text(info.value)


def test_output_dir_not_writable(bt2_plugin, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "diff", {"output-dir": str(blocker / "sub")}, fast_and_one_slow(5))
    assert "parameter `output-dir`: cannot create directory" in error_text(info.value)
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o555)
        with pytest.raises(bt2._Error) as info:
            run_sink(bt2_plugin, "diff", {"output-dir": str(ro)}, fast_and_one_slow(5))
        assert "is not writable" in error_text(info.value)


def test_empty_group(bt2_plugin, tmp_path):
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "diff", {"output-dir": str(tmp_path / "e"), "group-b": {"min-duration": "10s"}},
                 fast_and_one_slow(5))
    assert "group B is empty" in error_text(info.value) and "widen parameter `group-b`" in error_text(info.value)


@pytest.mark.parametrize("schema, text", [
    ({"drop": ["host"]}, "lacks payload member `host`"),
    ({"retype": {"host": "u64"}}, "payload member `host` must be a string"),
    ({"retype": {"begin": "string"}}, "payload member `begin` must be an integer"),
])
def test_bad_span_events(bt2_plugin, tmp_path, schema, text):
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "diff", {"output-dir": str(tmp_path / "b")}, fast_and_one_slow(5), schema=schema)
    assert text in error_text(info.value)
    # the cause cites the user doc page that documents the payload, not DESIGN.md
    assert 'doc/span-attrib.md, "Output: deepspan:span"' in error_text(info.value)
    assert "DESIGN" not in error_text(info.value)


def test_no_spans(bt2_plugin, tmp_path):
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "diff", {"output-dir": str(tmp_path / "n")}, [])
    assert "no `deepspan:span` event reached this sink" in error_text(info.value)


def test_help_lists_every_parameter():
    text = run_babeltrace2("help", "sink.deepspan.diff").stdout
    for name in ("output-dir", "mode", "group-a", "min-duration", "max-duration", "min-self", "max-self",
                 "percentiles", "begin", "end", "root", "trace-id", "white-band", "saturation", "top",
                 "waterfalls", "skew-tolerance", "summary", "grace", "critical-path", "inclusive", "self"):
        assert name in text, name


PROGRESS_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
import bt2
from span_fixtures import dispatch_request, run_sink
plugin = {{p.name: p for p in bt2.find_plugins_in_path({plugin!r})}}["deepspan"]
run_sink(plugin, "diff", {{"output-dir": {out!r}, "summary": False}}, dispatch_request(1, 0) + dispatch_request(2, 10**9))
"""


def test_progress_only_on_a_terminal(tmp_path):
    script = PROGRESS_SCRIPT.format(tests=os.path.dirname(__file__), plugin=str(PLUGIN_DIR), out=str(tmp_path / "o"))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "sink.deepspan.diff:" not in proc.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=120) == 0
    os.close(master)
    assert b"sink.deepspan.diff: " in seen and b"spans" in seen and b"2 requests: writing the report" in seen


def test_blocked_time_named_after_syscall_and_waker(bt2_plugin, tmp_path):
    """A blocked segment right after a syscall segment is `[Waited blocked] SYSCALL ← WAKER`."""
    def request(trace, start, block):
        b = start
        return [Span(trace, 1, 0, "db", "query", b, b + 100 + block, segments=[
            (b, b + 40, "syscall", "futex"), (b + 40, b + 60 + block, "blocked", "mysqld/77"),
            (b + 60 + block, b + 70 + block, "wait_cpu", ""), (b + 70 + block, b + 100 + block, "user", "")])]
    out = tmp_path / "j"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "group-a": {"trace-id": 1}, "group-b": {"trace-id": 2}},
             request(1, 0, 0) + request(2, 1000, 30))
    assert "db: query;[Waited blocked] futex \u2190 mysqld/77 20 50" in folded(out / "diff.folded")


def test_corrupt_and_duplicated_spans_counted(bt2_plugin, tmp_path, capfd):
    spans = fast_and_one_slow(20)
    bad = dispatch_request(5000, 50 * 100 * MS)
    bad[3].begin, bad[3].end = bad[3].end, bad[3].begin  # route ends before it begins
    dup = dispatch_request(6000, 60 * 100 * MS)
    dup.append(Span(6000, 3, 2, "mysql", "SELECT", dup[2].begin, dup[2].end, host="cust", tid=31))
    out = tmp_path / "c"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False}, spans + bad + dup,
             logging_level=bt2.LoggingLevel.WARNING)
    explain = (out / "explain.txt").read_text()
    assert "Warning: 1 span with bounds out of range (left out with its request;" in explain
    assert "Warning: 1 duplicated span id (only the first is a parent)" in explain
    assert "Left out: 1 request with an invalid span (begin < 0, end < begin" in explain
    err = capfd.readouterr().err
    assert "1 spans have bounds out of range" in err and "1 of them end before they begin" in err
    assert "1 span ids appear twice" in err
