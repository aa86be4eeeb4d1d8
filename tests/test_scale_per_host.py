# SPDX-License-Identifier: MIT
"""deepspan-report --sync with the per-host analysis (doc/scale.md, "Per-host analysis"): span-attrib on each
host's traces alone (--jobs at a time) and a merge of the hosts' deepspan:span traces into the sink give the
single graph's reports and tables byte for byte when no chain can leave a host (--no-chains); when a chain
would continue on another host, the one-host pass stops (span-attrib `cross-host-file`) and the analysis runs
as one graph, said and recorded, never a guessed chain."""
import json
import subprocess

import pytest

from conftest import PLUGIN_DIR, REPORT_SCRIPT
from scale_support import report, same_files, scenario_maker


def bt(*args):
    return subprocess.run(["babeltrace2", f"--plugin-path={PLUGIN_DIR}", *map(str, args)], capture_output=True,
                          text=True, timeout=600)


SCENARIOS = [(2, "lock-remote", 11), (3, "disk-contention", 3), (3, "net-retransmit", 3), (5, "lock-remote", 7)]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    return scenario_maker(tmp_path_factory, "perhost")


def analysis(work):
    return json.loads((work / "steps.json").read_text())["analysis"]


def host_traces(trace, host):
    """The kernel and UST trace directories of one scenario host."""
    return sorted(p.parent for p in (trace / host).rglob("metadata"))


@pytest.mark.parametrize("hosts, cause, seed", SCENARIOS)
def test_per_host_analysis_gives_the_single_graph_report(scenario, tmp_path, hosts, cause, seed):
    trace = scenario(hosts, cause, seed)
    single = report("--sync", "--no-chains", "--single-graph", "-o", tmp_path / "single", trace)
    one = report("--sync", "--no-chains", "--jobs", "1", "--work-dir", tmp_path / "w1", "-o", tmp_path / "j1", trace)
    two = report("--sync", "--no-chains", "--jobs", "2", "--work-dir", tmp_path / "w2", "-o", tmp_path / "j2", trace)
    same_files(tmp_path / "single", tmp_path / "j1")
    same_files(tmp_path / "single", tmp_path / "j2")
    assert single.stdout.replace("single/", "X/") == one.stdout.replace("j1/", "X/") == \
        two.stdout.replace("j2/", "X/")
    # span-attrib's warnings are the single graph's, host by host (in host order, not the single graph's)
    assert sorted(single.stderr.splitlines()) == sorted(one.stderr.splitlines()) == sorted(two.stderr.splitlines())
    for work in (tmp_path / "w1", tmp_path / "w2"):
        assert analysis(work)["mode"] == "per host"
        steps = json.loads((work / "steps.json").read_text())
        assert len(steps["analysis_hosts"]) == hosts and all(s["peak_rss_mib"] > 0 for s in steps["analysis_hosts"])
        # --jobs 2 streams the passes into the merge (at most twice as many hosts as jobs): FIFOs, removed after;
        # else each host's pass wrote its trace pipe file
        streamed = work.name == "w2" and hosts <= 4
        assert steps.get("merge") == ("streamed" if streamed else None)
        for h in range(hosts):
            if streamed:
                assert not list((work / f"a{h}").glob("spans.*"))
            else:
                assert (work / f"a{h}" / "spans.pipe").read_bytes()[:8] == b"DSPIPE01"
            record = json.loads((work / f"a{h}" / "cross-host.json").read_text())
            assert record["stopped"] is False and record["last_ns"] > 0
    # chains off: no chain continues on another host (no time in flight between hosts)
    assert "in flight" not in (tmp_path / "j1" / "b.folded").read_text()


@pytest.mark.parametrize("hosts, cause, seed, by", [(3, "disk-contention", 3, "disk"), (5, "lock-remote", 7, "host"),
                                                     (3, "net-retransmit", 3, "culprit")])
def test_per_host_metrics_identical(scenario, hosts, cause, seed, by):
    trace = scenario(hosts, cause, seed)
    tables = [report("--sync", "--no-chains", *mode, "--metrics", by, trace).stdout
              for mode in (["--single-graph"], ["--jobs", "1"], ["--jobs", "3"])]
    assert tables[0] == tables[1] == tables[2]
    assert len(tables[0].splitlines()) > 2


