# SPDX-License-Identifier: MIT
"""The network terminal of chains (doc/storage-network.md, "Network"), on the scenario's causes net-delay and
net-retransmit (doc/scenario.md):

- the truth's split (sender before its first send, retransmission wait, in flight, after arrival) is the
  trace's own: its boundaries are the net_dev_queue / net_if_receive_skb timestamps of the reply's segment,
  found here independently from the events;
- filter.deepspan.span-attrib equals the truth to 0 ns: tests/test_chain_truth.py (net causes, 2-5 hosts);
- explain.txt's top cause and sink.deepspan.metrics by="culprit" name the network path and the retransmission;
- unsynchronized clocks are counted and warned once with the fix; a host without network events gives
  `unknown` with the reason and one warning naming the lttng command.
"""
import collections
import csv
import gc
import io
import json

import bt2
import pytest

from conftest import run_babeltrace2
from scenario_fixtures import scenario_class
from test_chain_truth import top_cause
from span_attrib_support import payload_dict

NET_CAUSES = ("net-delay", "net-retransmit")


def scenario_params(cause, seed, hosts, truth, **more):
    params = {"requests": 40, "seed": seed, "hosts": hosts, "cause": cause, "clock": "none",
              "slow-ratio": 0.2, "truth": str(truth)}
    params.update(more)
    return params


def tcp_events(params):
    """{key: [("send" | "receive", host, ns)]} of every TCP segment of a scenario run, in trace order."""
    out = collections.defaultdict(list)
    for msg in bt2.TraceCollectionMessageIterator(bt2.ComponentSpec(scenario_class(), params)):
        if type(msg) is not bt2._EventMessageConst:
            continue
        name = msg.event.name
        if name not in ("net_dev_queue", "net_if_receive_skb"):
            continue
        ev = msg.event
        ip = ev["network_header"].selected_option
        tcp = ip["transport_header"].selected_option
        key = (int(tcp["source_port"]), int(tcp["dest_port"]), int(tcp["seq"]), int(tcp["ack_seq"]),
               int(tcp["flags"]))
        out[key].append(("send" if name == "net_dev_queue" else "receive",
                         str(ev.stream.trace.environment["hostname"]), msg.default_clock_snapshot.ns_from_origin))
    return out


def customer_calls(truth):
    """The frontend's `HTTP GET /customer` client spans of the slow requests, with their chains."""
    slow = {(r["trace_id_high"], r["trace_id_low"]) for r in truth["requests"] if r["slow"]}
    return [s for s in truth["spans"] if (s["trace_id_high"], s["trace_id_low"]) in slow
            and s["operation"] == "HTTP GET /customer" and s["kind"] == 2]


def network_parts(chain):
    """The reply's wait, the span's last waited segment ending `after arrival`: (the sender's leaves, the
    network terminal's depth-1 leaves), each leaf as (kind, detail, host, begin, end, depth)."""
    last = max(i for i, leaf in enumerate(chain) if leaf["depth"] == 1 and leaf["kind"] == "softirq"
               and leaf["detail"] == "after arrival: softirq:NET_RX")
    leaves = [(leaf["kind"], leaf["detail"], leaf["host"], leaf["begin"], leaf["end"], leaf["depth"])
              for leaf in chain[:last + 1] if leaf["segment_begin"] == chain[last]["segment_begin"]]
    first = next(i for i, leaf in enumerate(leaves)
                 if leaf[5] == 1 and leaf[0] == "in-flight" and not leaf[1].startswith("segment frontend"))
    return leaves[:first], leaves[first:]


