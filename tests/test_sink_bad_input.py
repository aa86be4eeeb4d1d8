# SPDX-License-Identifier: MIT
"""The diff and metrics sinks on broken span input (issue 11, defects 2, 3 and 8): span bounds out of
range, parent cycles, trees deeper than the fold depth, durations that overflow, and the messages that
say what was left out and why."""
import csv
import io
import xml.etree.ElementTree as ET

import bt2
import pytest

from conftest import run_babeltrace2
from span_fixtures import MS, Span, dispatch_request, error_text, run_sink

INT64_MIN = -(2 ** 63)
INT64_MAX = 2 ** 63 - 1


def fast_and_one_slow(n_fast=20):
    spans = []
    for i in range(n_fast):
        spans += dispatch_request(i + 1, (i + 1) * 100 * MS)
    spans += dispatch_request(1000, (n_fast + 1) * 100 * MS, mysql_block=100 * MS)
    return spans


def folded_total(path):
    return sum(int(line.rsplit(" ", 1)[1]) for line in path.read_text().splitlines())


def invalid_requests():
    """Three requests, each with one span whose bounds break the rule (0 <= begin <= end, totals fit)."""
    base = 500 * 100 * MS
    negative = dispatch_request(7001, base)
    negative[3].begin = -negative[3].begin  # a flipped sign bit
    negative[3].segments = [(negative[3].begin, negative[3].end, "user", "")]
    negative[3].states = negative[3]._states()
    minimum = dispatch_request(7002, base + 100 * MS)
    minimum[0].begin = INT64_MIN  # the root begins at INT64_MIN: this request used to vanish
    minimum[0].segments = [(0, minimum[0].end, "user", "")]
    states = dispatch_request(7003, base + 200 * MS)
    states[1].states = dict(states[1].states, blocked=2 ** 63 + 5)  # a state total longer than the span
    return negative + minimum + states


def syscall_request():
    """A request whose mysql span has a syscall total longer than the span (checked where syscalls are read)."""
    spans = dispatch_request(7004, 600 * 100 * MS)
    spans[2].syscalls = [("read", 1, 2 ** 62)]
    return spans


def test_invalid_spans_left_out_and_counted(bt2_plugin, tmp_path, capfd):
    out = tmp_path / "inv"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False},
             fast_and_one_slow() + invalid_requests(), logging_level=bt2.LoggingLevel.WARNING)
    explain = (out / "explain.txt").read_text()
    assert "Input: 96 spans, 24 requests" in explain  # the INT64_MIN request is counted, not lost
    assert "Left out: 3 requests with an invalid span (begin < 0, end < begin, or state or syscall " \
           "totals longer than the span: a corrupt trace)" in explain
    assert "Warning: 3 spans with bounds out of range (left out with their requests" in explain
    # The groups hold only the valid requests: nothing negative, nothing huge.
    assert "Group A: 11 requests of 21 in its pool, mean latency 10.0 ms" in explain
    assert "Group B: 1 request of 21 in its pool, mean latency 110.0 ms" in explain
    assert "-" not in (out / "a.folded").read_text() and "-" not in (out / "b.folded").read_text()
    err = capfd.readouterr().err
    assert "3 spans have bounds out of range" in err and "3 requests were left out of both groups" in err
    assert "duplicate" not in err and "parent cycles" not in err  # only non-zero counts are listed
    assert "end before they begin" not in err


def test_reversed_span_left_out(bt2_plugin, tmp_path):
    bad = dispatch_request(5000, 50 * 100 * MS)
    bad[3].begin, bad[3].end = bad[3].end, bad[3].begin  # route ends before it begins
    out = tmp_path / "rev"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False}, fast_and_one_slow() + bad)
    explain = (out / "explain.txt").read_text()
    assert "Left out: 1 request with an invalid span" in explain
    assert "Warning: 1 span with bounds out of range (left out with its request;" in explain
    assert "truncated" not in explain  # not counted as truncated any more


def test_every_request_invalid_says_why_the_group_is_empty(bt2_plugin, tmp_path):
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "diff", {"output-dir": str(tmp_path / "e")}, invalid_requests())
    text = error_text(info.value)
    assert "group A is empty" in text
    assert "0 requests in its pool of 3 requests read; left out before the groups: 3 requests with an " \
           "invalid span" in text
    assert "or fix the corrupt spans (doc/diff.md" in text


