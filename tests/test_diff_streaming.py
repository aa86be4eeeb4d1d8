# SPDX-License-Identifier: MIT
"""Streaming requests out of memory in sink.deepspan.diff and sink.deepspan.metrics (doc/diff.md, *Memory*).

A request leaves memory once the stream is `grace` past its last span: the outputs must not depend on when
that happens (many batches or one at the end), and spans arriving after their request left are counted.
"""
import os
import re

import bt2
import pytest

from conftest import DIFF_OUTPUTS, run_babeltrace2
from span_fixtures import MS, Span, dispatch_request, error_text, run_sink

# About 37,000 spans: more than one batch of the request stream (32,768 spans).
SCENARIO = 'requests=1600,seed=11,cause="lock",slow-ratio=0.05,clock="none"'


def run_diff(out, grace, mode="critical-path", scenario=SCENARIO):
    proc = run_babeltrace2("-c", "source.deepspan.scenario", "-p", scenario,
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.diff", "-l", "I",
                           "-p", f'output-dir="{out}",summary=false,grace="{grace}",mode="{mode}"')
    m = re.search(r"(\d+) spans in (\d+) requests, at most (\d+) spans held at once \((\d+) batches\)",
                  proc.stderr)
    assert m, proc.stderr[-2000:]
    return [int(x) for x in m.groups()]


@pytest.mark.parametrize("mode", ["critical-path", "self"])
def test_streamed_outputs_equal_held_outputs(tmp_path, mode):
    spans, requests, held, batches = run_diff(tmp_path / "streamed", "1s", mode)
    spans_all, requests_all, held_all, _ = run_diff(tmp_path / "held", "1000s", mode)
    assert (spans, requests) == (spans_all, requests_all) and requests == 1600
    assert batches >= 2 and held < spans, "the default grace lets complete requests go"
    assert held_all == spans_all, "with a grace longer than the trace every span stays to the end"
    for name in DIFF_OUTPUTS:
        streamed = (tmp_path / "streamed" / name).read_bytes()
        held_out = (tmp_path / "held" / name).read_bytes()
        assert streamed == held_out, name


def test_chain_entries_start_batches(tmp_path):
    """Fewer spans than one batch (27,600) but about 340,000 chain entries: batches start by the chain entries
    of the complete requests (request-stream.c, BATCH_CHAIN_ENTRIES), with the outputs of one batch."""
    scenario = SCENARIO.replace("requests=1600", "requests=1200")
    spans, requests, held, batches = run_diff(tmp_path / "streamed", "1s", scenario=scenario)
    spans_all, _, held_all, batches_all = run_diff(tmp_path / "held", "1000s", scenario=scenario)
    assert spans == spans_all < 32768 and requests == 1200
    assert batches >= 2 and held < spans, "complete requests left by their chain entries"
    assert batches_all == 1 and held_all == spans_all
    for name in DIFF_OUTPUTS:
        assert (tmp_path / "streamed" / name).read_bytes() == (tmp_path / "held" / name).read_bytes(), name


def test_metrics_request_table_does_not_depend_on_batches(tmp_path):
    tables = []
    for grace in ("1s", "1000s"):
        out = tmp_path / f"requests-{grace}.csv"
        run_babeltrace2("-c", "source.deepspan.scenario", "-p", SCENARIO,
                        "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                        "-c", "sink.deepspan.metrics", "-p", f'by="request",format="csv",output="{out}",grace="{grace}"')
        tables.append(out.read_text())
    assert tables[0] == tables[1]
    assert len(tables[0].splitlines()) == 1601


def with_async_child(delay):
    """100 requests 100 ms apart; request 5 has an async child ending `delay` after its root."""
    spans = []
    for i in range(100):
        spans += dispatch_request(i + 1, i * 100 * MS, **({"mysql_block": 100 * MS} if i == 99 else {}))
    root = next(s for s in spans if s.trace == 5 and s.span_id == 1)
    spans.append(Span(5, 9, 1, "mailer", "send", root.begin + 1 * MS, root.end + delay, host="front", tid=12,
                      segments=[(root.begin + 1 * MS, root.end + delay, "user", "")]))
    return spans


def test_late_async_child_counted(bt2_plugin, tmp_path, capfd):
    out = tmp_path / "late"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "mode": "inclusive"}, with_async_child(2000 * MS),
             logging_level=bt2.LoggingLevel.WARNING)
    err = capfd.readouterr().err
    assert "1 spans arrived more than 1000000000 ns (parameter `grace`) after the last span of their request" \
        in err and "raise `grace`" in err
    explain = (out / "explain.txt").read_text()
    assert "Warning: 1 span arrived after its request was complete (left out; raise parameter `grace`)" in explain
    assert "mailer: send" not in (out / "a.folded").read_text()
    assert "raise parameter <code>grace</code>" in (out / "report.html").read_text()


