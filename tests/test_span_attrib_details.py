# SPDX-License-Identifier: MIT
"""Segment details belong only to the states that have one (syscall name, waker, irq/softirq name); the others
hold "-" (never "", which does not survive a save with sink.ctf.fs, doc/span-attrib.md);
regression: a detail written into a recycled event must not show the previous event's bytes."""
import collections

import bt2

from conftest import make_scenario_trace

DETAILED = {"syscall", "blocked", "interrupted"}


def test_only_detailed_states_carry_a_detail(plugin_dir, bt2_plugin, tmp_path):
    trace = make_scenario_trace(tmp_path / "t", requests=120, seed=21, cause="mixed", **{"slow-ratio": 0.2})
    attrib = bt2.ComponentSpec(bt2_plugin.filter_component_classes["span-attrib"], {"pass-through": False})
    sources = [bt2.ComponentSpec.from_named_plugin_and_component_class("ctf", "fs", {"inputs": [str(p.parent)]})
               for p in sorted(trace.rglob("metadata"))]     # one source per trace (each has its own UUID)
    seen = collections.Counter()
    for msg in bt2.TraceCollectionMessageIterator(sources, [attrib]):
        if type(msg) is not bt2._EventMessageConst or msg.event.name != "deepspan:span":
            continue
        for seg in msg.event.payload_field["segments"]:
            state = seg["state"].labels[0]
            detail = str(seg["detail"])
            seen[(state, detail != "-")] += 1
            assert detail, f"{state} segment with an empty detail"
            if state not in DETAILED:
                assert detail == "-", f"{state} segment with detail {detail!r}"
            if state == "syscall":
                assert detail != "-", "a syscall segment must name its syscall"
    assert seen[("user", False)] > 1000 and seen[("syscall", True)] > 1000 and seen[("blocked", True)] > 100