@pytest.mark.parametrize("cause, seed, hosts", [
    ("net-delay", 1, 2), ("net-delay", 2, 4), ("net-retransmit", 3, 3), ("net-retransmit", 4, 5),
    ("net-retransmit", 5, 2),
])
def test_truth_split_is_the_trace(tmp_path, plugin_dir, cause, seed, hosts):
    truth_path = tmp_path / "truth.json"
    params = scenario_params(cause, seed, hosts, truth_path)
    segments = tcp_events(params)
    truth = json.loads(truth_path.read_text())
    front, cust = "frontend", "customer"
    calls = customer_calls(truth)
    assert calls and all(r["cause"] == cause for r in truth["requests"] if r["slow"])
    for span in calls:
        sender, parts = network_parts(span["chain"])
        kinds = [p[0] for p in parts]
        in_flight = next(p for p in parts if p[0] == "in-flight" and p[1].startswith("segment "))
        after = parts[-1]
        assert after[0] == "softirq" and after[2] == front and after[3] == in_flight[4]
        # in flight: from a send of the reply's last segment on the customer host to its receive here
        matches = [key for key, evs in segments.items()
                   if ("receive", front, in_flight[4]) in evs and ("send", cust, in_flight[3]) in evs]
        assert len(matches) == 1, (in_flight, span["chain"][-6:])
        evs = segments[matches[0]]
        sends = [ns for what, host, ns in evs if what == "send"]
        receives = [ns for what, host, ns in evs if what == "receive"]
        assert receives == [in_flight[4]]
        if cause == "net-delay":
            assert in_flight[1] == f"segment {cust} \u2192 {front}"
            assert kinds == ["in-flight", "softirq"]
            assert sends == [in_flight[3]]
            assert in_flight[4] - in_flight[3] >= 20_000_000     # the injected 20-40 ms delay
        else:
            # lost, then sent again by the customer host's retransmission timer: the last send is used
            assert in_flight[1] == f"segment {cust} \u2192 {front} (retransmitted)"
            assert kinds == ["in-flight", "in-flight", "softirq"]
            wait = parts[0]
            assert wait[1] == f"retransmission wait: segment {cust} \u2192 {front}" and wait[2] == cust
            assert sends == [wait[3], in_flight[3]] and wait[4] == in_flight[3]
            assert 20_000_000 <= wait[4] - wait[3] <= 40_001_000    # the RTO drawn, plus the softirq's steps
            assert in_flight[4] - in_flight[3] < 1_000_000          # then a normal path
        # the sender (the customer's thread, at depth 1) until its first send
        assert sender and sender[-1][4] == sends[0] == parts[0][3]
        assert all(leaf[2] == cust for leaf in sender if leaf[5] == 1)


def diff_run(tmp_path, cause, hosts=6):
    out = tmp_path / cause
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", f'cause="{cause}",requests=200,hosts={hosts},clock="none"',
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}"')
    return (out / "explain.txt").read_text()


@pytest.mark.parametrize("cause, names", [
    ("net-delay", ["in flight customer \u2192 frontend", "recvfrom \u2190 customer/customer"]),
    ("net-retransmit", ["retransmission wait customer \u2192 frontend", "recvfrom \u2190 customer/customer"]),
])
def test_diff_top_cause_names_the_network_path(tmp_path, plugin_dir, cause, names):
    explain = diff_run(tmp_path, cause)
    top = top_cause(explain)
    assert all(name in top for name in names), top
    sentence = explain.split(top, 1)[1].splitlines()[1]
    if cause == "net-retransmit":
        assert "for the retransmission of a lost segment customer \u2192 frontend" in sentence, sentence
    else:
        assert "in flight customer \u2192 frontend" in sentence, sentence


@pytest.mark.parametrize("cause, name, hosts", [
    ("net-delay", "in flight customer \u2192 frontend", 2),
    ("net-retransmit", "retransmission wait customer \u2192 frontend", 4),
])
def test_top_cause_with_random_clocks_and_sync(tmp_path, plugin_dir, cause, name, hosts):
    """Hosts on their own clocks (seeded offsets and drifts), synchronized by filter.deepspan.sync."""
    out = tmp_path / cause
    proc = run_babeltrace2("-c", "source.deepspan.scenario", "-p", f'cause="{cause}",requests=200,hosts={hosts}',
                           "-c", "filter.deepspan.sync",
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}"')
    assert "received before they were sent" not in proc.stderr, proc.stderr
    top = top_cause((out / "explain.txt").read_text())
    assert name in top, top


