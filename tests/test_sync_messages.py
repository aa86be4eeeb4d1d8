# SPDX-License-Identifier: MIT
"""The trace-IR copy behind filter.deepspan.sync: every field class type and every message type.

A Python source emits one stream with packets, discarded events/packets and an inactivity
message, and events whose payload holds every field class type of babeltrace2 2.0 (bool, bit
array, integers, enumerations, reals, string, static/dynamic arrays with and without length
field, options with and without selector, variants with and without selector, nested
structures).  Through sync with a formula naming no host (every clock kept), the messages must
come out identical, on the synchronized clock class.
"""
import uuid

import bt2

CLOCK_UUID = uuid.UUID("6d5a8b8e-5f8e-4f0e-9d43-3b3f0a6c9e11")
T0 = 1_700_000_000_000_000_000


def _payload_class(tc):
    s = tc.create_structure_field_class()
    s.append_member("flag", tc.create_bool_field_class())
    s.append_member("bits", tc.create_bit_array_field_class(12))
    s.append_member("u", tc.create_unsigned_integer_field_class(64))
    s.append_member("i", tc.create_signed_integer_field_class(17))
    uenum = tc.create_unsigned_enumeration_field_class(8)
    uenum.add_mapping("_zero", bt2.UnsignedIntegerRangeSet([(0, 0)]))
    uenum.add_mapping("_one", bt2.UnsignedIntegerRangeSet([(1, 1)]))
    s.append_member("sel", uenum)
    senum = tc.create_signed_enumeration_field_class(16)
    senum.add_mapping("neg", bt2.SignedIntegerRangeSet([(-100, -1)]))
    senum.add_mapping("pos", bt2.SignedIntegerRangeSet([(1, 100)]))
    s.append_member("senum", senum)
    s.append_member("f32", tc.create_single_precision_real_field_class())
    s.append_member("f64", tc.create_double_precision_real_field_class())
    s.append_member("text", tc.create_string_field_class())
    s.append_member("fixed", tc.create_static_array_field_class(
        tc.create_unsigned_integer_field_class(8), 4))
    length = tc.create_unsigned_integer_field_class(16)
    s.append_member("n", length)
    s.append_member("dyn", tc.create_dynamic_array_field_class(
        tc.create_string_field_class(), length_fc=length))
    s.append_member("free", tc.create_dynamic_array_field_class(
        tc.create_signed_integer_field_class(32)))
    s.append_member("maybe", tc.create_option_without_selector_field_class(
        tc.create_string_field_class()))
    present = tc.create_bool_field_class()
    s.append_member("present", present)
    s.append_member("opt_bool", tc.create_option_with_bool_selector_field_class(
        tc.create_double_precision_real_field_class(), present))
    s.append_member("opt_int", tc.create_option_with_integer_selector_field_class(
        tc.create_unsigned_integer_field_class(32), uenum, bt2.UnsignedIntegerRangeSet([(1, 1)])))
    inner = tc.create_structure_field_class()
    inner.append_member("a", tc.create_unsigned_integer_field_class(32))
    inner.append_member("b", tc.create_string_field_class())
    var = tc.create_variant_field_class(selector_fc=uenum)
    var.append_option("zero", tc.create_structure_field_class(), bt2.UnsignedIntegerRangeSet([(0, 0)]))
    var.append_option("one", inner, bt2.UnsignedIntegerRangeSet([(1, 1)]))
    s.append_member("var", var)
    free_var = tc.create_variant_field_class()
    free_var.append_option("num", tc.create_signed_integer_field_class(64))
    free_var.append_option("str", tc.create_string_field_class())
    s.append_member("free_var", free_var)
    return s


