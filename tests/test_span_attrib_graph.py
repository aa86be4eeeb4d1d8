# SPDX-License-Identifier: MIT
"""filter.deepspan.span-attrib on scripted kernel + span sequences (Python bt2 graphs)."""
import gc

import bt2
import pytest

from span_attrib_support import STATES, Collector, Source, payload_dict, run_script

HOST = "h1"


def sw(ts, cpu, prev_tid, prev_state, next_tid, prev_comm="app", next_comm="app", host=HOST):
    return (ts, host, f"k{cpu}", "sched_switch",
            dict(prev_comm=prev_comm, prev_tid=prev_tid, prev_prio=20, prev_state=prev_state,
                 next_comm=next_comm, next_tid=next_tid, next_prio=20))


def kev(ts, cpu, event_name, host=HOST, **fields):
    return (ts, host, f"k{cpu}", event_name, fields)


def start(ts, tid, span_id, parent=0, service="svc", operation="op", trace_low=1, host=HOST, vpid=None):
    return (ts, host, "u", "deepspan_ust:span_start",
            dict(trace_id_high=0, trace_id_low=trace_low, span_id=span_id, parent_span_id=parent,
                 service=service, operation=operation, kind=1, vpid=vpid or tid, vtid=tid, procname="proc"))


def end(ts, tid, span_id, trace_low=1, host=HOST, vpid=None):
    return (ts, host, "u", "deepspan_ust:span_end",
            dict(trace_id_high=0, trace_id_low=trace_low, span_id=span_id, status=1,
                 vpid=vpid or tid, vtid=tid, procname="proc"))


def ust(ts, name, tid, span_id, trace_low=1, host=HOST):
    return (ts, host, "u", name, dict(trace_id_high=0, trace_id_low=trace_low, span_id=span_id,
                                      vpid=tid, vtid=tid, procname="proc"))


def states(span):
    return {s: span[s] for s in STATES if span[s]}


def check_sum(span):
    assert sum(span[s] for s in STATES) == span["end"] - span["begin"]


def block_wake_script():
    # app (100) on cpu0 does a futex, blocks, is woken by mysqld (300) on cpu1, runs again.
    return [
        sw(1000, 0, 0, 0, 100, prev_comm="swapper/0"),
        sw(1001, 1, 0, 0, 300, prev_comm="swapper/1", next_comm="mysqld"),
        start(1005, 100, 7, parent=3, service="frontend", operation="GET /x"),
        kev(1010, 0, "syscall_entry_futex"),
        sw(1020, 0, 100, 1, 0, next_comm="swapper/0"),
        kev(1050, 1, "sched_waking", comm="app", tid=100, prio=20, target_cpu=0),
        sw(1060, 0, 0, 0, 100, prev_comm="swapper/0"),
        kev(1065, 0, "syscall_exit_futex", ret=0),
        kev(1070, 0, "irq_handler_entry", irq=30, name="eth0"),
        kev(1072, 0, "irq_handler_exit", irq=30, ret=1),
        end(1080, 100, 7),
    ]


def test_block_wake_states_syscalls_segments(bt2_plugin):
    msgs, spans = run_script(bt2_plugin, block_wake_script())
    assert len(spans) == 1
    span = spans[0]
    assert (span["trace_id_low"], span["span_id"], span["parent_span_id"]) == (1, 7, 3)
    assert (span["host"], span["service"], span["operation"]) == (HOST, "frontend", "GET /x")
    assert (span["pid"], span["tid"], span["begin"], span["end"]) == (100, 100, 1005, 1080)
    assert states(span) == {"user": 5 + 5 + 8, "syscall": 10 + 5, "blocked": 30, "wait_cpu": 10,
                            "interrupted": 2}
    check_sum(span)
    assert span["syscalls"] == [{"name": "futex", "count": 1, "duration": 55}]
    assert [(s["begin"], s["end"], s["state"], s["detail"]) for s in span["segments"]] == [
        (1005, 1010, "user", "-"), (1010, 1020, "syscall", "futex"), (1020, 1050, "blocked", "mysqld/300"),
        (1050, 1060, "wait_cpu", "-"), (1060, 1065, "syscall", "futex"), (1065, 1070, "user", "-"),
        (1070, 1072, "interrupted", "irq:eth0"), (1072, 1080, "user", "-")]
    # every upstream message passed through, the span event right after its end event
    names = [m["name"] for m in msgs if "name" in m]
    assert names[-2:] == ["deepspan_ust:span_end", "deepspan:span"]
    assert len(names) == len(block_wake_script()) + 1
    span_msg = [m for m in msgs if m.get("name") == "deepspan:span"][0]
    assert span_msg["ts"] == 1080
    assert span_msg["env"] == {"domain": "deepspan", "hostname": HOST}
    assert span_msg["clock"] == "monotonic"


