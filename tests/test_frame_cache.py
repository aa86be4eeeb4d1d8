# SPDX-License-Identifier: MIT
"""Page cache per flame-graph frame (doc/diff.md, "Page cache"; doc/storage-network.md): span-attrib's member
`cache_reads` lists each read-family syscall of a span with its hit or miss, and sink.deepspan.diff gives every
frame of those syscalls its own hits, misses and time per group, in the SVG tooltips and explain.txt.  On the
scenario's `cache-miss` cause (the same file read in every request: a miss in the slow ones, a hit in the
others) the frame of the missing read shows one miss per request of B, the frame of the hits the hits of A,
as the simulator's truth says."""
import collections
import html
import json
import re

import pytest

from conftest import make_scenario_trace, run_babeltrace2
from test_chain_truth import key, slow_requests
from test_disk_bytes import _read

HERE = re.compile(r"Page cache here (A|B): (\d+) hits?, (\d+) miss(?:es)?; per request ([0-9.]+) hits \(([^)]*)\), "
                  r"([0-9.]+) misses \(([^)]*)\)")


def _tooltips(svg_path):
    """{frame label: [tooltip text]} of an SVG flame graph."""
    out = collections.defaultdict(list)
    for title in re.findall(r"<title>(.*?)</title>", svg_path.read_text(), re.S):
        text = html.unescape(title)
        out[text.split("\n", 1)[0]].append(text)
    return out


def _here(text):
    """{group: (hits, misses, hits per request, misses per request, hit ns, miss ns per request)} of a tooltip."""
    return {m.group(1): (int(m.group(2)), int(m.group(3)), float(m.group(4)), float(m.group(6)),
                         _ns(m.group(5)), _ns(m.group(7))) for m in HERE.finditer(text)}


def _ns(text):
    value, unit = re.fullmatch(r"([0-9.]+) (ns|µs|ms|s)", text).groups()
    return float(value) * {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}[unit]


@pytest.mark.parametrize("seed, hosts", [(1, 2), (8, 3)])
@pytest.mark.parametrize("mode", ["critical-path", "inclusive"])
def test_frame_of_the_missing_read_and_of_the_hits(tmp_path, bt2_plugin, seed, hosts, mode):
    truth_path = tmp_path / "truth.json"
    trace = make_scenario_trace(tmp_path / "trace", truth=truth_path, cause="cache-miss", seed=seed, hosts=hosts,
                                requests=100, clock="none", **{"slow-ratio": 0.2})
    truth = json.loads(truth_path.read_text())
    spans, _ = _read(bt2_plugin, trace)
    # span-attrib: each span's reads are its cache_* members, read by read
    for s in spans:
        reads = s["cache_reads"]
        assert [sum(1 for r in reads if r["miss"] == m) for m in (0, 1)] == [s["cache_hits"], s["cache_misses"]]
        assert sum(r["end"] - r["begin"] for r in reads if not r["miss"]) == s["cache_hit_time"]
        assert sum(r["end"] - r["begin"] for r in reads if r["miss"]) == s["cache_miss_time"]
        assert all(s["begin"] <= r["begin"] <= r["end"] <= s["end"] for r in reads)
    # groups: B = the truth's slow requests (their mysql read misses), A = the others (it hits)
    slow = set(slow_requests(truth))
    roots = {(s["trace_id_high"], s["trace_id_low"]): s["end"] - s["begin"] for s in spans
             if s["parent_span_id"] == 0}
    cut = (max(l for t, l in roots.items() if t not in slow) + min(l for t, l in roots.items() if t in slow)) // 2
    assert all((l > cut) == (t in slow) for t, l in roots.items())
    n_b, n_a = len(slow), len(roots) - len(slow)
    out = tmp_path / "r"
    run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}",mode="{mode}",'
                    f'group-b={{min-duration={cut}}},group-a={{max-duration={cut}}}')
    tips = _tooltips(out / "diff.svg")
    mysql = [s for s in spans if s["service"] == "mysql" and s["operation"] == "SQL SELECT"]
    assert len(mysql) == len(roots)
    truth_misses = {(s["trace_id_high"], s["trace_id_low"]): s["cache_misses"]
                    for s in truth["spans"] if s["service"] == "mysql"}
    assert sum(truth_misses[t] for t in slow) == n_b and not any(truth_misses[t] for t in roots if t not in slow)
    # the frame of the missing read: one miss per request of B, none in A; its time is the wait's
    blocked = [t for label, texts in tips.items() if label.startswith("[Waited blocked] pread64 \u2190 disk")
               for t in texts]
    assert len(blocked) == 1, list(tips)
    here = _here(blocked[0])
    assert here["B"][:2] == (0, n_b) and here["B"][3] == 1.0 and here["A"][:2] == (0, 0)
    b_mean = re.search(r"\nB: (\S+ \S+) per request", blocked[0]).group(1)
    assert here["B"][5] == pytest.approx(_ns(b_mean), rel=0.01)
    # the frame of the hits: the running part of every read, a hit per request of A (B's misses ran there
    # too); inclusive mode's flame graph is too wide to draw a frame of 6 us
    if mode == "inclusive":
        assert "[System call] pread64" not in tips
        return
    running = tips["[System call] pread64"]
    assert len(running) == 1
    here = _here(running[0])
    assert here["A"][:2] == (n_a, 0) and here["A"][2] == 1.0
    assert here["B"][:2] == (0, n_b)
    # its time: the hits' overlap with the span's `[System call] pread64` segments (an irq during a read is
    # the [Interrupted] frame's)
    hit_time = sum(max(0, min(r["end"], g["end"]) - max(r["begin"], g["begin"]))
                   for s in mysql if (s["trace_id_high"], s["trace_id_low"]) not in slow
                   for r in s["cache_reads"] if not r["miss"]
                   for g in s["segments"] if g["state"] == "syscall" and g["detail"] == "pread64")
    assert here["A"][4] == pytest.approx(hit_time / n_a, rel=0.01)
    # explain.txt: the top cause (the missing read's wait) says its page cache
    text = (out / "explain.txt").read_text()
    top = text.split("Top causes", 1)[1].split("\n  +", 2)[1]
    assert f"page cache of `[Waited blocked] pread64 \u2190 disk 259:0 read`: B: 0 hits, {n_b} miss" in top, top


def test_frame_cache_absent_without_layers_and_saved(tmp_path, bt2_plugin):
    """layers=false: no `cache_reads`, no per-frame page cache; a trace saved with sink.ctf.fs gives the
    same flame graphs and explain.txt as the direct run."""
    trace = make_scenario_trace(tmp_path / "trace", cause="cache-miss", seed=4, hosts=2, requests=100,
                                clock="none", **{"slow-ratio": 0.2})
    spans, _ = _read(bt2_plugin, trace, {"layers": False})
    assert spans and not any("cache_reads" in s for s in spans)
    run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false,layers=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "plain"}"')
    assert "Page cache here" not in (tmp_path / "plain" / "diff.svg").read_text()
    assert "page cache of" not in (tmp_path / "plain" / "explain.txt").read_text()
    run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "direct"}",summary=false')
    saved = tmp_path / "saved"
    run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.ctf.fs", "-p", f'path="{saved}"')
    run_babeltrace2(saved, "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "again"}",summary=false')
    for name in ("diff.svg", "a.svg", "b.svg", "explain.txt"):
        assert (tmp_path / "direct" / name).read_text() == (tmp_path / "again" / name).read_text(), name
    assert "Page cache here B: 0 hits" in (tmp_path / "direct" / "diff.svg").read_text()
