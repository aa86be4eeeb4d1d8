# SPDX-License-Identifier: MIT
"""filter.deepspan.span-attrib against the ground truth of source.deepspan.scenario (DESIGN.md §7):
every span's six states within 0.1% of the truth, per-syscall counts and durations within 0.1%,
and zero spans whose states do not sum exactly to their duration."""
import json

import bt2
import pytest

from conftest import make_scenario_trace
from span_attrib_support import STATES, payload_dict


def _spans_from(source_specs, bt2_plugin, params=None):
    flt = bt2.ComponentSpec(bt2_plugin.filter_component_classes["span-attrib"],
                            dict({"pass-through": False}, **(params or {})))
    it = bt2.TraceCollectionMessageIterator(source_specs, [flt])
    return [payload_dict(m.event) for m in it
            if type(m) is bt2._EventMessageConst and m.event.name == "deepspan:span"]


def _compare(spans, truth):
    by_key = {(s["trace_id_high"], s["trace_id_low"], s["span_id"]): s for s in truth["spans"]}
    assert len(spans) == len(truth["spans"]) > 0
    problems = []
    for span in spans:
        key = (span["trace_id_high"], span["trace_id_low"], span["span_id"])
        true = by_key[key]
        duration = span["end"] - span["begin"]
        if sum(span[s] for s in STATES) != duration:
            problems.append(("sum", key))
        if (span["begin"], span["end"], span["host"], span["tid"]) != (true["begin"], true["end"], true["host"], true["tid"]):
            problems.append(("identity", key))
        for state in STATES:
            if abs(span[state] - true["states"][state]) > 0.001 * duration:
                problems.append((state, key, span[state], true["states"][state]))
        ours = {s["name"]: s for s in span["syscalls"]}
        theirs = {s["name"]: s for s in true["syscalls"]}
        for name in set(ours) | set(theirs):
            a = ours.get(name, {"count": 0, "duration": 0})
            b = theirs.get(name, {"count": 0, "duration": 0})
            if a["count"] != b["count"] or abs(a["duration"] - b["duration"]) > 0.001 * duration:
                problems.append(("syscall", name, key, a, b))
    assert not problems, problems[:10]
    return spans


@pytest.mark.parametrize("params", [
    dict(seed=1, requests=40),
    dict(seed=2, requests=40, **{"span-schema": "jaeger_ust"}),
    dict(seed=3, requests=40, hosts=5, cpus=2, cause="lock"),
    dict(seed=4, requests=40, hosts=2, cpus=2, cause="cpu", **{"span-schema": "jaeger_ust"}),
    dict(seed=5, requests=40, cause="irq", **{"slow-ratio": 0.5}),
    dict(seed=6, requests=40, cause="disk", **{"slow-ratio": 0.5}),
], ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_states_match_truth(bt2_plugin, tmp_path, params):
    truth_path = tmp_path / "truth.json"
    source = bt2.ComponentSpec(bt2_plugin.source_component_classes["scenario"],
                               dict(params, truth=str(truth_path)))
    spans = _spans_from([source], bt2_plugin)
    truth = json.loads(truth_path.read_text())
    _compare(spans, truth)
    assert sum(s["blocked"] for s in spans) > 0 and sum(s["syscall"] for s in spans) > 0


def test_states_match_truth_through_ctf_files(bt2_plugin, tmp_path):
    truth_path = tmp_path / "truth.json"
    trace_dir = make_scenario_trace(tmp_path / "trace", truth=truth_path, seed=9, requests=30)
    metadata_dirs = sorted(str(p.parent) for p in trace_dir.rglob("metadata"))
    sources = [bt2.ComponentSpec.from_named_plugin_and_component_class("ctf", "fs", {"inputs": [d]})
               for d in metadata_dirs]
    spans = _spans_from(sources, bt2_plugin)
    _compare(spans, json.loads(truth_path.read_text()))


def test_segments_add_up_to_states(bt2_plugin, tmp_path):
    source = bt2.ComponentSpec(bt2_plugin.source_component_classes["scenario"], dict(seed=12, requests=20))
    spans = _spans_from([source], bt2_plugin)
    waker_details = 0
    for span in spans:
        totals = dict.fromkeys(STATES, 0)
        cursor = span["begin"]
        for seg in span["segments"]:
            assert seg["begin"] == cursor and seg["end"] > seg["begin"]
            totals[seg["state"]] += seg["end"] - seg["begin"]
            cursor = seg["end"]
            if seg["state"] == "syscall":
                assert seg["detail"] not in ("", "-"), span
            if seg["state"] == "blocked" and seg["detail"] not in ("", "-"):
                waker_details += 1
        assert cursor == span["end"]
        assert totals == {s: span[s] for s in STATES}
    assert waker_details > 0
