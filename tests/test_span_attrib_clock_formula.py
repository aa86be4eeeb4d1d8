# SPDX-License-Identifier: MIT
"""span-attrib's `clock-formula` (doc/span-attrib.md, "Parameters"; doc/scale.md, "Applying the fit"): the clock
fit of filter.deepspan.sync applied by span-attrib as it merges its inputs, without filter.deepspan.sync in the
analysis graph.  Everything downstream is byte-identical to `filter.deepspan.sync formula= -> span-attrib`: the
`deepspan:span` messages and their clock class (sink.text.details), the reports, tables, stdout and warnings of
deepspan-report on scenario traces of 2, 3 and 5 hosts, the real two-guest recordings and synctraces; bad
values fail with the texts of sync's `formula`, naming span-attrib's parameter."""
import json
import tarfile

import pytest

from conftest import REPORT_SCRIPT, run_babeltrace2
from scale_support import report, same_files, scenario_maker

SCENARIOS = [(2, "lock-remote", 11), (3, "deadlock", 5), (3, "net-retransmit", 3), (3, "disk-contention", 3),
             (5, "lock-remote", 7)]
REAL_DIR = REPORT_SCRIPT.parent.parent / "tests" / "fixtures" / "real-kernel"
REAL_TWO = sorted(p.name[:-len(".tar.xz")] for p in REAL_DIR.glob("two-*.tar.xz"))


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    return scenario_maker(tmp_path_factory, "fit")


def _both(tmp_path, *args):
    """deepspan-report --sync with the fit applied by span-attrib (the default) and by sync (--apply-fit sync):
    the report files, stdout and stderr must be the same; returns the two runs' steps.json."""
    runs = {}
    for who in ("span-attrib", "sync"):
        proc = report("--sync", "--apply-fit", who, "--work-dir", tmp_path / f"w-{who}", "-o", tmp_path / who, *args)
        runs[who] = (proc.stdout.replace(str(tmp_path / who), "OUT"), proc.stderr,
                     json.loads((tmp_path / f"w-{who}" / "steps.json").read_text()))
    if "--metrics" not in args:
        same_files(tmp_path / "span-attrib", tmp_path / "sync")
    assert runs["span-attrib"][0] == runs["sync"][0]
    assert runs["span-attrib"][1] == runs["sync"][1]
    assert runs["span-attrib"][2]["analysis_fit"] == {"applied_by": "filter.deepspan.span-attrib clock-formula"}
    assert runs["sync"][2]["analysis_fit"] == {"applied_by": "filter.deepspan.sync formula", "why": "--apply-fit sync"}
    return runs["span-attrib"][2], runs["sync"][2]


@pytest.mark.parametrize("hosts, cause, seed", SCENARIOS)
def test_one_graph_report_identical(scenario, tmp_path, hosts, cause, seed):
    trace = scenario(hosts, cause, seed)
    new, old = _both(tmp_path, trace)
    assert new["analysis"]["mode"] == old["analysis"]["mode"] == "one graph"
    # the analysis graph has no filter.deepspan.sync: span-attrib reads the sources itself
    graph = report("--sync", "--dry-run", trace).stdout
    assert "filter.deepspan.sync " not in graph and "filter.deepspan.sync'" not in graph
    assert 'clock-formula="WORK-DIR/sync.json"' in graph and "--connect=src0:attrib" in graph


@pytest.mark.parametrize("hosts, cause, seed", [(3, "deadlock", 5), (3, "disk-contention", 3), (5, "lock-remote", 7)])
def test_per_host_report_identical(scenario, tmp_path, hosts, cause, seed):
    """Per host (--no-chains): each host's pass applies its fit (`applies_to`) in span-attrib; deadlock's spans open
    at the end make two hosts run again with sync's path, and not with span-attrib's: the same result."""
    new, old = _both(tmp_path, "--no-chains", "--jobs", "2", scenario(hosts, cause, seed))
    assert new["analysis"]["mode"] == old["analysis"]["mode"] == "per host"
    # spans open at the end (deadlock): sync's path runs those hosts again; span-attrib's has the end at once
    assert (cause == "deadlock") == bool(old.get("analysis_again")) and "analysis_again" not in new
    assert new["analysis_end_time"] == new["analysis_end_estimate"]