def test_empty_group_lists_only_non_zero_reasons(bt2_plugin, tmp_path):
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "diff", {"output-dir": str(tmp_path / "e"), "group-b": {"min-duration": "10s"}},
                 fast_and_one_slow(5))
    text = error_text(info.value)
    assert "group B is empty" in text and "left out before the groups: none" in text
    assert "truncated" not in text and "invalid" not in text


def test_invalid_spans_in_metrics(bt2_plugin, tmp_path, capfd):
    path = tmp_path / "op.csv"
    run_sink(bt2_plugin, "metrics", {"by": "operation", "format": "csv", "output": str(path)},
             fast_and_one_slow() + invalid_requests(), logging_level=bt2.LoggingLevel.WARNING)
    rows = {(r["service"], r["operation"]): r for r in csv.DictReader(io.StringIO(path.read_text()))}
    route = rows[("route", "GET /route")]
    assert int(route["count"]) == 23  # 21 valid + 2 valid route spans of the invalid requests
    assert float(route["mean"]) == 2 * MS
    frontend = rows[("frontend", "/dispatch")]
    assert int(frontend["count"]) == 23 and float(frontend["mean"]) > 0
    assert "3 spans have bounds out of range" in capfd.readouterr().err


def test_invalid_spans_in_metrics_by_request_and_syscall(bt2_plugin, tmp_path, capfd):
    path = tmp_path / "req.csv"
    run_sink(bt2_plugin, "metrics", {"by": "request", "format": "csv", "output": str(path)},
             fast_and_one_slow() + invalid_requests(), logging_level=bt2.LoggingLevel.WARNING)
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert len(rows) == 21 and all(int(r["latency"]) > 0 for r in rows)
    assert "left out with their requests" in capfd.readouterr().err
    path = tmp_path / "sys.csv"
    run_sink(bt2_plugin, "metrics", {"by": "syscall", "format": "csv", "output": str(path)},
             fast_and_one_slow() + invalid_requests() + syscall_request(), logging_level=bt2.LoggingLevel.WARNING)
    for row in csv.DictReader(io.StringIO(path.read_text())):
        assert 0 <= int(row["total"]) < 10 ** 12 and int(row["max_per_span"]) < 10 ** 12
    assert "4 spans have bounds out of range" in capfd.readouterr().err


def test_huge_but_valid_latencies_fail_cleanly(bt2_plugin, tmp_path):
    """Valid bounds whose sums leave int64: a clear error, never a wrapped negative mean."""
    spans = [Span(t, 1, 0, "api", "GET", 0, INT64_MAX - t, segments=[(0, INT64_MAX - t, "user", "")])
             for t in range(1, 5)]
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "diff", {"output-dir": str(tmp_path / "h"), "group-a": {"percentiles": [0, 100]},
                                      "group-b": {"percentiles": [0, 100]}}, spans)
    assert "exceeds 2^63 - 1 ns" in error_text(info.value)
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "metrics", {"by": "operation", "output": str(tmp_path / "m.txt")}, spans)
    assert "a total of row `api: GET` exceeds 2^63 - 1 ns" in error_text(info.value)
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "metrics", {"by": "culprit", "output": str(tmp_path / "c.txt"),
                                         "group-a": {"percentiles": [0, 100]}, "group-b": {"percentiles": [0, 100]}},
                 spans)
    # the culprit row named as its columns say: host, comm/tid (process), state, kind ("-": not in a chain)
    assert "a total of row `h1: -/101 (api), unknown, -` exceeds 2^63 - 1 ns" in error_text(info.value)


def test_parent_cycles_counted(bt2_plugin, tmp_path, capfd):
    spans = fast_and_one_slow()
    t = 300 * 100 * MS
    # A request whose spans 3 and 4 are each other's parent: they hang from no root.
    spans += [Span(8001, 1, 0, "api", "GET /", t, t + 10 * MS),
              Span(8001, 3, 4, "db", "q", t + MS, t + 2 * MS),
              Span(8001, 4, 3, "db", "q", t + 3 * MS, t + 4 * MS)]
    # A request made only of a cycle: no root at all.
    spans += [Span(8002, 1, 2, "api", "GET /", t, t + 5 * MS), Span(8002, 2, 1, "db", "q", t, t + 4 * MS)]
    out = tmp_path / "cyc"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False}, spans,
             logging_level=bt2.LoggingLevel.WARNING)
    explain = (out / "explain.txt").read_text()
    assert "Left out: 1 request made only of a parent cycle (no root span), 4 spans in parent cycles " \
           "(reachable from no root)" in explain
    err = capfd.readouterr().err
    assert "4 spans are in parent cycles" in err and "1 requests had no root span" in err


