# SPDX-License-Identifier: MIT
"""Exact bytes of the disk chain entries (doc/critical-path.md "Encoding", member `bytes` of a chain entry) and
the B / A bytes columns of sink.deepspan.metrics by="disk" (doc/metrics.md "By disk"): on the scenario's
`disk-contention` and `cache-miss` causes they equal the simulator's own bookkeeping (the truth's leaves) and an
independent sum over the trace's block_rq_* events written here; they survive a sink.ctf.fs save; a trace
written before the member existed says `unknown`; with layers=false the member is absent."""
import collections
import csv
import io
import json

import bt2
import pytest

from conftest import make_scenario_trace, run_babeltrace2
from span_attrib_support import payload_dict
from span_fixtures import Span, chain_entry, run_sink
from test_chain_truth import all_spans, key, slow_requests

SCENARIO = {"requests": 40, "clock": "none", "slow-ratio": 0.2, "truth-chains": True}


def _trace(tmp_path, cause, seed, hosts):
    truth_path = tmp_path / "truth.json"
    trace = make_scenario_trace(tmp_path / "trace", truth=truth_path, cause=cause, seed=seed, hosts=hosts,
                                **SCENARIO)
    return trace, json.loads(truth_path.read_text())


def _read(plugin, trace, attrib_params=None):
    """The deepspan:span payloads of `trace` through span-attrib, and its block_rq_* events per host."""
    spans, block = [], collections.defaultdict(list)
    for host_dir in sorted(p for p in trace.iterdir() if p.is_dir()):
        for metadata in host_dir.rglob("metadata"):
            if metadata.parent.name != "kernel":
                continue
            for msg in bt2.TraceCollectionMessageIterator(str(metadata.parent)):
                if type(msg) is bt2._EventMessageConst and msg.event.name.startswith("block_rq_"):
                    p = msg.event.payload_field
                    block[host_dir.name].append({
                        "name": msg.event.name, "ts": msg.default_clock_snapshot.ns_from_origin,
                        "dev": int(p["dev"]), "sector": int(p["sector"]), "nr_sector": int(p["nr_sector"]),
                        "bytes": int(p["bytes"]) if "bytes" in p else 0,
                        "tid": int(p["tid"]) if "tid" in p else -1})
    flt = bt2.ComponentSpec(plugin.filter_component_classes["span-attrib"],
                            dict({"pass-through": False}, **(attrib_params or {})))
    for msg in bt2.TraceCollectionMessageIterator(str(trace), [flt]):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "deepspan:span":
            spans.append(payload_dict(msg.event))
    return spans, block


def _groups(spans, truth):
    """B = the requests slower than a cut between two latencies (about the slowest fifth: most of the truth's
    slow requests), A = the others; returns B's trace ids and the cut."""
    roots = {(s["trace_id_high"], s["trace_id_low"]): s["end"] - s["begin"] for s in spans
             if s["parent_span_id"] == 0}
    latencies = sorted(set(roots.values()))
    i = len(latencies) * 4 // 5
    cut = (latencies[i - 1] + latencies[i]) // 2
    group_b = {t for t, l in roots.items() if l > cut}
    assert len(group_b & set(slow_requests(truth))) * 2 >= len(group_b)
    return group_b, cut


def _disk_children(chain):
    """(parent, entry, which) for the `device …` and `queued …` children of the disk entries of a chain."""
    for e in chain:
        if e["kind"] == "disk" and e["parent"] >= 0 and chain[e["parent"]]["kind"] == "disk":
            which = e["detail"].split(" ")[0]
            if which in ("device", "queued"):
                yield chain[e["parent"]], e, which


def _insert_of(events, issue):
    """The block_rq_insert of the request `issue` hands to the device (its submitter: the issue of the
    scenario's FIFO device runs in the disk irq, tid 0): the latest insert of its sector before it."""
    return max((b for b in events if b["name"] == "block_rq_insert" and b["sector"] == issue["sector"]
                and b["dev"] == issue["dev"] and b["ts"] <= issue["ts"]), key=lambda b: b["ts"])


def _table(trace, cut, attrib="pass-through=false"):
    text = run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", attrib,
                           "-c", "sink.deepspan.metrics", "-p",
                           f'by="disk",format="csv",group-b={{min-duration={cut}}},'
                           f'group-a={{max-duration={cut}}}').stdout
    return text, list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("cause, seed, hosts", [("disk-contention", 5, 2), ("disk-contention", 6, 3),
                                                ("cache-miss", 8, 3)])