@pytest.mark.parametrize("cause, comm", [
    ("net-delay", "in flight customer \u2192 frontend"),
    ("net-retransmit", "retransmission wait customer \u2192 frontend"),
])
def test_metrics_culprit_names_the_network_path(tmp_path, plugin_dir, cause, comm):
    out = tmp_path / "culprit.csv"
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", f'cause="{cause}",requests=200,hosts=3,clock="none"',
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.metrics", "-p", f'by="culprit",format="csv",output="{out}"')
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    top = rows[0]
    # the retransmission wait is charged to the sender's host, the delayed segment to the receiver's
    host = "customer" if cause == "net-retransmit" else "frontend"
    assert (top["host"], top["comm"], top["tid"], top["kind"]) == (host, comm, "-1", "in-flight"), rows[:3]
    assert float(top["b_minus_a"]) >= 15_000_000


def test_unsynchronized_clocks_are_warned_once(tmp_path, plugin_dir):
    """The customer host's clock 30 ms ahead: its segments are received before they are sent."""
    src = ["-c", "source.deepspan.scenario",
           "-p", 'cause="net-delay",requests=60,hosts=3,clock="0:0,30000000:0,0:0",slow-ratio=0.2']
    rest = ["-c", "filter.deepspan.span-attrib", "-p", "pass-through=false", "-c", "sink.utils.dummy"]
    raw = run_babeltrace2(*src, *rest)
    lines = [line for line in raw.stderr.splitlines() if "received before they were sent" in line]
    assert len(lines) == 1, raw.stderr
    assert "synchronize the hosts with filter.deepspan.sync" in lines[0] and "no matching send" in lines[0]
    assert int(lines[0].split(": ", 1)[1].split()[0]) > 0
    synced = run_babeltrace2(*src, "-c", "filter.deepspan.sync", *rest)
    assert "received before they were sent" not in synced.stderr, synced.stderr


class _DropNetIter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        self._up = self._create_message_iterator(self._component._input_ports["in"])

    def __next__(self):
        while True:
            msg = next(self._up)
            if type(msg) is bt2._EventMessageConst and msg.event.name in ("net_dev_queue", "net_if_receive_skb"):
                continue
            return msg


class _DropNetFilter(bt2._UserFilterComponent, message_iterator_class=_DropNetIter):
    """Forwards everything but the network events: hosts recorded without them."""

    def __init__(self, config, params, obj):
        self._add_input_port("in")
        self._add_output_port("out")


def test_no_network_events_is_unknown_with_the_reason(bt2_plugin, capfd):
    graph = bt2.Graph()
    src = graph.add_component(scenario_class(), "src", {"requests": 30, "hosts": 2, "clock": "none"})
    drop = graph.add_component(_DropNetFilter, "drop")
    attrib = graph.add_component(bt2_plugin.filter_component_classes["span-attrib"], "attrib",
                                 {"pass-through": False}, logging_level=bt2.LoggingLevel.WARNING)
    mux = graph.add_component(bt2.find_plugin("utils").filter_component_classes["muxer"], "mux")
    for i, port in enumerate(src.output_ports.values()):
        graph.connect_ports(port, mux.input_ports[f"in{i}"])
    graph.connect_ports(mux.output_ports["out"], drop.input_ports["in"])
    graph.connect_ports(drop.output_ports["out"], attrib.input_ports["in0"])
    seen = []

    class _Sink(bt2._UserSinkComponent):
        def __init__(self, config, params, obj):
            self._add_input_port("in")

        def _user_graph_is_configured(self):
            self._it = self._create_message_iterator(self._input_ports["in"])

        def _user_consume(self):
            msg = next(self._it)
            if type(msg) is bt2._EventMessageConst and msg.event.name == "deepspan:span":
                seen.extend(entry["detail"] for entry in payload_dict(msg.event)["chain"])

    sink = graph.add_component(_Sink, "sink")
    graph.connect_ports(attrib.output_ports["out"], sink.input_ports["in"])
    graph.run()
    del graph, src, mux, drop, attrib, sink, port    # the filter reports when its iterator is finalized
    gc.collect()
    err = capfd.readouterr().err
    unknown = [d for d in seen if "\u2190 softirq:NET_RX" in d]
    assert unknown and all(d.startswith("unknown: ") and ", no network events recorded on " in d
                           for d in unknown), unknown[:5]
    assert not any(d.startswith("segment ") or "no matching send" in d for d in seen)
    warnings = [line for line in err.splitlines() if "recorded no network events" in line]
    assert len(warnings) == 1, err[-2000:]
    assert "lttng enable-event -k net_dev_queue,net_if_receive_skb" in warnings[0]
