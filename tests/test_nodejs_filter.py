# SPDX-License-Identifier: MIT
"""filter.deepspan.nodejs-ctx without a Node.js load: pass-through, parameters, bad input, help;
and the recorder's behaviour when its addon is missing."""
import os
import shutil
import subprocess
import uuid

import pytest

from conftest import run_babeltrace2
from test_nodejs_helpers import RECORDER, capture_unavailable, services_node

CLASS = "filter.deepspan.nodejs-ctx"


def test_without_vnode_events_output_is_unchanged(shared_traces):
    trace = shared_traces / "multi-domains"
    plain = run_babeltrace2(trace, "-c", "sink.text.details").stdout
    filtered = run_babeltrace2(trace, "-c", CLASS, "-c", "sink.text.details").stdout
    assert plain and filtered == plain


def test_help_lists_every_parameter():
    text = run_babeltrace2("help", CLASS).stdout
    for name in ("match-window", "activations", "trace-id-high", "stats"):
        assert name in text
    assert "deepspan_ust:span_start" in text


@pytest.mark.parametrize("params, expected", [
    ("match-windw=12", "match-windw"),
    ('match-window="soon"', "match-window"),
    ("activations=1", "activations"),
    ("trace-id-high=-5", "trace-id-high"),
    ("stats=3", "stats"),
])
def test_bad_parameters_are_named(shared_traces, params, expected):
    proc = run_babeltrace2(shared_traces / "multi-domains", "-c", CLASS, "-p", params,
                           "-c", "sink.utils.dummy", check=False)
    assert proc.returncode != 0
    stderr = " ".join(proc.stderr.split())  # the CLI wraps error causes
    assert CLASS in stderr and f"`{expected}`" in stderr


def _record_without_contexts(out_dir):
    from test_nodejs_record import WORK

    if subprocess.run(["pgrep", "-x", "lttng-sessiond"], capture_output=True).returncode != 0:
        subprocess.run(["lttng-sessiond", "--daemonize", "--no-kernel"], check=True)
    session = f"deepspan-nodejs-noctx-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    subprocess.run(["lttng", "create", session, f"--output={out_dir}"], check=True, capture_output=True)
    try:
        subprocess.run(["lttng", "enable-event", "-u", "vnode:*", "-s", session], check=True,
                       capture_output=True)
        subprocess.run(["lttng", "start", session], check=True, capture_output=True)
        subprocess.run([services_node(), "-r", str(RECORDER), "-e", WORK], check=True, timeout=60)
        subprocess.run(["lttng", "stop", session], check=True, capture_output=True)
    finally:
        subprocess.run(["lttng", "destroy", session], capture_output=True)


def test_vnode_events_without_contexts_are_refused(tmp_path, plugin_dir):
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    _record_without_contexts(tmp_path / "trace")
    proc = run_babeltrace2(tmp_path / "trace", "-c", CLASS, "-c", "sink.utils.dummy", check=False)
    assert proc.returncode != 0
    stderr = " ".join(proc.stderr.split())  # the CLI wraps error causes
    assert "lacks the integer `vpid` and `vtid` contexts" in stderr
    assert "lttng add-context -u -t vpid -t vtid -t procname" in stderr


def test_recorder_without_addon_warns_once_and_runs(tmp_path):
    if not shutil.which("node"):
        pytest.skip("node is not installed")
    lonely = tmp_path / "deepspan-vnode.js"
    shutil.copy(RECORDER, lonely)
    env = dict(os.environ, DEEPSPAN_VNODE_ADDON=str(tmp_path / "absent.node"))
    proc = subprocess.run([services_node(), "-r", str(lonely), "-e", "console.log('app ran')"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "app ran\n"
    warnings = proc.stderr.strip().splitlines()
    assert len(warnings) == 1
    assert "cannot load the deepspan_vnode addon" in warnings[0]
    assert "DEEPSPAN_VNODE_ADDON" in warnings[0]


def test_vnode_event_lacking_a_field_cites_the_doc_page(bt2_plugin):
    import bt2
    from span_attrib_support import Collector, Source

    # vnode:async_context without its `exec_id` member
    fields = {"vnode:async_context": [("id", "s64"), ("ctx_id", "s64"), ("type", "str"), ("phase", "str")]}
    script = [(1000, "h1", "u", "vnode:async_context",
               dict(id=1, ctx_id=0, type="TCPWRAP", phase="constructor", vpid=1, vtid=1, procname="node"))]
    graph = bt2.Graph()
    src = graph.add_component(Source, "src", obj={"script": script, "fields": fields, "clock": {}})
    flt = graph.add_component(bt2_plugin.filter_component_classes["nodejs-ctx"], "ctx")
    sink = graph.add_component(Collector, "sink", obj=[])
    graph.connect_ports(src.output_ports["out"], flt.input_ports["in"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in"])
    with pytest.raises(bt2._Error) as exc:
        graph.run()
    text = " ".join(str(exc.value).split())  # bt2 wraps the causes
    assert "event `vnode:async_context` has no integer payload field `exec_id`" in text, text
    assert 'doc/nodejs.md, "What is recorded"' in text and "DESIGN" not in text, text
