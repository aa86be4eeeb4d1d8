# SPDX-License-Identifier: MIT
"""Layers of filter.deepspan.span-attrib (doc/storage-network.md): block requests split a disk wait into queue
and device time, the queue time is charged to the writer served ahead, read-family syscalls are page-cache hits
or misses, missing kernel event families are reported once per host, and `layers=false` gives the output
without any of it.  Python bt2 graphs on scripted lttng-modules 2.13 event layouts, and the real traces."""
import collections
import csv
import gc
import io
import json

import bt2
import pytest

from conftest import run_babeltrace2
from scenario_fixtures import scenario_class
from span_attrib_support import S64, STATES, STR, U64, payload_dict, run_script
from test_span_attrib_chain import _real_spans
from test_span_attrib_graph import HOST, end, kev, start, sw

DEV = (8 << 20) | 16
BLOCK_RQ = [("dev", U64), ("sector", U64), ("nr_sector", U64), ("bytes", U64), ("tid", S64), ("rwbs", U64),
            ("comm", STR)]
FIELDS = {
    "block_rq_insert": BLOCK_RQ,
    "block_rq_issue": BLOCK_RQ,
    "block_rq_complete": [("dev", U64), ("sector", U64), ("nr_sector", U64), ("error", S64), ("rwbs", U64)],
    "lttng_statedump_block_device": [("dev", U64), ("diskname", STR)],
    "sched_wakeup": [("comm", STR), ("tid", S64), ("prio", S64), ("target_cpu", S64)],
    "irq_handler_entry": [("irq", S64), ("name", STR)],
    "irq_handler_exit": [("irq", S64), ("ret", S64)],
}
WRITE, READ = 1, 0


def rq(ts, cpu, name, sector, nr, tid, comm, rwbs):
    return kev(ts, cpu, name, dev=DEV, sector=sector, nr_sector=nr, bytes=0, tid=tid, rwbs=rwbs, comm=comm)


def contention_script():
    """app/100 (span 1): a read that hits, then a pread64 that misses: its request waits in the queue while
    backup.sh/3120 has 4 writes of 512 KiB issued ahead of it; completion on CPU 1, wakeup at 9_001."""
    s = [kev(0, 1, "lttng_statedump_block_device", dev=DEV, diskname="sdb"),
         sw(0, 0, 0, 0, 100, prev_comm="swapper/0"), sw(0, 2, 0, 0, 3120, prev_comm="swapper/2",
                                                       next_comm="backup.sh"),
         start(10, 100, 1),
         kev(100, 0, "syscall_entry_read"), kev(300, 0, "syscall_exit_read", ret=10),
         kev(900, 0, "syscall_entry_pread64"),
         rq(1_000, 0, "block_rq_insert", 5_000, 8, 100, "app", READ),
         sw(1_010, 0, 100, 1, 0, next_comm="swapper/0")]
    for i in range(4):
        t = 1_500 + i * 1_000
        s += [rq(t, 2, "block_rq_insert", i * 1024, 1024, 3120, "backup.sh", WRITE),
              rq(t + 100, 2, "block_rq_issue", i * 1024, 1024, 3120, "backup.sh", WRITE),
              kev(t + 400, 1, "irq_handler_entry", irq=40, name="nvme0q1"),
              kev(t + 400, 1, "block_rq_complete", dev=DEV, sector=i * 1024, nr_sector=1024, error=0, rwbs=WRITE),
              kev(t + 401, 1, "irq_handler_exit", irq=40, ret=1)]
    s += [rq(5_000, 2, "block_rq_issue", 5_000, 8, 100, "app", READ),
          kev(9_000, 1, "irq_handler_entry", irq=40, name="nvme0q1"),
          kev(9_000, 1, "block_rq_complete", dev=DEV, sector=5_000, nr_sector=8, error=0, rwbs=READ),
          kev(9_001, 1, "sched_wakeup", comm="app", tid=100, prio=20, target_cpu=0),
          kev(9_002, 1, "irq_handler_exit", irq=40, ret=1),
          sw(9_010, 0, 0, 0, 100, prev_comm="swapper/0"),
          kev(9_020, 0, "syscall_exit_pread64", ret=4096),
          end(10_000, 100, 1)]
    return s


