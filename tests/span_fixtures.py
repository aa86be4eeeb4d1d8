# SPDX-License-Identifier: MIT
"""A Python bt2 source of `deepspan:span` events (DESIGN §4) made from hand-written request trees.

The tests of sink.deepspan.diff and sink.deepspan.metrics use it to feed exact, known spans:

    spans = [Span(trace=1, span_id=1, parent=0, service="frontend", operation="/dispatch",
                  begin=0, end=10_000, segments=[(0, 10_000, "user", "")]), ...]
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, spans)

`schema` changes the event class for bad-input tests: {"drop": ["host"]} removes members,
{"retype": {"host": "u64"}} gives a member another type, {"extra_event": True} adds another event class.
"""
import bt2

import chain_packed

STATES = ["user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown"]
# The `kind` labels of a chain entry (doc/critical-path.md), in value order.
CHAIN_KINDS = ["running", "wait-cpu", "wait", "timer", "irq", "softirq", "network", "in-flight", "disk",
               "unknown", "deadlock", "depth-limit"]


def chain_entry(segment, parent, depth, begin, end, state, kind, detail, host="h1", pid=100, tid=101,
                comm="worker", process=None, cpu=-1):
    """One `chain` entry (doc/critical-path.md) as a dict; `process` defaults to `comm`."""
    return {"segment": segment, "parent": parent, "depth": depth, "begin": begin, "end": end,
            "host": host, "pid": pid, "tid": tid, "comm": comm, "process": process or comm, "cpu": cpu,
            "state": STATES.index(state), "kind": CHAIN_KINDS.index(kind), "detail": detail}


class Span:
    """One span; `segments` = [(begin, end, state, detail)] (state one of STATES); the state totals
    are derived from the segments (time they do not cover counts as unknown), so they sum to end - begin."""

    def __init__(self, trace, span_id, parent, service, operation, begin, end, host="h1", pid=100,
                 tid=101, segments=None, syscalls=(), truncated=None, trace_high=0, states=None, chain=None):
        self.trace_high = trace_high
        self.trace = trace
        self.span_id = span_id
        self.parent = parent
        self.service = service
        self.operation = operation
        self.begin = begin
        self.end = end
        self.host = host
        self.pid = pid
        self.tid = tid
        self.segments = list(segments) if segments is not None else [(begin, end, "user", "")]
        self.syscalls = list(syscalls)
        self.truncated = truncated
        self.chain = list(chain or ())
        self.states = states or self._states()

    def _states(self):
        totals = dict.fromkeys(STATES, 0)
        for b, e, state, _ in self.segments:
            b, e = max(b, self.begin), min(e, self.end)
            if e > b:
                totals[state] += e - b
        totals["unknown"] += (self.end - self.begin) - sum(totals.values())
        return totals