def _fill(p, i):
    p["flag"] = i % 2 == 0
    p["bits"].value_as_integer = (i * 37) & 0xFFF
    p["u"] = (1 << 63) + i
    p["i"] = -(i * 1000) % 60000 - 30000
    sel = i % 2
    p["sel"] = sel
    p["senum"] = -5 if i % 3 == 0 else 7
    p["f32"] = 1.5 * i
    p["f64"] = -2.25e-9 * i
    p["text"] = f"event {i} \u00e9"
    for k in range(4):
        p["fixed"][k] = (i + k) % 256
    n = i % 3
    p["n"] = n
    p["dyn"].length = n
    for k in range(n):
        p["dyn"][k] = "x" * (k + 1)
    p["free"].length = i % 4
    for k in range(i % 4):
        p["free"][k] = -k
    p["maybe"].has_field = i % 2 == 1
    if i % 2 == 1:
        p["maybe"].field.value = "here"
    p["present"] = i % 3 != 0
    p["opt_bool"].has_field = i % 3 != 0
    if i % 3 != 0:
        p["opt_bool"].field.value = 0.5 * i
    p["opt_int"].has_field = sel == 1
    if sel == 1:
        p["opt_int"].field.value = 4_000_000_000 + i
    p["var"].selected_option_index = sel
    if sel == 1:
        p["var"].selected_option["a"] = i
        p["var"].selected_option["b"] = f"inner {i}"
    p["free_var"].selected_option_index = i % 2
    p["free_var"].selected_option.value = -i if i % 2 == 0 else str(i)


class _Iter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        self._d = port.user_data
        self._plan = self._make_plan()
        self._i = 0

    def _make_plan(self):
        plan = [("sb", None)]
        t = T0
        for packet in range(3):
            plan.append(("pb", t))
            for e in range(5):
                t += 1000
                plan.append(("ev", t))
            t += 1000
            plan.append(("pe", t))
            t += 500
            plan.append(("de", t))
            plan.append(("dp", t + 100))
            plan.append(("inact", t + 200))
            t += 1000
        plan.append(("se", None))
        return plan

    def _user_can_seek_beginning(self):
        return True

    def _user_seek_beginning(self):
        self._i = 0

    def __next__(self):
        if self._i >= len(self._plan):
            raise StopIteration
        kind, t = self._plan[self._i]
        self._i += 1
        d = self._d
        if kind == "sb":
            return self._create_stream_beginning_message(d["stream"])
        if kind == "se":
            return self._create_stream_end_message(d["stream"])
        if kind == "pb":
            d["packet"] = d["stream"].create_packet()
            d["packet"].context_field["seq"] = self._i
            return self._create_packet_beginning_message(d["packet"], t)
        if kind == "pe":
            return self._create_packet_end_message(d["packet"], t)
        if kind == "de":
            return self._create_discarded_events_message(d["stream"], count=3 + self._i,
                                                         beg_clock_snapshot=t, end_clock_snapshot=t + 50)
        if kind == "dp":
            return self._create_discarded_packets_message(d["stream"], count=1,
                                                          beg_clock_snapshot=t, end_clock_snapshot=t + 50)
        if kind == "inact":
            return self._create_message_iterator_inactivity_message(d["clock"], t)
        msg = self._create_event_message(d["ec"], d["packet"], default_clock_snapshot=t)
        _fill(msg.event.payload_field, self._i)
        msg.event.common_context_field["cpu"] = self._i % 4
        return msg


class _AllTypesSource(bt2._UserSourceComponent, message_iterator_class=_Iter):
    def __init__(self, config, params, obj):
        tc = self._create_trace_class()
        cc = self._create_clock_class(frequency=1_000_000_000, name="monotonic",
                                      origin_is_unix_epoch=True, uuid=CLOCK_UUID)
        pctx = tc.create_structure_field_class()
        pctx.append_member("seq", tc.create_unsigned_integer_field_class(32))
        common = tc.create_structure_field_class()
        common.append_member("cpu", tc.create_unsigned_integer_field_class(8))
        sc = tc.create_stream_class(
            name="all", default_clock_class=cc, supports_packets=True,
            packets_have_beginning_default_clock_snapshot=True,
            packets_have_end_default_clock_snapshot=True,
            supports_discarded_events=True, discarded_events_have_default_clock_snapshots=True,
            supports_discarded_packets=True, discarded_packets_have_default_clock_snapshots=True,
            packet_context_field_class=pctx, event_common_context_field_class=common)
        ec = sc.create_event_class(name="all:types", payload_field_class=_payload_class(tc),
                                   log_level=bt2.EventClassLogLevel.WARNING)
        trace = tc(name="alltypes", environment={"hostname": "solo", "answer": 42})
        self._add_output_port("out", {"stream": trace.create_stream(sc), "ec": ec, "clock": cc})


