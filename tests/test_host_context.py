# SPDX-License-Identifier: MIT
"""Host context (doc/host-context.md): filter.deepspan.span-attrib's `host_window` / `host_context` members,
sink.deepspan.metrics by="host", and the diff sink's "What changed on the machine" table.

- parameters: bad values name the parameter and what was expected;
- encoding: the members come last, and host-context=false changes nothing else;
- the scenario causes `cpu` (a CPU hog runs on the hosts of the route service while slow requests run) and `irq`
  (an irq storm on the host of the redis service): the table ranks the hog process / the storm's handler first,
  on the host the scenario truth puts them on;
- the real kernel trace `cat-kern-ust`: the window's disk bytes equal an independent sum of block_rq_issue, and
  its CPU time equals the per-thread user + system call time of the same pass;
- the real traces run clean with by="host".
"""
import collections
import csv
import io
import json

import bt2
import pytest

from chain_support import scenario_spans
from conftest import run_babeltrace2
from span_attrib_support import ONE_SPAN_SCRIPT, run_kernel_trace_with_script, run_script, strip_details_members
from span_fixtures import error_text

TIME_KINDS = ("cpu", "irq", "softirq", "vector", "run-queue")


def _scenario_args(params):
    parts = []
    for key, value in params.items():
        parts.append(f'{key}="{value}"' if isinstance(value, str) else f"{key}={value}")
    return ["-c", "source.deepspan.scenario", "-p", ",".join(parts)]


def _host_table(params, fmt="csv", span_attrib="pass-through=false"):
    proc = run_babeltrace2(*_scenario_args(params), "-c", "filter.deepspan.span-attrib", "-p", span_attrib,
                           "-c", "sink.deepspan.metrics", "-p", f'by="host",format="{fmt}"')
    return proc.stdout


def _rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def _hosts_of(truth, service):
    return {s["host"] for s in truth["spans"] if s["service"] == service}


# ---- parameters ----

def test_bad_host_context_parameter(bt2_plugin):
    graph = bt2.Graph()
    with pytest.raises(bt2._Error) as exc:
        graph.add_component(bt2_plugin.filter_component_classes["span-attrib"], "sa", params={"host-context": "yes"})
    message = error_text(exc.value)
    assert "filter.deepspan.span-attrib: parameter `host-context`: expected a boolean" in message


def test_bad_metrics_by_lists_host(bt2_plugin):
    graph = bt2.Graph()
    with pytest.raises(bt2._Error) as exc:
        graph.add_component(bt2_plugin.sink_component_classes["metrics"], "m", params={"by": "hosts"})
    message = error_text(exc.value)
    assert "parameter `by`: expected one of the strings" in message
    assert '"culprit", "disk", "host"' in message and "hosts" in message


def test_groups_apply_to_the_host_table(bt2_plugin):
    graph = bt2.Graph()
    graph.add_component(bt2_plugin.sink_component_classes["metrics"], "m",
                        params={"by": "host", "group-b": {"min-duration": 1}})
    with pytest.raises(bt2._Error) as exc:
        bt2.Graph().add_component(bt2_plugin.sink_component_classes["metrics"], "m",
                                  params={"by": "operation", "group-b": {"min-duration": 1}})
    assert 'parameter `group-b` only applies to the table by culprit: add by="culprit" (or by="host")' in \
        error_text(exc.value)


# ---- encoding ----

def _member_names(bt2_plugin, params):
    return run_script(bt2_plugin, ONE_SPAN_SCRIPT, dict({"pass-through": False}, **params))[1][0]


def test_members_last_and_absent_when_off(bt2_plugin):
    span = _member_names(bt2_plugin, {})
    names = list(span)
    assert names[-2:] == ["host_window", "host_context"]
    # the root span ran 1000 ns on CPU 0: the whole window is app's CPU time
    assert span["host_window"] == 1000
    assert span["host_context"] == [{"kind": "cpu", "pid": 7, "name": "app", "device": "-", "value": 1000}]
    for params in ({"host-context": False}, {"host-context": False, "follow-wakeups": False}):
        off = list(_member_names(bt2_plugin, params))
        assert "host_window" not in off and "host_context" not in off
        assert off == [n for n in names if n not in ("host_window", "host_context") and
                       (params.get("follow-wakeups", True) or n != "chain")]


def _strip_host(text):
    """sink.text.details output without the host context members (class description and values)."""
    return strip_details_members(text, "host_window|host_context")


def test_host_context_false_changes_nothing_else():
    args = _scenario_args({"requests": 30, "hosts": 2, "cause": "cpu", "seed": 5})
    on = run_babeltrace2(*args, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                         "-c", "sink.text.details").stdout
    off = run_babeltrace2(*args, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false,host-context=false",
                          "-c", "sink.text.details").stdout
    assert "host_context:" in on and "host_context:" not in off and "host_window" not in off
    assert _strip_host(on) == _strip_host(off)