def test_chains_across_hosts_run_as_one_graph(scenario, tmp_path):
    """Chains on and TCP between hosts: auto mode goes to one graph at once; --analysis per-host tries, the
    first host's pass that meets a segment sent elsewhere stops, and the one graph gives the whole report."""
    trace = scenario(3, "deadlock", 5)
    report("--sync", "--single-graph", "-o", tmp_path / "single", trace)
    report("--sync", "--work-dir", tmp_path / "wa", "-o", tmp_path / "auto", trace)
    tried = report("--sync", "--analysis", "per-host", "--progress", "--jobs", "2", "--work-dir", tmp_path / "wp",
                   "-o", tmp_path / "tried", trace)
    same_files(tmp_path / "single", tmp_path / "auto")
    same_files(tmp_path / "single", tmp_path / "tried")
    auto = analysis(tmp_path / "wa")
    assert auto["mode"] == "one graph" and "TCP segment(s) between hosts" in auto["why"]
    assert not (tmp_path / "wa" / "a0").exists()
    per_host = analysis(tmp_path / "wp")
    assert per_host["mode"] == "one graph"
    assert "'s pass met another host's events (wait ended by a TCP segment not sent on this host" in per_host["why"]
    assert f"deepspan-report: the analysis runs as one graph: {per_host['why']}" in tried.stderr
    stopped = [r for r in (json.loads(p.read_text()) for p in sorted((tmp_path / "wp").glob("a*/cross-host.json")))
               if r["stopped"]]
    assert stopped and all(s["what"] == "wait ended by a TCP segment not sent on this host" and s["tid"] > 0
                           for s in stopped)
    # the passes were streamed into a merge (--jobs 2), stopped with them: no FIFO left, no merge recorded
    assert not list((tmp_path / "wp").glob("a*/spans.*"))
    assert "merge" not in json.loads((tmp_path / "wp" / "steps.json").read_text())


def test_streamed_merge_gives_the_merge_after_the_passes(scenario, tmp_path):
    """--jobs 2 runs every host's pass and the merge at once, through FIFOs whose end frames deepspan-report gives
    only when every pass ended as it must; --sink-process same writes files and merges after them: the same
    report, tables, stdout and stderr (span-attrib's warnings host by host, then the sink's)."""
    trace = scenario(3, "disk-contention", 3)
    runs = {}
    for how in ("own", "same"):
        for extra, out in (([], ["-o", tmp_path / how]), (["--metrics", "host"], [])):
            proc = report("--sync", "--no-chains", "--jobs", "2", "--sink-process", how, "--work-dir",
                          tmp_path / f"w-{how}", *extra, *out, trace)
            runs[how, bool(extra)] = (proc.stdout.replace(str(tmp_path / how), "OUT"), proc.stderr)
            steps = json.loads((tmp_path / f"w-{how}" / "steps.json").read_text())
            assert steps.get("merge") == ("streamed" if how == "own" else None)
            assert steps["merge_wall_s"] > 0 and steps["analysis"]["mode"] == "per host"
    same_files(tmp_path / "own", tmp_path / "same")
    assert runs["own", False] == runs["same", False] and runs["own", True] == runs["same", True]
    assert "W deepspan filter.deepspan.span-attrib" in runs["own", False][1]
    assert not list((tmp_path / "w-own").glob("a*/spans.*"))


