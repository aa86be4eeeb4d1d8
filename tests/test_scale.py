# SPDX-License-Identifier: MIT
"""deepspan-report --sync with the per-host clock estimate (doc/scale.md): the reports and metrics tables are
byte-identical to the single graph's (filter.deepspan.sync reading everything twice) for --jobs 1 and --jobs N,
on scenario traces of 2 to 5 hosts whose chains cross hosts (lock-remote, deadlock); the fit on the per-host
pair traces is the single graph's sync report; bad input fails clearly, naming the host or the traces."""
import json
import os
import shlex
import shutil
import subprocess

import pytest

from conftest import DIFF_OUTPUTS, PLUGIN_DIR, REPORT_SCRIPT, make_scenario_trace, run_babeltrace2


def report(*args, check=True, timeout=600):
    proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


SCENARIOS = [(2, "lock-remote", 11), (3, "deadlock", 5), (3, "lock-remote", 3), (5, "lock-remote", 7)]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    made = {}

    def get(hosts, cause, seed):
        if (hosts, cause, seed) not in made:
            out = tmp_path_factory.mktemp(f"scale{hosts}{cause}")
            made[(hosts, cause, seed)] = make_scenario_trace(out / "trace", requests=120, hosts=hosts, seed=seed,
                                                             cause=cause, **{"slow-ratio": 0.1})
        return made[(hosts, cause, seed)]
    return get


def same_files(a, b):
    for name in DIFF_OUTPUTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.parametrize("hosts, cause, seed", SCENARIOS)
def test_per_host_estimate_gives_the_single_graph_report(scenario, tmp_path, hosts, cause, seed):
    trace = scenario(hosts, cause, seed)
    single = report("--sync", "--single-graph", "-o", tmp_path / "single", trace)
    one = report("--sync", "--jobs", "1", "--work-dir", tmp_path / "w1", "-o", tmp_path / "j1", trace)
    two = report("--sync", "--jobs", "2", "-o", tmp_path / "j2", trace)
    same_files(tmp_path / "single", tmp_path / "j1")
    same_files(tmp_path / "single", tmp_path / "j2")
    assert single.stdout.replace("single/", "X/") == one.stdout.replace("j1/", "X/") == \
        two.stdout.replace("j2/", "X/")
    explain = (tmp_path / "j1" / "explain.txt").read_text()
    assert "not synchronized" not in explain
    # the chains cross hosts: a TCP segment from another host continues the chain there
    assert "on a TCP segment from" in explain or "deadlock" in explain
    # the fit on the pair traces is the report of the single graph's two passes
    graph = report("--sync", "--single-graph", "--dry-run", trace).stdout
    argv = shlex.split(graph)
    argv = [a.replace("--component=sink:sink.deepspan.diff", "--component=sink:sink.utils.dummy") for a in argv
            if not a.startswith("--params=output-dir=")]
    argv.insert(argv.index("--component=sync:filter.deepspan.sync") + 1,
                f'--params=report="{tmp_path / "two-pass.json"}"')
    run_babeltrace2(*argv[2:])
    assert json.loads((tmp_path / "w1" / "sync.json").read_text()) == \
        json.loads((tmp_path / "two-pass.json").read_text())


@pytest.mark.parametrize("by", ["culprit", "operation"])
def test_metrics_identical_across_jobs(scenario, by):
    trace = scenario(5, "lock-remote", 7)
    tables = [report("--sync", *mode, "--metrics", by, trace).stdout
              for mode in (["--single-graph"], ["--jobs", "1"], ["--jobs", "3"])]
    assert tables[0] == tables[1] == tables[2]
    assert len(tables[0].splitlines()) > 2


def test_work_dir_holds_small_pair_traces(scenario, tmp_path):
    trace = scenario(3, "lock-remote", 3)
    report("--sync", "--work-dir", tmp_path / "w", "-o", tmp_path / "r", trace)
    size = lambda root: sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
    assert sorted(os.listdir(tmp_path / "w")) == ["h0", "h1", "h2", "sync.json"]
    # only the pair events move: the per-host results are smaller than the traces
    assert size(tmp_path / "w") < size(trace)


def test_progress_counts_hosts_and_events(scenario, tmp_path):
    trace = scenario(3, "lock-remote", 3)
    proc = report("--sync", "--progress", "--jobs", "2", "-o", tmp_path / "r", trace)
    assert "deepspan-report: hosts 3/3 done, 0 running, 0 queued; " in proc.stderr
    assert "M events/s" in proc.stderr
    assert "queued" not in report("--sync", "-o", tmp_path / "q", trace).stderr  # not a terminal: quiet


def test_dry_run_shows_the_per_host_steps(scenario):
    trace = scenario(2, "lock-remote", 11)
    proc = report("--sync", "--dry-run", trace)
    assert proc.stdout.count("\n") == 1 and "--params=formula=" in proc.stdout
    steps = [line for line in proc.stderr.splitlines() if line.startswith("# host ")]
    assert len(steps) == 2 and all("filter.deepspan.sync-extract" in s and "sink.ctf.fs" in s for s in steps)


def test_two_traces_with_the_same_hostname(scenario, tmp_path):
    trace = scenario(2, "lock-remote", 11)
    kernel = next(p.parent for p in sorted(trace.rglob("metadata")) if p.parent.name == "kernel")
    copy = tmp_path / "again" / "kernel"
    shutil.copytree(kernel, copy)
    proc = report("--sync", "-o", tmp_path / "r", trace, tmp_path / "again", check=False)
    assert proc.returncode == 2
    host = kernel.parent.parent.name
    assert f"two traces claim host '{host}' with the same kind (kernel): {kernel} and {copy}" in proc.stderr
    assert not (tmp_path / "r").exists()


def test_directory_whose_metadata_is_not_ctf(scenario, tmp_path):
    trace = scenario(2, "lock-remote", 11)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "metadata").write_text("this is not TSDL\n")
    proc = report("--sync", "-o", tmp_path / "r", trace, bad, check=False)
    assert proc.returncode == 2
    assert f"deepspan-report: {bad} is not a CTF trace: babeltrace2 cannot read its 'metadata'" in proc.stderr
    assert not (tmp_path / "r").exists()


def test_failing_host_is_named_and_no_report_is_written(scenario, tmp_path):
    trace = scenario(2, "lock-remote", 11)
    broken = tmp_path / "broken"
    shutil.copytree(trace, broken)
    kernel = next(p.parent for p in sorted(broken.rglob("metadata")) if p.parent.name == "kernel")
    stream = next(p for p in sorted(kernel.iterdir()) if p.name != "metadata" and p.is_file())
    data = stream.read_bytes()
    stream.write_bytes(data[:len(data) // 2] + b"\xff" * 64)  # a packet cut in the middle
    proc = report("--sync", "--jobs", "2", "-o", tmp_path / "r", broken, check=False)
    assert proc.returncode == 1, proc.stderr[-2000:]
    host = kernel.parent.parent.name
    assert f"deepspan-report: host {host}: its per-host graph failed (exit status 1); no report was written" \
        in proc.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("args, text", [
    (["--jobs", "0", "."], "--jobs: expected a number of parallel jobs (1 or more), got '0'"),
    (["--jobs", "many", "."], "--jobs: expected a number of parallel jobs (1 or more), got 'many'"),
    (["--jobs"], "--jobs needs a number of jobs"),
    (["--scheduler", "tcp://127.0.0.1:1", "."], "--scheduler runs the per-host clock estimate of --sync: add --sync"),
])
def test_bad_scale_arguments(args, text):
    proc = report(*args, check=False)
    assert proc.returncode == 2 and text in proc.stderr