def test_only_host_entry_spans_carry_it(bt2_plugin):
    """A span whose parent is open on the same host carries no window; every other span does."""
    spans = scenario_spans(bt2_plugin, {"requests": 20, "hosts": 3, "seed": 2})
    by_id = {(s["trace_id_high"], s["trace_id_low"], s["span_id"]): s for s in spans}
    carriers = 0
    for s in spans:
        parent = by_id.get((s["trace_id_high"], s["trace_id_low"], s["parent_span_id"]))
        nested = parent is not None and parent["host"] == s["host"] and parent["begin"] <= s["begin"]
        if nested:
            assert s["host_window"] == 0 and s["host_context"] == [], s
        else:
            carriers += 1
            assert s["host_window"] == s["end"] - s["begin"]
            # time kinds never exceed the host's CPUs (4 in the scenario) times the window
            busy = sum(e["value"] for e in s["host_context"] if e["kind"] in ("cpu", "irq", "softirq", "vector"))
            assert busy <= 4 * s["host_window"]
            assert all(e["value"] > 0 for e in s["host_context"])
    assert carriers > 20


# ---- scenario causes against the truth ----

def test_cpu_cause_ranks_the_hog_first(tmp_path):
    truth_path = tmp_path / "truth.json"
    rows = _rows(_host_table({"requests": 200, "cause": "cpu", "seed": 1, "truth": str(truth_path)}))
    truth = json.loads(truth_path.read_text())
    assert any(r.get("cause") == "cpu" and r.get("slow") for r in truth["requests"])
    hog_hosts = _hosts_of(truth, "route")        # the scenario runs its stress-ng hogs beside the route service
    time_rows = [r for r in rows if r["kind"] in TIME_KINDS]
    top = time_rows[0]
    assert top["host"] in hog_hosts and top["name"].startswith("stress-ng"), top
    assert float(top["b_minus_a"]) > 0
    cpu = [r for r in time_rows if r["kind"] == "cpu"][0]
    assert cpu["host"] in hog_hosts and cpu["name"].startswith("stress-ng"), cpu
    # exact sums: the rate is the total over the window
    for r in rows:
        if int(r["b_window"]):
            assert abs(float(r["b_rate"]) - int(r["b_total"]) * 1e9 / int(r["b_window"])) <= 1e-6 * float(r["b_rate"]) + 1e-3
    assert float(cpu["b_rate"]) > 10 * float(cpu["a_rate"])


def test_irq_cause_ranks_the_storm_handler_first(tmp_path):
    truth_path = tmp_path / "truth.json"
    rows = _rows(_host_table({"requests": 200, "cause": "irq", "seed": 1, "truth": str(truth_path)}))
    truth = json.loads(truth_path.read_text())
    assert any(r.get("cause") == "irq" and r.get("slow") for r in truth["requests"])
    storm_hosts = _hosts_of(truth, "redis")      # the storm hits the CPU of the redis call of slow requests
    top = rows[0]
    assert top["kind"] == "irq" and top["host"] in storm_hosts, top
    assert top["name"] == "ehci_hcd:usb1" and top["pid"] == "-1" and top["unit"] == "ns/s"
    assert float(top["b_rate"]) > 2 * float(top["a_rate"])


def test_formats(tmp_path):
    params = {"requests": 60, "cause": "irq", "seed": 3}
    rows = json.loads(_host_table(params, fmt="json"))
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert rows and {"host", "kind", "name", "pid", "device", "b_rate", "a_rate", "b_minus_a"} <= set(rows[0])
    markdown = _host_table(params, fmt="markdown")
    assert markdown.splitlines()[0].startswith("| host") and "ehci_hcd:usb1" in markdown
    off = _host_table(params, span_attrib="pass-through=false,host-context=false")
    assert len(off.strip().splitlines()) == 1      # the header only: no span carries host context


def test_diff_sink_table(tmp_path):
    out = tmp_path / "report"
    run_babeltrace2(*_scenario_args({"requests": 200, "cause": "cpu", "seed": 1}), "-c", "filter.deepspan.span-attrib",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}"')
    explain = (out / "explain.txt").read_text()
    section = explain.split("What changed on the machine", 1)[1].splitlines()
    assert "stress-ng" in section[1], section[:3]
    html = (out / "report.html").read_text()
    table = html.split("<h2>What changed on the machine</h2>", 1)[1].split("</table>", 1)[0]
    assert "stress-ng" in table.split("</tr>", 2)[1]
    # off: no section
    out_off = tmp_path / "off"
    run_babeltrace2(*_scenario_args({"requests": 200, "cause": "cpu", "seed": 1}), "-c", "filter.deepspan.span-attrib",
                    "-p", "host-context=false", "-c", "sink.deepspan.diff", "-p", f'output-dir="{out_off}"')
    assert "What changed on the machine" not in (out_off / "explain.txt").read_text()
    assert "What changed on the machine" not in (out_off / "report.html").read_text()


# ---- real traces ----

