# SPDX-License-Identifier: MIT
"""Helpers of the span-attrib tests: a scripted bt2 source of kernel + span events and a collecting sink.

A script is a list of (ts_ns, host, stream, event_name, fields) in time order; `stream` is
"k<cpu>" (kernel, packet context cpu_id) or "u" (UST, contexts vpid/vtid), or
("discard", host, "k<cpu>", begin, end, count) for a discarded-events message, or
("discard_packets", host, "k<cpu>", begin, end, count) for a discarded-packets message.
Source options (obj): "clock": {"none": True} gives every stream no clock (no snapshots);
"kernel_cpu_id": False gives kernel packets no cpu_id member.
"""
import gc
import re

import bt2

import chain_packed

U8, U64, S64, STR = "u8", "u64", "s64", "str"
IDS = [("trace_id_high", U64), ("trace_id_low", U64), ("span_id", U64)]

EVENT_FIELDS = {
    "sched_switch": [("prev_comm", STR), ("prev_tid", S64), ("prev_prio", S64), ("prev_state", S64),
                     ("next_comm", STR), ("next_tid", S64), ("next_prio", S64)],
    "sched_waking": [("comm", STR), ("tid", S64), ("prio", S64), ("target_cpu", S64)],
    "sched_wakeup": [("comm", STR), ("tid", S64), ("prio", S64), ("target_cpu", S64)],
    "sched_migrate_task": [("comm", STR), ("tid", S64), ("prio", S64), ("orig_cpu", S64), ("dest_cpu", S64)],
    "sched_process_free": [("comm", STR), ("tid", S64), ("prio", S64)],
    "irq_handler_entry": [("irq", S64), ("name", STR)],
    "irq_handler_exit": [("irq", S64), ("ret", S64)],
    "irq_softirq_entry": [("vec", U64)],
    "irq_softirq_exit": [("vec", U64)],
    "lttng_statedump_process_state": [("tid", S64), ("vtid", S64), ("pid", S64), ("vpid", S64), ("ppid", S64),
                                      ("vppid", S64), ("name", STR), ("type", S64), ("mode", S64),
                                      ("submode", S64), ("status", S64), ("cpu", S64)],
    "lttng_statedump_process_pid_ns": [("tid", S64), ("vtid", S64), ("vpid", S64), ("vppid", S64),
                                       ("ns_level", S64), ("ns_inum", U64)],
    "deepspan_ust:span_start": IDS + [("parent_span_id", U64), ("service", STR), ("operation", STR), ("kind", U8)],
    "deepspan_ust:span_end": IDS + [("status", U8)],
    "deepspan_ust:span_activate": IDS,
    "deepspan_ust:span_deactivate": IDS,
    "jaeger_ust:start_span": IDS + [("parent_span_id", U64), ("op_name", STR), ("start_time", S64)],
    "jaeger_ust:end_span": IDS + [("duration", S64)],
}


def syscall_fields(name):
    if name.startswith("syscall_exit_") or name.startswith("compat_syscall_exit_"):
        return [("ret", S64)]
    if name.startswith("syscall_entry_") or name.startswith("compat_syscall_entry_"):
        return []
    return None


def _field_class(tc, kind):
    if kind == STR:
        return tc.create_string_field_class()
    if kind == S64:
        return tc.create_signed_integer_field_class(64)
    if kind == U8:
        return tc.create_unsigned_integer_field_class(8)
    return tc.create_unsigned_integer_field_class(64)


class _Trace:
    """One host+domain trace of the scripted source."""

    def __init__(self, comp, host, domain, clock_class, fields_of, cpu_id=True):
        self.tc = comp._create_trace_class()
        self.domain = domain
        self.fields_of = fields_of
        self.cpu_id = cpu_id
        if domain == "kernel":
            pc = self.tc.create_structure_field_class()
            if cpu_id:
                pc.append_member("cpu_id", self.tc.create_unsigned_integer_field_class(32))
            timed = clock_class is not None
            self.sc = self.tc.create_stream_class(default_clock_class=clock_class, supports_packets=True,
                                                  packets_have_beginning_default_clock_snapshot=timed,
                                                  packets_have_end_default_clock_snapshot=timed,
                                                  packet_context_field_class=pc,
                                                  supports_discarded_events=True,
                                                  discarded_events_have_default_clock_snapshots=timed,
                                                  supports_discarded_packets=True,
                                                  discarded_packets_have_default_clock_snapshots=timed)
        else:
            cc = self.tc.create_structure_field_class()
            cc.append_member("vpid", self.tc.create_signed_integer_field_class(32))
            cc.append_member("vtid", self.tc.create_signed_integer_field_class(32))
            cc.append_member("procname", self.tc.create_string_field_class())
            self.sc = self.tc.create_stream_class(default_clock_class=clock_class,
                                                  event_common_context_field_class=cc)
        self.trace = self.tc(environment={"hostname": host, "domain": domain})
        self.ecs = {}
        self.streams = {}

    def event_class(self, name):
        if name not in self.ecs:
            fields = self.fields_of(name)
            payload = self.tc.create_structure_field_class()
            for fname, kind in fields:
                payload.append_member(fname, _field_class(self.tc, kind))
            self.ecs[name] = self.sc.create_event_class(name=name, payload_field_class=payload)
        return self.ecs[name]


