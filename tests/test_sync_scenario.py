# SPDX-License-Identifier: MIT
"""filter.deepspan.sync against the scenario simulator's ground truth (known clock offsets and drifts)."""
from fractions import Fraction

import pytest

from conftest import make_scenario_trace
from test_sync_common import ctf_sources, load_json, run_sync


def _trace_dirs(root):
    return sorted(p.parent for p in root.rglob("metadata"))


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory):
    made = {}

    def get(hosts):
        if hosts not in made:
            out = tmp_path_factory.mktemp(f"scenario{hosts}")
            truth = out / "truth.json"
            make_scenario_trace(out / "ctf", truth=str(truth), hosts=hosts, requests=150,
                                seed=7 + hosts, cpus=2)
            made[hosts] = (_trace_dirs(out / "ctf"), load_json(truth))
        return made[hosts]
    return get


def _true_map(truth, host, reference):
    """host-local ns -> reference-local ns, from the simulator's clock model."""
    clocks = {h["name"]: h["clock"] for h in truth["hosts"]}
    ch, cr = clocks[host], clocks[reference]

    def to_ref(local):
        r = Fraction(ch["reference_ns"])
        true = r + (Fraction(local) - ch["offset_ns"] - r) / (1 + Fraction(ch["drift_ppb"], 10**9))
        rr = Fraction(cr["reference_ns"])
        return true + cr["offset_ns"] + (true - rr) * Fraction(cr["drift_ppb"], 10**9)
    return to_ref


def _apply(tf, t):
    return tf["y0"] + (t - tf["x0"]) + round((tf["slope"] - 1.0) * (t - tf["x0"]))


def _check_against_truth(report, truth, expect_kinds):
    reference = report["reference"]
    worst = 0
    for h in report["hosts"]:
        if h["name"] == reference:
            continue
        assert h["quality"] in ("ACCURATE", "APPROXIMATE"), h
        for kind in ("tcp", "spans"):
            assert (h["pairs"][kind] > 0) == (kind in expect_kinds), (h["name"], kind, h["pairs"])
        to_ref = _true_map(truth, h["name"], reference)
        acc = h["accuracy_ns"]
        assert acc is not None and acc >= 0
        # the true transform lies inside the reported bounds (1 ns: the simulator rounds)
        for b in h["bounds"]:
            t = float(to_ref(b["at"]))
            assert b["lo"] - 1 <= t <= b["hi"] + 1, (h["name"], b, t)
        # the recovered transform is within the reported accuracy over the host's time range
        first, last = h["first_ns"], h["last_ns"]
        for i in range(11):
            t = first + (last - first) * i // 10
            err = abs(_apply(h["transform"], t) - float(to_ref(t)))
            assert err <= acc + 1, (h["name"], t, err, acc)
            worst = max(worst, err)
    return worst


@pytest.mark.parametrize("hosts", [2, 3, 5])
def test_recovers_true_clocks(bt2_plugin, scenarios, tmp_path, hosts):
    dirs, truth = scenarios(hosts)
    report = tmp_path / "sync.json"
    reference = truth["hosts"][0]["name"]
    state = run_sync(bt2_plugin, ctf_sources(*dirs),
                     {"report": str(report), "reference": reference})
    rep = load_json(report)
    assert rep["reference"] == reference
    assert len(rep["hosts"]) == hosts
    assert state["decreases"] == 0 and state["count"] > 0
    assert rep["reorder"]["late_messages"] == 0
    worst = _check_against_truth(rep, truth, {"tcp", "spans"})
    # well under the ±50 ms offsets the simulator draws
    assert worst < 200_000
    print(f"{hosts} hosts: worst error {worst:.0f} ns, "
          f"accuracy {[h['accuracy_ns'] for h in rep['hosts']]}")


@pytest.mark.parametrize("kind", ["tcp", "spans"])
def test_one_pair_kind(bt2_plugin, scenarios, tmp_path, kind):
    dirs, truth = scenarios(3)
    report = tmp_path / "sync.json"
    run_sync(bt2_plugin, ctf_sources(*dirs),
             {"report": str(report), "reference": truth["hosts"][0]["name"], "match": [kind]})
    rep = load_json(report)
    assert rep["match"] == [kind]
    other = "spans" if kind == "tcp" else "tcp"
    assert rep["pairs"][kind] > 0 and rep["pairs"][other] == 0
    _check_against_truth(rep, truth, {kind})


def test_formula_reapplies_report(bt2_plugin, scenarios, tmp_path):
    """A saved report applied as `formula` gives the same corrected times in one pass."""
    dirs, truth = scenarios(2)
    report = tmp_path / "sync.json"
    keep = lambda msg: msg.default_clock_snapshot.ns_from_origin
    two_pass = run_sync(bt2_plugin, ctf_sources(*dirs), {"report": str(report)}, keep=keep)
    one_pass = run_sync(bt2_plugin, ctf_sources(*dirs), {"formula": str(report)}, keep=keep)
    assert one_pass["decreases"] == 0
    assert sorted(one_pass["events"]) == sorted(two_pass["events"])