def test_pass_through_false_and_no_segments(bt2_plugin):
    msgs, spans = run_script(bt2_plugin, block_wake_script(), params={"pass-through": False, "segments": False})
    assert [m["name"] for m in msgs if "name" in m] == ["deepspan:span"]
    assert spans[0]["segments"] == [] and spans[0]["blocked"] == 30
    kinds = [m["type"] for m in msgs]
    assert kinds[0] == "_StreamBeginningMessageConst" and kinds[-1] == "_StreamEndMessageConst"


def test_state_rule_tracecompass(bt2_plugin):
    script = [sw(1000, 0, 0, 0, 100), start(1001, 100, 1),
              sw(1010, 0, 100, 256, 200, next_comm="hog"),  # report-encoding preemption
              sw(1030, 0, 200, 0, 100, prev_comm="hog"), end(1040, 100, 1)]
    _, default = run_script(bt2_plugin, script)
    _, tc = run_script(bt2_plugin, script, params={"state-rule": "tracecompass"})
    assert states(default[0]) == {"user": 19, "wait_cpu": 20}
    assert states(tc[0]) == {"user": 19, "unknown": 20}


def test_jaeger_schema_nested_and_activation(bt2_plugin):
    script = [
        sw(1000, 0, 0, 0, 100),
        (1001, HOST, "u", "jaeger_ust:start_span",
         dict(trace_id_high=5, trace_id_low=6, span_id=1, parent_span_id=0, op_name="root", start_time=1,
              vpid=100, vtid=100, procname="jaeger-app")),
        start(1002, 100, 2, parent=1, trace_low=6),
        kev(1003, 0, "syscall_entry_read"),
        ust(1004, "deepspan_ust:span_deactivate", 100, 2, trace_low=6),
        kev(1005, 0, "syscall_exit_read", ret=1),
        ust(1008, "deepspan_ust:span_activate", 100, 2, trace_low=6),
        end(1010, 100, 2, trace_low=6),
        (1020, HOST, "u", "jaeger_ust:end_span",
         dict(trace_id_high=5, trace_id_low=6, span_id=1, duration=19, vpid=100, vtid=100, procname="jaeger-app")),
    ]
    _, spans = run_script(bt2_plugin, script)
    by_id = {s["span_id"]: s for s in spans}
    root, child = by_id[1], by_id[2]
    assert root["service"] == "jaeger-app" and root["operation"] == "root" and root["trace_id_high"] == 5
    assert states(root) == {"user": 17, "syscall": 2}
    assert states(child) == {"user": 1 + 2, "syscall": 1, "blocked": 4}
    assert [s for s in child["segments"] if s["state"] == "blocked"][0]["detail"] == "inactive"
    assert child["syscalls"] == [{"name": "read", "count": 1, "duration": 1}]
    for span in spans:
        check_sum(span)


def test_host_without_kernel_and_counted_warnings(bt2_plugin, capfd):
    script = [
        start(1000, 50, 1, host="nokernel"),
        sw(1001, 0, 0, 0, 100),
        start(1002, 100, 2),
        start(1003, 100, 2),          # duplicate start
        end(1004, 100, 99),           # unmatched end
        end(1010, 50, 1, host="nokernel"),
        start(1011, 100, 3),          # never ends: truncated
        kev(1020, 0, "syscall_entry_read"),
    ]
    _, spans = run_script(bt2_plugin, script)
    err = capfd.readouterr().err
    by_id = {s["span_id"]: s for s in spans}
    assert states(by_id[1]) == {"unknown": 10} and by_id[1]["host"] == "nokernel"
    assert by_id[3]["end"] == 1020 and states(by_id[3]) == {"user": 9}
    assert states(by_id[2]) == {"user": 18}     # truncated too (the duplicate did not restart it)
    for span in spans:
        check_sum(span)
    assert "1 duplicate span start event(s) were ignored" in err
    assert "1 span end event(s) without a matching start were ignored" in err
    assert "2 span(s) still open at the end of the input were emitted truncated" in err
    assert "host `nokernel` has spans but no kernel trace: its 1 span(s) are all Unknown" in err