def test_streamed_merge_that_starts_late_gets_every_pipe(scenario, tmp_path):
    """The merge's babeltrace2 starts 2 s late (a shim on PATH sleeps before it; the passes run at once): every pass
    has ended and its end frame is appended before the merge opens a FIFO. deepspan-report holds each FIFO until
    the merge has read it to the end (else the FIFO would lose what its buffer holds, and the merge's open would
    wait forever for a writer): the run ends, with the report of the merge after the passes."""
    import os
    trace = scenario(3, "disk-contention", 3)
    shim = tmp_path / "bin" / "babeltrace2"
    shim.parent.mkdir()
    shim.write_text('#!/bin/sh\ncase "$*" in *source.deepspan.pipe*) sleep 2 ;; esac\n'
                    'exec /usr/bin/babeltrace2 "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{shim.parent}:{os.environ['PATH']}")
    for how in ("own", "same"):
        proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "--sync", "--no-chains", "--jobs",
                               "2", "--sink-process", how, "--work-dir", str(tmp_path / f"w-{how}"), "-o",
                               str(tmp_path / how), str(trace)], capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        steps = json.loads((tmp_path / f"w-{how}" / "steps.json").read_text())
        assert steps.get("merge") == ("streamed" if how == "own" else None)
        assert all(h["wall_s"] < 2 for h in steps["analysis_hosts"])  # the passes ended before the merge began
    same_files(tmp_path / "own", tmp_path / "same")

def test_streamed_pass_that_fails_is_named_and_stops_the_merge(scenario, tmp_path):
    """A host whose traces the clock estimate reads but span-attrib refuses (a field of sched_switch renamed in
    its metadata: the same bytes, another schema): its pass fails while the passes stream into the merge; the
    run fails naming the host, the merge is stopped, and neither a report nor a FIFO is left."""
    import shutil
    trace = tmp_path / "t"
    shutil.copytree(scenario(3, "disk-contention", 3), trace)
    metadata = next(p for p in sorted(trace.rglob("metadata")) if p.parent.name == "kernel")
    text = metadata.read_text()
    assert "next_tid" in text
    metadata.write_text(text.replace("next_tid", "next_tix"))
    proc = report("--sync", "--no-chains", "--jobs", "2", "--work-dir", tmp_path / "w", "-o", tmp_path / "r", trace,
                  check=False, timeout=300)
    host = metadata.relative_to(trace).parts[0]
    assert proc.returncode == 1
    assert f"deepspan-report: host {host}: its per-host graph failed (exit status 1); no report was written" \
        in proc.stderr
    assert "has no integer/string field `next_tid`" in " ".join(proc.stderr.split())
    assert not (tmp_path / "r").exists() and not list((tmp_path / "w").glob("a*/spans.*"))


def test_streamed_merge_that_fails_stops_the_passes(scenario, tmp_path):
    """The merge fails at once (its output directory is a file) while the passes stream into it: its error and
    exit status, the passes stopped (they would wait on the full FIFOs forever), no FIFO left."""
    (tmp_path / "file").write_text("x")
    proc = report("--sync", "--no-chains", "--jobs", "2", "--work-dir", tmp_path / "w", "-o",
                  tmp_path / "file" / "out", scenario(3, "disk-contention", 3), check=False, timeout=300)
    assert proc.returncode != 0 and "output" in proc.stderr.lower()
    assert not list((tmp_path / "w").glob("a*/spans.*"))


def test_one_graph_mode_and_nodejs_skip_the_per_host_analysis(scenario, tmp_path):
    trace = scenario(2, "lock-remote", 11)
    report("--sync", "--no-chains", "--jobs", "2", "--analysis", "one-graph", "--work-dir", tmp_path / "w", "-o",
           tmp_path / "r", trace)
    one = analysis(tmp_path / "w")
    assert one.pop("wall_s") > 0  # the one graph's own wall time (bench/scale's breakdown)
    # with two jobs its sink runs in a process of its own (doc/scale.md, "Trace pipe")
    assert one == {"mode": "one graph", "why": "--analysis one-graph", "sink": "own process"}
    assert "# analysis: per host" in report("--sync", "--dry-run", trace).stderr