class _ScriptIter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        self._gen = _gen(self._component, self)

    def __next__(self):
        return next(self._gen)


class Source(bt2._UserSourceComponent, message_iterator_class=_ScriptIter):
    """obj: {"script": [...], "fields": {event name: [(field, kind)]} overrides, "clock": {...}}."""

    def __init__(self, config, params, obj):
        self._script = obj["script"]
        overrides = obj.get("fields", {})
        clock = obj.get("clock", {})

        def fields_of(name):
            if name in overrides:
                return overrides[name]
            if name in EVENT_FIELDS:
                return EVENT_FIELDS[name]
            sys_fields = syscall_fields(name)
            return sys_fields if sys_fields is not None else []

        self._fields_of = fields_of
        self._clock = None if clock.get("none") else self._create_clock_class(
            frequency=1_000_000_000, name="monotonic", origin_is_unix_epoch=clock.get("unix_epoch", True),
            offset=bt2.ClockClassOffset(clock.get("offset_s", 0), 0), uuid=clock.get("uuid"))
        self._cpu_id = obj.get("kernel_cpu_id", True)
        self._traces = {}
        self._add_output_port("out")

    def _trace(self, host, domain):
        key = (host, domain)
        if key not in self._traces:
            self._traces[key] = _Trace(self, host, domain, self._clock, self._fields_of, self._cpu_id)
        return self._traces[key]

    def _stream(self, it, host, stream, ts):
        domain = "kernel" if stream.startswith("k") else "ust"
        trace = self._trace(host, domain)
        if stream not in trace.streams:
            s = trace.trace.create_stream(trace.sc)
            packet = None
            msgs = [it._create_stream_beginning_message(s)]
            if domain == "kernel":
                packet = _new_packet(trace, s, stream)
                msgs.append(it._create_packet_beginning_message(packet, self._ts(ts)))
            trace.streams[stream] = (s, packet)
            return trace, s, msgs
        return trace, trace.streams[stream][0], []

    def _ts(self, ts):
        """The clock snapshot argument: None when the streams have no clock."""
        return ts if self._clock is not None else None


def _new_packet(trace, stream_obj, stream):
    packet = stream_obj.create_packet()
    if trace.cpu_id:
        packet.context_field["cpu_id"] = int(stream[1:])
    return packet


def _gen(comp, it):
    script = comp._script
    opened = []
    last_ts = 0
    for entry in script:
        if entry[0] in ("discard", "discard_packets"):
            _, host, stream, begin, end, count = entry
            trace, s, msgs = comp._stream(it, host, stream, begin)
            yield from msgs
            # a discarded-events/packets message cannot sit inside a packet: close and reopen it
            pkt = trace.streams[stream][1]
            if pkt is not None:
                yield it._create_packet_end_message(pkt, comp._ts(begin))
            create = (it._create_discarded_events_message if entry[0] == "discard"
                      else it._create_discarded_packets_message)
            yield create(s, count=count, beg_clock_snapshot=comp._ts(begin), end_clock_snapshot=comp._ts(end))
            if pkt is not None:
                new_pkt = _new_packet(trace, s, stream)
                trace.streams[stream] = (s, new_pkt)
                yield it._create_packet_beginning_message(new_pkt, comp._ts(end))
            continue
        ts, host, stream, name, fields = entry
        trace, s, msgs = comp._stream(it, host, stream, ts)
        last_ts = ts
        if msgs:
            opened.append((trace, stream))
        yield from msgs
        msg = it._create_event_message(trace.event_class(name), trace.streams[stream][1] or s,
                                       default_clock_snapshot=comp._ts(ts))
        for key, value in fields.items():
            if trace.domain == "ust" and key in ("vpid", "vtid", "procname"):
                msg.event.common_context_field[key] = value
            else:
                msg.event.payload_field[key] = value
        yield msg
    for trace, stream in opened:
        s, pkt = trace.streams[stream]
        if pkt is not None:
            yield it._create_packet_end_message(pkt, comp._ts(last_ts))
        yield it._create_stream_end_message(s)


class Collector(bt2._UserSinkComponent):
    """Collects every message's summary; obj: a list to append to."""

    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._out = obj

    def _user_graph_is_configured(self):
        self._it = self._create_message_iterator(self._port)

    def _user_consume(self):
        try:
            msg = next(self._it)
        except StopIteration:
            self._it = None     # drop the upstream iterator so the graph can be finalized
            raise
        self._out.append(msg)


def _label(field):
    return list(field.labels)[0] if field.labels else int(field)


def chain_entry_dict(e):
    """One entry of a deepspan:span `chain` (doc/critical-path.md) as plain Python values."""
    out = {}
    for name in e:
        f = e[name]
        if name in ("state", "kind"):
            out[name] = _label(f)
        elif isinstance(f, bt2._StringFieldConst):
            out[name] = str(f)
        else:
            out[name] = int(f)
    return out


