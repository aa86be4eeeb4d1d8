# SPDX-License-Identifier: MIT
"""Cause `disk-contention` of source.deepspan.scenario (doc/scenario.md): the mysql read of a slow request
queues on the device behind a burst of backup.sh's writes (FIFO device model).  filter.deepspan.span-attrib's
layers split (doc/storage-network.md "Storage") equals the simulator's chain truth to 0 ns, the queue time is
charged to backup.sh with the truth's write count and bytes, and the diff's and the metrics' top culprit is
backup.sh."""
import csv
import io
import json
import re
import subprocess

import pytest

from conftest import PLUGIN_DIR, REPORT_SCRIPT, make_scenario_trace, run_babeltrace2
from test_chain_truth import (all_spans, chain_truth_problems, key, run_truth, slow_requests,
                              top_cause)


def _queue_leaves(span):
    return [leaf for leaf in span["chain"] if leaf["kind"] == "disk" and leaf["detail"].startswith("queued ")]


@pytest.mark.parametrize("seed, hosts", [(1, 2), (2, 3), (3, 2), (4, 3)])
def test_truth_queues_the_slow_reads_behind_backup(tmp_path, plugin_dir, seed, hosts):
    truth = run_truth(tmp_path, "dc", requests=50, seed=seed, hosts=hosts, cause="disk-contention", clock="none",
                      **{"slow-ratio": 0.2})
    slow = slow_requests(truth)
    assert slow and all(r["cause"] == "disk-contention" and r["culprit"]["comm"] == "backup.sh"
                        for r in slow.values())
    queued = 0
    for span in truth["spans"]:
        if (span["trace_id_high"], span["trace_id_low"]) not in slow or span["service"] != "mysql":
            continue
        leaves = _queue_leaves(span)
        assert len(leaves) == 1, span["chain"]
        q = leaves[0]
        culprit = slow[(span["trace_id_high"], span["trace_id_low"])]["culprit"]
        # charged to the backup thread: "queued 18.8 ms behind 203 writes (50.8 MiB) of backup.sh/1150"
        assert (q["comm"], q["tid"], q["host"]) == ("backup.sh", culprit["tid"], culprit["host"])
        # (another slow request's read may be queued ahead too: "(+1 of others)")
        m = re.fullmatch(r"queued \S+ \S+ behind (\d+) writes \(\d+(\.\d)? MiB\) of backup\.sh/(\d+)"
                         r"( \(\+\d+ of others\))?", q["detail"])
        assert m and int(m.group(3)) == culprit["tid"], q["detail"]
        # FIFO: the read was issued when the last write served ahead of it completed (each 70-110 us)
        assert q["end"] - q["begin"] >= 70000 * (int(m.group(1)) - 1)
        devices = [leaf for leaf in span["chain"] if leaf["detail"].startswith("device 259:0")]
        assert len(devices) == 1 and devices[0]["begin"] == q["end"] and devices[0]["comm"] == "mysqld"
        queued += 1
    assert queued == len(slow)


@pytest.mark.parametrize("cause, seed, hosts", [("disk-contention", 5, 2), ("disk-contention", 6, 3),
                                                ("disk-contention", 7, 2), ("cache-miss", 8, 3)])
def test_span_attrib_disk_contention_equals_the_truth(tmp_path, bt2_plugin, cause, seed, hosts):
    queue_details = []

    def same_queue_text(span, mine):
        # the queue leaf's text (count, bytes, submitter) is the truth's, byte for byte
        for q in _queue_leaves(span):
            match = [leaf for leaf in mine if leaf["begin"] == q["begin"] and leaf["kind"] == "disk"]
            assert match and match[0]["detail"] == q["detail"], (q, match)
            queue_details.append(q)

    problems, compared = chain_truth_problems(tmp_path, bt2_plugin, cause, seed, hosts, same_queue_text)
    assert compared > 0 and queue_details
    assert not problems, problems[:5]