def chain(trace, depth, total):
    """A request of `depth` nested spans, each 10 ns inside its parent on both sides."""
    return [Span(trace, k, k - 1, "svc", f"level {k}", k * 10, total - k * 10,
                 segments=[(k * 10, total - k * 10, "user", "")]) for k in range(1, depth + 1)]


@pytest.mark.parametrize("mode", ["self", "critical-path", "inclusive"])
def test_deep_tree_folded_not_cut(bt2_plugin, tmp_path, mode):
    out = tmp_path / mode
    spans = chain(1, 600, 20_000) + chain(2, 600, 30_000)
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "mode": mode, "summary": False,
                                  "group-a": {"trace-id": 1}, "group-b": {"trace-id": 2}}, spans)
    explain = (out / "explain.txt").read_text()
    assert "Warning: 2 requests are deeper than 512 spans: the 174 spans below that depth are folded " \
           "into their ancestor at depth 512" in explain
    if mode != "inclusive":
        # Every nanosecond of the root is in the graph: nothing below the fold depth is lost.
        assert folded_total(out / "a.folded") == 20_000 - 20
        assert folded_total(out / "b.folded") == 30_000 - 20


@pytest.mark.parametrize("value, shown", [
    ('"9.3e18"', 'string "9.3e18"'),
    ('"1e30"', 'string "1e30"'),
    ('"9223372036854775808"', 'string "9223372036854775808"'),
    ('"9223372036854775808ns"', 'string "9223372036854775808ns"'),
    ("+9223372036854775808", "unsigned integer 9223372036854775808"),
    ('"2562048h"', 'string "2562048h"'),
])
def test_duration_overflow_is_a_parameter_error(tmp_path, value, shown):
    proc = run_babeltrace2("-c", "source.deepspan.scenario", "-p", "requests=5",
                           "-c", "filter.deepspan.span-attrib",
                           "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path}",grace={value}',
                           check=False)
    assert proc.returncode != 0
    stderr = " ".join(proc.stderr.split())  # the CLI wraps long causes
    assert ("sink.deepspan.diff: parameter `grace`: expected a duration of at most 9223372036854775807 ns "
            "(2^63 - 1, about 292 years; the accepted range is 0 to 9223372036854775807 ns), "
            f"got {shown}.") in stderr
    assert "-9223372036854775808" not in stderr


def test_duration_errors_in_group_maps_and_metrics(bt2_plugin, tmp_path):
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "diff", {"output-dir": str(tmp_path / "g"), "group-b": {"min-duration": "1e30"}},
                 fast_and_one_slow(5))
    assert "`group-b`: parameter `min-duration`: expected a duration of at most 9223372036854775807 ns" \
        in error_text(info.value) and 'got string "1e30"' in error_text(info.value)
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "metrics", {"grace": "9.3e18"}, fast_and_one_slow(5))
    assert "sink.deepspan.metrics: parameter `grace`: expected a duration of at most" in error_text(info.value)
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "metrics", {"grace": "soon"}, fast_and_one_slow(5))
    assert "parameter `grace`: expected a duration from 0 to 9223372036854775807 ns (2^63 - 1, about 292 " \
           'years): nanoseconds as an integer, or a string such as "800ns"' in error_text(info.value)


def test_largest_duration_accepted(bt2_plugin, tmp_path):
    out = tmp_path / "max"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "grace": "9223372036854775807", "summary": False},
             fast_and_one_slow(5))
    assert "Group B" in (out / "explain.txt").read_text()