def test_per_host_attempt_that_stops_identical(scenario, tmp_path):
    """--analysis per-host on chains that cross hosts: a pass stops, then the one graph runs; the same report."""
    new, old = _both(tmp_path, "--analysis", "per-host", scenario(2, "lock-remote", 11))
    assert new["analysis"]["mode"] == "one graph" and "met another host's events" in new["analysis"]["why"]


@pytest.mark.parametrize("by", ["culprit", "disk", "host"])
def test_metrics_identical(scenario, tmp_path, by):
    _both(tmp_path, "--metrics", by, scenario(3, "disk-contention", 3))


@pytest.mark.parametrize("name", REAL_TWO)
def test_real_two_guest_recordings(tmp_path, name):
    with tarfile.open(REAL_DIR / f"{name}.tar.xz") as tar:
        tar.extractall(tmp_path, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(tmp_path)
    guests = sorted(p for p in (tmp_path / name).iterdir() if p.is_dir() and p.name.startswith("guest"))
    _both(tmp_path, *guests)


def test_synctraces(shared_traces, tmp_path):
    """Real scp traces (no spans; clocks 80 s apart, packets overlapping): the same table and warnings."""
    _both(tmp_path, "--metrics", "thread", shared_traces / "synctraces")


def test_nodejs_falls_back_to_sync(scenario, tmp_path):
    """--nodejs: nodejs-ctx reads the synchronized messages before span-attrib, so sync applies the fit (said)."""
    graph = report("--sync", "--nodejs", "--dry-run", scenario(2, "lock-remote", 11)).stdout
    assert "--component=sync:filter.deepspan.sync" in graph and "clock-formula" not in graph


def _sources(trace):
    dirs = sorted(p.parent for p in trace.rglob("metadata"))
    args = []
    for k, d in enumerate(dirs):
        args += ["-c", f"src{k}:source.ctf.fs", "-p", f'inputs=["{d}"]']
    return args, len(dirs)


def _details(trace, formula, in_attrib, chains=True):
    """The deepspan:span messages (with their trace, stream and clock classes) of the analysis graph."""
    args, n = _sources(trace)
    attrib = "pass-through=false" + ("" if chains else ",follow-wakeups=false")
    first = "attrib" if in_attrib else "sync"
    if in_attrib:
        attrib += f',clock-formula="{formula}"'
    else:
        args += ["-c", "sync:filter.deepspan.sync", "-p", f'formula="{formula}"', "--connect", "sync:attrib"]
    args += ["-c", "attrib:filter.deepspan.span-attrib", "-p", attrib, "-c", "out:sink.text.details",
             "--connect", "attrib:out"]
    for k in range(n):
        args += ["--connect", f"src{k}:{first}"]
    return run_babeltrace2("run", *args)


@pytest.mark.parametrize("hosts, cause, seed, chains", [(3, "deadlock", 5, True), (5, "lock-remote", 7, True),
                                                       (3, "net-retransmit", 3, False)])
def test_span_messages_and_clock_identical(scenario, tmp_path, hosts, cause, seed, chains):
    """Every message span-attrib emits, its timestamps and its clock class (name, UUID, frequency, offset,
    origin, description) as sink.text.details prints them, are those of the graph with filter.deepspan.sync."""
    trace = scenario(hosts, cause, seed)
    report("--sync", "--work-dir", tmp_path / "w", "--metrics", "host", trace)
    formula = tmp_path / "w" / "sync.json"
    old, new = (_details(trace, formula, in_attrib, chains) for in_attrib in (False, True))
    assert new.stdout == old.stdout and new.stderr == old.stderr
    assert "deepspan:span" in new.stdout and "synchronized by filter.deepspan.sync" in new.stdout
    assert "UUID" in new.stdout


# ---- bad values: the texts of sync's `formula` (doc/sync.md, "Formula"), naming `clock-formula` ----

def _attrib_error(shared_traces, params):
    base = shared_traces / "synctraces"
    proc = run_babeltrace2("run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
                           "-c", "dst:source.ctf.fs", "-p", f'inputs=["{base / "scp_dest"}"]',
                           "-c", "attrib:filter.deepspan.span-attrib", "-p", params,
                           "-c", "out:sink.utils.dummy", "--connect", "src:attrib", "--connect", "dst:attrib",
                           "--connect", "attrib:out", check=False)
    assert proc.returncode != 0
    return " ".join(proc.stderr.split())  # the CLI wraps long causes


REGENERATE = ("re-run filter.deepspan.sync with `report=` on these traces to regenerate it (doc/sync.md, "
              "\"Formula\")")


def test_wrong_type(shared_traces):
    err = _attrib_error(shared_traces, "pass-through=false,clock-formula=3")
    assert "filter.deepspan.span-attrib: parameter `clock-formula`: expected a string" in err


def test_missing_file(shared_traces, tmp_path):
    missing = tmp_path / "nope.json"
    err = _attrib_error(shared_traces, f'pass-through=false,clock-formula="{missing}"')
    assert f'filter.deepspan.span-attrib: parameter `clock-formula`: cannot open "{missing}": ' in err


def test_not_a_report(shared_traces, tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"pairs": {}}')
    err = _attrib_error(shared_traces, f'pass-through=false,clock-formula="{other}"')
    assert (f'filter.deepspan.span-attrib: parameter `clock-formula`: "{other}" is not a sync report (no `hosts` '
            "array); give a file written by the `report` parameter of filter.deepspan.sync.") in err


def test_formula_of_other_traces(shared_traces, scenario, tmp_path):
    report("--sync", "--work-dir", tmp_path / "w", "--metrics", "host", scenario(2, "lock-remote", 11))
    f = tmp_path / "w" / "sync.json"
    err = _attrib_error(shared_traces, f'pass-through=false,clock-formula="{f}"')
    assert f'filter.deepspan.span-attrib: parameter `clock-formula`: "{f}": host `' in err
    assert "of the input is not in the formula (its hosts: `customer`, `frontend`)" in err or \
        "of the input is not in the formula (its hosts: `frontend`, `customer`)" in err
    assert "the formula was computed on other traces; " + REGENERATE in err


def test_field_out_of_range(shared_traces, tmp_path):
    f = tmp_path / "f.json"
    f.write_text(json.dumps({"hosts": [{"name": "VM1", "transform": {"x0": 0, "y0": 0, "slope": 1.5}}]}))
    err = _attrib_error(shared_traces, f'pass-through=false,clock-formula="{f}"')
    assert (f'filter.deepspan.span-attrib: parameter `clock-formula`: "{f}": host #0 (`VM1`): `transform.slope` must '
            "be a number within 1000 ppm of 1 ([0.999, 1.001]: no real clock drifts more), got 1.5; " + REGENERATE) \
        in err


def test_pass_through_refused(shared_traces, tmp_path):
    f = tmp_path / "f.json"
    f.write_text('{"hosts": []}')
    err = _attrib_error(shared_traces, f'clock-formula="{f}"')
    assert ("filter.deepspan.span-attrib: parameter `clock-formula`: the upstream messages cannot be passed "
            "through (they stay on their hosts' clocks, only span-attrib's own output is on the synchronized "
            f'clock): set `pass-through=false`, or put `filter.deepspan.sync` with `formula="{f}"` before '
            'span-attrib (doc/span-attrib.md, "Parameters").') in err


def test_apply_fit_errors(tmp_path):
    for args, text in [(["--sync", "--apply-fit", "filter"], "--apply-fit: expected span-attrib or sync, got 'filter'"),
                       (["--apply-fit", "sync"], "--apply-fit sync: it chooses what applies the clock fit of --sync: "
                                                 "add --sync"),
                       (["--sync", "--single-graph", "--apply-fit", "sync"],
                        "--apply-fit and --single-graph exclude each other")]:
        proc = report(*args, tmp_path, check=False)
        assert proc.returncode == 2 and text in proc.stderr


LATE_EVENT_SOURCE = r'''
import sys
import bt2

kernel, out, host = sys.argv[1], sys.argv[2], sys.argv[3]
clock, last = None, None
for msg in bt2.TraceCollectionMessageIterator(kernel):
    if type(msg) is bt2._EventMessageConst:
        clock, last = msg.default_clock_snapshot.clock_class, msg.default_clock_snapshot.value


class Late(bt2._UserMessageIterator):
    def __init__(self, config, port):
        comp = self._component
        cc = comp._create_clock_class(frequency=clock.frequency, name=clock.name, uuid=clock.uuid,
                                      offset=bt2.ClockClassOffset(clock.offset.seconds, clock.offset.cycles),
                                      origin_is_unix_epoch=clock.origin_is_unix_epoch)
        tc = comp._create_trace_class()
        sc = tc.create_stream_class(default_clock_class=cc)
        ec = sc.create_event_class(name="deepspan_test:late")
        trace = tc(environment={"hostname": host, "domain": "deepspan-test"})
        stream = trace.create_stream(sc)
        self._msgs = [self._create_stream_beginning_message(stream),
                      self._create_event_message(ec, stream, default_clock_snapshot=last + clock.frequency),
                      self._create_stream_end_message(stream)]

    def __next__(self):
        if not self._msgs:
            raise StopIteration
        return self._msgs.pop(0)


class LateSource(bt2._UserSourceComponent, message_iterator_class=Late):
    def __init__(self, config, params, obj):
        self._add_output_port("out")


graph = bt2.Graph()
src = graph.add_component(LateSource, "late")
sink = graph.add_component(bt2.find_plugin("ctf").sink_component_classes["fs"], "w",
                           {"path": out, "quiet": True})
graph.connect_ports(src.output_ports["out"], sink.input_ports["in"])
graph.run()
'''


def test_end_estimate_checked_and_corrected(scenario, tmp_path):
    """A host whose latest event is one that span-attrib does not read (an unknown class, on the host's clock, 1 s
    after its last kernel event): the clock estimate's end is later than the latest time the passes saw, so it
    is refused (`analysis_end_estimate_wrong`) and the hosts run again as with sync's path: the hosts with spans
    open at the end given the right end, the others without one; the same report as the single graph."""
    import shutil
    import subprocess
    trace = tmp_path / "trace"
    shutil.copytree(scenario(3, "deadlock", 5), trace)
    kernel = next(p.parent for p in sorted(trace.rglob("metadata")) if p.parent.name == "kernel")
    host = kernel.relative_to(trace).parts[0]
    script = tmp_path / "late.py"
    script.write_text(LATE_EVENT_SOURCE)
    subprocess.run(["/usr/bin/python3", str(script), str(kernel), str(trace / host / "late"), host], check=True,
                   timeout=300)
    single = report("--sync", "--no-chains", "--single-graph", "-o", tmp_path / "single", trace)
    new, old = _both(tmp_path, "--no-chains", "--jobs", "2", trace)
    same_files(tmp_path / "single", tmp_path / "span-attrib")
    # the passes streamed into the merge (--jobs 2) were thrown away with it, and ran again into files
    assert new["merge"] == "streamed, stopped: the end estimate was wrong; the passes ran again into files"
    out = str(tmp_path / "single")
    assert single.stdout.replace(out, "OUT") == report("--sync", "--no-chains", "-o", out, trace).stdout.replace(out, "OUT")
    assert new["analysis"]["mode"] == "per host"
    assert new["analysis_end_estimate"] > new["analysis_end_estimate_wrong"] == new["analysis_end_time"]
    assert new["analysis_again"] and old["analysis_again"] == new["analysis_again"]
