# SPDX-License-Identifier: MIT
"""scripts/deepspan-report: the muxer-free `babeltrace2 run` graph (one source.ctf.fs per trace, the deepspan
filter merging the streams by time) gives the same report as the CLI's convert mode, on scenario traces
and real ones, with clear errors for bad arguments."""
import os
import subprocess

import pytest

from conftest import DIFF_OUTPUTS, PLUGIN_DIR, REPORT_SCRIPT, make_scenario_trace, run_babeltrace2



def report(*args, check=True):
    proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", *map(str, args)], capture_output=True,
                          text=True, timeout=600)
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def hotrod(tmp_path_factory):
    """Three hosts, kernel + UST each: twelve CTF streams in six traces."""
    return make_scenario_trace(tmp_path_factory.mktemp("hotrod") / "trace", requests=300, hosts=3, seed=5,
                               cause="lock")


def test_same_report_as_convert_mode(hotrod, tmp_path):
    report("-o", tmp_path / "run", hotrod)
    run_babeltrace2(hotrod, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "convert"}",summary=false')
    for name in DIFF_OUTPUTS:
        assert (tmp_path / "run" / name).read_bytes() == (tmp_path / "convert" / name).read_bytes(), name


def test_sync_params_and_metrics(hotrod, tmp_path):
    proc = report("--sync", "-o", tmp_path / "s", "-p", 'mode="self",top=3', hotrod)
    assert "Report: " in proc.stdout
    explain = (tmp_path / "s" / "explain.txt").read_text()
    assert "mode self" in explain and "not synchronized" not in explain
    table = report("--metrics", "operation", "-p", 'format="csv"', hotrod).stdout.splitlines()
    assert table[0].startswith("service,operation,count,mean,p50")
    assert any(line.startswith("mysql,SQL SELECT,300,") for line in table)


def test_real_traces_the_muxer_refuses(shared_traces):
    """The scp traces' packets overlap by 1 us, which babeltrace2 2.0.4's muxer rejects; without it they read."""
    proc = report("--metrics", "thread", shared_traces / "synctraces")
    assert proc.stdout.split()[:3] == ["host", "pid", "tid"]
    proc = report("--sync", "--metrics", "thread", shared_traces / "synctraces")
    assert proc.returncode == 0


def test_dry_run_prints_the_graph(hotrod):
    line = report("--dry-run", "--sync", hotrod).stdout
    assert line.count("source.ctf.fs") == 6 and "filter.utils.muxer" not in line
    # the fit applied by span-attrib (doc/scale.md, "Applying the fit"), or by sync with --apply-fit sync
    assert "--connect=src0:attrib" in line and "clock-formula=" in line and "filter.deepspan.sync " not in line
    line = report("--dry-run", "--sync", "--apply-fit", "sync", hotrod).stdout
    assert "--connect=src0:sync" in line and "--connect=sync:attrib" in line and "clock-formula" not in line


@pytest.mark.parametrize("args, text", [
    ([], "no trace directory given"),
    (["/nonexistent-deepspan"], "/nonexistent-deepspan is not a directory"),
    (["--metrics", "latency", "."], "--metrics: expected operation, request, syscall, thread, culprit, disk or host, got 'latency'"),
    (["--colour", "."], "unknown option --colour"),
    (["-o"], "-o needs a directory"),
])
def test_bad_arguments(args, text):
    proc = report(*args, check=False)
    assert proc.returncode == 2 and text in proc.stderr


def test_directory_without_trace(tmp_path):
    proc = report(tmp_path, check=False)
    assert proc.returncode == 2 and f"no CTF trace (no 'metadata' file) under {tmp_path}" in proc.stderr


def test_kernel_only_trace_says_there_are_no_spans(shared_traces, tmp_path):
    """Issue 11, defect 10: span-attrib is in the graph, the trace has kernel events but no spans."""
    proc = report("--sink-process", "same", "-o", tmp_path / "k", shared_traces / "cat-kern-ust" / "cat-kernel",
                  check=False)
    stderr = " ".join(proc.stderr.split())  # the CLI wraps long causes
    assert proc.returncode != 0
    assert "put filter.deepspan.span-attrib before it" not in stderr
    assert "the input has no spans: filter.deepspan.span-attrib (upstream of this sink) found no span events" \
        in stderr
    for provider in ("`jaeger_ust:start_span` / `jaeger_ust:end_span`",
                     "`deepspan_ust:span_start` / `deepspan_ust:span_end`", "Node.js `vnode:*` events"):
        assert provider in stderr
    assert "filter.deepspan.nodejs-ctx is not in the graph: add it before span-attrib" in stderr
    proc = report("--nodejs", "--sink-process", "same", "-o", tmp_path / "n", shared_traces / "cat-kern-ust" /
                  "cat-kernel", check=False)
    stderr = " ".join(proc.stderr.split())
    assert proc.returncode != 0 and "(filter.deepspan.nodejs-ctx is in the graph)" in stderr
    # the sink in its own process reads a trace pipe: it cannot see the writer's graph, and says so
    proc = report("--nodejs", "--sink-process", "own", "-o", tmp_path / "o", shared_traces / "cat-kern-ust" /
                  "cat-kernel", check=False)
    stderr = " ".join(proc.stderr.split())
    assert proc.returncode != 0 and "the input has no spans" in stderr
    assert ("(this sink reads a trace pipe (source.deepspan.pipe): for Node.js services, add "
            "filter.deepspan.nodejs-ctx before span-attrib in the graph that writes it (deepspan-report --nodejs))"
            in stderr)


