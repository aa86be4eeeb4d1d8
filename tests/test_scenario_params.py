# SPDX-License-Identifier: MIT
"""source.deepspan.scenario refuses bad parameters with errors naming the parameter and the value."""
import pytest

from conftest import run_babeltrace2


def scenario_error(params):
    proc = run_babeltrace2("-c", "source.deepspan.scenario", "-p", params, "-c", "sink.utils.dummy",
                           check=False)
    assert proc.returncode != 0
    return " ".join(proc.stderr.split())


@pytest.mark.parametrize("params,expected", [
    ("colour=1", "unknown parameter `colour`"),
    ("hosts=0", "parameter `hosts`"),
    ("hosts=9", "parameter `hosts`"),
    ('hosts="three"', 'parameter `hosts`: expected'),
    ("cpus=65", "parameter `cpus`"),
    ("slow-ratio=1.5", "parameter `slow-ratio`"),
    ('cause="gremlins"', 'parameter `cause`: expected one of the strings "none", "lock", "cpu", "disk", '
                         '"irq", "mixed", "lock-hog", "lock-sleep", "lock-remote", "handoff", "deadlock", '
                         '"net-delay", "net-retransmit", "disk-contention", "cache-miss", got string "gremlins"'),
    ("truth-chains=3", "parameter `truth-chains`: expected a boolean"),
    ('span-schema="otel"', "parameter `span-schema`"),
    ('preset="nodejs2"', "parameter `preset`"),
    ('clock="0:0,5"', 'parameter `clock`: expected "random", "none" or one OFFSET_NS:DRIFT_PPB pair per host'),
    ('clock="0:0,1:2"', "2 OFFSET_NS:DRIFT_PPB pairs for 3 hosts"),
    ('hosts=2,clock="0:0,1:5000000"', "drift within +-1000000 ppb"),
    ('truth=""', "parameter `truth`: expected a file path"),
    ('truth="/nonexistent-dir/t.json"', 'cannot create truth file "/nonexistent-dir/t.json"'),
    ('interarrival="fast"', "parameter `interarrival`"),
    ("packet-events=3", "parameter `packet-events`"),
    # used to be accepted, then stalled (the run deadline overflowed int64)
    ("requests=30000000000", "parameter `requests`: expected an unsigned integer in [0, 1000000000], "
                             "got signed integer 30000000000."),
    ('requests=1000000000,interarrival="10s"',
     "parameter `requests`: 1000000000 requests every 10000000000 ns (`interarrival`) would arrive over "
     "more than 1000000000 s of simulated time, the most the simulated clock can hold: lower `requests` "
     "or `interarrival`."),
])
def test_bad_parameter(plugin_dir, params, expected):
    error = scenario_error(params)
    assert expected in error
    assert "source.deepspan.scenario" in error


def test_help_lists_parameters(plugin_dir):
    out = run_babeltrace2("help", "source.deepspan.scenario").stdout
    for name in ("preset", "hosts", "cpus", "requests", "seed", "slow-ratio", "cause", "span-schema",
                 "clock", "truth", "truth-chains", "packet-events", "interarrival", "max-inflight"):
        assert f"{name} (" in out
    assert "<host>-kernel" in out


def test_ports_are_named_per_host_and_domain(bt2_plugin):
    import bt2
    graph = bt2.Graph()
    comp = graph.add_component(bt2_plugin.source_component_classes["scenario"], "scn",
                               {"hosts": 3, "requests": 1})
    assert list(comp.output_ports) == ["frontend-kernel", "frontend-ust", "customer-kernel",
                                       "customer-ust", "driver-kernel", "driver-ust"]


def test_one_host_alone_with_run(tmp_path, plugin_dir):
    out = tmp_path / "one"
    run_babeltrace2("run", "-c", "scn:source.deepspan.scenario", "-p", "requests=5",
                    "-c", "out:sink.ctf.fs", "-p", f'path="{out}"',
                    "-c", "mux:filter.utils.muxer", "-c", "rest:sink.utils.dummy",
                    "--connect", "scn.customer-kernel:out", "--connect", "scn:mux",
                    "--connect", "mux:rest")
    metadata = list(out.rglob("metadata"))
    assert len(metadata) == 1 and "customer" in str(metadata[0])
