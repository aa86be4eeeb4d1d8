# SPDX-License-Identifier: MIT
"""filter.deepspan.nodejs-ctx: the `stats` file and its warnings say exactly what went wrong."""
import gc
import json

import bt2

from conftest import run_babeltrace2

CLASS = "filter.deepspan.nodejs-ctx"


def run_cli(shared_traces, *params):
    args = [shared_traces / "multi-domains", "-c", CLASS]
    for p in params:
        args += ["-p", p]
    proc = run_babeltrace2(*args, "-c", "sink.utils.dummy", check=False)
    return proc, " ".join(proc.stderr.split())   # the CLI wraps long causes


def test_empty_stats_path_is_a_parameter_error(shared_traces):
    proc, err = run_cli(shared_traces, 'stats=""')
    assert proc.returncode != 0
    assert (f"{CLASS}: parameter `stats`: expected the path of the statistics file to write, got an "
            "empty string (leave `stats` out for no file).") in err


def test_unwritable_stats_file_is_an_error_with_errno(shared_traces, tmp_path):
    path = tmp_path / "no" / "such" / "dir" / "stats.json"
    proc, err = run_cli(shared_traces, f'stats="{path}"')
    assert proc.returncode > 0
    assert f'{CLASS}: parameter `stats`: cannot write "{path}": No such file or directory.' in err


def test_stats_file_written(shared_traces, tmp_path):
    path = tmp_path / "stats.json"
    proc, err = run_cli(shared_traces, f'stats="{path}"')
    assert proc.returncode == 0, err
    assert json.loads(path.read_text())["vnode_events"] == 0


class _Iter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        comp = self._component
        stream = comp._trace.create_stream(comp._sc)
        msg = self._create_event_message(comp._response, stream, default_clock_snapshot=1_000)
        for name in ("sockid", "sock_async_id", "ctx_id", "port", "local_port"):
            msg.event.payload_field[name] = 7
        msg.event.payload_field["status"] = 200
        msg.event.common_context_field["vpid"] = 10
        msg.event.common_context_field["vtid"] = 10
        msg.event.common_context_field["procname"] = "node"
        self._msgs = [self._create_stream_beginning_message(stream), msg,
                      self._create_stream_end_message(stream)]

    def __next__(self):
        if not self._msgs:
            raise StopIteration
        return self._msgs.pop(0)


class _ResponseOnlySource(bt2._UserSourceComponent, message_iterator_class=_Iter):
    """One host, one `vnode:http_server_response` whose request was never seen."""

    def __init__(self, config, params, obj):
        tc = self._create_trace_class()
        cc = self._create_clock_class(frequency=1_000_000_000, name="monotonic", origin_is_unix_epoch=True)
        ctx = tc.create_structure_field_class()
        ctx.append_member("vpid", tc.create_signed_integer_field_class(32))
        ctx.append_member("vtid", tc.create_signed_integer_field_class(32))
        ctx.append_member("procname", tc.create_string_field_class())
        self._sc = tc.create_stream_class(default_clock_class=cc, event_common_context_field_class=ctx)
        payload = tc.create_structure_field_class()
        for name in ("sockid", "sock_async_id", "ctx_id", "status", "port", "local_port"):
            payload.append_member(name, tc.create_signed_integer_field_class(64))
        self._response = self._sc.create_event_class(name="vnode:http_server_response",
                                                     payload_field_class=payload)
        self._trace = tc(environment={"hostname": "node1"})
        self._add_output_port("out")


def test_warnings_list_only_non_zero_counts(bt2_plugin, capfd):
    graph = bt2.Graph()
    src = graph.add_component(_ResponseOnlySource, "src")
    flt = graph.add_component(bt2_plugin.filter_component_classes["nodejs-ctx"], "ctx",
                              logging_level=bt2.LoggingLevel.WARNING)
    sink = graph.add_component(bt2.find_plugin("utils").sink_component_classes["dummy"], "sink")
    graph.connect_ports(src.output_ports["out"], flt.input_ports["in"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in"])
    graph.run()
    del graph, src, flt, sink
    gc.collect()
    err = " ".join(capfd.readouterr().err.split())
    assert "1 responses without a known request" in err
    # before: "0 requests never answered (their spans have no end), 1 responses without a known request"
    assert "requests never answered" not in err