def test_disk_bytes_equal_the_truth_and_the_block_events(tmp_path, bt2_plugin, cause, seed, hosts):
    trace, truth = _trace(tmp_path, cause, seed, hosts)
    spans, block = _read(bt2_plugin, trace)
    ours = {key(s): s for s in spans}
    slow, cut = _groups(spans, truth)
    # 1. every disk leaf's bytes is the truth's: device time = the read's bytes, queue time = the bytes of
    # the top submitter served ahead (backup.sh's writes)
    compared = 0
    for span in all_spans(truth):
        mine = ours[key(span)]
        for t_leaf in span["chain"]:
            if t_leaf["kind"] != "disk" or not t_leaf["detail"].startswith(("device ", "queued ")):
                continue
            match = [e for e in mine["chain"] if e["begin"] == t_leaf["begin"] and e["end"] == t_leaf["end"]
                     and e["kind"] == "disk" and e["tid"] == t_leaf["tid"]]
            assert len(match) == 1 and match[0]["bytes"] == t_leaf["bytes"], (t_leaf, match)
            assert t_leaf["bytes"] > 0 if t_leaf["detail"].startswith("device ") or " behind " in \
                t_leaf["detail"] else t_leaf["bytes"] == 0
            compared += 1
    assert compared >= len(slow)
    # 2. by="disk": the B and A bytes columns are the sums over each group's chains (each wait once per
    # request), and the bytes come from the block events: the block_rq_issue of the request completed at the
    # device leaf's end, the writes issued ahead while the read was queued (insert <= ts < issue)
    text, rows = _table(trace, cut)
    assert text.splitlines()[0].endswith(",b_bytes,a_bytes,b_ahead_bytes,a_ahead_bytes")
    expected = {g: collections.Counter() for g in "ba"}
    from_events = {g: collections.Counter() for g in "ba"}
    by_request = collections.defaultdict(list)
    for s in spans:
        by_request[(s["trace_id_high"], s["trace_id_low"])].append(s)
    for request, members in by_request.items():
        g = "b" if request in slow else "a"
        seen = set()
        for s in members:
            for parent, e, which in _disk_children(s["chain"]):
                if (parent["host"], parent["tid"], e["begin"], e["end"], which) in seen:
                    continue
                seen.add((parent["host"], parent["tid"], e["begin"], e["end"], which))
                column = "bytes" if which == "device" else "ahead_bytes"
                expected[g][(parent["host"], parent["tid"], column)] += e["bytes"]
                events = block[parent["host"]]
                if which == "device":
                    # the request completed at the leaf's end (its begin is the issue, or the wait's
                    # begin when the thread blocked after the issue), the size of its block_rq_issue
                    done = [b for b in events if b["name"] == "block_rq_complete" and b["ts"] == e["end"]]
                    assert len(done) == 1, (e, done)
                    issue = max((b for b in events if b["name"] == "block_rq_issue" and b["ts"] <= e["begin"]
                                 and b["sector"] == done[0]["sector"] and b["dev"] == done[0]["dev"]),
                                key=lambda b: b["ts"])
                    assert _insert_of(events, issue)["tid"] == parent["tid"]
                    size = issue["bytes"] or issue["nr_sector"] * 512
                else:
                    # the read's block_rq_issue is at the queue leaf's end; the writes of the leaf's
                    # submitter issued while the read was queued
                    issue = [b for b in events if b["name"] == "block_rq_issue" and b["ts"] == e["end"]]
                    assert len(issue) == 1, (e, issue)
                    issue = issue[0]
                    insert = _insert_of(events, issue)
                    assert insert["tid"] == parent["tid"]
                    size = sum(b["bytes"] or b["nr_sector"] * 512 for b in events
                               if b["name"] == "block_rq_issue" and insert["ts"] <= b["ts"] < issue["ts"]
                               and b["dev"] == issue["dev"] and _insert_of(events, b)["tid"] == e["tid"])
                from_events[g][(parent["host"], parent["tid"], column)] += size
    for g in "ba":
        got = collections.Counter()
        for r in rows:
            for column in ("bytes", "ahead_bytes"):
                got[(r["host"], int(r["tid"]), column)] += int(r[f"{g}_{column}"])
        assert +got == +expected[g] == +from_events[g]
    # the slow requests' reads: B holds their bytes; for disk-contention the writes queued ahead too
    assert sum(int(r["b_bytes"]) for r in rows) > 0
    if cause == "disk-contention":
        assert sum(int(r["b_ahead_bytes"]) for r in rows) >= 1024 * 1024
    else:
        assert sum(int(r["a_bytes"]) for r in rows) < sum(int(r["b_bytes"]) for r in rows)


