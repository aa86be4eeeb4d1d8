# SPDX-License-Identifier: MIT
"""Helpers of the chain tests (doc/critical-path.md): the invariants of a span's `chain`, and graphs that
produce spans with chains from the scenario source or from recorded traces."""
import gc
import pathlib

import bt2

from span_attrib_support import Collector, payload_dict

WAITED = ("blocked", "wait_cpu")


def chain_problems(span):
    """The broken invariants of one span payload's chain (an empty list when they all hold), in integers."""
    problems = []
    segments, chain = span["segments"], span.get("chain")
    if chain is None:
        return ["no chain member"]
    children = {}
    roots = {}
    for i, e in enumerate(chain):
        if not e["detail"]:
            problems.append(f"entry {i}: empty detail")
        if e["end"] <= e["begin"]:
            problems.append(f"entry {i}: empty or negative interval [{e['begin']}, {e['end']})")
        if e["segment"] >= len(segments):
            problems.append(f"entry {i}: segment {e['segment']} out of range")
            continue
        if e["parent"] == -1:
            if e["depth"] != 0:
                problems.append(f"entry {i}: parent -1 at depth {e['depth']}")
            roots.setdefault(e["segment"], []).append(i)
        else:
            p = e["parent"]
            if not 0 <= p < i:
                problems.append(f"entry {i}: parent {p} not a smaller index")
                continue
            if chain[p]["depth"] + 1 != e["depth"]:
                problems.append(f"entry {i}: depth {e['depth']} under a parent of depth {chain[p]['depth']}")
            if chain[p]["segment"] != e["segment"]:
                problems.append(f"entry {i}: segment differs from its parent's")
            children.setdefault(p, []).append(i)

    def partition(indices, begin, end, what):
        t = begin
        for i in indices:
            if chain[i]["begin"] != t:
                problems.append(f"{what}: entry {i} begins at {chain[i]['begin']}, expected {t}")
            t = chain[i]["end"]
        if t != end:
            problems.append(f"{what}: covered up to {t}, expected {end}")

    for s, seg in enumerate(segments):
        if seg["state"] in WAITED:
            if s not in roots:
                problems.append(f"segment {s} ({seg['state']}) has no entries")
                continue
            partition(roots[s], seg["begin"], seg["end"], f"segment {s}")
        elif s in roots:
            problems.append(f"segment {s} ({seg['state']}) has entries")
    for p, kids in children.items():
        partition(kids, chain[p]["begin"], chain[p]["end"], f"children of entry {p}")
    # depth-first order: the entries of a segment follow each other, a parent's subtree is contiguous
    order = []

    def walk(i):
        order.append(i)
        for k in children.get(i, []):
            walk(k)
    for s in sorted(roots):
        for r in roots[s]:
            walk(r)
    if order != list(range(len(chain))):
        problems.append("entries are not listed depth-first in time order")
    return problems


def leaves(span, segment=None):
    """The leaf entries of a span's chain (optionally of one segment), in time order."""
    chain = span["chain"]
    parents = {e["parent"] for e in chain}
    return [e for i, e in enumerate(chain) if i not in parents and (segment is None or e["segment"] == segment)]


def run_graph(plugin, add_sources, params=None, logging_level=bt2.LoggingLevel.WARNING):
    """add_sources(graph) returns a list of output ports; each goes to span-attrib(params) -> collector.
    Returns the deepspan:span payloads."""
    graph = bt2.Graph()
    ports = add_sources(graph)
    flt = graph.add_component(plugin.filter_component_classes["span-attrib"], "span-attrib",
                              params=dict({"pass-through": False}, **(params or {})), logging_level=logging_level)
    out = []
    sink = graph.add_component(Collector, "sink", obj=out)
    for i, port in enumerate(ports):
        graph.connect_ports(port, flt.input_ports[f"in{i}"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in"])
    graph.run()
    spans = [payload_dict(m.event) for m in out
             if type(m) is bt2._EventMessageConst and m.event.name == "deepspan:span"]
    del graph, flt, sink, out
    gc.collect()
    return spans


def scenario_spans(plugin, scenario_params, params=None):
    """source.deepspan.scenario(scenario_params) -> span-attrib(params): the span payloads."""
    def add(graph):
        src = graph.add_component(plugin.source_component_classes["scenario"], "scenario", params=scenario_params)
        return list(src.output_ports.values())
    return run_graph(plugin, add, params)


def ctf_spans(paths, plugin, params=None):
    """src.ctf.fs of each trace directory -> span-attrib(params): the span payloads."""
    ctf = bt2.find_plugin("ctf").source_component_classes["fs"]

    def add(graph):
        ports = []
        dirs = sorted({m.parent for p in paths for m in pathlib.Path(p).rglob("metadata")})
        for i, path in enumerate(dirs):
            src = graph.add_component(ctf, f"ctf{i}", params={"inputs": [str(path)]})
            ports += list(src.output_ports.values())
        return ports
    return run_graph(plugin, add, params)
