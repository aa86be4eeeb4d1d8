# SPDX-License-Identifier: MIT
"""Helpers of the source.deepspan.scenario tests: run the source, read traces back with bt2."""
import json
import pathlib

from conftest import PLUGIN_DIR, make_scenario_trace  # noqa: F401  (re-exported)


def scenario_class():
    import bt2
    plugins = {p.name: p for p in bt2.find_plugins_in_path(str(PLUGIN_DIR))}
    return plugins["deepspan"].source_component_classes["scenario"]


def field_to_py(field):
    """A decoded bt2 field as plain Python values (variants: the selected option's value)."""
    import bt2
    if isinstance(field, bt2._StructureFieldConst):
        return {name: field_to_py(member) for name, member in field.items()}
    if isinstance(field, bt2._VariantFieldConst):
        return field_to_py(field.selected_option)
    if isinstance(field, bt2._ArrayFieldConst):
        return [field_to_py(elem) for elem in field]
    if isinstance(field, bt2._StringFieldConst):
        return str(field)
    if isinstance(field, bt2._IntegerFieldConst):
        return int(field)
    if isinstance(field, bt2._RealFieldConst):
        return float(field)
    if isinstance(field, bt2._BoolFieldConst):
        return bool(field)
    raise TypeError(f"unexpected field type {type(field).__name__}")


def iterate(source):
    """Yields (event message) from a trace directory or a bt2.ComponentSpec (through a muxer)."""
    import bt2
    spec = source if isinstance(source, bt2.ComponentSpec) else str(source)
    _stream_keys.clear()    # stream addresses are only unique within one graph
    for msg in bt2.TraceCollectionMessageIterator(spec):
        if type(msg) is bt2._EventMessageConst:
            yield msg


_stream_keys = {}


def event_key(msg):
    """(ns from origin, host, domain, event name, cpu) of an event message."""
    event = msg.event
    stream = event.stream
    cached = _stream_keys.get(stream.addr)
    if cached is None:
        env = stream.trace.environment
        cached = (None, str(env["hostname"]), str(env["domain"]), int(event.packet.context_field["cpu_id"]))
        _stream_keys[stream.addr] = cached
    return (msg.default_clock_snapshot.ns_from_origin, cached[1], cached[2], event.cls.name, cached[3])


def scenario_spec(**params):
    import bt2
    return bt2.ComponentSpec(scenario_class(), params)


def load_truth(path):
    return json.loads(pathlib.Path(path).read_text())


def field_class_shape(fc):
    """A comparable description of a field class: names, kinds, integer sizes and signedness."""
    import bt2
    if isinstance(fc, bt2._StructureFieldClassConst):
        return ("struct", tuple((name, field_class_shape(fc[name].field_class)) for name in fc))
    if isinstance(fc, bt2._VariantFieldClassConst):
        return ("variant", tuple((name, field_class_shape(fc[name].field_class)) for name in fc))
    if isinstance(fc, bt2._ArrayFieldClassConst):
        return ("array", field_class_shape(fc.element_field_class))
    if isinstance(fc, bt2._StringFieldClassConst):
        return ("string",)
    if isinstance(fc, bt2._EnumerationFieldClassConst):
        signed = isinstance(fc, bt2._SignedIntegerFieldClassConst)
        labels = tuple(sorted((label, tuple((r.lower, r.upper) for r in fc[label].ranges)) for label in fc))
        return ("enum", signed, fc.field_value_range, labels)
    if isinstance(fc, bt2._IntegerFieldClassConst):
        return ("int", isinstance(fc, bt2._SignedIntegerFieldClassConst), fc.field_value_range)
    return (type(fc).__name__,)