def test_span_attrib_one_host_pass_stops_on_a_segment_from_another_host(scenario, tmp_path):
    trace = scenario(2, "lock-remote", 11)
    host = sorted(p.name for p in trace.iterdir())[0]
    record = tmp_path / "cross.json"
    proc = bt(*host_traces(trace, host), "-c", "filter.deepspan.span-attrib",
              "-p", f'pass-through=false,cross-host-file="{record}"', "-c", "sink.utils.dummy")
    assert proc.returncode != 0
    text = " ".join(proc.stderr.split())
    assert (f"filter.deepspan.span-attrib: parameter `cross-host-file`: this pass sees the traces of one host, and "
            f"host `{host}` needs another host's events (wait ended by a TCP segment not sent on this host") in text
    assert "run the hosts' traces in one graph (deepspan-report does this by itself, doc/scale.md" in text
    need = json.loads(record.read_text())
    assert need["stopped"] is True and need["host"] == host and need["tid"] > 0 and need["ts"] > 0
    assert need["last_ns"] >= need["ts"]
    # without chains the same host's pass runs to the end and records only its latest event time
    record.unlink()
    proc = bt(*host_traces(trace, host), "-c", "filter.deepspan.span-attrib",
              "-p", f'pass-through=false,follow-wakeups=false,cross-host-file="{record}"', "-c", "sink.utils.dummy")
    assert proc.returncode == 0, proc.stderr[-2000:]
    ended = json.loads(record.read_text())
    assert ended["stopped"] is False and ended["last_ns"] > need["ts"] and "what" not in ended
    # the whole graph never stops: cross-host-file is only for one host's pass
    proc = bt(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false", "-c", "sink.utils.dummy")
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_span_attrib_one_host_pass_stops_on_spans_open_at_the_end(scenario, tmp_path):
    """Spans still open at the end are truncated at the latest time of every host: one host's pass cannot know
    it, so it stops."""
    trace = scenario(2, "lock-remote", 11)
    host = sorted(p.name for p in trace.iterdir())[0]
    record = tmp_path / "cross.json"
    graph = ["run"]
    for k, d in enumerate(host_traces(trace, host)):
        graph += [f"--component=s{k}:source.ctf.fs", f'--params=inputs=["{d}"]', f"--connect=s{k}:m"]
    graph += ["--component=m:filter.utils.muxer", "--component=t:filter.utils.trimmer", '--params=end="1700000000.3"',
              "--component=a:filter.deepspan.span-attrib",
              f'--params=follow-wakeups=false,cross-host-file="{record}"', "--component=d:sink.utils.dummy",
              "--connect=m:t", "--connect=t:a", "--connect=a:d"]
    proc = bt(*graph)
    assert proc.returncode != 0
    assert "spans still open at the end of the input are truncated at the latest time of every host" in \
        " ".join(proc.stderr.split())
    need = json.loads(record.read_text())
    assert need["what"].startswith("spans still open at the end")
    # given the end (`end-time`, the latest event time of every host), the pass truncates them there
    later = need["last_ns"] + 5000
    graph[graph.index(f'--params=follow-wakeups=false,cross-host-file="{record}"')] = \
        f'--params=follow-wakeups=false,cross-host-file="{record}",end-time={later}'
    graph = [a.replace("--component=d:sink.utils.dummy", "--component=d:sink.text.details") for a in graph]
    proc = bt(*graph)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ended = json.loads(record.read_text())
    # and apart, its own latest event time and the spans it truncated (deepspan-report checks its end with them)
    assert ended == {"stopped": False, "last_ns": later, "events_last_ns": need["last_ns"],
                     "open_at_end": ended["open_at_end"]} and ended["open_at_end"] > 0
    assert proc.stdout.count("truncated: Yes") == ended["open_at_end"]
    # sink.text.details groups digits: the 8 truncated spans end at the given time
    assert proc.stdout.count("truncated: Yes") == proc.stdout.count(f"\n    end: {later:,}\n") > 0


@pytest.mark.parametrize("params, text", [
    ("cross-host-file=1", "filter.deepspan.span-attrib: parameter `cross-host-file`: expected a string"),
    ('cross-host-file=""', "filter.deepspan.span-attrib: parameter `cross-host-file`: expected the path of a file "
                           "to write, got an empty string; give a writable path or leave the parameter out"),
])
def test_span_attrib_cross_host_file_parameter_errors(scenario, params, text):
    proc = bt(scenario(2, "lock-remote", 11), "-c", "filter.deepspan.span-attrib", "-p", params,
              "-c", "sink.utils.dummy")
    assert proc.returncode != 0 and text in " ".join(proc.stderr.split())


def test_span_attrib_unwritable_cross_host_file(scenario, tmp_path):
    trace = scenario(2, "lock-remote", 11)
    host = sorted(p.name for p in trace.iterdir())[0]
    record = tmp_path / "missing" / "cross.json"
    proc = bt(*host_traces(trace, host), "-c", "filter.deepspan.span-attrib",
              "-p", f'pass-through=false,cross-host-file="{record}"', "-c", "sink.utils.dummy")
    assert proc.returncode != 0
    assert f'parameter `cross-host-file`: cannot write "{record}" (No such file or directory)' in \
        " ".join(proc.stderr.split())


@pytest.mark.parametrize("args, text", [
    (["--analysis", "fast", "."], "--analysis: expected auto, per-host or one-graph, got 'fast'"),
    (["--analysis"], "--analysis needs auto, per-host or one-graph"),
    # without --sync there is no per-host analysis to choose: said, not ignored
    (["--analysis", "per-host", "."], "--analysis per-host: it chooses how the analysis of --sync runs"),
    (["--analysis=one-graph", "."], "--analysis one-graph: it chooses how the analysis of --sync runs"),
    (["--sync", "--single-graph", "--analysis", "per-host", "."],
     "--analysis per-host and --single-graph exclude each other"),
])
def test_bad_analysis_arguments(args, text):
    proc = report(*args, check=False)
    assert proc.returncode == 2 and text in proc.stderr


def test_spans_open_at_the_end_run_again_with_the_end_of_every_host(scenario, tmp_path):
    """A deadlock leaves spans open at the end: they are truncated at the latest event time of every host, which
    a host's own pass does not know, so it stops; with the fit applied by sync (--apply-fit sync) those hosts run
    again given that time, still per host."""
    trace = scenario(3, "deadlock", 5)
    single = report("--sync", "--no-chains", "--single-graph", "-o", tmp_path / "single", trace)
    per_host = report("--sync", "--no-chains", "--jobs", "2", "--apply-fit", "sync", "--work-dir", tmp_path / "w",
                      "-o", tmp_path / "r", trace)
    same_files(tmp_path / "single", tmp_path / "r")
    assert single.stdout.replace("single/", "X/") == per_host.stdout.replace("r/", "X/")
    assert analysis(tmp_path / "w")["mode"] == "per host"
    steps = json.loads((tmp_path / "w" / "steps.json").read_text())
    records = [json.loads((tmp_path / "w" / f"a{h}" / "cross-host.json").read_text()) for h in range(3)]
    assert steps["analysis_again"] and steps["analysis_end_time"] == max(r["last_ns"] for r in records)
    assert len(steps["analysis_hosts"]) == 3 + len(steps["analysis_again"])
    assert "truncated" in single.stderr


def test_spans_open_at_the_end_get_the_end_from_the_clock_estimate(scenario, tmp_path):
    """The same deadlock with the fit in span-attrib (the default): the clock estimate's latest event time of
    each host, mapped by the fit, is the end of every host; each pass gets it as `end-time` at once, it is
    checked against the latest time the passes saw, and no host runs again (doc/scale.md, "Per-host
    analysis")."""
    trace = scenario(3, "deadlock", 5)
    single = report("--sync", "--no-chains", "--single-graph", "-o", tmp_path / "single", trace)
    per_host = report("--sync", "--no-chains", "--jobs", "2", "--work-dir", tmp_path / "w", "-o", tmp_path / "r",
                      trace)
    same_files(tmp_path / "single", tmp_path / "r")
    assert single.stdout.replace("single/", "X/") == per_host.stdout.replace("r/", "X/")
    steps = json.loads((tmp_path / "w" / "steps.json").read_text())
    records = [json.loads((tmp_path / "w" / f"a{h}" / "cross-host.json").read_text()) for h in range(3)]
    assert "analysis_again" not in steps and len(steps["analysis_hosts"]) == 3
    assert steps["analysis_end_time"] == steps["analysis_end_estimate"] == max(r["events_last_ns"] for r in records)
    assert all(isinstance(s["last_event_ns"], int) for s in steps["hosts"])
    assert sum(r["open_at_end"] for r in records) > 0 and not any(r["stopped"] for r in records)


def test_local_cluster_then_per_host_analysis(scenario, tmp_path):
    distributed = pytest.importorskip("distributed")
    trace = scenario(3, "disk-contention", 3)
    report("--sync", "--no-chains", "--single-graph", "-o", tmp_path / "single", trace)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) \
            as cluster:
        report("--sync", "--no-chains", "--scheduler", cluster.scheduler_address, "--work-dir", tmp_path / "w",
               "-o", tmp_path / "dask", trace)
        # spans open at the end: every host's task gets the end of every host (from the clock estimate)
        dead = scenario(3, "deadlock", 5)
        report("--sync", "--no-chains", "--single-graph", "-o", tmp_path / "single-dead", dead)
        report("--sync", "--no-chains", "--scheduler", cluster.scheduler_address, "--work-dir", tmp_path / "wd",
               "-o", tmp_path / "dask-dead", dead)
        # chains on, per host tried: a task's pass stops, and the one graph gives the whole report
        report("--sync", "--single-graph", "-o", tmp_path / "single-chains", trace)
        report("--sync", "--analysis", "per-host", "--scheduler", cluster.scheduler_address, "--work-dir",
               tmp_path / "wc", "-o", tmp_path / "dask-chains", trace)
    same_files(tmp_path / "single", tmp_path / "dask")
    assert analysis(tmp_path / "w")["mode"] == "per host"
    # the analysis ran as tasks of the cluster: each host's deepspan:span trace came back from a worker
    steps = json.loads((tmp_path / "w" / "steps.json").read_text())
    assert len(steps["analysis_hosts"]) == 3 and all(s["worker"].startswith("tcp://") for s in steps["analysis_hosts"])
    same_files(tmp_path / "single-dead", tmp_path / "dask-dead")
    dead_steps = json.loads((tmp_path / "wd" / "steps.json").read_text())
    # spans open at the end: the end of every host came from the clock estimate (the tasks' last event times)
    assert dead_steps["analysis"]["mode"] == "per host" and "analysis_again" not in dead_steps
    assert dead_steps["analysis_end_time"] == dead_steps["analysis_end_estimate"] is not None
    same_files(tmp_path / "single-chains", tmp_path / "dask-chains")
    why = analysis(tmp_path / "wc")
    assert why["mode"] == "one graph" and "'s pass met another host's events" in why["why"]


