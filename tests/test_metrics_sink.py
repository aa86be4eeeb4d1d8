# SPDX-License-Identifier: MIT
"""sink.deepspan.metrics on hand-made span trees: exact numbers in every table and format, bad parameters."""
import csv
import io
import json

import bt2
import pytest

from conftest import run_babeltrace2
from span_fixtures import MS, dispatch_request, error_text, run_sink


@pytest.fixture(scope="module")
def spans():
    out = []
    for i in range(99):
        out += dispatch_request(i + 1, i * 100 * MS)
    out += dispatch_request(1000, 100 * 100 * MS, mysql_block=100 * MS)
    return out


def table(bt2_plugin, tmp_path, spans, by, fmt):
    path = tmp_path / f"{by}.{fmt}"
    run_sink(bt2_plugin, "metrics", {"by": by, "format": fmt, "output": str(path)}, spans)
    return path.read_text()


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_operation_csv(bt2_plugin, tmp_path, spans):
    rows = {r["service"]: r for r in csv_rows(table(bt2_plugin, tmp_path, spans, "operation", "csv"))}
    assert list(rows) == ["customer", "frontend", "mysql", "route"]
    assert rows["mysql"] == {
        "service": "mysql", "operation": "SELECT", "count": "100", "mean": "4000000.0", "p50": "3000000",
        "p95": "3000000", "p99": "3000000", "max": "103000000", "user": "2000000.0", "syscall": "1000000.0",
        "blocked": "1000000.0", "wait_cpu": "0.0", "interrupted": "0.0", "unknown": "0.0"}
    assert rows["frontend"]["mean"] == "11000000.0" and rows["frontend"]["max"] == "110000000"


def test_operation_json_markdown_text(bt2_plugin, tmp_path, spans):
    doc = json.loads(table(bt2_plugin, tmp_path, spans, "operation", "json"))
    assert doc["table"] == "operation"
    route = [r for r in doc["rows"] if r["service"] == "route"][0]
    assert route == {"service": "route", "operation": "GET /route", "count": 100, "mean": 2000000.0,
                     "p50": 2000000, "p95": 2000000, "p99": 2000000, "max": 2000000, "user": 2000000.0,
                     "syscall": 0.0, "blocked": 0.0, "wait_cpu": 0.0, "interrupted": 0.0, "unknown": 0.0}
    md = table(bt2_plugin, tmp_path, spans, "operation", "markdown").splitlines()
    assert md[0].split("|")[1:4] == [" service  ", " operation     ", " count "]
    assert set(md[1]) <= set("|-:") and md[1].count("|") == 15
    assert md[4].startswith("| mysql    | SELECT        |   100 |")
    text = table(bt2_plugin, tmp_path, spans, "operation", "text").splitlines()
    assert text[0].split() == ["service", "operation", "count", "mean", "p50", "p95", "p99", "max", "user",
                               "syscall", "blocked", "wait_cpu", "interrupted", "unknown"]
    assert text[3].split() == ["mysql", "SELECT", "100", "4000000.0", "3000000", "3000000", "3000000",
                               "103000000", "2000000.0", "1000000.0", "1000000.0", "0.0", "0.0", "0.0"]
    widths = {len(line) for line in text}
    assert len(widths) == 1  # aligned columns


def test_request_critical_path_states(bt2_plugin, tmp_path, spans):
    rows = csv_rows(table(bt2_plugin, tmp_path, spans, "request", "csv"))
    assert len(rows) == 100
    slow = [r for r in rows if r["trace_id"] == "0x000000000000000000000000000003e8"][0]
    assert slow == {"trace_id": "0x000000000000000000000000000003e8", "root": "frontend: /dispatch",
                    "spans": "4", "latency": "110000000", "truncated": "false", "user": "7000000",
                    "syscall": "3000000", "blocked": "100000000", "wait_cpu": "0", "interrupted": "0",
                    "unknown": "0"}
    for r in rows:
        states = sum(int(r[k]) for k in ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown"))
        assert states == int(r["latency"])


def test_syscall_and_thread(bt2_plugin, tmp_path, spans):
    rows = csv_rows(table(bt2_plugin, tmp_path, spans, "syscall", "csv"))
    assert rows == [
        {"service": "mysql", "operation": "SELECT", "syscall": "futex", "count": "1", "total": "100000000",
         "mean": "100000000.0", "max_per_span": "100000000"},
        {"service": "mysql", "operation": "SELECT", "syscall": "read", "count": "100", "total": "100000000",
         "mean": "1000000.0", "max_per_span": "1000000"},
    ]
    rows = csv_rows(table(bt2_plugin, tmp_path, spans, "thread", "csv"))
    mysql = [r for r in rows if r["tid"] == "30"][0]
    assert mysql == {"host": "cust", "pid": "100", "tid": "30", "spans": "100", "span_time": "400000000",
                     "user": "200000000", "syscall": "100000000", "blocked": "100000000", "wait_cpu": "0",
                     "interrupted": "0", "unknown": "0"}
    assert [r["tid"] for r in rows] == ["20", "30", "10", "11"]  # by host, then numeric pid/tid


def test_stdout_default(bt2_plugin, capfd, spans):
    run_sink(bt2_plugin, "metrics", {}, spans)
    out = capfd.readouterr().out.splitlines()
    assert out[0].startswith("service") and len(out) == 5


@pytest.mark.parametrize("params, text", [
    ({"by": "hosts"}, "parameter `by`"),
    ({"format": "xml"}, "parameter `format`"),
    ({"output": ""}, "parameter `output`: expected a file path"),
    ({"output": "/nonexistent-dir/x.csv"}, "parameter `output`: cannot write `/nonexistent-dir/x.csv`"),
    ({"sort": "count"}, "unknown parameter `sort`"),
    ({"by": 3}, "parameter `by`"),
])
def test_bad_parameters(bt2_plugin, params, text):
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "metrics", params, dispatch_request(1, 0))
    assert text in error_text(info.value) and "sink.deepspan.metrics" in error_text(info.value)


def test_bad_span_event(bt2_plugin):
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, "metrics", {}, dispatch_request(1, 0), schema={"drop": ["segments", "user"]})
    assert "lacks payload member `user`" in error_text(info.value)


def test_no_segments_member_is_fine(bt2_plugin, tmp_path):
    path = tmp_path / "r.csv"
    run_sink(bt2_plugin, "metrics", {"by": "request", "format": "csv", "output": str(path)},
             dispatch_request(1, 0, mysql_block=MS), schema={"drop": ["segments"]})
    rows = csv_rows(path.read_text())
    assert rows[0]["latency"] == "11000000"
    # Without segments, critical-path time is split over the state totals: exact sums still.
    states = sum(int(rows[0][k]) for k in ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown"))
    assert states == 11000000 and int(rows[0]["blocked"]) == 1000000


def test_help_lists_every_parameter():
    text = run_babeltrace2("help", "sink.deepspan.metrics").stdout
    for name in ("by", "format", "output", "operation", "request", "syscall", "thread", "text", "csv", "json",
                 "markdown", "grace"):
        assert name in text, name
    # every table of ds_metrics_by_names, and the tables the groups and grace apply to (doc/metrics.md)
    for table in ("operation", "request", "syscall", "thread", "culprit", "host", "disk"):
        assert f'"{table}": ' in text, table
    flat = " ".join(text.split())
    assert "group-a, group-b maps (by=culprit, by=host and by=disk only)" in flat, flat
    assert 'grace duration, default "1s" (by=request, by=culprit, by=host, by=disk)' in flat, flat
