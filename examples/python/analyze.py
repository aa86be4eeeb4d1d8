#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Analyse LTTng traces with deepspan from Python (the bt2 bindings of babeltrace2 2.0).

Two ways to embed deepspan in a Python tool:

1. Build a babeltrace2 graph and let deepspan's sink print the table (the default):

       source.ctf.fs (one per trace) -> filter.utils.muxer -> [filter.deepspan.sync]
           -> filter.deepspan.span-attrib -> sink.deepspan.metrics

2. `--python`: iterate the `deepspan:span` events that filter.deepspan.span-attrib adds, and compute
   the table here (what a tool that wants the per-span numbers itself does).

Usage: /usr/bin/python3 examples/python/analyze.py [--plugin-path DIR] [--by operation|request|syscall|thread]
           [--format text|csv|json|markdown] [--sync] [--python] TRACE-DIR...

bt2 loads only in the system Python (/usr/bin/python3 on Debian: package python3-bt2).
"""
import argparse
import os
import pathlib
import statistics
import sys

import bt2

STATES = ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")


def find_trace_dirs(paths):
    """Every directory under `paths` that holds a CTF `metadata` file (an LTTng session has several)."""
    dirs = []
    for path in map(pathlib.Path, paths):
        if not path.is_dir():
            raise SystemExit(f"analyze.py: {path} is not a directory")
        found = sorted({m.parent for m in path.rglob("metadata") if m.is_file()})
        if not found:
            raise SystemExit(f"analyze.py: no CTF trace (no 'metadata' file) under {path}")
        dirs += found
    return dirs


def load_deepspan(plugin_path):
    """The deepspan plugin, from `plugin_path` or else babeltrace2's own search path."""
    if plugin_path:
        found = bt2.find_plugins_in_path(str(plugin_path)) or []   # None when the directory has no plugin
        plugins = {p.name: p for p in found}
        if "deepspan" not in plugins:
            raise SystemExit(f"analyze.py: no deepspan plugin in {plugin_path}")
        return plugins["deepspan"]
    plugin = bt2.find_plugin("deepspan")
    if plugin is None:
        raise SystemExit("analyze.py: the deepspan plugin is not installed: give --plugin-path DIR "
                         "or set BABELTRACE_PLUGIN_PATH")
    return plugin


def component_class(plugin, kind, name):
    classes = getattr(plugin, f"{kind}_component_classes")
    if name not in classes:
        raise SystemExit(f"analyze.py: {kind}.{plugin.name}.{name} is not in this deepspan plugin")
    return classes[name]


def free_input_port(component):
    """The muxer adds an input port whenever one gets connected: return the unconnected one."""
    return next(port for port in component.input_ports.values() if not port.is_connected)


def run_metrics_graph(deepspan, trace_dirs, by, fmt, sync):
    """Runs the graph of the module docstring; sink.deepspan.metrics prints the table on stdout."""
    ctf_fs = bt2.find_plugin("ctf").source_component_classes["fs"]
    muxer_class = bt2.find_plugin("utils").filter_component_classes["muxer"]

    graph = bt2.Graph()
    muxer = graph.add_component(muxer_class, "muxer")
    # One source per trace: a host's kernel and UST traces have different UUIDs (see BT2-NOTES).
    for index, trace_dir in enumerate(trace_dirs):
        source = graph.add_component(ctf_fs, f"source-{index}", {"inputs": [str(trace_dir)]})
        for port in source.output_ports.values():
            graph.connect_ports(port, free_input_port(muxer))
    chain = [muxer]
    if sync:
        chain.append(graph.add_component(component_class(deepspan, "filter", "sync"), "sync"))
    chain.append(graph.add_component(component_class(deepspan, "filter", "span-attrib"), "span-attrib",
                                     {"pass-through": False}))
    chain.append(graph.add_component(component_class(deepspan, "sink", "metrics"), "metrics",
                                     {"by": by, "format": fmt}))
    for upstream, downstream in zip(chain, chain[1:]):
        graph.connect_ports(next(iter(upstream.output_ports.values())), free_input_port(downstream))
    graph.run()


def span_rows(deepspan, trace_dirs, sync):
    """Yields the payload of every deepspan:span event as a dict (the muxer is added by bt2)."""
    filters = []
    if sync:
        filters.append(bt2.ComponentSpec(component_class(deepspan, "filter", "sync")))
    filters.append(bt2.ComponentSpec(component_class(deepspan, "filter", "span-attrib"), {"pass-through": False}))
    sources = [bt2.ComponentSpec.from_named_plugin_and_component_class("ctf", "fs", {"inputs": [str(d)]})
               for d in trace_dirs]
    for msg in bt2.TraceCollectionMessageIterator(sources, filters):
        if isinstance(msg, bt2._EventMessageConst) and msg.event.name == "deepspan:span":
            payload = msg.event.payload_field
            row = {name: int(payload[name]) for name in ("begin", "end", *STATES)}
            row["frame"] = f"{payload['service']}: {payload['operation']}"
            yield row


def print_python_table(rows):
    """Per `service: operation`: count, latency percentiles (ms), mean ms in each thread state."""
    by_frame = {}
    for row in rows:
        by_frame.setdefault(row["frame"], []).append(row)
    header = ["operation", "count", "mean", "p50", "p95", "p99", "max", *STATES]
    table = [header]
    for frame, spans in sorted(by_frame.items(), key=lambda item: -len(item[1])):
        durations = sorted((s["end"] - s["begin"]) / 1e6 for s in spans)

        def pct(percent):   # nearest rank, as sink.deepspan.metrics: the ceil(percent/100 * n)-th value
            return durations[max(0, (percent * len(durations) + 99) // 100 - 1)]
        states = [statistics.fmean(s[state] for s in spans) / 1e6 for state in STATES]
        table.append([frame, str(len(spans)), *(f"{v:.3f}" for v in
                      (statistics.fmean(durations), pct(50), pct(95), pct(99), durations[-1], *states))])
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    print("(durations and states in ms)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("traces", nargs="+", help="LTTng trace or session directories")
    parser.add_argument("--plugin-path", default=os.environ.get("DEEPSPAN_PLUGIN_DIR"),
                        help="directory of babeltrace-plugin-deepspan.so (default: babeltrace2's search path)")
    parser.add_argument("--by", default="operation", choices=("operation", "request", "syscall", "thread"))
    parser.add_argument("--format", default="text", choices=("text", "csv", "json", "markdown"))
    parser.add_argument("--sync", action="store_true", help="put several hosts on one clock first")
    parser.add_argument("--python", action="store_true",
                        help="compute the per-operation table in Python from the deepspan:span events")
    args = parser.parse_args()

    deepspan = load_deepspan(args.plugin_path)
    trace_dirs = find_trace_dirs(args.traces)
    try:
        if args.python:
            print_python_table(span_rows(deepspan, trace_dirs, args.sync))
        else:
            run_metrics_graph(deepspan, trace_dirs, args.by, args.format, args.sync)
    except bt2._Error as error:
        # The error's causes say which component failed and why (bad parameter, corrupt trace, ...).
        print(f"analyze.py: the babeltrace2 graph failed:\n{error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
