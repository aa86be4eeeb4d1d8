# SPDX-License-Identifier: MIT
"""filter.deepspan.sync on the real two-host LTTng trace (scp between VM1 and VM3, inet_sock_local_* events)."""
import json
import subprocess
from fractions import Fraction

import pytest

from conftest import BABELTRACE2, PLUGIN_DIR, run_babeltrace2
from test_sync_common import ctf_sources, hostname_of, load_json, run_sync


@pytest.fixture(scope="module")
def scp(shared_traces):
    base = shared_traces / "synctraces"
    return base / "scp_src", base / "scp_dest"


def _tcp_keep(msg):
    name = msg.event.name
    if not name.startswith("inet_sock_local_"):
        return None
    p = msg.event.payload_field
    return (name, hostname_of(msg), msg.default_clock_snapshot.ns_from_origin,
            (int(p["seq"]), int(p["ack_seq"]), int(p["flags"])))


def test_cli_run_clean_and_report(scp, tmp_path):
    report = tmp_path / "sync.json"
    src, dst = scp
    proc = run_babeltrace2(
        "run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{src}"]',
        "-c", "dst:source.ctf.fs", "-p", f'inputs=["{dst}"]',
        "-c", "sync:filter.deepspan.sync", "-p", f'report="{report}"',
        "-c", "out:sink.utils.dummy",
        "--connect", "src:sync.in0", "--connect", "dst:sync.in1", "--connect", "sync:out")
    # scp_src's packets overlap (one ends ~1.5 us after the next one of its stream begins): the packet end
    # is taken at that beginning, quietly, as babeltrace2's own trace quirks are
    assert proc.stderr == ""
    rep = load_json(report)
    assert rep["pairs"]["tcp"] == 46
    assert rep["reorder"]["high_water_mark_messages"] > 0
    assert rep["reorder"]["late_messages"] == 0
    hosts = {h["name"]: h for h in rep["hosts"]}
    assert set(hosts) == {"VM1", "VM3"}
    # VM3's clock UUID sorts first: it is the default reference, as in Trace Compass
    assert rep["reference"] == "VM3" and hosts["VM3"]["reference"]
    vm1 = hosts["VM1"]
    assert vm1["quality"] == "ACCURATE"
    assert vm1["path"] == ["VM1", "VM3"] and vm1["hops"] == 1
    assert vm1["pairs"]["tcp"] == 46 and vm1["accuracy_ns"] > 0
    for b in vm1["bounds"]:
        assert b["lo"] <= b["hi"]
    pair = rep["host_pairs"][0]
    assert pair["quality"] == "ACCURATE" and pair["a_to_b"] + pair["b_to_a"] == 46
    # the pair's x host is the reference (VM3) as in Trace Compass: its hull slopes map VM3 -> VM1
    assert (pair["a"], pair["b"]) == ("VM3", "VM1")
    assert pair["slope_min"] <= pair["alpha"] <= pair["slope_max"]
    assert pair["slope_min"] <= 1 / vm1["slope"] <= pair["slope_max"]


# Trace Compass's own expectation for these two traces (org.eclipse.tracecompass, lttng/
# org.eclipse.tracecompass.lttng2.kernel.core.tests/.../matchandsync/ExperimentSyncTest.java,
# testExperimentSync): trace1 = SYNC_SRC (scp_src, VM1) gets
# "TmfTimestampTransformLinearFast [ slope = 0.9999413783703139011056845831168394,
#  offset = 79796507913179.33347660124688298171 ]" and trace2 (scp_dest, VM3, the reference)
# the identity.  t' = slope t + offset, t in ns from the clock's origin.
TC_SLOPE = Fraction("0.9999413783703139011056845831168394")
TC_OFFSET = Fraction("79796507913179.33347660124688298171")


def test_formula_equals_trace_compass(scp, tmp_path):
    report = tmp_path / "sync.json"
    src, dst = scp
    run_babeltrace2(
        "run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{src}"]',
        "-c", "dst:source.ctf.fs", "-p", f'inputs=["{dst}"]',
        "-c", "sync:filter.deepspan.sync", "-p", f'report="{report}"',
        "-c", "out:sink.utils.dummy",
        "--connect", "src:sync.in0", "--connect", "dst:sync.in1", "--connect", "sync:out")
    hosts = {h["name"]: h for h in load_json(report)["hosts"]}
    vm1, vm3 = hosts["VM1"], hosts["VM3"]
    assert vm3["reference"] and vm3["linear"] == {"slope": 1, "offset_ns": 0}
    assert abs(vm1["linear"]["slope"] - float(TC_SLOPE)) < 1e-9
    assert abs(vm1["linear"]["offset_ns"] - float(TC_OFFSET)) < 1000
    assert vm1["slope"] == vm1["linear"]["slope"] == vm1["transform"]["slope"]
    # the applied transform agrees with Trace Compass's over VM1's whole time range
    tf = vm1["transform"]
    for t in (vm1["first_ns"], tf["x0"], vm1["last_ns"]):
        ours = tf["y0"] + (t - tf["x0"]) + round((tf["slope"] - 1) * (t - tf["x0"]))
        assert abs(ours - (TC_SLOPE * t + TC_OFFSET)) < 1000, t


def test_every_receive_after_its_send(bt2_plugin, scp):
    state = run_sync(bt2_plugin, ctf_sources(*scp), keep=_tcp_keep)
    assert state["decreases"] == 0
    assert state["count"] == 196500
    sends, recvs = {}, {}
    for name, host, ns, key in state["events"]:
        table = sends if name.endswith("out") else recvs
        table.setdefault(key, (host, ns))
    pairs = [(sends[k], recvs[k]) for k in sends if k in recvs and sends[k][0] != recvs[k][0]]
    assert len(pairs) == 46
    for (shost, sns), (rhost, rns) in pairs:
        assert rns > sns, f"receive on {rhost} at {rns} before its send on {shost} at {sns}"