def test_discarded_events_make_threads_unknown(bt2_plugin, capfd):
    script = [
        sw(1000, 0, 0, 0, 100), start(1001, 100, 1),
        ("discard", HOST, "k0", 1010, 1015, 42),
        kev(1020, 0, "syscall_entry_read"),      # current thread unknown after the loss: ignored
        sw(1030, 0, 100, 1, 0),
        end(1040, 100, 1),
    ]
    _, spans = run_script(bt2_plugin, script)
    assert states(spans[0]) == {"user": 9, "unknown": 20, "blocked": 10}
    assert "1 discarded-events message(s) (42 events lost)" in capfd.readouterr().err


def test_container_vtid_mapping_and_tid_reuse(bt2_plugin):
    script = [
        kev(990, 0, "lttng_statedump_process_pid_ns", tid=4242, vtid=7, vpid=7, vppid=1, ns_level=1, ns_inum=1),
        sw(1000, 0, 0, 0, 4242, next_comm="container"),
        start(1001, 7, 1, vpid=7),
        sw(1010, 0, 4242, 16, 0),   # exits
        kev(1011, 0, "sched_process_free", comm="container", tid=4242, prio=20),
        sw(1012, 0, 0, 0, 4242, next_comm="reused"),
        end(1020, 7, 1, vpid=7),
    ]
    _, spans = run_script(bt2_plugin, script)
    assert spans[0]["tid"] == 4242
    assert states(spans[0]) == {"user": 9, "unknown": 10}


def test_out_of_order_counted(bt2_plugin, capfd):
    script = [sw(1000, 0, 0, 0, 100), start(1001, 100, 1),
              kev(1010, 0, "syscall_entry_read"), kev(1005, 1, "syscall_exit_read", ret=0), end(1020, 100, 1)]
    _, spans = run_script(bt2_plugin, script)
    check_sum(spans[0])
    assert "1 event(s) were out of time order within their host" in capfd.readouterr().err


def test_missing_span_field_is_an_error(bt2_plugin):
    fields = {"deepspan_ust:span_start": [("trace_id_high", "u64"), ("trace_id_low", "u64"),
                                          ("parent_span_id", "u64"), ("service", "str"), ("operation", "str")]}
    script = [(1000, HOST, "u", "deepspan_ust:span_start",
               dict(trace_id_high=0, trace_id_low=1, parent_span_id=0, service="s", operation="o",
                    vpid=1, vtid=1, procname="p"))]
    with pytest.raises(bt2._Error) as exc:
        run_script(bt2_plugin, script, fields=fields)
    assert "Event class `deepspan_ust:span_start` has no integer/string field `span_id`" in str(exc.value)
    assert 'span (doc/instrumentation.md, "The span schemas")' in str(exc.value)


@pytest.mark.parametrize("params, text", [
    ({"segments": 3}, "segments"),
    ({"state-rule": "linux"}, "state-rule"),
    ({"pass-trough": True}, "pass-trough"),
])
def test_bad_parameters(bt2_plugin, params, text):
    graph = bt2.Graph()
    with pytest.raises(bt2._Error) as exc:
        graph.add_component(bt2_plugin.filter_component_classes["span-attrib"], "sa", params=params)
    message = str(exc.value)
    assert "filter.deepspan.span-attrib" in message and text in message


def test_missing_kernel_field_is_an_error(bt2_plugin):
    fields = {"sched_switch": [("prev_comm", "str"), ("prev_tid", "s64"), ("prev_state", "s64"),
                               ("next_comm", "str")]}
    script = [(1000, HOST, "k0", "sched_switch", dict(prev_comm="a", prev_tid=1, prev_state=0, next_comm="b"))]
    with pytest.raises(bt2._Error) as exc:
        run_script(bt2_plugin, script, fields=fields)
    assert "Event class `sched_switch` has no integer/string field `next_tid`" in str(exc.value)
    assert 'kernel (doc/span-attrib.md, "Input")' in str(exc.value) and "DESIGN" not in str(exc.value)


