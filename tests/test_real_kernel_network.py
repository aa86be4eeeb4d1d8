# SPDX-License-Identifier: MIT
"""The network terminal of chains on real kernels (doc/storage-network.md, "Network"): in the two-guest
fixtures of tests/fixtures/real-kernel/, guest1's waits woken through softirq:NET_RX by a segment from guest2
continue on guest2 (synchronized with filter.deepspan.sync): the sender's part is guest2's, the in-flight
leaf goes from the segment's net_dev_queue on guest2 to its net_if_receive_skb on guest1 — both found here
independently in the events (the last send of the key at or before the receive) — and two-netem's
`netem delay 4ms` on guest2's eth0 shows as that much more time in flight than in two-plain.
"""
import collections
import statistics

import bt2
import pytest

from span_attrib_support import payload_dict
from test_real_kernel import FIXTURES, unpack  # noqa: F401 (the fixture)

TWO = [n for n in ("two-plain", "two-netem") if n in FIXTURES]
_runs = {}


def tcp_key(ev):
    """(sport, dport, seq, ack_seq, flags) of a TCP segment event, None for another protocol."""
    if str(ev["network_header_type"].labels[0]) != "_ipv4":
        return None
    ip = ev["network_header"].selected_option
    if str(ip["transport_header_type"].labels[0]) != "_tcp":
        return None
    tcp = ip["transport_header"].selected_option
    return (int(tcp["source_port"]), int(tcp["dest_port"]), int(tcp["seq"]), int(tcp["ack_seq"]),
            int(tcp["flags"]))


def guest1_waits_on_guest2(ds, root):
    """(network entries of guest1 spans whose segment came from guest2, each with its children; TCP sends
    {key: [(host, ns)]}; receives {(host, ns): [key]}), from one sync -> span-attrib pass."""
    if root in _runs:
        return _runs[root]
    specs = [bt2.ComponentSpec(ds.filter_component_classes["sync"]),
             bt2.ComponentSpec(ds.filter_component_classes["span-attrib"], {"pass-through": True})]
    sends, receives, waits = collections.defaultdict(list), collections.defaultdict(list), []
    for msg in bt2.TraceCollectionMessageIterator([bt2.AutoSourceComponentSpec(str(root))], specs):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        if ev.name in ("net_dev_queue", "net_if_receive_skb"):
            key = tcp_key(ev)
            if key is None:
                continue
            at = (str(ev.stream.trace.environment["hostname"]), msg.default_clock_snapshot.ns_from_origin)
            if ev.name == "net_dev_queue":
                sends[key].append(at)
            else:
                receives[at].append(key)
        elif ev.name == "deepspan:span":
            chain = payload_dict(ev)["chain"]
            for i, e in enumerate(chain):
                if e["kind"] == "network" and e["host"] == "guest1" and " \u2190 guest2/" in e["detail"]:
                    waits.append((e, [c for c in chain if c["parent"] == i]))
    _runs[root] = (waits, sends, receives)
    return _runs[root]


def last_send_before(sends, key, host, ns):
    times = [t for h, t in sends.get(key, []) if h == host and t <= ns]
    return max(times) if times else None


@pytest.mark.parametrize("name", TWO)
def test_guest1_waits_continue_on_guest2(bt2_plugin, unpack, name):  # noqa: F811
    waits, sends, receives = guest1_waits_on_guest2(bt2_plugin, unpack(name))
    assert len(waits) > 500, len(waits)
    checked = 0
    for entry, kids in waits:
        kinds = [k["kind"] for k in kids]
        # sender part (guest2) | in flight (guest1) | after arrival (guest1), partitioning the entry
        assert kids[0]["begin"] == entry["begin"] and kids[-1]["end"] == entry["end"]
        assert all(a["end"] == b["begin"] for a, b in zip(kids, kids[1:]))
        assert kinds[-1] == "softirq" and kids[-1]["detail"] == "after arrival: softirq:NET_RX"
        flight = kids[-2]
        assert flight["kind"] == "in-flight" and flight["detail"].startswith("segment guest2 \u2192 guest1")
        sender = kids[:-2]
        assert all(k["host"] == "guest2" for k in sender), sender
        if not sender:
            continue    # sent before the wait began: in flight from the wait's begin
        assert sender[-1]["end"] == flight["begin"]
        # the segment: received on guest1 when the in-flight leaf ends, last sent on guest2 when it begins
        keys = receives.get(("guest1", flight["end"]), [])
        assert any(last_send_before(sends, k, "guest2", flight["end"]) == flight["begin"] for k in keys), flight
        checked += 1
    print(f"{name}: {len(waits)} guest1 waits on guest2 segments, {checked} with their sender part checked")
    assert checked > len(waits) / 2


@pytest.mark.skipif(len(TWO) < 2, reason="needs two-plain and two-netem")
def test_netem_delay_is_in_flight(bt2_plugin, unpack):  # noqa: F811
    medians = {}
    for name in TWO:
        waits, _, _ = guest1_waits_on_guest2(bt2_plugin, unpack(name))
        flights = [kids[-2]["end"] - kids[-2]["begin"] for entry, kids in waits if kids[:-2]]
        medians[name] = statistics.median(flights)
    print("median in flight guest2 -> guest1:", {n: f"{m / 1e6:.2f} ms" for n, m in medians.items()})
    # netem delay 4ms on guest2's eth0 (after net_dev_queue, before the wire): measured +3.97 ms
    assert medians["two-netem"] - medians["two-plain"] >= 3_000_000, medians
