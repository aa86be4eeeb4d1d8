# SPDX-License-Identifier: MIT
"""filter.deepspan.span-attrib on the real LTTng traces of ../shared/traces, and the enriched trace
written by sink.ctf.fs and read back by babeltrace2."""
import collections
import gc

import bt2
import pytest

from conftest import run_babeltrace2
from span_attrib_support import Source, run_kernel_trace_with_script

NS = 1_000_000_000


@pytest.mark.parametrize("trace", ["cat-kern-ust", "multi-domains"])
def test_real_traces_run_clean(shared_traces, trace):
    proc = run_babeltrace2(shared_traces / trace, "-c", "filter.deepspan.span-attrib", "-c", "sink.utils.counter")
    total = [line for line in proc.stdout.splitlines() if "messages (TOTAL)" in line]
    assert total, proc.stdout
    assert "E " not in proc.stderr.replace("W deepspan", "")


def _kernel_facts(kernel_dir):
    """Independent reading of the kernel trace: switches, frees, discards, in muxed order."""
    switches, frees, discards, times = [], [], [], []
    last_ts = None
    it = bt2.TraceCollectionMessageIterator(str(kernel_dir))
    for msg in it:
        if type(msg) is bt2._EventMessageConst:
            ts = msg.default_clock_snapshot.ns_from_origin
            times.append(ts)
            last_ts = ts
            ev = msg.event
            if ev.name == "sched_switch":
                switches.append((ts, int(ev.packet.context_field["cpu_id"]), int(ev["prev_tid"]), int(ev["next_tid"])))
            elif ev.name == "sched_process_free":
                frees.append((ts, int(ev["tid"])))
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            begin = msg.beginning_default_clock_snapshot.ns_from_origin
            discards.append(max(begin, last_ts) if last_ts is not None else begin)
    return switches, frees, discards, times


def _running_time(switches, frees, discards, begin, end):
    """ns each tid was the current thread of some CPU within [begin, end), from sched_switch alone."""
    events = [(sw[0], 0, sw) for sw in switches]
    events += [(d, 1, None) for d in discards]
    events += [(f[0], 2, f[1]) for f in frees]
    events.sort(key=lambda e: (e[0], e[1]))
    current = {}        # cpu -> (tid, since)
    where = {}          # tid -> cpu
    freed = set()
    total = collections.Counter()

    def close(cpu, ts):
        tid, since = current.pop(cpu)
        where.pop(tid, None)
        lo, hi = max(since, begin), min(ts, end)
        if hi > lo and tid not in freed:
            total[tid] += hi - lo

    for ts, kind, data in events:
        if kind == 1:
            for cpu in list(current):
                close(cpu, ts)
        elif kind == 2:
            freed.add(data)
        else:
            _, cpu, prev_tid, next_tid = data
            if cpu in current:
                close(cpu, ts)
            if next_tid > 0:
                if next_tid in where:            # a thread runs on one CPU at a time
                    close(where[next_tid], ts)
                current[cpu] = (next_tid, ts)
                where[next_tid] = cpu
    for cpu in list(current):
        close(cpu, end)
    return total


def test_cat_kern_ust_running_time_matches_sched_switch(shared_traces, bt2_plugin):
    kernel_dir = shared_traces / "cat-kern-ust" / "cat-kernel"
    switches, frees, discards, times = _kernel_facts(kernel_dir)
    first, last = times[0], times[-1]
    begin, end = first + (last - first) // 20, last - (last - first) // 20
    tids = sorted({sw[3] for sw in switches if sw[3] > 0})
    assert len(tids) > 20
    # one span per tid over [begin, end), emitted by a scripted UST trace of the same host
    script = [(begin, "wilbrod", "u", "deepspan_ust:span_start",
               dict(trace_id_high=0, trace_id_low=1, span_id=tid, parent_span_id=0, service="s", operation="o",
                    kind=0, vpid=tid, vtid=tid, procname="p")) for tid in tids]
    script += [(end, "wilbrod", "u", "deepspan_ust:span_end",
                dict(trace_id_high=0, trace_id_low=1, span_id=tid, status=1, vpid=tid, vtid=tid, procname="p"))
               for tid in tids]
    spans = run_kernel_trace_with_script(bt2_plugin, kernel_dir, script, {"segments": False, "pass-through": False})
    expected = _running_time(switches, frees, discards, begin, end)
    assert len(spans) == len(tids)
    mismatches = []
    for span in spans:
        assert sum(span[s] for s in ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")) == end - begin
        running = span["user"] + span["syscall"] + span["interrupted"]
        if running != expected.get(span["tid"], 0):
            mismatches.append((span["tid"], running, expected.get(span["tid"], 0)))
    assert not mismatches
    assert sum(expected.values()) > 0.05 * (end - begin)
    # the trace has syscalls and softirqs: the attribution must see them
    assert sum(s["syscall"] for s in spans) > 0 and sum(s["interrupted"] for s in spans) > 0


def test_enriched_trace_written_and_read_back(bt2_plugin, tmp_path):
    from test_span_attrib_graph import block_wake_script
    graph = bt2.Graph()
    src = graph.add_component(Source, "src", obj={"script": block_wake_script()})
    flt = graph.add_component(bt2_plugin.filter_component_classes["span-attrib"], "sa")
    sink = graph.add_component(bt2.find_plugin("ctf").sink_component_classes["fs"], "ctf",
                               params={"path": str(tmp_path / "out")}, logging_level=bt2.LoggingLevel.WARNING)
    graph.connect_ports(src.output_ports["out"], flt.input_ports["in0"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in"])
    graph.run()
    del graph, src, flt, sink
    gc.collect()
    span_dirs = [p.parent for p in (tmp_path / "out").rglob("metadata") if "deepspan" in str(p)]
    assert len(span_dirs) == 1, list((tmp_path / "out").rglob("metadata"))
    text = run_babeltrace2(span_dirs[0]).stdout
    lines = [line for line in text.splitlines() if "deepspan:span" in line]
    assert len(lines) == 1
    line = lines[0]
    for fragment in ('host = "h1"', 'service = "frontend"', "blocked = 30", "wait_cpu = 10",
                     'name = "futex", count = 1, duration = 55', 'state = ( "blocked" : container = 2 )',
                     'detail = "mysqld/300"'):
        assert fragment in line, line
    # and the whole enriched trace (kernel, ust, spans) reads back with the original events
    everything = run_babeltrace2(tmp_path / "out").stdout
    assert "sched_switch" in everything and "deepspan_ust:span_end" in everything


def test_bad_parameters_cli(shared_traces):
    proc = run_babeltrace2(shared_traces / "multi-domains", "-c", "filter.deepspan.span-attrib",
                           "-p", 'state-rule="linux"', "-c", "sink.utils.dummy", check=False)
    assert proc.returncode != 0
    assert "state-rule" in proc.stderr and "linux" in proc.stderr and "tracecompass" in proc.stderr


def test_help_documents_parameters():
    proc = run_babeltrace2("help", "filter.deepspan.span-attrib")
    for text in ("pass-through=BOOL", "segments=BOOL", "state-rule=STRING", "tracecompass", "deepspan:span"):
        assert text in proc.stdout
    # every parameter the component accepts (known_params of span-attrib.c, doc/span-attrib.md "Parameters")
    for name in ("pass-through", "segments", "state-rule", "follow-wakeups", "chain-depth", "chain-window",
                 "layers", "host-context", "cross-host-file", "end-time", "clock-formula"):
        assert f"  {name}=" in proc.stdout, name