def test_disk_wait_split_and_charged_to_the_writer(bt2_plugin, capfd):
    _, spans = run_script(bt2_plugin, contention_script(), fields=FIELDS)
    assert len(spans) == 1
    span = spans[0]
    chain = span["chain"]
    disk = [e for e in chain if e["kind"] == "disk" and e["depth"] == 0]
    assert len(disk) == 1
    top = disk[0]
    assert (top["begin"], top["end"]) == (1_010, 9_001)
    assert top["detail"] == "pread64 \u2190 disk sdb (8:16) read 4 KiB at sector 5000"
    children = [e for e in chain if e["parent"] == chain.index(top)]
    # children partition the disk entry exactly, in time order
    assert children[0]["begin"] == top["begin"] and children[-1]["end"] == top["end"]
    assert all(a["end"] == b["begin"] for a, b in zip(children, children[1:]))
    queue, device, after = children
    assert (queue["begin"], queue["end"], queue["tid"], queue["comm"]) == (1_010, 5_000, 3120, "backup.sh")
    assert queue["detail"] == "queued 4.0 us behind 4 writes (2 MiB) of backup.sh/3120"
    assert (device["begin"], device["end"], device["tid"]) == (5_000, 9_000, 100)
    assert device["detail"] == "device sdb (8:16): read 4 KiB"
    assert (after["kind"], after["detail"], after["begin"], after["end"]) == (
        "irq", "after completion: irq:nvme0q1", 9_000, 9_001)
    # page cache: the read hit (no block I/O), the pread64 missed
    assert (span["cache_hits"], span["cache_hit_time"]) == (1, 200)
    assert (span["cache_misses"], span["cache_miss_time"]) == (1, 9_020 - 900)
    # no timer or network events in this host's kernel trace: one warning with the line that records them
    err = " ".join(capfd.readouterr().err.split())
    assert ("host `h1`: no kernel events of the timers, network families (timer wakeups are not named; network "
            "waits are not followed to the sender); record them with `lttng enable-event -k "
            "timer_hrtimer_expire_entry,timer_hrtimer_expire_exit,timer_expire_entry,timer_expire_exit,"
            "net_dev_queue,net_if_receive_skb` (doc/storage-network.md, \"Recording the events\").") in err
    assert err.count("no kernel events of the") == 1


def test_layers_false_is_the_output_without_layers(bt2_plugin, capfd):
    _, on = run_script(bt2_plugin, contention_script(), fields=FIELDS)
    capfd.readouterr()
    _, off = run_script(bt2_plugin, contention_script(), params={"layers": False}, fields=FIELDS)
    assert "no kernel events of the" not in capfd.readouterr().err
    layer_members = ("cache_hits", "cache_misses", "cache_hit_time", "cache_miss_time", "cache_reads")
    assert not any(m in off[0] for m in layer_members)
    # with layers, each read: the hit read [100, 300) and the missing pread64 [900, 9_020)
    assert on[0]["cache_reads"] == [{"begin": 100, "end": 300, "miss": 0}, {"begin": 900, "end": 9_020, "miss": 1}]
    # the host context members (doc/host-context.md) follow the layers ones: without layers, they follow `chain`
    assert list(off[0])[-3:] == ["chain", "host_window", "host_context"]
    # the disk wait is today's single leaf
    disk = [e for e in off[0]["chain"] if e["kind"] == "disk"]
    assert [(e["begin"], e["end"], e["detail"], e["depth"]) for e in disk] == [
        (1_010, 9_001, "pread64 \u2190 disk dev 8:16", 0)]
    # everything else is equal
    rest_on = {k: v for k, v in on[0].items() if k not in layer_members + ("chain",)}
    rest_off = {k: v for k, v in off[0].items() if k != "chain"}
    assert rest_on == rest_off
    # chains, layers and host context off: no member after `truncated`
    _, plain = run_script(bt2_plugin, contention_script(),
                          params={"layers": False, "follow-wakeups": False, "host-context": False}, fields=FIELDS)
    assert list(plain[0])[-1] == "truncated"