def test_disk_bytes_survive_a_saved_trace(tmp_path, bt2_plugin):
    """span-attrib's output saved with sink.ctf.fs and read back gives the same by="disk" table, bytes
    included (the chain member `bytes` is in the saved trace)."""
    trace, truth = _trace(tmp_path, "disk-contention", 7, 2)
    spans, _ = _read(bt2_plugin, trace)
    _, cut = _groups(spans, truth)
    direct, rows = _table(trace, cut)
    assert sum(int(r["b_ahead_bytes"]) for r in rows) > 0
    saved = tmp_path / "saved"
    run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.ctf.fs", "-p", f'path="{saved}"')
    again = run_babeltrace2(saved, "-c", "sink.deepspan.metrics", "-p",
                            f'by="disk",format="csv",group-b={{min-duration={cut}}},'
                            f'group-a={{max-duration={cut}}}').stdout
    assert again == direct


def test_layers_false_has_no_bytes_member(tmp_path, bt2_plugin):
    trace, _ = _trace(tmp_path, "cache-miss", 2, 2)
    spans, _ = _read(bt2_plugin, trace, {"layers": False})
    assert spans and all(s["chain"] is not None for s in spans)
    assert all("bytes" not in e for s in spans for e in s["chain"])
    spans, _ = _read(bt2_plugin, trace)
    assert all("bytes" in e for s in spans for e in s["chain"])


def _old_disk_spans():
    """Two requests whose mysql read waited on the disk (chains as a trace written before `bytes`)."""
    out = []
    for trace, (begin, slow) in enumerate(((0, True), (100_000_000, False)), start=1):
        queue, device = (begin + 1_000, begin + 5_000), (begin + 5_000, begin + 9_000)
        end = begin + (10_000 if slow else 9_600)
        chain = [chain_entry(1, -1, 0, begin + 1_000, begin + 9_500, "blocked", "disk",
                             "pread64 \u2190 disk 259:0 read 16 KiB at sector 8", comm="mysqld", tid=7),
                 chain_entry(1, 0, 1, *queue, "blocked", "disk",
                             "queued 4.0 us behind 2 writes (1.0 MiB) of backup.sh/9", comm="backup.sh", tid=9),
                 chain_entry(1, 0, 1, *device, "blocked", "disk", "device 259:0: read 16 KiB",
                             comm="mysqld", tid=7),
                 chain_entry(1, 0, 1, begin + 9_000, begin + 9_500, "blocked", "irq",
                             "after completion: irq:nvme0q1", comm="mysqld", tid=7)]
        out.append(Span(trace=trace, span_id=1, parent=0, service="mysql", operation="SQL SELECT",
                        begin=begin, end=end, tid=7, chain=chain,
                        segments=[(begin, begin + 1_000, "user", ""),
                                  (begin + 1_000, begin + 9_500, "blocked", "pread64"),
                                  (begin + 9_500, end, "user", "")]))
    return out


def test_old_traces_say_unknown_bytes(bt2_plugin, tmp_path):
    """Chains without the member `bytes` (traces written before it): the B and A bytes columns of the rows
    they give say `unknown` (doc/metrics.md, "By disk"); the time columns are as before."""
    out = tmp_path / "disk.csv"
    run_sink(bt2_plugin, "metrics", {"by": "disk", "format": "csv", "output": str(out),
                                     "group-b": {"min-duration": 9_800}, "group-a": {"max-duration": 9_700}},
             _old_disk_spans())
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 1, rows
    row = rows[0]
    assert (row["submitter"], row["tid"], row["b_requests"], row["a_requests"]) == ("mysqld", "7", "1", "1")
    assert (row["b_queue"], row["b_device_time"]) == ("4000", "4000")
    assert [row[c] for c in ("b_bytes", "a_bytes", "b_ahead_bytes", "a_ahead_bytes")] == ["unknown"] * 4


def test_layers_false_disk_table_is_the_one_of_before(tmp_path, plugin_dir):
    """With layers=false there is no deepspan:disk event and no disk chain entry: the empty by="disk" table
    keeps the header of before the bytes columns (a warning says why it is empty)."""
    trace, _ = _trace(tmp_path, "cache-miss", 2, 2)
    proc = run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false,layers=false",
                           "-c", "sink.deepspan.metrics", "-p", 'by="disk",format="csv"')
    assert proc.stdout == ("host,device,submitter,tid,requests,writes,bytes,queue,device_time,queue_mean,"
                           "device_mean,b_requests,a_requests,b_queue,a_queue,b_device_time,a_device_time\n")
    assert "no deepspan:disk event" in proc.stderr