def _cat_kernel_blocks(kernel_dir):
    issues, times = [], []
    for msg in bt2.TraceCollectionMessageIterator(str(kernel_dir)):
        if type(msg) is bt2._EventMessageConst:
            ts = msg.default_clock_snapshot.ns_from_origin
            times.append(ts)
            if msg.event.name == "block_rq_issue":
                issues.append((ts, int(msg.event["dev"]), int(msg.event["nr_sector"])))
    return issues, times


def test_cat_kern_ust_window_matches_independent_sums(shared_traces, bt2_plugin):
    kernel_dir = shared_traces / "cat-kern-ust" / "cat-kernel"
    issues, times = _cat_kernel_blocks(kernel_dir)
    first, last = times[0], times[-1]
    begin, end = first + (last - first) // 20, last - (last - first) // 20
    tids = set()
    for m in bt2.TraceCollectionMessageIterator(str(kernel_dir)):
        if type(m) is bt2._EventMessageConst:
            if m.event.name == "sched_switch":
                tids |= {int(m.event["next_tid"]), int(m.event["prev_tid"])}
            elif m.event.name in ("sched_waking", "sched_wakeup", "sched_wakeup_new"):
                tids.add(int(m.event["tid"]))
    tids = sorted(tids - {0})
    # span 1 (the window) plus one nested span per thread (parent 1: no window of their own)
    script = [(begin, "wilbrod", "u", "deepspan_ust:span_start",
               dict(trace_id_high=0, trace_id_low=1, span_id=1, parent_span_id=0, service="s", operation="window",
                    kind=0, vpid=tids[0], vtid=tids[0], procname="p"))]
    script += [(begin, "wilbrod", "u", "deepspan_ust:span_start",
                dict(trace_id_high=0, trace_id_low=1, span_id=10 + tid, parent_span_id=1, service="s", operation="o",
                     kind=0, vpid=tid, vtid=tid, procname="p")) for tid in tids]
    script += [(end, "wilbrod", "u", "deepspan_ust:span_end",
                dict(trace_id_high=0, trace_id_low=1, span_id=10 + tid, status=1, vpid=tid, vtid=tid, procname="p"))
               for tid in tids]
    script += [(end, "wilbrod", "u", "deepspan_ust:span_end",
                dict(trace_id_high=0, trace_id_low=1, span_id=1, status=1, vpid=tids[0], vtid=tids[0], procname="p"))]
    spans = run_kernel_trace_with_script(bt2_plugin, kernel_dir, script, {"segments": False, "pass-through": False})
    window = [s for s in spans if s["span_id"] == 1][0]
    threads = [s for s in spans if s["span_id"] != 1]
    assert window["host_window"] == end - begin
    assert all(s["host_window"] == 0 and s["host_context"] == [] for s in threads)
    ctx = window["host_context"]
    # disk: bytes issued in [begin, end), per device, summed independently
    expected = collections.Counter()
    for ts, dev, nr_sector in issues:
        if begin <= ts < end:
            expected[f"{dev >> 20}:{dev & 0xfffff}"] += nr_sector * 512
    got = collections.Counter()
    for e in ctx:
        if e["kind"] == "disk":
            got[e["device"]] += e["value"]
    assert sum(expected.values()) > 0
    assert got == expected
    # CPU: the processes' CPU time is the threads' user + system call time in the same pass
    assert sum(e["value"] for e in ctx if e["kind"] == "cpu") == sum(s["user"] + s["syscall"] for s in threads)
    # run queue: the threads' Waited CPU time
    assert sum(e["value"] for e in ctx if e["kind"] == "run-queue") == sum(s["wait_cpu"] for s in threads)
    # interrupts: at least the time they took from the threads (they also run on idle CPUs)
    interrupts = sum(e["value"] for e in ctx if e["kind"] in ("irq", "softirq", "vector"))
    assert interrupts >= sum(s["interrupted"] for s in threads) > 0


@pytest.mark.parametrize("trace", ["cat-kern-ust", "multi-domains"])
def test_real_traces_run_clean_by_host(shared_traces, trace):
    proc = run_babeltrace2(shared_traces / trace, "-c", "filter.deepspan.span-attrib",
                           "-c", "sink.deepspan.metrics", "-p", 'by="host",format="csv"')
    assert proc.stdout.splitlines()[0].startswith("host,kind,name,pid,device,unit,b_rate,a_rate,b_minus_a")
    assert "E " not in proc.stderr.replace("W deepspan", "")


def test_synctraces_run_clean_by_host(shared_traces):
    """Each host read without a muxer (its packets overlap, see ../shared/traces/README.md)."""
    for host in ("scp_src", "scp_dest"):
        proc = run_babeltrace2("run", "-c", "s:source.ctf.fs", "-p", f'inputs=["{shared_traces / "synctraces" / host}"]',
                               "-c", "a:filter.deepspan.span-attrib",
                               "-c", "m:sink.deepspan.metrics", "-p", 'by="host"',
                               "--connect", "s:a", "--connect", "a:m")
        assert proc.stdout.splitlines()[0].split()[:3] == ["host", "kind", "name"]
        assert "E " not in proc.stderr.replace("W deepspan", "")