def test_layers_parameter_error(bt2_plugin):
    with pytest.raises(bt2._Error) as exc:
        run_script(bt2_plugin, contention_script(), params={"layers": "yes"}, fields=FIELDS)
    text = str(exc.value)
    assert "layers" in text and "a boolean" in text


@pytest.mark.parametrize("dirs", [["cat-kern-ust/cat-kernel"], ["synctraces/scp_src", "synctraces/scp_dest"]])
def test_real_traces_with_and_without_layers(shared_traces, bt2_plugin, dirs):
    """The real traces (block_rq_insert/issue/complete of lttng-modules 2.1 and 2.x layouts, statedump block
    devices) run clean with layers: one span per thread (chains off: test_span_attrib_chain checks them), the state
    totals equal layers=false, and each read-family syscall of a span is counted once (hit or miss)."""
    kernel_dirs = [shared_traces / d for d in dirs]
    # without chains and host context: the per-thread spans over 90% of the trace would carry tens of thousands
    # of entries each (minutes in Python); test_span_attrib_chain checks the chains of these traces, layers on
    quick = {"follow-wakeups": False, "host-context": False}
    on = _real_spans(bt2_plugin, kernel_dirs, quick)
    off = _real_spans(bt2_plugin, kernel_dirs, dict(quick, layers=False))
    assert len(on) == len(off) > 0
    key = lambda s: (s["host"], s["span_id"])
    off_by = {key(s): s for s in off}
    reads = 0
    for span in on:
        assert [span[s] for s in STATES] == [off_by[key(span)][s] for s in STATES]
        count = sum(c["count"] for c in span["syscalls"] if c["name"] in ("read", "pread64", "readv", "preadv",
                                                                       "preadv2"))
        # a read open when the span began or ended is not counted (it ends outside the span)
        assert span["cache_hits"] + span["cache_misses"] <= count
        assert span["cache_hit_time"] + span["cache_miss_time"] <= span["syscall"] + span["blocked"] + \
            span["wait_cpu"] + span["interrupted"]
        reads += span["cache_hits"] + span["cache_misses"]
    if dirs[0].startswith("cat-kern-ust"):
        assert reads > 1000


def _scenario_spans(bt2_plugin, params, attrib_params=None):
    src = bt2.ComponentSpec(scenario_class(), params)
    flt = bt2.ComponentSpec(bt2_plugin.filter_component_classes["span-attrib"],
                            dict({"pass-through": False}, **(attrib_params or {})))
    out = []
    for msg in bt2.TraceCollectionMessageIterator([src], [flt]):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "deepspan:span":
            out.append(payload_dict(msg.event))
    return out