def _make_classes(comp, schema):
    tc = comp._create_trace_class()
    cc = comp._create_clock_class(frequency=1_000_000_000)
    sc = tc.create_stream_class(default_clock_class=cc)
    # A field class belongs to one place only: these make a new one per use.
    def u64():
        return tc.create_unsigned_integer_field_class(64)

    def s64():
        return tc.create_signed_integer_field_class(64)

    def string():
        return tc.create_string_field_class()

    kinds = {"u64": u64, "s64": s64, "string": string}
    state = tc.create_unsigned_enumeration_field_class(8)
    for i, name in enumerate(STATES):
        state.add_mapping(name, bt2.UnsignedIntegerRangeSet([(i, i)]))
    syscall = tc.create_structure_field_class()
    for name, fc in (("name", string), ("count", u64), ("duration", u64)):
        syscall.append_member(name, fc())
    segment = tc.create_structure_field_class()
    for name, fc in (("begin", s64), ("end", s64), ("state", lambda: state), ("detail", string)):
        segment.append_member(name, fc())
    members = [("trace_id_high", u64), ("trace_id_low", u64), ("span_id", u64), ("parent_span_id", u64),
               ("host", string), ("service", string), ("operation", string), ("pid", s64), ("tid", s64),
               ("begin", s64), ("end", s64)] + [(s, u64) for s in STATES] + [
        ("syscalls", lambda: tc.create_dynamic_array_field_class(syscall)),
        ("segments", lambda: tc.create_dynamic_array_field_class(segment))]
    if schema.get("truncated"):
        members.append(("truncated", tc.create_bool_field_class))
    if schema.get("chain"):
        kind = tc.create_unsigned_enumeration_field_class(8)
        # chain_kinds_reversed: the labels in another value order (a reader must map labels, not values).
        order = CHAIN_KINDS[::-1] if schema.get("chain_kinds_reversed") else CHAIN_KINDS
        for i, name in enumerate(order):
            kind.add_mapping(name, bt2.UnsignedIntegerRangeSet([(i, i)]))
        chain_state = tc.create_unsigned_enumeration_field_class(8)
        for i, name in enumerate(STATES):
            chain_state.add_mapping(name, bt2.UnsignedIntegerRangeSet([(i, i)]))
        entry = tc.create_structure_field_class()
        for name, fc in (("segment", u64), ("parent", s64), ("depth", u64), ("begin", s64), ("end", s64),
                         ("host", string), ("pid", s64), ("tid", s64), ("comm", string), ("process", string),
                         ("cpu", s64), ("state", lambda: chain_state), ("kind", lambda: kind),
                         ("detail", string)):
            if name in schema.get("chain_drop", ()):
                continue
            # chain_retype: {member: "s64" or "u64"}, integer types other than span-attrib's
            entry.append_member(name, kinds[schema["chain_retype"][name]]() if name in schema.get(
                "chain_retype", {}) else fc())
        members.append(("chain", lambda: tc.create_dynamic_array_field_class(entry)))
    if schema.get("chain_packed"):
        members.append(("chain_packed", string))
    payload = tc.create_structure_field_class()
    retype = schema.get("retype", {})
    for name, fc in members:
        if name in schema.get("drop", ()):
            continue
        payload.append_member(name, kinds[retype[name]]() if name in retype else fc())
    span_ec = sc.create_event_class(name="deepspan:span", payload_field_class=payload)
    other_ec = None
    if schema.get("extra_event"):
        other = tc.create_structure_field_class()
        other.append_member("value", u64())
        other_ec = sc.create_event_class(name="deepspan_ust:span_start", payload_field_class=other)
    trace = tc()
    trace.environment["domain"] = "deepspan"
    trace.environment["hostname"] = "fixture"
    stream = trace.create_stream(sc)
    return span_ec, other_ec, stream


def _fill(payload, span, schema):
    values = {
        "trace_id_high": span.trace_high, "trace_id_low": span.trace, "span_id": span.span_id,
        "parent_span_id": span.parent, "host": span.host, "service": span.service,
        "operation": span.operation, "pid": span.pid, "tid": span.tid, "begin": span.begin,
        "end": span.end, **span.states,
        "syscalls": [{"name": n, "count": c, "duration": d} for n, c, d in span.syscalls],
        "segments": [{"begin": b, "end": e, "state": STATES.index(s), "detail": d}
                     for b, e, s, d in span.segments],
    }
    if schema.get("truncated"):
        values["truncated"] = bool(span.truncated)
    if schema.get("chain"):
        values["chain"] = [{k: v for k, v in e.items() if k not in schema.get("chain_drop", ())}
                           for e in span.chain]
        if schema.get("chain_kinds_reversed"):
            values["chain"] = [dict(e, kind=len(CHAIN_KINDS) - 1 - e["kind"]) for e in span.chain]
    if schema.get("chain_packed"):
        # chain_packed_text: {(trace, span_id): text}, a text of one's own (bad input) instead of the span's
        # chain packed
        values["chain_packed"] = schema.get("chain_packed_text", {}).get(
            (span.trace, span.span_id), chain_packed.pack(span.chain, span.begin))
    for name, value in values.items():
        if name in schema.get("drop", ()):
            continue
        if name in schema.get("retype", {}):
            value = 7 if schema["retype"][name] in ("u64", "s64") else str(value)
        payload[name] = value


class _SpanIterator(bt2._UserMessageIterator):
    def __init__(self, config, output_port):
        self._messages = output_port.user_data["messages"](self)
        self._index = 0

    def __next__(self):
        if self._index >= len(self._messages):
            raise StopIteration
        msg = self._messages[self._index]
        self._index += 1
        return msg


