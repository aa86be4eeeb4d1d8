# SPDX-License-Identifier: MIT
"""Cost of chains (doc/performance.md, "Chains"): span-attrib's memory stays flat in trace length, and nested
spans of a thread that share a waited segment get the same entries for it (the walk is shared, not redone)."""
import os
import subprocess

import pytest

from chain_support import chain_problems, scenario_spans
from conftest import BABELTRACE2, PLUGIN_DIR

TIME = "/usr/bin/time"


def _peak_rss_kib(requests, params):
    """Peak RSS (KiB) of scenario(requests) -> span-attrib(params) -> sink.utils.dummy, measured by GNU time
    (the rusage of a child forked from this Python process would count the Python image it was forked from)."""
    if not os.access(TIME, os.X_OK):
        pytest.skip(f"{TIME} (GNU time) is not installed")
    cmd = [TIME, "-f", "%M", BABELTRACE2, f"--plugin-path={PLUGIN_DIR}", "-c", "source.deepspan.scenario",
           "-p", f"requests={requests},seed=7", "-c", "filter.deepspan.span-attrib", "-p", params,
           "-c", "sink.utils.dummy"]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}"
    return int(proc.stderr.split()[-1])


def test_peak_rss_flat_in_trace_length():
    # A short window fills in the first second of the trace, so what still grows afterwards grows with the
    # trace's length.  Regression: every pooled deepspan:span event kept the field objects of the longest
    # chain it had carried, and ~20 were alive at once (+41% here for 10x the requests; now ~+17%).
    params = 'pass-through=false,chain-window="250ms"'
    short = _peak_rss_kib(250, params)
    long = _peak_rss_kib(2500, params)
    assert long <= short * 1.25, f"peak RSS {short} KiB at 250 requests, {long} KiB at 2,500 (> +25%)"


def _segment_entries(span, segment):
    """The entries of one segment, with the parents relative to the segment's first entry."""
    chain = span["chain"]
    first = next(i for i, e in enumerate(chain) if e["segment"] == segment)
    return [dict(e, segment=None, parent=e["parent"] - first if e["parent"] >= 0 else -1)
            for e in chain if e["segment"] == segment]


def test_nested_spans_share_a_segment_walk(bt2_plugin):
    spans = scenario_spans(bt2_plugin, {"requests": 60, "seed": 3})
    by_segment = {}
    shared = 0
    for span in spans:
        assert not chain_problems(span)
        for s, seg in enumerate(span["segments"]):
            if seg["state"] not in ("blocked", "wait_cpu"):
                continue
            key = (span["host"], span["tid"], seg["begin"], seg["end"], seg["state"])
            entries = _segment_entries(span, s)
            if key in by_segment:
                shared += 1
                assert entries == by_segment[key], f"span {span['span_id']}: segment {s} explained differently"
            else:
                by_segment[key] = entries
    assert shared > 0, "no waited segment shared by nested spans on one thread in this scenario"