def test_no_span_attrib_upstream_says_so(shared_traces, tmp_path):
    proc = run_babeltrace2(shared_traces / "cat-kern-ust" / "cat-kernel", "-c", "sink.deepspan.diff",
                           "-p", f'output-dir="{tmp_path}"', check=False)
    stderr = " ".join(proc.stderr.split())
    assert proc.returncode != 0
    assert "no `deepspan:span` event reached this sink: put filter.deepspan.span-attrib before it" in stderr



def test_empty_metrics_table_says_why(shared_traces, hotrod):
    """A metrics table of a trace without spans is empty, with a warning saying why and what to do: the texts of the
    diff sink's no-spans error, for whatever feeds the sink; by="disk" reads the disks' requests, not spans."""
    kernel = shared_traces / "cat-kern-ust" / "cat-kernel"
    for by in ("operation", "request", "syscall", "thread", "culprit", "host"):
        proc = report("--metrics", by, "--sink-process", "same", kernel)
        stderr = " ".join(proc.stderr.split())
        assert proc.stdout.count("\n") == 1, proc.stdout  # the header
        assert ("sink.deepspan.metrics (sink): the table is empty: the input has no spans: "
                "filter.deepspan.span-attrib (upstream of this sink) found no span events" in stderr), stderr
        assert "filter.deepspan.nodejs-ctx is not in the graph: add it before span-attrib" in stderr
    stderr = " ".join(report("--metrics", "operation", "--sink-process", "own", kernel).stderr.split())
    assert "the table is empty: the input has no spans" in stderr and "this sink reads a trace pipe" in stderr
    proc = report("--metrics", "disk", kernel)  # its rows are the disks' requests, spans or not
    assert proc.stdout.count("\n") > 1 and "the table is empty" not in proc.stderr
    proc = run_babeltrace2(kernel, "-c", "sink.deepspan.metrics", check=False)
    assert proc.returncode == 0
    assert ("the table is empty: no `deepspan:span` event reached this sink: put filter.deepspan.span-attrib before "
            "it (doc/span-attrib.md)") in " ".join(proc.stderr.split())
    # a table with rows says nothing of the kind
    proc = report("--metrics", "operation", hotrod)
    assert proc.stdout.count("\n") > 1 and "the table is empty" not in proc.stderr

@pytest.mark.parametrize("given, expected", [
    (None, "glibc.malloc.hugetlb=1"),
    ("glibc.malloc.tcache_count=8", "glibc.malloc.tcache_count=8:glibc.malloc.hugetlb=1"),
    ("glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=0"),
])
def test_babeltrace2_runs_on_huge_pages(hotrod, tmp_path, given, expected):
    """Every babeltrace2 the script starts has glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES (doc/performance.md,
    "Huge pages"), a value the user set kept; a shim on PATH records what each one got, then runs the real one."""
    shim = tmp_path / "bin" / "babeltrace2"
    shim.parent.mkdir()
    seen = tmp_path / "seen"
    shim.write_text(f'#!/bin/sh\nprintf "%s\\n" "${{GLIBC_TUNABLES-unset}}" >> {seen}\nexec /usr/bin/babeltrace2 "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    env["PATH"] = f"{shim.parent}:{env['PATH']}"
    if given is not None:
        env["GLIBC_TUNABLES"] = given
    for args in (("--jobs", "2"), ("--sync", "--jobs", "2")):
        proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", *args, "-o", tmp_path / "r", hotrod],
                              capture_output=True, text=True, timeout=600, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
    lines = seen.read_text().splitlines()
    assert len(lines) >= 2 + 3 + 2 and set(lines) == {expected}
    dry = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "--dry-run", hotrod], capture_output=True,
                         text=True, timeout=600, env=env)
    said = f"# every babeltrace2 below runs with GLIBC_TUNABLES={expected}"
    assert (said in dry.stderr) == (given != "glibc.malloc.hugetlb=0")


def test_without_babeltrace2_on_path(hotrod, tmp_path):
    """No babeltrace2 on PATH: one line saying so and what to do, exit status 1, no traceback; --dry-run needs none."""
    env = dict(os.environ, PATH=str(tmp_path))
    proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "-o", str(tmp_path / "r"), str(hotrod)],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr == ("deepspan-report: babeltrace2 is not on PATH: install it (Debian 12: apt-get install "
                           "babeltrace2), or add its directory to PATH\n")
    dry = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "--dry-run", str(hotrod)],
                         capture_output=True, text=True, timeout=60, env=env)
    assert dry.returncode == 0 and dry.stdout.startswith("babeltrace2 ")


def test_help_is_the_usage_comment_only():
    """--help prints the script's leading comment (its usage), up to the options' last notes, and no code comment."""
    proc = subprocess.run([str(REPORT_SCRIPT), "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("deepspan-report: why are some requests slow?")
    assert "Usage: deepspan-report [options] TRACE-DIR..." in lines
    assert lines[-1] == "directory holds one per domain and ABI)."
