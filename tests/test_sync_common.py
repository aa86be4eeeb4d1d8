# SPDX-License-Identifier: MIT
"""Helpers of the filter.deepspan.sync tests (graphs built with the bt2 Python bindings)."""
import json

import bt2


def _ctf_fs_class():
    return bt2.find_plugin("ctf").source_component_classes["fs"]


class _Collector(bt2._UserSinkComponent):
    """Keeps what `obj['keep'](msg)` returns for every event; checks corrected time never decreases."""

    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._state = obj

    def _user_graph_is_configured(self):
        self._it = self._create_message_iterator(self._port)

    def _user_consume(self):
        state = self._state
        msg = next(self._it)
        if True:
            cs = None
            if type(msg) is bt2._EventMessageConst:
                cs = msg.default_clock_snapshot
                kept = state["keep"](msg)
                if kept is not None:
                    state["events"].append(kept)
                state["count"] += 1
            elif type(msg) in (bt2._PacketBeginningMessageConst, bt2._PacketEndMessageConst):
                cs = msg.default_clock_snapshot
            if cs is not None:
                ns = cs.ns_from_origin
                if ns < state["last_ns"]:
                    state["decreases"] += 1
                state["last_ns"] = max(state["last_ns"], ns)
                state["clock_classes"].add(
                    (cs.clock_class.name, str(cs.clock_class.uuid), cs.clock_class.origin_is_unix_epoch))


def run_sync(plugin, sources, sync_params=None, keep=lambda msg: None, logging_level=bt2.LoggingLevel.WARNING):
    """Runs sources -> filter.deepspan.sync -> collector.

    sources: list of (component class, params); every output port of every source is
    connected to the next `inN` port.  Returns the collector state dict.
    """
    graph = bt2.Graph()
    sync = graph.add_component(plugin.filter_component_classes["sync"], "sync",
                               params=sync_params or {}, logging_level=logging_level)
    state = {"keep": keep, "events": [], "count": 0, "last_ns": -(1 << 63),
             "decreases": 0, "clock_classes": set()}
    sink = graph.add_component(_Collector, "collector", obj=state)
    port_index = 0
    for i, (cls, params) in enumerate(sources):
        src = graph.add_component(cls, f"src{i}", params=params, logging_level=logging_level)
        for name in sorted(src.output_ports):
            graph.connect_ports(src.output_ports[name], sync.input_ports[f"in{port_index}"])
            port_index += 1
    graph.connect_ports(sync.output_ports["out"], sink.input_ports["in"])
    graph.run()
    return state


def ctf_sources(*paths):
    cls = _ctf_fs_class()
    return [(cls, {"inputs": [str(p)]}) for p in paths]


def hostname_of(msg):
    return str(msg.event.stream.trace.environment["hostname"])


def load_json(path):
    with open(path) as f:
        return json.load(f)
