# SPDX-License-Identifier: MIT
"""filter.deepspan.sync pairs Node.js HTTP events (vnode provider) by connection ports.

A small Python source plays two hosts with known clocks: `web` (client, clock = true + 30 ms)
and `api` (server, clock = true - 20 ms + 20 ppm), exchanging keep-alive HTTP requests.
"""
import uuid

import bt2
import pytest

from test_sync_common import load_json, run_sync

BASE = 1_700_000_000_000_000_000
WEB_OFFSET, API_OFFSET, API_DRIFT = 30_000_000, -20_000_000, 20e-6


def web_clock(true):
    return true + WEB_OFFSET


def api_clock(true, drift=API_DRIFT):
    return true + API_OFFSET + round((true - BASE) * drift)


def _exchange(n=60, contradiction=False, drift=API_DRIFT):
    """Per host, the (event, local time, port, local_port) list of n requests.

    With `contradiction`, the last request reaches the server 5 ms before it was sent."""
    web, api = [], []
    for i in range(n):
        t = BASE + i * 10_000_000
        cport = 50_000 + i % 4            # four keep-alive connections
        lat_req, lat_resp = 120_000 + (i * 7919) % 90_000, 150_000 + (i * 104729) % 70_000
        if contradiction and i == n - 1:
            lat_req = -5_000_000
        web.append(("vnode:http_client_request", web_clock(t), 8080, cport))
        api.append(("vnode:http_server_request", api_clock(t + lat_req, drift), cport, 8080))
        api.append(("vnode:http_server_response", api_clock(t + lat_req + 2_000_000, drift),
                    cport, 8080))
        web.append(("vnode:http_client_response",
                    web_clock(t + lat_req + 2_000_000 + lat_resp), 8080, cport))
    return {"web": sorted(web, key=lambda e: e[1]), "api": sorted(api, key=lambda e: e[1])}


class _Iter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        self._host = port.user_data
        self._i = 0

    def _user_can_seek_beginning(self):
        return self._host["seekable"]

    def _user_seek_beginning(self):
        self._i = 0

    def __next__(self):
        h, i = self._host, self._i
        events = h["events"]
        if i > len(events) + 1:
            raise StopIteration
        self._i += 1
        if i == 0:
            return self._create_stream_beginning_message(h["stream"])
        if i == len(events) + 1:
            return self._create_stream_end_message(h["stream"])
        name, ts, port, local_port = events[i - 1]
        msg = self._create_event_message(h["classes"][name], h["stream"], default_clock_snapshot=ts)
        msg.event.payload_field["port"] = port
        msg.event.payload_field["local_port"] = local_port
        return msg


def add_vnode_host(source, host, events, seekable=True):
    """An output port `host` of `source` (a user source component) emitting `events` as vnode HTTP events on
    a trace of that hostname, its clock's UUID derived from the name."""
    tc = source._create_trace_class()
    cc = source._create_clock_class(frequency=1_000_000_000, name="monotonic", origin_is_unix_epoch=True,
                                    uuid=uuid.uuid5(uuid.NAMESPACE_DNS, host))
    sc = tc.create_stream_class(default_clock_class=cc)
    classes = {}
    for name in ("vnode:http_client_request", "vnode:http_server_request",
                 "vnode:http_server_response", "vnode:http_client_response"):
        payload = tc.create_structure_field_class()
        payload.append_member("port", tc.create_signed_integer_field_class(32))
        payload.append_member("local_port", tc.create_signed_integer_field_class(32))
        classes[name] = sc.create_event_class(name=name, payload_field_class=payload)
    trace = tc(environment={"hostname": host})
    source._add_output_port(host, {"events": events, "classes": classes, "stream": trace.create_stream(sc),
                                   "seekable": seekable})