def _span_keep(msg):
    name = msg.event.name
    if name not in ("deepspan_ust:span_start", "deepspan_ust:span_end"):
        return None
    p = msg.event.payload_field
    kind = int(p["kind"]) if name.endswith("start") else None
    parent = int(p["parent_span_id"]) if name.endswith("start") else None
    return (name.endswith("start"), (int(p["trace_id_high"]), int(p["trace_id_low"])),
            int(p["span_id"]), parent, kind, str(msg.event.stream.trace.environment["hostname"]),
            msg.default_clock_snapshot.ns_from_origin)


def _cross_host_violations(events):
    spans = {}
    for is_start, tid, sid, parent, kind, host, ns in events:
        s = spans.setdefault((tid, sid), {})
        if is_start:
            s.update(start=ns, parent=parent, kind=kind, host=host)
        else:
            s["end"] = ns
    checked = bad = 0
    for (tid, sid), s in spans.items():
        p = spans.get((tid, s.get("parent")))
        if not p or "start" not in s or p.get("host") == s["host"] or p.get("kind") != 2 \
                or s["kind"] != 1:
            continue
        checked += 1
        bad += not (p["start"] <= s["start"] and s["end"] <= p["end"])
    return checked, bad


def test_cross_host_spans_nest_after_sync(bt2_plugin, scenarios, tmp_path):
    dirs, truth = scenarios(3)
    synced = run_sync(bt2_plugin, ctf_sources(*dirs), keep=_span_keep)
    checked, bad = _cross_host_violations(synced["events"])
    assert checked > 100 and bad == 0
    # on the raw clocks (a formula naming no host keeps every clock) they do not all nest
    keep_all = tmp_path / "keep.json"
    keep_all.write_text('{"hosts": [], "reorder": {"window_ns": 200000000}}')
    raw = run_sync(bt2_plugin, ctf_sources(*dirs), {"formula": str(keep_all)}, keep=_span_keep)
    checked_raw, bad_raw = _cross_host_violations(raw["events"])
    assert checked_raw == checked and bad_raw > 0


def test_synchronized_trace_saved_and_read_back(scenarios, tmp_path):
    """sync -> sink.ctf.fs writes a trace that source.ctf.fs reads back, one clock for all hosts."""
    from conftest import run_babeltrace2
    dirs, truth = scenarios(3)
    root = dirs[0].parents[2]
    out = tmp_path / "synced"
    run_babeltrace2(root, "-c", "filter.deepspan.sync", "-c", "sink.ctf.fs", "-p", f'path="{out}"')
    count = lambda path: run_babeltrace2(path, "-c", "sink.utils.counter").stdout.split()[-3]
    assert count(out) == count(root)
    meta = run_babeltrace2("--output-format=ctf-metadata", next(out.rglob("metadata")).parent).stdout
    assert 'description = "synchronized by filter.deepspan.sync onto the clock of host' in meta
    uuids = {run_babeltrace2("--output-format=ctf-metadata", m.parent).stdout.split("clock {")[1]
             .split('uuid = "')[1].split('"')[0] for m in out.rglob("metadata")}
    assert len(uuids) == 1


STATES = ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")


def _attributed_spans(plugin, dirs, synced):
    """sources -> (sync | muxer) -> span-attrib -> collector of deepspan:span events."""
    import bt2
    from test_sync_common import _Collector, _ctf_fs_class

    def keep(msg):
        if msg.event.name != "deepspan:span":
            return None
        p = msg.event.payload_field
        return ((int(p["trace_id_high"]), int(p["trace_id_low"]), int(p["span_id"])),
                int(p["begin"]), int(p["end"]), tuple(int(p[k]) for k in STATES))

    graph = bt2.Graph()
    state = {"keep": keep, "events": [], "count": 0, "last_ns": -(1 << 63), "decreases": 0,
             "clock_classes": set()}
    if synced:
        first = graph.add_component(plugin.filter_component_classes["sync"], "sync")
    else:
        first = graph.add_component(bt2.find_plugin("utils").filter_component_classes["muxer"], "mux")
    attrib = graph.add_component(plugin.filter_component_classes["span-attrib"], "attrib")
    sink = graph.add_component(_Collector, "collector", obj=state)
    n = 0
    for i, d in enumerate(dirs):
        src = graph.add_component(_ctf_fs_class(), f"src{i}", params={"inputs": [str(d)]})
        for name in sorted(src.output_ports):
            graph.connect_ports(src.output_ports[name], first.input_ports[f"in{n}"])
            n += 1
    graph.connect_ports(first.output_ports["out"], attrib.input_ports["in0"])
    graph.connect_ports(attrib.output_ports["out"], sink.input_ports["in"])
    graph.run()
    return {e[0]: e[1:] for e in state["events"]}


def test_span_attrib_unchanged_after_sync(bt2_plugin, scenarios):
    """Per-span state durations are host-local: sync only rescales them by the clock slope."""
    dirs, truth = scenarios(3)
    raw = _attributed_spans(bt2_plugin, dirs, synced=False)
    synced = _attributed_spans(bt2_plugin, dirs, synced=True)
    assert len(raw) > 100 and raw.keys() == synced.keys()
    for key, (begin, end, states) in raw.items():
        s_begin, s_end, s_states = synced[key]
        assert sum(s_states) == s_end - s_begin
        # at most 50 ppm of drift correction (+1 ns rounding per bound) on each duration
        slack = (end - begin) * 60e-6 + 2
        assert abs((s_end - s_begin) - (end - begin)) <= slack
        for a, b in zip(states, s_states):
            assert abs(a - b) <= slack, (key, states, s_states)