def _py(f):
    if isinstance(f, bt2._StructureFieldConst):
        return {k: _py(v) for k, v in f.items()}
    if isinstance(f, bt2._ArrayFieldConst):
        return [_py(v) for v in f]
    if isinstance(f, bt2._VariantFieldConst):
        return (f.selected_option_index, _py(f.selected_option))
    if isinstance(f, bt2._OptionFieldConst):
        return _py(f.field) if f.has_field else None
    if isinstance(f, bt2._EnumerationFieldConst):
        return (int(f), sorted(f.labels))
    if isinstance(f, bt2._BitArrayFieldConst):
        return ("bits", f.value_as_integer)
    if isinstance(f, bt2._StringFieldConst):
        return str(f)
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    if isinstance(f, bt2._BoolFieldConst):
        return ("bool", bool(f))
    return int(f)


def _describe(msg):
    t = type(msg).__name__
    if isinstance(msg, bt2._EventMessageConst):
        e = msg.event
        return (t, msg.default_clock_snapshot.ns_from_origin, e.name, e.cls.log_level,
                _py(e.payload_field), _py(e.common_context_field), _py(e.packet.context_field),
                e.stream.trace.name, dict((k, str(v)) for k, v in e.stream.trace.environment.items()),
                e.stream.cls.name)
    if isinstance(msg, (bt2._PacketBeginningMessageConst, bt2._PacketEndMessageConst)):
        return (t, msg.default_clock_snapshot.ns_from_origin, _py(msg.packet.context_field))
    if isinstance(msg, (bt2._DiscardedEventsMessageConst, bt2._DiscardedPacketsMessageConst)):
        return (t, msg.count, msg.beginning_default_clock_snapshot.ns_from_origin,
                msg.end_default_clock_snapshot.ns_from_origin)
    if isinstance(msg, bt2._MessageIteratorInactivityMessageConst):
        return (t, msg.clock_snapshot.ns_from_origin)
    return (t,)


class _Recorder(bt2._UserSinkComponent):
    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._out = obj

    def _user_graph_is_configured(self):
        self._it = self._create_message_iterator(self._port)

    def _user_consume(self):
        msg = next(self._it)
        self._out.append(_describe(msg))
        cs = getattr(msg, "default_clock_snapshot", None) if not isinstance(
            msg, (bt2._StreamBeginningMessageConst, bt2._StreamEndMessageConst)) else None
        if cs is not None:
            self._out.append(("clock", str(cs.clock_class.uuid), cs.clock_class.description))


def _record(plugin, sync_params):
    graph = bt2.Graph()
    out = []
    src = graph.add_component(_AllTypesSource, "src")
    sink = graph.add_component(_Recorder, "rec", obj=out)
    if sync_params is None:
        graph.connect_ports(src.output_ports["out"], sink.input_ports["in"])
    else:
        sync = graph.add_component(plugin.filter_component_classes["sync"], "sync",
                                   params=sync_params)
        graph.connect_ports(src.output_ports["out"], sync.input_ports["in0"])
        graph.connect_ports(sync.output_ports["out"], sink.input_ports["in"])
    graph.run()
    return out


def test_every_field_and_message_type_copied(bt2_plugin, tmp_path):
    keep = tmp_path / "keep.json"
    keep.write_text('{"hosts": []}')
    ref = _record(bt2_plugin, None)
    for params in ({"formula": str(keep)}, {}):    # one pass, and two passes (no pairs: ABSENT)
        got = _record(bt2_plugin, params)
        clocks = {m for m in got if m[0] == "clock"}
        assert len(clocks) == 1
        (_, uuid_text, description), = clocks
        assert uuid_text != str(CLOCK_UUID) and "synchronized by filter.deepspan.sync" in description
        assert [m for m in got if m[0] != "clock"] == [m for m in ref if m[0] != "clock"]
    kinds = {m[0] for m in ref}
    assert {"_EventMessageConst", "_DiscardedEventsMessageConst", "_DiscardedPacketsMessageConst",
            "_MessageIteratorInactivityMessageConst", "_PacketBeginningMessageConst",
            "_StreamEndMessageConst"} <= kinds