class _VnodeSource(bt2._UserSourceComponent, message_iterator_class=_Iter):
    def __init__(self, config, params, obj):
        drift = float(params["drift"]) if "drift" in params else API_DRIFT
        for host, events in _exchange(contradiction=bool(params.get("contradiction")),
                                      drift=drift).items():
            add_vnode_host(self, host, events, seekable=not params.get("unseekable"))


def test_http_pairs_synchronize(bt2_plugin, tmp_path):
    report = tmp_path / "sync.json"
    state = run_sync(bt2_plugin, [(_VnodeSource, {})],
                     {"report": str(report), "reference": "web", "match": ["http"]},
                     keep=lambda m: (m.event.name, m.default_clock_snapshot.ns_from_origin))
    rep = load_json(report)
    assert rep["pairs"] == {"tcp": 0, "spans": 0, "http": 120, "same_host_tcp_ignored": 0,
                            "tcp_expired": 0, "spans_expired": 0, "expiry_ns": 1_000_000_000}
    api = next(h for h in rep["hosts"] if h["name"] == "api")
    assert api["quality"] == "ACCURATE" and api["pairs"]["http"] == 120
    tf = api["transform"]
    for true in (BASE, BASE + 300_000_000, BASE + 590_000_000):
        local = api_clock(true)
        got = tf["y0"] + (local - tf["x0"]) + round((tf["slope"] - 1) * (local - tf["x0"]))
        assert abs(got - web_clock(true)) <= api["accuracy_ns"] + 1
    assert state["decreases"] == 0 and state["count"] == 240


def test_http_not_matched_when_excluded(bt2_plugin, tmp_path, capfd):
    report = tmp_path / "sync.json"
    run_sync(bt2_plugin, [(_VnodeSource, {})],
             {"report": str(report), "match": "tcp", "reference": "web"})
    rep = load_json(report)
    assert rep["pairs"]["http"] == 0
    api = next(h for h in rep["hosts"] if h["name"] == "api")
    assert api["quality"] == "ABSENT" and api["transform"] == {"x0": 0, "y0": 0, "slope": 1.0}
    err = " ".join(capfd.readouterr().err.split())
    assert ("host api: no usable send/receive pair joins it to reference host web: "
            "it keeps its own clock (quality ABSENT)") in err


def test_contradicting_pair_keeps_last_good_formula(bt2_plugin, tmp_path, capfd):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    run_sync(bt2_plugin, [(_VnodeSource, {})], {"report": str(good), "reference": "web"})
    run_sync(bt2_plugin, [(_VnodeSource, {"contradiction": True})],
             {"report": str(bad), "reference": "web"})
    err = " ".join(capfd.readouterr().err.split())
    api_good = next(h for h in load_json(good)["hosts"] if h["name"] == "api")
    api_bad = next(h for h in load_json(bad)["hosts"] if h["name"] == "api")
    assert api_bad["quality"] == "FAIL" and api_bad["fail_kept_last_good"]
    assert api_bad["rejected_pairs"] == 1
    pair = load_json(bad)["host_pairs"][0]
    assert pair["quality"] == "FAIL" and pair["rejected"] == 1
    # the formula of the pairs before the contradiction is kept
    t = api_clock(BASE + 300_000_000)
    apply = lambda tf: tf["y0"] + (t - tf["x0"]) + round((tf["slope"] - 1) * (t - tf["x0"]))
    assert abs(apply(api_bad["transform"]) - web_clock(BASE + 300_000_000)) <= api_bad["accuracy_ns"] + 1
    assert ("host api: contradicting pairs on its path to the reference (quality FAIL): "
            "the last good formula is kept (1 pairs rejected)") in err
    assert api_good["quality"] == "ACCURATE"


def test_upstream_that_cannot_seek(bt2_plugin, tmp_path):
    """Pass 2 needs to seek every upstream to its beginning: without that, an error says to use `formula`."""
    with pytest.raises(bt2._Error) as failure:
        run_sync(bt2_plugin, [(_VnodeSource, {"unseekable": True})], {"match": ["http"]})
    err = " ".join(str(failure.value).split())
    assert ("the upstream of input port `in0` cannot seek back to its beginning, which the second "
            "pass needs. Run once with `report=\"sync.json\"` on a seekable source") in err
    assert 'then apply it with `formula="sync.json"`' in err


