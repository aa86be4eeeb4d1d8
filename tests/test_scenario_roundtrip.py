# SPDX-License-Identifier: MIT
"""source.deepspan.scenario -> sink.ctf.fs -> source.ctf.fs gives back the same events and fields."""
import collections

import pytest

from conftest import run_babeltrace2
from scenario_fixtures import event_key, field_to_py, iterate, make_scenario_trace, scenario_spec

REQUESTS = 200


@pytest.fixture(scope="module")
def written(tmp_path_factory, plugin_dir):
    out = tmp_path_factory.mktemp("scenario-rt")
    truth = out / "truth.json"
    make_scenario_trace(out / "trace", truth=truth, requests=REQUESTS)
    return out / "trace", truth


def collect(source):
    """Event keys, sampled payloads (all UST and network events) and TCP segments of a source."""
    keys = []
    payloads = {}
    segments = []
    for msg in iterate(source):
        key = event_key(msg)
        keys.append(key)
        if key[2] == "ust" or key[3].startswith("net_") or len(keys) % 97 == 0:
            payload = field_to_py(msg.event.payload_field)
            payloads[key] = payload
            if msg.event.common_context_field is not None:
                payloads[key + ("ctx",)] = field_to_py(msg.event.common_context_field)
            if key[3].startswith("net_"):
                segments.append((key, int(msg.event.payload_field["network_header_type"]), payload))
    return keys, payloads, segments


@pytest.fixture(scope="module")
def read_back(written):
    return collect(written[0])


def test_lttng_folder_layout(written):
    trace, _ = written
    metadata = sorted(str(p.parent.relative_to(trace)) for p in trace.rglob("metadata"))
    hosts = {m.split("/")[0] for m in metadata}
    assert hosts == {"frontend", "customer", "driver"}
    for host in hosts:
        assert any(m.startswith(f"{host}/deepspan-hotrod-") and m.endswith("/kernel") for m in metadata)
        assert any(m.startswith(f"{host}/deepspan-hotrod-") and m.endswith("/ust/uid/1000/64-bit")
                   for m in metadata)
    kernel_dir = next(p.parent for p in trace.rglob("metadata") if p.parent.name == "kernel")
    assert sorted(p.name for p in kernel_dir.iterdir() if p.name != "metadata") == \
        [f"channel0_{cpu}" for cpu in range(4)]


def test_cli_reads_it_back(written):
    trace, _ = written
    proc = run_babeltrace2(trace)
    lines = proc.stdout.splitlines()
    assert len(lines) > 10000
    assert any("deepspan_ust:span_start" in line for line in lines)
    assert any("net_if_receive_skb" in line for line in lines)


def test_same_events_and_fields_as_emitted(read_back, bt2_plugin):
    direct_keys, direct_payloads, _ = collect(scenario_spec(requests=REQUESTS))
    back_keys, back_payloads, _ = read_back
    assert sorted(direct_keys) == sorted(back_keys)
    assert direct_payloads == back_payloads
    per_trace = collections.Counter((k[1], k[2]) for k in back_keys)
    assert set(per_trace) == {(h, d) for h in ("frontend", "customer", "driver") for d in ("kernel", "ust")}


def test_no_two_events_of_a_host_share_a_timestamp(read_back):
    keys, _, _ = read_back
    per_host = collections.Counter((k[1], k[0]) for k in keys)
    assert max(per_host.values()) == 1


def test_tcp_headers_decode(read_back):
    _, _, segments = read_back
    sends = {}
    recvs = []
    for key, header_type, payload in segments:
        assert header_type == 1
        tcp = payload["network_header"]["transport_header"]
        seg = (tcp["source_port"], tcp["dest_port"], tcp["seq"], tcp["ack_seq"], tcp["flags"])
        if key[3] == "net_dev_queue":
            assert seg not in sends, f"duplicate segment {seg}"
            sends[seg] = key[1]
        else:
            recvs.append((seg, key[1]))
    external = [k for k, host in recvs if k not in sends]
    # every segment is received once; only the external client's requests have no traced sender
    assert len(external) == REQUESTS
    assert all(k[1] == 8080 and k[0] >= 50000 for k in external)
    to_client = [k for k in sends if k[0] == 8080 and k[1] >= 50000]
    assert len(recvs) - len(external) == len(sends) - len(to_client)


def test_discarded_events_round_trip(tmp_path, plugin_dir):
    import bt2
    from scenario_fixtures import load_truth
    truth_path = tmp_path / "truth.json"
    trace = make_scenario_trace(tmp_path / "trace", truth=truth_path, requests=20, **{"discard-every": 1500})
    lost = 0
    ranges = 0
    for msg in bt2.TraceCollectionMessageIterator(str(trace)):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            assert str(msg.stream.trace.environment["domain"]) == "kernel"
            lost += msg.count
            ranges += 1
    truth = load_truth(truth_path)
    assert ranges > 0 and lost == truth["discarded_events"] == 64 * ranges
    # the truth keeps the real thread states: every span still sums exactly
    assert all(sum(s["states"].values()) == s["end"] - s["begin"] for s in truth["spans"])