def payload_dict(event):
    """A deepspan:span event payload as plain Python values."""
    p = event.payload_field
    out = {}
    for name in p:
        field = p[name]
        if name == "syscalls":
            out[name] = [{"name": str(e["name"]), "count": int(e["count"]), "duration": int(e["duration"])}
                         for e in field]
        elif name == "segments":
            out[name] = [{"begin": int(e["begin"]), "end": int(e["end"]),
                          "state": list(e["state"].labels)[0] if e["state"].labels else int(e["state"]),
                          "detail": str(e["detail"])} for e in field]
        elif name in ("chain", "host_context", "cache_reads"):
            out[name] = [chain_entry_dict(e) for e in field]
        elif name == "chain_packed":
            out["chain"] = chain_packed.unpack(str(field), int(p["begin"]))
        elif isinstance(field, bt2._StringFieldConst):
            out[name] = str(field)
        else:
            out[name] = int(field)
    return out


STATES = ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")


# One thread running one span (1000 -> 2000 ns) on host "h": the smallest input with a deepspan:span output.
ONE_SPAN_SCRIPT = [
    (1000, "h", "k0", "sched_switch", dict(prev_comm="swapper/0", prev_tid=0, prev_prio=0, prev_state=0,
                                           next_comm="app", next_tid=7, next_prio=0)),
    (1000, "h", "u", "deepspan_ust:span_start",
     dict(trace_id_high=0, trace_id_low=1, span_id=1, parent_span_id=0, service="s", operation="o",
          kind=0, vpid=7, vtid=7, procname="app")),
    (2000, "h", "u", "deepspan_ust:span_end",
     dict(trace_id_high=0, trace_id_low=1, span_id=1, status=1, vpid=7, vtid=7, procname="app")),
]


def run_script(plugin, script, params=None, fields=None, clock=None, logging_level=bt2.LoggingLevel.WARNING,
               kernel_cpu_id=True):
    """Runs script source -> span-attrib(params) -> collector; returns (message summaries, span payloads)."""
    graph = bt2.Graph()
    src = graph.add_component(Source, "src", obj={"script": script, "fields": fields or {}, "clock": clock or {},
                                                  "kernel_cpu_id": kernel_cpu_id})
    flt = graph.add_component(plugin.filter_component_classes["span-attrib"], "span-attrib",
                              params=params or {}, logging_level=logging_level)
    out = []
    sink = graph.add_component(Collector, "sink", obj=out)
    graph.connect_ports(src.output_ports["out"], flt.input_ports["in0"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in"])
    graph.run()
    summary, spans = [], []
    for m in out:
        entry = {"type": type(m).__name__}
        if type(m) is bt2._EventMessageConst:
            entry["name"] = m.event.name
            entry["ts"] = m.default_clock_snapshot.value if m.event.stream.cls.default_clock_class else None
            if m.event.name == "deepspan:span":
                spans.append(payload_dict(m.event))
                entry["env"] = dict((k, str(v)) for k, v in m.event.stream.trace.environment.items())
                entry["clock"] = m.default_clock_snapshot.clock_class.name
        summary.append(entry)
    # finalize the components now (their warnings are printed at finalization)
    del graph, src, flt, sink, out, m
    gc.collect()
    return summary, spans


def run_kernel_trace_with_script(plugin, kernel_dir, script, params):
    """Runs a CTF kernel trace and a scripted UST trace through filter.utils.muxer -> span-attrib(params);
    returns the deepspan:span payloads."""
    graph = bt2.Graph()
    ctf = bt2.find_plugin("ctf").source_component_classes["fs"]
    utils = bt2.find_plugin("utils")
    src_k = graph.add_component(ctf, "kernel", params={"inputs": [str(kernel_dir)]})
    src_u = graph.add_component(Source, "spans", obj={"script": script})
    mux = graph.add_component(utils.filter_component_classes["muxer"], "mux")
    flt = graph.add_component(plugin.filter_component_classes["span-attrib"], "sa", params=params)
    out = []
    sink = graph.add_component(Collector, "sink", obj=out)
    for i, port in enumerate(list(src_k.output_ports.values()) + [src_u.output_ports["out"]]):
        graph.connect_ports(port, mux.input_ports[f"in{i}"])
    graph.connect_ports(mux.output_ports["out"], flt.input_ports["in0"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in"])
    graph.run()
    spans = [payload_dict(m.event) for m in out
             if type(m) is bt2._EventMessageConst and m.event.name == "deepspan:span"]
    del graph, src_k, src_u, mux, flt, sink, out
    gc.collect()
    return spans


def strip_details_members(text, member_regex):
    """sink.text.details output without the members whose name matches `member_regex` (their class
    description and every value), and without the member counts of structures."""
    out, skip = [], None
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        if skip is not None:
            if line.strip() and indent > skip:
                continue
            skip = None
        if re.match(r"\s*(%s): " % member_regex, line):
            skip = indent
            continue
        out.append(line)
    return re.sub(r"Structure \(\d+ members\)", "Structure", "\n".join(out))