def test_formula_needs_no_seek(bt2_plugin, tmp_path):
    """With a saved report as `formula`, one pass: an upstream that cannot seek is fine."""
    report = tmp_path / "sync.json"
    run_sync(bt2_plugin, [(_VnodeSource, {})], {"report": str(report), "reference": "web", "match": ["http"]})
    state = run_sync(bt2_plugin, [(_VnodeSource, {"unseekable": True})], {"formula": str(report)},
                     keep=lambda m: m.default_clock_snapshot.ns_from_origin)
    assert state["count"] == 240 and state["decreases"] == 0


def test_slope_beyond_formula_range_warns_and_formula_refuses(bt2_plugin, tmp_path, capfd):
    """A clock drifting 2000 ppm: two passes sync it but warn that the report is no valid formula;
    applying it as one is refused on `transform.slope`."""
    report = tmp_path / "sync.json"
    run_sync(bt2_plugin, [(_VnodeSource, {"drift": 2e-3})],
             {"report": str(report), "reference": "web", "match": ["http"]})
    err = " ".join(capfd.readouterr().err.split())
    api = next(h for h in load_json(report)["hosts"] if h["name"] == "api")
    assert api["quality"] == "ACCURATE" and abs(1 / api["slope"] - 1.002) < 1e-5
    assert (f"host api: its clock slope {api['slope']:.9f} is more than 1000 ppm from 1, beyond a real "
            "clock's drift (quality ACCURATE: check its pairs); the report cannot be applied as a "
            '`formula` (doc/sync.md, "Formula")') in err
    with pytest.raises(bt2._Error) as failure:
        run_sync(bt2_plugin, [(_VnodeSource, {"drift": 2e-3})], {"formula": str(report)})
    err = " ".join(str(failure.value).split())
    index = [h["name"] for h in load_json(report)["hosts"]].index("api")
    assert f"host #{index} (`api`): `transform.slope` must be a number within 1000 ppm of 1" in err


class _BackstepSource(bt2._UserSourceComponent, message_iterator_class=_Iter):
    """web's stream goes back once: its 11th event is 3 µs earlier than its 10th."""

    def __init__(self, config, params, obj):
        hosts = _exchange()
        web = list(hosts["web"])
        name, t, port, local = web[10]
        web[10] = (name, web[9][1] - 3_000, port, local)
        hosts["web"] = web
        for host, events in hosts.items():
            add_vnode_host(self, host, events)


def test_a_stream_keeps_its_order_where_its_times_go_back(bt2_plugin, tmp_path, capfd):
    """A message earlier than the previous one of its stream is not moved ahead of it: it comes right after
    it, at its time, counted in a warning (doc/sync.md, "A stream's messages keep their order")."""
    report = tmp_path / "sync.json"
    state = run_sync(bt2_plugin, [(_BackstepSource, {})],
                     {"report": str(report), "reference": "web", "match": ["http"]},
                     keep=lambda m: (str(m.event.stream.trace.environment["hostname"]),
                                     m.default_clock_snapshot.ns_from_origin))
    web = [ns for host, ns in state["events"] if host == "web"]
    sent = sorted(t for _, t, _, _ in _exchange()["web"])
    assert len(web) == len(sent) and web[10] == web[9] == sent[9]
    assert web[:10] == sent[:10] and web[11:] == sent[11:]
    assert state["decreases"] == 0
    err = " ".join(capfd.readouterr().err.split())
    assert ("1 message(s) were earlier than the previous message of their stream (e.g. a packet that begins "
            "before the previous one ends) and were given that message's timestamp, so that each stream keeps "
            "its order") in err
