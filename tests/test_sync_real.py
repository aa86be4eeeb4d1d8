"""filter.deepspan.sync on the real two-host LTTng trace (scp between VM1 and VM3, inet_sock_local_* events)."""
import json
import subprocess

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
    assert pair["slope_min"] <= vm1["slope"] <= pair["slope_max"]


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


def _pretty(args):
    proc = subprocess.run([BABELTRACE2, f"--plugin-path={PLUGIN_DIR}", *args], capture_output=True,
                          text=True, timeout=600, env={"TZ": "UTC", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.parametrize("which", [0, 1])
def test_identity_formula_round_trip(scp, tmp_path, which):
    """A trace through sync with an identity formula: same events, fields and times."""
    trace = scp[which]
    formula = tmp_path / "identity.json"
    formula.write_text(json.dumps({
        "reference": "VM3",
        "reorder": {"window_ns": 10000000},
        "hosts": [{"name": n, "clock_uuid": u, "quality": "ACCURATE",
                   "transform": {"x0": 0, "y0": 0, "slope": 1.0}}
                  for n, u in (("VM1", "74715693-28c1-4d0d-bee9-24790a4942b0"),
                               ("VM3", "1a9a454c-b8e8-4c19-b95d-65840be0962f"))]}))
    fields = "field-default=show,no-delta=yes,clock-date=yes,clock-gmt=yes"
    ref = _pretty(["run", "-c", "s:source.ctf.fs", "-p", f'inputs=["{trace}"]',
                   "-c", "p:sink.text.pretty", "-p", fields, "--connect", "s:p"])
    out = _pretty(["run", "-c", "s:source.ctf.fs", "-p", f'inputs=["{trace}"]',
                   "-c", "sync:filter.deepspan.sync", "-p", f'formula="{formula}"',
                   "-c", "p:sink.text.pretty", "-p", fields,
                   "--connect", "s:sync.in0", "--connect", "sync:p"])
    # sorted: the source's overlapping packets come out in time order after sync
    ref_lines, out_lines = sorted(ref.splitlines()), sorted(out.splitlines())
    assert len(ref_lines) > 50000
    assert ref_lines == out_lines