REAL_DIR = REPORT_SCRIPT.parent.parent / "tests" / "fixtures" / "real-kernel"
REAL_TWO = sorted(p.name[:-len(".tar.xz")] for p in REAL_DIR.glob("two-*.tar.xz"))


@pytest.mark.parametrize("name", REAL_TWO)
def test_real_two_guest_recordings_per_host(tmp_path, name):
    """Real spans and kernels of two QEMU guests: without chains the per-host analysis gives the single graph's
    report and messages; with chains (TCP between the guests) the analysis runs as one graph."""
    import tarfile
    with tarfile.open(REAL_DIR / f"{name}.tar.xz") as tar:
        tar.extractall(tmp_path, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(tmp_path)
    guests = sorted(p for p in (tmp_path / name).iterdir() if p.is_dir() and p.name.startswith("guest"))
    single = report("--sync", "--no-chains", "--single-graph", "-o", tmp_path / "single", *guests)
    per_host = report("--sync", "--no-chains", "--jobs", "2", "--work-dir", tmp_path / "w", "-o", tmp_path / "jobs",
                      *guests)
    same_files(tmp_path / "single", tmp_path / "jobs")
    assert single.stderr == per_host.stderr
    assert analysis(tmp_path / "w")["mode"] == "per host"
    report("--sync", "--work-dir", tmp_path / "wc", "-o", tmp_path / "chains", *guests)
    assert analysis(tmp_path / "wc")["mode"] == "one graph"