def test_output_clock_says_synchronized(bt2_plugin, scp):
    state = run_sync(bt2_plugin, ctf_sources(*scp))
    assert len(state["clock_classes"]) == 1
    name, uuid, epoch = next(iter(state["clock_classes"]))
    assert name == "monotonic" and epoch
    assert uuid not in ("74715693-28c1-4d0d-bee9-24790a4942b0", "1a9a454c-b8e8-4c19-b95d-65840be0962f")


def _pretty(args, with_stderr=False):
    proc = subprocess.run([BABELTRACE2, f"--plugin-path={PLUGIN_DIR}", *args], capture_output=True,
                          text=True, timeout=600, env={"TZ": "UTC", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return (proc.stdout, proc.stderr) if with_stderr else proc.stdout


@pytest.mark.parametrize("trace", ["synctraces/scp_src", "synctraces/scp_dest",
                                   "cat-kern-ust/cat-kernel", "cat-kern-ust/cat-ust",
                                   "multi-domains/kernel", "multi-domains/ust"])
def test_identity_formula_round_trip(shared_traces, tmp_path, trace):
    """A trace through sync with a formula that names no host (every clock kept): same events,
    same fields (variants, enumerations, arrays, strings, contexts) and same times."""
    trace = shared_traces / trace
    formula = tmp_path / "identity.json"
    formula.write_text(json.dumps({"hosts": [], "reorder": {"window_ns": 10000000}}))
    fields = "field-default=show,no-delta=yes,clock-date=yes,clock-gmt=yes"
    # the reference read: a muxer when the source has several ports (one per stream)
    muxed = "synctraces" not in str(trace)
    ref = _pretty(["run", "-c", "s:source.ctf.fs", "-p", f'inputs=["{trace}"]',
                   "-c", "p:sink.text.pretty", "-p", fields]
                  + (["-c", "m:filter.utils.muxer", "--connect", "s:m", "--connect", "m:p"]
                     if muxed else ["--connect", "s:p"]))
    out, err = _pretty(["run", "-c", "s:source.ctf.fs", "-p", f'inputs=["{trace}"]',
                        "-c", "sync:filter.deepspan.sync", "-p", f'formula="{formula}"',
                        "-c", "p:sink.text.pretty", "-p", fields,
                        "--connect", "s:sync", "--connect", "sync:p"], with_stderr=True)
    # sorted: the lines of the streams come out merged in time order after sync
    ref_lines, out_lines = sorted(ref.splitlines()), sorted(out.splitlines())
    assert len(ref_lines) > 200
    assert ref_lines == out_lines
    assert "were earlier than the previous message of their stream" not in err


def test_round_trip_keeps_variants_enums_arrays(shared_traces, tmp_path):
    """The copied net_dev_queue classes have the same shape: enum selector, variant options, arrays."""
    trace = shared_traces / "cat-kern-ust/cat-kernel"
    formula = tmp_path / "identity.json"
    formula.write_text('{"hosts": []}')
    out = tmp_path / "copy"
    run_babeltrace2("run", "-c", "s:source.ctf.fs", "-p", f'inputs=["{trace}"]',
                    "-c", "sync:filter.deepspan.sync", "-p", f'formula="{formula}"',
                    "-c", "w:sink.ctf.fs", "-p", f'path="{out}"',
                    "--connect", "s:sync", "--connect", "sync:w")
    meta = run_babeltrace2("--output-format=ctf-metadata", next(out.rglob("metadata")).parent).stdout
    queue = meta.split('name = "net_dev_queue";')[1].split("event {")[0]
    assert '"_ipv4" = 1' in queue and "variant <_network_header_type>" in queue
    assert "_saddr[4]" in queue and "variant <_transport_header_type>" in queue


def test_saved_synchronized_trace_reads_back(scp, tmp_path):
    """sync -> sink.ctf.fs on traces whose packets overlap in one stream (babeltrace2's own muxer refuses
    them): each stream keeps its order, so sink.ctf.fs writes the trace (it aborted on a packet that began
    while the previous one was open) and babeltrace2 reads it back, every event there at its synchronized
    time."""
    src, dst = scp
    out = tmp_path / "saved"
    proc = run_babeltrace2(
        "run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{src}"]',
        "-c", "dst:source.ctf.fs", "-p", f'inputs=["{dst}"]',
        "-c", "sync:filter.deepspan.sync", "-c", "out:sink.ctf.fs", "-p", f'path="{out}"',
        "--connect", "src:sync.in0", "--connect", "dst:sync.in1", "--connect", "sync:out")
    assert proc.returncode == 0, proc.stderr
    assert "W deepspan" not in proc.stderr
    pretty = "no-delta=yes,clock-gmt=yes,clock-seconds=yes"
    direct = run_babeltrace2(
        "run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{src}"]',
        "-c", "dst:source.ctf.fs", "-p", f'inputs=["{dst}"]',
        "-c", "sync:filter.deepspan.sync", "-c", "p:sink.text.pretty", "-p", pretty,
        "--connect", "src:sync.in0", "--connect", "dst:sync.in1", "--connect", "sync:p")
    saved = run_babeltrace2(str(out), "-c", "sink.text.pretty", "-p", pretty)
    assert saved.returncode == 0 and direct.returncode == 0, saved.stderr + direct.stderr
    assert len(saved.stdout.splitlines()) > 100000
    assert sorted(saved.stdout.splitlines()) == sorted(direct.stdout.splitlines())
