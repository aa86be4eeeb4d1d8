# SPDX-License-Identifier: MIT
"""filter.deepspan.sync pass 1 keeps only open pairs: keys older than `pair-expiry` are forgotten and counted."""
import pytest

from conftest import make_scenario_trace, run_babeltrace2
from test_sync_common import ctf_sources, load_json, run_sync


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    out = tmp_path_factory.mktemp("expiry")
    truth = out / "truth.json"
    make_scenario_trace(out / "ctf", truth=str(truth), hosts=3, requests=60, seed=21, cpus=2)
    return sorted(p.parent for p in (out / "ctf").rglob("metadata")), load_json(truth)


def _report(bt2_plugin, dirs, tmp_path, name, **params):
    report = tmp_path / f"{name}.json"
    state = run_sync(bt2_plugin, ctf_sources(*dirs), {"report": str(report), **params})
    assert state["decreases"] == 0 and state["count"] > 0
    return load_json(report)


def test_default_expiry_loses_no_pair(bt2_plugin, scenario, tmp_path):
    # the hosts' clocks differ by at most 50 ms: 1 s (default) forgets only keys that never
    # find a partner, exactly as keeping everything (1 day) does
    dirs, truth = scenario
    reference = truth["hosts"][0]["name"]
    default = _report(bt2_plugin, dirs, tmp_path, "default", reference=reference)
    day = _report(bt2_plugin, dirs, tmp_path, "day", reference=reference, **{"pair-expiry": "24h"})
    assert default["pairs"]["expiry_ns"] == 1_000_000_000
    assert day["pairs"]["expiry_ns"] == 86_400_000_000_000
    for key in ("tcp", "spans", "same_host_tcp_ignored", "spans_expired"):
        assert default["pairs"][key] == day["pairs"][key], key
    assert default["pairs"]["tcp"] > 0 and default["pairs"]["spans"] > 0
    assert default["pairs"]["spans_expired"] == 0
    # unmatched keys: forgotten on the way (default) or left over at the end (1 day)
    assert day["pairs"]["tcp_expired"] == 0
    assert [h["transform"] for h in default["hosts"]] == [h["transform"] for h in day["hosts"]]


def test_short_expiry_counts_late_partners(bt2_plugin, scenario, tmp_path):
    # with 1 µs, far below the clock offsets and latencies, a receive is read more than the
    # expiry after its send (or the reverse): both keys are forgotten and counted, no TCP
    # pair forms; span end edges (spans last far longer than 1 µs) are given up and counted
    dirs, truth = scenario
    reference = truth["hosts"][0]["name"]
    full = _report(bt2_plugin, dirs, tmp_path, "full", reference=reference)
    short = _report(bt2_plugin, dirs, tmp_path, "short", reference=reference,
                    **{"pair-expiry": "1us"})
    assert short["pairs"]["expiry_ns"] == 1000
    assert short["pairs"]["tcp"] < full["pairs"]["tcp"]
    assert short["pairs"]["tcp_expired"] >= full["pairs"]["tcp"] - short["pairs"]["tcp"]
    assert short["pairs"]["spans_expired"] > 0
    assert short["pairs"]["spans"] < full["pairs"]["spans"]


@pytest.mark.parametrize("value, message", [
    ('pair-expiry="48h"', "parameter `pair-expiry`: expected a duration of at most 1 day, "
                         "got 172800000000000 ns."),
    ('pair-expiry="soon"', "pair-expiry"),
])
def test_bad_expiry(shared_traces, value, message):
    base = shared_traces / "synctraces"
    proc = run_babeltrace2("run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
                           "-c", "sync:filter.deepspan.sync", "-p", value,
                           "-c", "out:sink.utils.dummy", "--connect", "src:sync.in0",
                           "--connect", "sync:out", check=False)
    assert proc.returncode != 0
    assert message in " ".join(proc.stderr.split())