@pytest.mark.parametrize("seed, hosts", [(3, 2), (11, 3)])
def test_scenario_disk_reads_hit_or_miss_as_the_truth(tmp_path, bt2_plugin, seed, hosts):
    """cause=disk: the mysql worker reads the same file (pread64) in every SQL SELECT; the slow requests' read
    misses the page cache (block_rq_issue, D state, disk irq), the others hit.  Each read is counted once, a
    miss exactly when the simulator's truth says the request is slow, and its chain holds the device time."""
    truth_path = tmp_path / "truth.json"
    spans = _scenario_spans(bt2_plugin, {"requests": 60, "seed": seed, "hosts": hosts, "cause": "disk",
                                         "clock": "none", "slow-ratio": 0.2, "truth": str(truth_path)})
    truth = json.loads(truth_path.read_text())
    slow = {(r["trace_id_high"], r["trace_id_low"]) for r in truth["requests"] if r["slow"]}
    assert slow and all(r["cause"] == "disk" for r in truth["requests"] if r["slow"])
    reads = [s for s in spans if s["service"] == "mysql" and s["operation"] == "SQL SELECT"]
    assert len(reads) == len(truth["requests"])
    for s in reads:
        is_slow = (s["trace_id_high"], s["trace_id_low"]) in slow
        assert (s["cache_hits"], s["cache_misses"]) == ((0, 1) if is_slow else (1, 0))
        pread = [c for c in s["syscalls"] if c["name"] == "pread64"]
        assert s["cache_hit_time"] + s["cache_miss_time"] == pread[0]["duration"]
        devices = [e for e in s["chain"] if e["kind"] == "disk" and e["detail"].startswith("device 259:0")]
        assert len(devices) == (1 if is_slow else 0)
    # the metrics table by operation sums them (columns present only with the layers members)
    text = run_babeltrace2("-c", "source.deepspan.scenario", "-p",
                           f'requests=60,seed={seed},hosts={hosts},cause="disk",clock="none",slow-ratio=0.2',
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.metrics", "-p", 'format="csv"').stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    mysql = [r for r in rows if r["service"] == "mysql" and r["operation"] == "SQL SELECT"][0]
    misses = sum(1 for s in reads if s["cache_misses"])
    assert (int(mysql["cache_hits"]), int(mysql["cache_misses"])) == (len(reads) - misses, misses)
    assert float(mysql["cache_miss_mean"]) == pytest.approx(
        sum(s["cache_miss_time"] for s in reads) / misses, abs=0.05)
    plain = run_babeltrace2("-c", "source.deepspan.scenario", "-p",
                            f'requests=60,seed={seed},hosts={hosts},cause="disk",clock="none",slow-ratio=0.2',
                            "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false,layers=false",
                            "-c", "sink.deepspan.metrics", "-p", 'format="csv"').stdout
    assert plain.splitlines()[0] == ("service,operation,count,mean,p50,p95,p99,max,user,syscall,blocked,wait_cpu,"
                                     "interrupted,unknown")
    assert [l.split(",")[:14] for l in plain.splitlines()] == [l.split(",")[:14] for l in text.splitlines()]


class _AllPorts(bt2._UserSinkComponent):
    """Collects (ts_ns, event name, payload dict, cpu) from every connected port, without a muxer."""

    def __init__(self, config, params, obj):
        self._out = obj["out"]
        self._iters = []
        for i in range(obj["ports"]):
            self._add_input_port(f"in{i}")

    def _user_graph_is_configured(self):
        self._iters = [self._create_message_iterator(p) for p in self._input_ports.values()]

    def _user_consume(self):
        if not self._iters:
            raise bt2.Stop
        done = []
        for it in self._iters:
            try:
                for _ in range(200):
                    msg = next(it)
                    if type(msg) is bt2._EventMessageConst and msg.event.name.startswith("block_rq_"):
                        ev = msg.event
                        self._out.append((msg.default_clock_snapshot.ns_from_origin, ev.name,
                                          {k: (str(v) if isinstance(v, bt2._StringFieldConst) else int(v))
                                           for k, v in ev.payload_field.items()
                                           if not isinstance(v, (bt2._ArrayFieldConst,))}))
            except StopIteration:
                done.append(it)
        self._iters = [it for it in self._iters if it not in done]


def _block_events(kernel_dir):
    ctf = bt2.find_plugin("ctf").source_component_classes["fs"]
    graph = bt2.Graph()
    src = graph.add_component(ctf, "src", params={"inputs": [str(kernel_dir)]})
    ports = list(src.output_ports.values())
    out = []
    sink = graph.add_component(_AllPorts, "sink", obj={"out": out, "ports": len(ports)})
    for i, port in enumerate(ports):
        graph.connect_ports(port, sink.input_ports[f"in{i}"])
    graph.run()
    out.sort(key=lambda e: e[0])
    return out


def _independent_disk_table(events):
    """Per (device, submitter comm): requests, writes, bytes, queue, device time, pairing the block_rq_* events
    by (dev, sector) in time order: insert (else issue: a direct issue) → issue → complete."""
    inflight = collections.defaultdict(list)   # (dev, sector) -> [request dicts, oldest first]
    rows = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
    for ts, name, p in events:
        key = (p["dev"], p["sector"])
        size = p.get("bytes", 0) or p["nr_sector"] * 512
        if name == "block_rq_insert":
            inflight[key].append(dict(insert=ts, issue=None, bytes=size, comm=p["comm"],
                                      write=bool(p["rwbs"] & 1)))
        elif name == "block_rq_issue":
            queued = [r for r in inflight[key] if r["issue"] is None]
            if queued:
                queued[0]["issue"] = ts
                if p["nr_sector"] or p.get("bytes", 0):
                    queued[0]["bytes"] = size   # the size at dispatch (merges not recorded)
            else:
                inflight[key].append(dict(insert=ts, issue=ts, bytes=size, comm=p["comm"],
                                          write=bool(p["rwbs"] & 1)))
        elif name == "block_rq_complete":
            issued = [r for r in inflight[key] if r["issue"] is not None] or inflight[key]
            if not issued:
                continue
            r = issued[0]
            inflight[key].remove(r)
            issue = r["issue"] if r["issue"] is not None else ts
            row = rows[("%d:%d" % (p["dev"] >> 20, p["dev"] & 0xFFFFF), r["comm"])]
            for i, v in enumerate((1, int(r["write"]), r["bytes"], issue - r["insert"], ts - issue)):
                row[i] += v
    return dict(rows)


@pytest.mark.parametrize("host_dir", ["synctraces/scp_src", "synctraces/scp_dest", "cat-kern-ust/cat-kernel"])
def test_disk_table_of_real_traces_equals_an_independent_sum(shared_traces, bt2_plugin, tmp_path, host_dir):
    """sink.deepspan.metrics by="disk" on a real trace equals the block_rq_* events paired here, summed per
    device and submitter name: request counts, writes, bytes, queue and device time to the ns."""
    kernel_dir = shared_traces / host_dir
    expected = _independent_disk_table(_block_events(kernel_dir))
    assert expected and sum(r[0] for r in expected.values()) >= 9
    ctf = bt2.find_plugin("ctf").source_component_classes["fs"]
    graph = bt2.Graph()
    src = graph.add_component(ctf, "src", params={"inputs": [str(kernel_dir)]})
    flt = graph.add_component(bt2_plugin.filter_component_classes["span-attrib"], "sa",
                              params={"pass-through": False})
    table = tmp_path / "disk.json"
    sink = graph.add_component(bt2_plugin.sink_component_classes["metrics"], "m",
                               params={"by": "disk", "format": "json", "output": str(table)})
    for i, port in enumerate(src.output_ports.values()):
        graph.connect_ports(port, flt.input_ports[f"in{i}"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in"])
    graph.run()
    del graph, src, flt, sink
    gc.collect()
    got = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
    for row in json.loads(table.read_text())["rows"]:
        device = row["device"].rsplit("(", 1)[-1].rstrip(")")   # "sdb (8:16)" -> "8:16"
        for i, column in enumerate(("requests", "writes", "bytes", "queue", "device_time")):
            got[(device, row["submitter"])][i] += int(row[column])
    assert dict(got) == expected


@pytest.mark.parametrize("seed, hosts", [(3, 2)])
def test_metrics_by_request_page_cache_columns(tmp_path, bt2_plugin, seed, hosts):
    """cause=disk: sink.deepspan.metrics by="request" gives per request the sums of its spans' page-cache
    members; the slow requests (truth) are the ones with a miss; with layers=false the columns are absent and
    the rest of the table is the same."""
    params = f'requests=60,seed={seed},hosts={hosts},cause="disk",clock="none",slow-ratio=0.2'
    truth_path = tmp_path / "truth.json"
    spans = _scenario_spans(bt2_plugin, {"requests": 60, "seed": seed, "hosts": hosts, "cause": "disk",
                                         "clock": "none", "slow-ratio": 0.2, "truth": str(truth_path)})
    truth = json.loads(truth_path.read_text())
    slow = {"0x%016x%016x" % (r["trace_id_high"], r["trace_id_low"]) for r in truth["requests"] if r["slow"]}
    expected = collections.defaultdict(lambda: [0, 0, 0])
    for s in spans:
        tid = "0x%016x%016x" % (s["trace_id_high"], s["trace_id_low"])
        expected[tid][0] += s["cache_hits"]
        expected[tid][1] += s["cache_misses"]
        expected[tid][2] += s["cache_miss_time"]
    text = run_babeltrace2("-c", "source.deepspan.scenario", "-p", params,
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.metrics", "-p", 'by="request",format="csv"').stdout
    header = text.splitlines()[0]
    assert header.endswith(",unknown,cache_hits,cache_misses,cache_miss_time")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == len(truth["requests"]) == len(expected)
    for r in rows:
        got = [int(r["cache_hits"]), int(r["cache_misses"]), int(r["cache_miss_time"])]
        assert got == expected[r["trace_id"]]
        assert (got[1] > 0) == (r["trace_id"] in slow)
        assert got[0] + got[1] >= 1
    assert all(int(r["cache_miss_time"]) > 0 for r in rows if r["trace_id"] in slow)
    plain = run_babeltrace2("-c", "source.deepspan.scenario", "-p", params,
                            "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false,layers=false",
                            "-c", "sink.deepspan.metrics", "-p", 'by="request",format="csv"').stdout
    assert plain.splitlines()[0] == header[:-len(",cache_hits,cache_misses,cache_miss_time")]
    assert [l.split(",")[:11] for l in plain.splitlines()] == [l.split(",")[:11] for l in text.splitlines()]


def _chain_disk_sums(spans):
    """Independent of the sink: per (host, device, comm, tid) of the waiting thread, the requests (device
    leaves), queue time and device time of the disk entries of the spans' chains, each wait counted once
    however many spans' chains show it."""
    seen, sums = set(), collections.defaultdict(lambda: [0, 0, 0])
    for s in spans:
        chain = s["chain"]
        for e in chain:
            if e["kind"] != "disk" or e["parent"] < 0 or chain[e["parent"]]["kind"] != "disk":
                continue
            parent = chain[e["parent"]]
            which = e["detail"].split(" ")[0]
            if which not in ("device", "queued"):
                continue
            if (parent["host"], parent["tid"], e["begin"], e["end"], which) in seen:
                continue
            seen.add((parent["host"], parent["tid"], e["begin"], e["end"], which))
            head = parent["detail"].split("\u2190 disk ")[1].split(" at sector ")[0]
            device = head.rsplit(" read ", 1)[0] if " read " in head else head.rsplit(" write ", 1)[0]
            row = sums[(parent["host"], device, parent["comm"], parent["tid"])]
            if which == "device":
                row[0] += 1
                row[2] += e["end"] - e["begin"]
            else:
                row[1] += e["end"] - e["begin"]
    return sums


@pytest.mark.parametrize("seed, hosts", [(3, 2), (11, 3)])
def test_metrics_by_disk_groups_b_and_a(tmp_path, bt2_plugin, seed, hosts):
    """cause=disk: by="disk" with B = the slow requests (truth) and A = the others gives per device and
    waiting thread the requests, queue and device time of each group's chains: B holds all the slow requests'
    device time, A none, and both equal a sum over the spans' chains written here."""
    params = f'requests=60,seed={seed},hosts={hosts},cause="disk",clock="none",slow-ratio=0.2'
    truth_path = tmp_path / "truth.json"
    spans = _scenario_spans(bt2_plugin, {"requests": 60, "seed": seed, "hosts": hosts, "cause": "disk",
                                         "clock": "none", "slow-ratio": 0.2, "truth": str(truth_path)})
    truth = json.loads(truth_path.read_text())
    slow = {(r["trace_id_high"], r["trace_id_low"]) for r in truth["requests"] if r["slow"]}
    roots = {(s["trace_id_high"], s["trace_id_low"]): s["end"] - s["begin"] for s in spans
             if s["parent_span_id"] == 0}
    slow_min = min(l for t, l in roots.items() if t in slow)
    fast_max = max(l for t, l in roots.items() if t not in slow)
    assert fast_max < slow_min
    cut = (fast_max + slow_min) // 2
    text = run_babeltrace2("-c", "source.deepspan.scenario", "-p", params,
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.metrics", "-p",
                           f'by="disk",format="csv",group-b={{min-duration={cut}}},'
                           f'group-a={{max-duration={cut}}}').stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    assert text.splitlines()[0].endswith(",device_mean,b_requests,a_requests,b_queue,a_queue,b_device_time,"
                                         "a_device_time,b_bytes,a_bytes,b_ahead_bytes,a_ahead_bytes")
    groups = {"b": [s for s in spans if (s["trace_id_high"], s["trace_id_low"]) in slow],
              "a": [s for s in spans if (s["trace_id_high"], s["trace_id_low"]) not in slow]}
    for g, members in groups.items():
        expected = _chain_disk_sums(members)
        got = {(r["host"], r["device"], r["submitter"], int(r["tid"])):
               [int(r[f"{g}_requests"]), int(r[f"{g}_queue"]), int(r[f"{g}_device_time"])] for r in rows}
        assert {k: v for k, v in got.items() if any(v)} == dict(expected)
    # B: every slow request's read missed and its SQL SELECT span's device leaf is in B (a request waiting on
    # another worker's read is charged that wait too, so B may hold more)
    slow_device = sum(e["end"] - e["begin"] for s in groups["b"]
                      if s["service"] == "mysql" and s["operation"] == "SQL SELECT"
                      for e in s["chain"] if e["kind"] == "disk" and e["detail"].startswith("device "))
    assert slow_device > 0
    assert sum(int(r["b_device_time"]) for r in rows) >= slow_device
    assert sum(int(r["b_requests"]) for r in rows) >= len(slow)
    # A's reads hit the cache: its disk time is only waits on other requests' reads, far less per request
    n_a = len(roots) - len(slow)
    assert sum(int(r["a_device_time"]) for r in rows) * len(slow) < sum(int(r["b_device_time"]) for r in rows) * n_a
    # the whole-trace columns are unchanged by the groups
    whole = run_babeltrace2("-c", "source.deepspan.scenario", "-p", params,
                            "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                            "-c", "sink.deepspan.metrics", "-p", 'by="disk",format="csv"').stdout
    assert [l.split(",")[:11] for l in whole.splitlines()] == [l.split(",")[:11] for l in text.splitlines()]


def test_diff_flame_graph_page_cache_of_the_groups(tmp_path, bt2_plugin):
    """cause=disk: the top frame's tooltip of sink.deepspan.diff's flame graphs gives each group's page-cache
    hits, misses and miss time, the sums over the spans of the group's requests; absent with layers=false."""
    params = 'requests=60,seed=3,hosts=2,cause="disk",clock="none",slow-ratio=0.2'
    truth_path = tmp_path / "truth.json"
    spans = _scenario_spans(bt2_plugin, {"requests": 60, "seed": 3, "hosts": 2, "cause": "disk",
                                         "clock": "none", "slow-ratio": 0.2, "truth": str(truth_path)})
    truth = json.loads(truth_path.read_text())
    slow = {(r["trace_id_high"], r["trace_id_low"]) for r in truth["requests"] if r["slow"]}
    roots = {(s["trace_id_high"], s["trace_id_low"]): s["end"] - s["begin"] for s in spans
             if s["parent_span_id"] == 0}
    cut = (max(l for t, l in roots.items() if t not in slow) + min(l for t, l in roots.items() if t in slow)) // 2
    groups = f'group-b={{min-duration={cut}}},group-a={{max-duration={cut}}}'
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", params,
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "r"}",{groups}')
    svg = (tmp_path / "r" / "diff.svg").read_text()
    for name, members in (("A", [s for s in spans if (s["trace_id_high"], s["trace_id_low"]) not in slow]),
                          ("B", [s for s in spans if (s["trace_id_high"], s["trace_id_low"]) in slow])):
        hits = sum(s["cache_hits"] for s in members)
        misses = sum(s["cache_misses"] for s in members)
        line = [l for l in svg.splitlines() if l.startswith(f"Page cache {name}: ")]
        assert len(line) == 1
        assert line[0].startswith(f"Page cache {name}: {hits} hit{'' if hits == 1 else 's'}, "
                                  f"{misses} miss{'' if misses == 1 else 'es'} (")
    # the slow requests missed, the others hit (the truth of the cause)
    assert "Page cache B: 0 hits, %d misses (" % len(slow) in svg
    assert "Page cache A: %d hits, 0 misses (0 ns)" % (len(roots) - len(slow)) in svg
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", params,
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false,layers=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "p"}",{groups}')
    assert "Page cache" not in (tmp_path / "p" / "diff.svg").read_text()
