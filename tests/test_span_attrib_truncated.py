# SPDX-License-Identifier: MIT
"""Spans still open when the input ends are emitted with `truncated` = true, and the diff sink leaves their
requests out of its groups (and says how many)."""
import json

import bt2

from conftest import make_scenario_trace, run_babeltrace2


def test_truncated_spans_are_flagged_and_left_out(plugin_dir, bt2_plugin, tmp_path):
    truth = tmp_path / "truth.json"
    trace = make_scenario_trace(tmp_path / "t", truth=truth, requests=120, seed=5, clock="none")
    spans = json.loads(truth.read_text())["spans"]
    # cut the input in the middle of the longest root span: at least that request is in flight
    longest = max((s for s in spans if s["parent_span_id"] == 0), key=lambda s: s["end"] - s["begin"])
    middle = (longest["begin"] + longest["end"]) // 2
    end = f"{middle // 10**9}.{middle % 10**9:09d}"

    flags = []
    sources = [bt2.ComponentSpec.from_named_plugin_and_component_class(
        "ctf", "fs", {"inputs": [str(p.parent)]}) for p in sorted(trace.rglob("metadata"))]
    attrib = bt2.ComponentSpec(bt2_plugin.filter_component_classes["span-attrib"], {"pass-through": False})
    for msg in bt2.TraceCollectionMessageIterator(sources, [attrib], end=middle / 1e9):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "deepspan:span":
            event = msg.event.payload_field
            flags.append(bool(event["truncated"]))
            assert int(event["end"]) - int(event["begin"]) == sum(
                int(event[s]) for s in ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown"))
    assert flags.count(True) >= 1 and flags.count(False) > 100

    proc = run_babeltrace2(trace, f"--end={end}", "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "r"}"')
    assert "still open at the end of the input were emitted truncated" in proc.stderr
    assert "with truncated spans" in proc.stdout, proc.stdout