class SpanSource(bt2._UserSourceComponent, message_iterator_class=_SpanIterator):
    """obj = {"spans": [Span...], "schema": {...}}: one stream, events at each span's end."""

    def __init__(self, config, params, obj):
        schema = dict(obj.get("schema", {}))
        if any(span.chain for span in obj["spans"]):
            schema.setdefault("chain", True)
        span_ec, other_ec, stream = _make_classes(self, schema)
        spans = sorted(obj["spans"], key=lambda s: (s.end, s.begin, s.span_id))

        def messages(it):
            out = [it._create_stream_beginning_message(stream)]
            for span in spans:
                if other_ec is not None:
                    m = it._create_event_message(other_ec, stream, default_clock_snapshot=max(span.end, 0))
                    m.event.payload_field["value"] = 1
                    out.append(m)
                m = it._create_event_message(span_ec, stream, default_clock_snapshot=max(span.end, 0))
                _fill(m.event.payload_field, span, schema)
                out.append(m)
            out.append(it._create_stream_end_message(stream))
            return out

        self._add_output_port("out", {"messages": messages})


def run_sink(plugin, sink_name, params, spans, spans_b=None, schema=None, logging_level=None):
    """Runs SpanSource(spans) -> sink.deepspan.<sink_name>(params); spans_b feeds port `b`."""
    graph = bt2.Graph()
    kwargs = {} if logging_level is None else {"logging_level": logging_level}
    src = graph.add_component(SpanSource, "src", obj={"spans": spans, "schema": schema or {}})
    sink = graph.add_component(plugin.sink_component_classes[sink_name], "sink", params, **kwargs)
    in_port = "in" if sink_name == "metrics" else "a"
    graph.connect_ports(src.output_ports["out"], sink.input_ports[in_port])
    if spans_b is not None:
        src_b = graph.add_component(SpanSource, "src_b", obj={"spans": spans_b, "schema": schema or {}})
        graph.connect_ports(src_b.output_ports["out"], sink.input_ports["b"])
    graph.run()


def error_text(exc):
    """All causes of a bt2 error as one string."""
    return "\n".join(str(cause.message) for cause in exc)


# --- Request trees used by several tests -------------------------------------------------------

MS = 1_000_000


def dispatch_request(trace, start, mysql_block=0, route_wait=0, host_skew=0):
    """frontend: /dispatch -> customer: GET /customer -> mysql: SELECT, then route: GET /route.

    Base latency 10 ms; `mysql_block` ns of futex blocking in mysql and `route_wait` ns of Waited CPU
    in route are added on the critical path.
    """
    t = start
    spans = []
    cust_b, my_b = t + 1 * MS, t + 2 * MS
    my_e = my_b + 3 * MS + mysql_block
    my_segments = [(my_b, my_b + 1 * MS, "user", ""), (my_b + 1 * MS, my_b + 2 * MS, "syscall", "read")]
    if mysql_block:
        my_segments.append((my_b + 2 * MS, my_b + 2 * MS + mysql_block, "blocked", "futex \u2190 mysqld/4242"))
    my_segments.append((my_b + 2 * MS + mysql_block, my_e, "user", ""))
    cust_e = my_e + 1 * MS
    route_b = cust_e + 1 * MS
    route_e = route_b + 2 * MS + route_wait
    route_segments = [(route_b, route_b + 2 * MS, "user", "")]
    if route_wait:
        route_segments.append((route_b + 2 * MS, route_e, "wait_cpu", ""))
    root_e = route_e + 1 * MS
    spans.append(Span(trace, 1, 0, "frontend", "/dispatch", t, root_e, host="front", tid=10,
                      segments=[(t, root_e, "user", "")]))
    spans.append(Span(trace, 2, 1, "customer", "GET /customer", cust_b + host_skew, cust_e + host_skew,
                      host="cust", tid=20, segments=[(cust_b + host_skew, cust_e + host_skew, "syscall", "recvfrom")]))
    spans.append(Span(trace, 3, 2, "mysql", "SELECT", my_b + host_skew, my_e + host_skew, host="cust",
                      tid=30, segments=[(b + host_skew, e + host_skew, s, d) for b, e, s, d in my_segments],
                      syscalls=[("read", 1, 1 * MS)] + ([("futex", 1, mysql_block)] if mysql_block else [])))
    spans.append(Span(trace, 4, 1, "route", "GET /route", route_b, route_e, host="front", tid=11,
                      segments=route_segments))
    return spans