def test_new_and_gone_sorted_by_magnitude(bt2_plugin, tmp_path):
    """explain.txt lists "New in B" and "Gone in B" largest first (the critical path meets them smallest first)."""
    def request(trace, prefix):
        t = trace * 200 * MS
        spans = [Span(trace, 1, 0, "api", "GET /", t, t + 100 * MS)]
        for span_id, (name, begin, end) in enumerate([("small", 90, 99), ("large", 10, 60), ("mid", 65, 85)], 2):
            spans.append(Span(trace, span_id, 1, "svc", f"{prefix}{name}", t + begin * MS, t + end * MS))
        return spans

    out = tmp_path / "ng"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False},
             request(1, "old-") + request(2, "old-"), spans_b=request(3, "new-") + request(4, "new-"))
    explain = (out / "explain.txt").read_text()
    new = explain.split("New in B (mean per B request):\n")[1].split("\n\n")[0].splitlines()
    gone = explain.split("Gone in B (mean per A request):\n")[1].split("\n\n")[0].splitlines()
    assert [line.split()[-1] for line in new] == ["new-large", "new-mid", "new-small"], new
    assert [line.split()[-1] for line in gone] == ["old-large", "old-mid", "old-small"], gone
    assert new[0].strip().startswith("50.0 ms")


def test_histogram_shows_a_handful_of_b_requests(bt2_plugin, tmp_path):
    """report.html's latency histogram has a logarithmic count axis: one B request next to hundreds of A
    requests in a bin is still a bar of readable height."""
    import re
    spans = []
    for i in range(400):
        spans += dispatch_request(i + 1, (i + 1) * 100 * MS)
    spans += dispatch_request(9000, 500 * 100 * MS, mysql_block=100 * MS)
    out = tmp_path / "hist"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False}, spans)
    page = (out / "report.html").read_text()
    histogram = page.split('<svg class="histogram"')[1].split("</svg>")[0]
    bars = re.findall(r'height="([\d.]+)" fill="[^"]+"><title>group ([AB]): (\d+) requests', histogram)
    heights = {(group, int(count)): float(h) for h, group, count in bars}
    assert ("B", 1) in heights and ("A", 201) in heights, heights
    assert heights[("B", 1)] >= 0.1 * heights[("A", 201)]  # linear: 1/201 of it, under one pixel
    assert ">1</text>" in histogram and ">100</text>" in histogram  # the log axis' ticks
    ET.fromstring('<svg class="histogram"' + histogram + "</svg>")


def test_cycle_warning_without_rootless_requests(bt2_plugin, tmp_path, capfd):
    t = 300 * 100 * MS
    spans = fast_and_one_slow() + [Span(8001, 1, 0, "api", "GET /", t, t + 10 * MS),
                                   Span(8001, 3, 4, "db", "q", t + MS, t + 2 * MS),
                                   Span(8001, 4, 3, "db", "q", t + 3 * MS, t + 4 * MS)]
    out = tmp_path / "cyc"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False}, spans,
             logging_level=bt2.LoggingLevel.WARNING)
    err = capfd.readouterr().err
    assert "2 spans are in parent cycles (a span is its own ancestor) and were left out: check" in err
    assert "no root span" not in err and "no root span" not in (out / "explain.txt").read_text()


def test_trace_ids_print_as_32_hex_digits(bt2_plugin, tmp_path, capfd):
    """Issue 11, defect 11: a 128-bit trace id whose high half is 0 printed as 0x0 + 16 digits (17)."""
    import re
    out = tmp_path / "ids"
    spans = fast_and_one_slow()
    spans += dispatch_request(0xab, 400 * 100 * MS, host_skew=-1500_000)  # a skewed child: the skew fact
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False, "group-b": {"trace-id": "0x3e8"}},
             spans, logging_level=bt2.LoggingLevel.WARNING)
    explain = (out / "explain.txt").read_text()
    assert "trace id 0x000000000000000000000000000003e8" in explain
    assert "trace 0x000000000000000000000000000000ab" in explain  # the worst skew's request
    page = (out / "report.html").read_text()
    assert "trace 0x000000000000000000000000000003e8, latency" in page  # the waterfall of the B request
    for text in (explain, page, capfd.readouterr().err):
        for digits in re.findall(r"\b0x([0-9a-f]+)\b", text):
            assert len(digits) == 32, digits


def test_thread_table_extreme_ids(bt2_plugin, tmp_path):
    """pid and tid are any int64 in the payload: the thread table sorts them numerically (no overflow)."""
    ids = [INT64_MAX, -1, 5, INT64_MIN, 0]
    spans = [Span(i + 1, 1, 0, "api", "GET", i * MS, i * MS + 100, pid=pid, tid=pid) for i, pid in enumerate(ids)]
    path = tmp_path / "thread.csv"
    run_sink(bt2_plugin, "metrics", {"by": "thread", "format": "csv", "output": str(path)}, spans)
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert [int(r["pid"]) for r in rows] == sorted(ids)