def test_wrong_field_type_is_an_error(bt2_plugin):
    fields = {"deepspan_ust:span_end": [("trace_id_high", "u64"), ("trace_id_low", "u64"), ("span_id", "str")]}
    script = [(1000, HOST, "u", "deepspan_ust:span_end",
               dict(trace_id_high=0, trace_id_low=1, span_id="7", vpid=1, vtid=1, procname="p"))]
    with pytest.raises(bt2._Error) as exc:
        run_script(bt2_plugin, script, fields=fields)
    assert "Event class `deepspan_ust:span_end` has no integer/string field `span_id`" in str(exc.value)


def test_several_input_ports_merged_by_time(bt2_plugin):
    """`babeltrace2 run` shape: one source per host on in0, in1 (no muxer); same spans as one input."""
    host_a = block_wake_script()
    host_b = [sw(1003, 0, 0, 0, 500, host="h2"), start(1004, 500, 1, trace_low=9, host="h2"),
              kev(1030, 0, "syscall_entry_write", host="h2"), kev(1090, 0, "syscall_exit_write", ret=1, host="h2"),
              end(1100, 500, 1, trace_low=9, host="h2")]
    _, expected = run_script(bt2_plugin, sorted(host_a + host_b, key=lambda e: e[0]))
    graph = bt2.Graph()
    src_a = graph.add_component(Source, "a", obj={"script": host_a})
    src_b = graph.add_component(Source, "b", obj={"script": host_b})
    flt = graph.add_component(bt2_plugin.filter_component_classes["span-attrib"], "sa")
    out = []
    sink = graph.add_component(Collector, "sink", obj=out)
    graph.connect_ports(src_a.output_ports["out"], flt.input_ports["in0"])
    assert "in1" in flt.input_ports
    graph.connect_ports(src_b.output_ports["out"], flt.input_ports["in1"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in0"] if "in0" in sink.input_ports
                        else sink.input_ports["in"])
    graph.run()
    stamps = [m.default_clock_snapshot.ns_from_origin for m in out if type(m) is bt2._EventMessageConst]
    spans = [payload_dict(m.event) for m in out
             if type(m) is bt2._EventMessageConst and m.event.name == "deepspan:span"]
    del graph, src_a, src_b, flt, sink, out
    gc.collect()
    assert stamps == sorted(stamps)
    assert len(stamps) == len(host_a) + len(host_b) + 2
    assert sorted(spans, key=lambda s: s["span_id"]) == sorted(expected, key=lambda s: s["span_id"])
    assert {s["host"] for s in spans} == {"h1", "h2"}


def test_several_input_ports_tie_order(bt2_plugin):
    """Four inputs with many equal times: the merge gives the earliest message, the lower port on a tie, each
    input in its own order (the heap of inputs, inputs.c), and every message once."""
    scripts = []
    for port in range(4):
        host = f"h{port}"
        times = [1000 + (k * (port + 1)) // 3 for k in range(40)]    # repeats inside and across inputs
        scripts.append([kev(ts, 0, "syscall_entry_write" if k % 2 == 0 else "syscall_exit_write", host=host,
                            **({} if k % 2 == 0 else {"ret": 1})) for k, ts in enumerate(times)])
    graph = bt2.Graph()
    sources = [graph.add_component(Source, f"s{p}", obj={"script": s}) for p, s in enumerate(scripts)]
    flt = graph.add_component(bt2_plugin.filter_component_classes["span-attrib"], "sa")
    out = []
    sink = graph.add_component(Collector, "sink", obj=out)
    for p, src in enumerate(sources):
        graph.connect_ports(src.output_ports["out"], flt.input_ports[f"in{p}"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in0"] if "in0" in sink.input_ports
                        else sink.input_ports["in"])
    graph.run()
    got = [(m.default_clock_snapshot.ns_from_origin, m.event.stream.trace.environment["hostname"])
           for m in out if type(m) is bt2._EventMessageConst]
    del graph, sources, flt, sink, out
    gc.collect()
    expected = sorted(((ev[0], p, k) for p, s in enumerate(scripts) for k, ev in enumerate(s)))
    assert got == [(ts, f"h{p}") for ts, p, _ in expected]