def test_grace_keeps_async_child(bt2_plugin, tmp_path, capfd):
    out = tmp_path / "kept"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "mode": "inclusive", "grace": "5s"},
             with_async_child(2000 * MS), logging_level=bt2.LoggingLevel.WARNING)
    assert "parameter `grace`" not in capfd.readouterr().err
    assert "arrived after" not in (out / "explain.txt").read_text()
    a_folded = (out / "a.folded").read_text()
    assert "frontend: /dispatch;mailer: send;[User]" in a_folded


@pytest.mark.parametrize("sink, value, text", [
    ("diff", "soon", "parameter `grace`"),
    ("diff", -5, "parameter `grace`"),
    ("metrics", "1 week", "parameter `grace`"),
])
def test_bad_grace(bt2_plugin, tmp_path, sink, value, text):
    params = {"grace": value}
    if sink == "diff":
        params["output-dir"] = str(tmp_path / "o")
    with pytest.raises(bt2._Error) as info:
        run_sink(bt2_plugin, sink, params, dispatch_request(1, 0))
    assert text in error_text(info.value) and f"sink.deepspan.{sink}" in error_text(info.value)


def test_spill_file_removed(bt2_plugin, tmp_path):
    out = tmp_path / "clean"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, with_async_child(0))
    assert sorted(p.name for p in out.iterdir()) == sorted(DIFF_OUTPUTS)


def test_metrics_operation_percentiles_exact_over_many_chunks(tmp_path):
    """by=operation keeps span durations in chunks on disk; its percentiles equal a sort of every duration."""
    out = tmp_path / "op.csv"
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", SCENARIO,
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.metrics", "-p", f'by="operation",format="csv",output="{out}"')
    text = run_babeltrace2("-c", "source.deepspan.scenario", "-p", SCENARIO,
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false").stdout
    durations = {}
    for line in text.splitlines():
        m = re.search(r'service = "([^"]*)", operation = "([^"]*)".*?begin = (\d+), end = (\d+)', line)
        if m:
            durations.setdefault((m.group(1), m.group(2)), []).append(int(m.group(4)) - int(m.group(3)))
    rows = [line.split(",") for line in out.read_text().splitlines()[1:]]
    assert len(rows) == len(durations) and max(len(v) for v in durations.values()) > 4096
    for row in rows:
        values = sorted(durations[(row[0], row[1])])
        rank = lambda p: values[max(0, min(len(values) - 1, -(-p * len(values) // 100) - 1))]
        assert [int(row[2]), int(row[4]), int(row[5]), int(row[6]), int(row[7])] == \
            [len(values), rank(50), rank(95), rank(99), values[-1]], row[:2]


def test_metrics_tmpdir_not_writable(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path / "missing"))
    proc = run_babeltrace2("-c", "source.deepspan.scenario", "-p", "requests=5",
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.metrics", "-p", 'by="operation"', check=False, env=env)
    err = " ".join(proc.stderr.split())      # the CLI wraps long error lines
    assert proc.returncode != 0
    assert f"cannot create a temporary file in `{tmp_path / 'missing'}`" in err
    assert "set TMPDIR to a writable directory" in err