def test_diff_top_cause_names_backup(tmp_path, plugin_dir):
    out = tmp_path / "diff"
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", 'cause="disk-contention",requests=200,hosts=3,clock="none"',
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}"')
    top = top_cause((out / "explain.txt").read_text())
    assert "backup.sh" in top, top


def test_diff_on_drifting_clocks_names_backup_in_one_frame(tmp_path, plugin_dir):
    """With the hosts' default clocks (offsets and drift) and filter.deepspan.sync: the device's completion is
    scheduled on the simulation's time, not on the host's local clock (the slow requests took ~20 s when it
    was), and the queue frame is one frame whatever the count, size and duration of each request's queue."""
    out = tmp_path / "diff"
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", 'cause="disk-contention",requests=200,hosts=3,seed=3',
                    "-c", "filter.deepspan.sync",
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}"')
    text = (out / "explain.txt").read_text()
    latency_b = float(re.search(r"Group B: .* mean latency ([0-9.]+) ms", text).group(1))
    assert 20 < latency_b < 200, text[:600]
    top = top_cause(text)
    assert top.endswith("> backup.sh [Waited blocked] > queued behind writes of backup.sh and others"), top
    assert "behind" in top and not re.search(r"\d+ writes|MiB|/\d+", top), top


def test_report_metrics_culprit_names_backup_first(tmp_path, plugin_dir):
    trace = make_scenario_trace(tmp_path / "trace", requests=200, hosts=3, seed=8, cause="disk-contention",
                                clock="none")
    proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "--metrics", "culprit",
                           "-p", 'format="csv"', str(trace)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert rows and rows[0]["comm"] == "backup.sh", rows[:3]


# ---- cause cache-miss: per span page cache hits / misses against the truth ----

CACHE = ("cache_hits", "cache_misses", "cache_hit_time", "cache_miss_time")


@pytest.mark.parametrize("cause, seed, hosts", [("cache-miss", 1, 2), ("cache-miss", 2, 3), ("cache-miss", 9, 3),
                                                ("disk", 4, 2), ("disk-contention", 5, 3)])
def test_span_attrib_cache_members_equal_the_truth(tmp_path, bt2_plugin, cause, seed, hosts):
    """The mysql worker reads the same file (pread64) in every request: a hit (no block I/O) except for the slow
    requests, whose read misses (block_rq_insert/issue, D state, disk irq).  Every span's cache_* members equal
    the simulator's per-span counts and ns (doc/span-attrib.md), and the misses are exactly the slow requests'."""
    from test_storage_layers import _scenario_spans
    truth_path = tmp_path / "truth.json"
    spans = _scenario_spans(bt2_plugin, {"requests": 60, "seed": seed, "hosts": hosts, "cause": cause,
                                         "clock": "none", "slow-ratio": 0.2, "truth": str(truth_path)})
    truth = json.loads(truth_path.read_text())
    ours = {key(s): s for s in spans}
    slow = slow_requests(truth)
    assert slow
    problems, misses = [], 0
    for span in all_spans(truth):
        mine = ours.get(key(span))
        if mine is None:
            problems.append(("missing span", key(span)))
            continue
        if [span[k] for k in CACHE] != [mine[k] for k in CACHE]:
            problems.append((key(span), span["service"], span["operation"], [span[k] for k in CACHE],
                             [mine[k] for k in CACHE]))
        if span["service"] == "mysql":
            is_slow = (span["trace_id_high"], span["trace_id_low"]) in slow
            assert (span["cache_hits"], span["cache_misses"]) == ((0, 1) if is_slow else (1, 0)), span
            misses += span["cache_misses"]
    assert not problems, problems[:5]
    assert misses == len(slow)
    if cause == "cache-miss":
        # no writer on the device: a miss queues at most behind another slow request's read
        queued = [leaf["detail"] for s in spans for leaf in s["chain"] if leaf["detail"].startswith("queued ")]
        # (the request in service when a read was inserted is not "ahead" of it: issued before)
        assert all(re.fullmatch(r"queued \S+ \S+ (in the I/O scheduler|behind \d+ reads \(\d+ KiB\) of mysqld/\d+)", d)
                   for d in queued), queued
