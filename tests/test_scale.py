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
import time

import pytest

from conftest import PLUGIN_DIR, REPORT_SCRIPT, make_scenario_trace, run_babeltrace2
from scale_support import assert_fit_is_pass_one, report, same_files, scenario_maker


SCENARIOS = [(2, "lock-remote", 11), (3, "deadlock", 5), (3, "lock-remote", 3), (5, "lock-remote", 7)]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    return scenario_maker(tmp_path_factory, "scale")


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
    fit, two_pass = (json.loads((p).read_text()) for p in (tmp_path / "w1" / "sync.json", tmp_path / "two-pass.json"))
    assert_fit_is_pass_one(fit, two_pass)


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
    assert sorted(os.listdir(tmp_path / "w")) == ["h0", "h1", "h2", "steps.json", "sync.json"]
    steps = json.loads((tmp_path / "w" / "steps.json").read_text())
    assert all(s["events"] > 0 and s["peak_rss_mib"] > 0 for s in steps["hosts"])
    # where the wall time went: the per-host steps, the clock fit, the analysis (doc/scale.md)
    assert steps["wall_s"] > 0 and steps["fit_wall_s"] > 0 and steps["analysis"]["wall_s"] > 0
    assert sorted(s["host"] for s in steps["hosts"]) == sorted(p.name for p in trace.iterdir())
    # only the pair events move: the per-host results are smaller than the traces
    assert size(tmp_path / "w") < size(trace)
    # a work directory used again: the earlier run's pair traces are replaced, not added to
    report("--sync", "--work-dir", tmp_path / "w", "--metrics", "operation", trace)
    assert sorted(os.listdir(tmp_path / "w")) == ["h0", "h1", "h2", "steps.json", "sync.json"]


def test_largest_host_runs_first(scenario, tmp_path):
    """With fewer jobs than hosts the per-host steps and passes start with the host of the most trace bytes (the
    longest task does not wait behind short ones): with --jobs 1 they end, and steps.json lists them, in that
    order, and the report is the same as with every host at once."""
    trace = scenario(3, "lock-remote", 3)
    size = lambda root: sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
    by_size = sorted(trace.iterdir(), key=lambda d: (-size(d), d.name))
    assert size(by_size[0]) > size(by_size[1]) > size(by_size[2])
    expected = [d.name for d in by_size]
    for extra, key in ((["--no-chains"], "analysis_hosts"), ([], "hosts")):
        work = tmp_path / f"w{key}"
        report("--sync", "--jobs", "1", *extra, "--work-dir", work, "-o", tmp_path / f"r{key}", trace)
        steps = json.loads((work / "steps.json").read_text())
        assert [s["host"] for s in steps[key]] == expected
        report("--sync", "--jobs", "3", *extra, "-o", tmp_path / f"all{key}", trace)
        same_files(tmp_path / f"r{key}", tmp_path / f"all{key}")


def test_real_two_host_traces(shared_traces, tmp_path):
    """LTTng's scp traces (two real hosts, clocks 80 s apart, packets the muxer refuses): the per-host pair
    traces give the two-pass sync report exactly, and the same (span-less) table and warnings."""
    traces = shared_traces / "synctraces"
    single = report("--sync", "--single-graph", "--metrics", "thread", traces)
    per_host = report("--sync", "--work-dir", tmp_path / "w", "--metrics", "thread", traces)
    assert single.stdout == per_host.stdout and single.stderr == per_host.stderr
    argv = shlex.split(report("--sync", "--single-graph", "--dry-run", "--metrics", "thread", traces).stdout)
    cut = argv.index("--component=sync:filter.deepspan.sync")
    argv = argv[2:cut + 1] + [f'--params=report="{tmp_path / "two-pass.json"}"',
                              "--component=sink:sink.utils.dummy", "--connect=sync:sink"]
    run_babeltrace2(*argv)
    fit = json.loads((tmp_path / "w" / "sync.json").read_text())
    two_pass = json.loads((tmp_path / "two-pass.json").read_text())
    assert_fit_is_pass_one(fit, two_pass)
    assert fit["reference"] == "VM3" and {h["name"] for h in fit["hosts"]} == {"VM1", "VM3"}


def test_progress_counts_hosts_and_events(scenario, tmp_path):
    trace = scenario(3, "lock-remote", 3)
    proc = report("--sync", "--progress", "--jobs", "2", "-o", tmp_path / "r", trace)
    assert "deepspan-report: hosts 3/3 done, 0 running, 0 queued; " in proc.stderr
    assert "M events/s" in proc.stderr
    # the serial steps after the hosts' say what runs and how long it took
    assert "deepspan-report: clock fit on the pair records ..." in proc.stderr
    assert "deepspan-report: clock fit done in " in proc.stderr
    assert "deepspan-report: the analysis graph took " in proc.stderr
    assert "queued" not in report("--sync", "-o", tmp_path / "q", trace).stderr  # not a terminal: quiet


def test_dry_run_shows_the_per_host_steps(scenario):
    trace = scenario(2, "lock-remote", 11)
    proc = report("--sync", "--dry-run", trace)
    assert proc.stdout.count("\n") == 1 and ",clock-formula=" in proc.stdout
    steps = [line for line in proc.stderr.splitlines() if line.startswith("# host ")]
    assert len(steps) == 2 and all("filter.deepspan.sync-extract" in s and "records=" in s for s in steps)


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
    (["--worker-wait", "0", "."], "--worker-wait: expected seconds in (0, 86400], got '0'"),
    (["--worker-wait", "soon", "."], "--worker-wait: expected seconds in (0, 86400], got 'soon'"),
])
def test_bad_scale_arguments(args, text):
    proc = report(*args, check=False)
    assert proc.returncode == 2 and text in proc.stderr


# ---- Dask distributed (--scheduler) ----

def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_without_scheduler_dask_is_not_imported(scenario, tmp_path):
    trap = tmp_path / "trap"
    (trap / "distributed").mkdir(parents=True)
    (trap / "distributed" / "__init__.py").write_text("raise ImportError('deepspan-report imported Dask')\n")
    env = dict(os.environ, PYTHONPATH=str(trap))
    proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "--sync", "-o", str(tmp_path / "r"),
                           str(scenario(2, "lock-remote", 11))], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_local_cluster_gives_the_same_report(scenario, tmp_path):
    distributed = pytest.importorskip("distributed")
    trace = scenario(3, "deadlock", 5)
    report("--sync", "--single-graph", "-o", tmp_path / "single", trace)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) \
            as cluster:
        proc = report("--sync", "--scheduler", cluster.scheduler_address, "--progress", "-o", tmp_path / "dask",
                      trace)
    same_files(tmp_path / "single", tmp_path / "dask")
    assert "deepspan-report: hosts 3/3 done, 0 running, 0 queued; " in proc.stderr


class DaskProcesses:
    """A `dask scheduler` and `dask worker` processes on 127.0.0.1, stopped at the end."""

    def __init__(self, tmp_path, workers=2, names=()):
        pytest.importorskip("distributed")
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.logs = []
        self.procs = [self._start(tmp_path, "scheduler", ["scheduler", "--host", "127.0.0.1", "--port",
                                                          str(self.port), "--no-dashboard"])]
        self.workers = [self._start(tmp_path, f"worker{i}", ["worker", self.address, "--nthreads", "1",
                                                             "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                                                             *(["--name", names[i]] if i < len(names) else [])])
                        for i in range(workers)]
        self.procs += self.workers
        import distributed
        with distributed.Client(self.address, timeout=30, set_as_default=False) as client:
            if workers:
                client.wait_for_workers(workers, timeout=60)

    def _start(self, tmp_path, name, args):
        log = open(tmp_path / f"{name}.log", "w")
        self.logs.append(log)
        return subprocess.Popen([shutil.which("dask") or "dask", *args],
                                stdout=log, stderr=subprocess.STDOUT)

    def stop(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in self.logs:
            log.close()


@pytest.fixture
def dask_processes(tmp_path):
    made = []

    def start(workers=2, names=()):
        made.append(DaskProcesses(tmp_path, workers, names))
        return made[-1]
    yield start
    for d in made:
        d.stop()


def test_real_scheduler_and_two_workers(scenario, tmp_path, dask_processes):
    trace = scenario(5, "lock-remote", 7)
    cluster = dask_processes(2)
    report("--sync", "--single-graph", "-o", tmp_path / "single", trace)
    report("--sync", "--scheduler", cluster.address, "-o", tmp_path / "dask", trace)
    same_files(tmp_path / "single", tmp_path / "dask")
    tables = [report("--sync", *mode, "--metrics", "culprit", trace).stdout
              for mode in (["--single-graph"], ["--scheduler", cluster.address])]
    assert tables[0] == tables[1]


def test_worker_named_after_a_host_runs_its_task(scenario, tmp_path, dask_processes):
    """`dask worker --name HOST` on the machine holding HOST's traces: HOST's task is placed there."""
    import distributed
    trace = scenario(3, "lock-remote", 3)
    hosts = sorted(p.name for p in trace.iterdir())
    cluster = dask_processes(2, names=hosts[:2])
    report("--sync", "--scheduler", cluster.address, "--work-dir", tmp_path / "w", "-o", tmp_path / "r", trace)
    # a worker whose event loop the task's bt2 graph held (the GIL) may be reconnecting to the scheduler
    # just after the run on a loaded machine: wait (bounded) until both named workers are listed again
    deadline = time.monotonic() + 30
    with distributed.Client(cluster.address, timeout=30, set_as_default=False) as client:
        while True:
            by_name = {info["name"]: addr for addr, info in client.scheduler_info()["workers"].items()}
            if set(hosts[:2]) <= set(by_name) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    steps = {s["host"]: s for s in json.loads((tmp_path / "w" / "steps.json").read_text())["hosts"]}
    assert set(steps) == set(hosts)
    for host in hosts[:2]:
        assert steps[host]["worker"] == by_name[host]
    assert steps[hosts[2]]["worker"] in by_name.values() and all(s["events"] > 0 for s in steps.values())


@pytest.fixture(scope="module")
def long_trace(tmp_path_factory):
    """Four hosts whose per-host tasks last long enough to kill a worker while it runs one."""
    return make_scenario_trace(tmp_path_factory.mktemp("killed") / "trace", requests=1500, hosts=4, seed=9,
                               cause="lock-remote")


def _kill_a_busy_worker(cluster, run):
    """Kills (SIGKILL) the first worker seen running a task; its pid, or None when the run ended first."""
    import time
    import distributed
    with distributed.Client(cluster.address, timeout=30, set_as_default=False) as client:
        pids = client.run(os.getpid)
        for _ in range(3000):
            busy = [addr for addr, keys in client.processing().items() if keys]
            if busy:
                os.kill(pids[busy[0]], 9)
                return pids[busy[0]]
            if run.poll() is not None:
                return None
            time.sleep(0.02)
    return None


def test_last_worker_killed_fails_naming_the_hosts(long_trace, tmp_path, dask_processes):
    cluster = dask_processes(1)
    run = subprocess.Popen([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "--sync", "--scheduler",
                            cluster.address, "--worker-wait", "3", "-o", str(tmp_path / "dask"), str(long_trace)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = _kill_a_busy_worker(cluster, run)
    out, err = run.communicate(timeout=600)
    assert killed is not None, "no task was seen running"
    assert run.returncode == 1, err[-2000:]
    assert f"deepspan-report: --scheduler {cluster.address}: every worker is gone and none came back within 3 s " \
        "(--worker-wait); the tasks of host(s) " in err and "no report was written" in err
    assert not (tmp_path / "dask").exists()


def test_killed_worker_still_gives_the_whole_report_or_names_the_host(long_trace, tmp_path, dask_processes):
    trace = long_trace
    cluster = dask_processes(2)
    report("--sync", "--single-graph", "-o", tmp_path / "single", trace)
    run = subprocess.Popen([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "--sync", "--scheduler",
                            cluster.address, "-o", str(tmp_path / "dask"), str(trace)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = _kill_a_busy_worker(cluster, run)
    out, err = run.communicate(timeout=600)
    assert killed is not None, "no task was seen running: the trace is too small to kill a worker mid-run"
    print(f"killed worker pid {killed}: deepspan-report exit status {run.returncode}")
    if run.returncode == 0:
        same_files(tmp_path / "single", tmp_path / "dask")
    else:
        assert "its per-host task failed on the Dask cluster" in err and "deepspan-report: host " in err
        assert not (tmp_path / "dask").exists()


def test_scheduler_without_workers(scenario, tmp_path, dask_processes):
    import time
    cluster = dask_processes(0)
    start = time.monotonic()
    proc = report("--sync", "--scheduler", cluster.address, "--worker-wait", "2", "-o", tmp_path / "r",
                  scenario(2, "lock-remote", 11), check=False, timeout=120)
    assert proc.returncode == 2
    assert f"deepspan-report: --scheduler {cluster.address}: the scheduler has no worker (waited 2 s, " \
        "--worker-wait); start workers with" in proc.stderr
    assert time.monotonic() - start < 40 and not (tmp_path / "r").exists()


def test_scheduler_that_does_not_answer(scenario, tmp_path):
    pytest.importorskip("distributed")
    import time
    address = f"tcp://127.0.0.1:{_free_port()}"
    start = time.monotonic()
    proc = report("--sync", "--scheduler", address, "-o", tmp_path / "r", scenario(2, "lock-remote", 11),
                  check=False, timeout=120)
    assert proc.returncode == 2
    assert f"deepspan-report: --scheduler {address}: no Dask scheduler answered within 10 s" in proc.stderr
    assert time.monotonic() - start < 60
    assert not (tmp_path / "r").exists()


# ---- filter.deepspan.sync-extract on its own ----

def _extract(trace_dir, params, check=True):
    args = ["run", "--component=s:source.ctf.fs", f'--params=inputs=["{trace_dir}"]',
            "--component=x:filter.deepspan.sync-extract"]
    if params:
        args.append(f"--params={params}")
    return run_babeltrace2(*args, "--component=d:sink.utils.dummy", "--connect=s:x", "--connect=x:d", check=check)


def test_extract_keeps_exactly_the_pair_events(scenario, tmp_path):
    import bt2
    trace = scenario(2, "lock-remote", 11)
    kernel = next(p.parent for p in sorted(trace.rglob("metadata")) if p.parent.name == "kernel")
    _extract(kernel, f'stats="{tmp_path / "stats.json"}"')
    stats = json.loads((tmp_path / "stats.json").read_text())
    names = {"net_dev_queue", "net_if_receive_skb", "inet_sock_local_out", "inet_sock_local_in"}
    total = pairs = 0
    last = None
    for msg in bt2.TraceCollectionMessageIterator(str(kernel)):
        if type(msg) is bt2._EventMessageConst:
            total += 1
            pairs += msg.event.name in names
            ns = msg.default_clock_snapshot.ns_from_origin
            last = ns if last is None else max(last, ns)
    # and the latest event time, the end of the per-host analysis (doc/scale.md, "Per-host analysis")
    assert stats == {"events": total, "kept": pairs, "last_event_ns": last} and 0 < pairs < total


@pytest.mark.parametrize("params, text", [
    ("stats=5", "filter.deepspan.sync-extract: parameter `stats`: expected a string, got signed integer 5."),
    ("colour=1", "filter.deepspan.sync-extract: unknown parameter `colour`; known parameters: `stats`"),
])
def test_extract_parameter_errors(scenario, params, text):
    kernel = next(p.parent for p in sorted(scenario(2, "lock-remote", 11).rglob("metadata")))
    proc = _extract(kernel, params, check=False)
    assert proc.returncode != 0 and text in " ".join(proc.stderr.split())


def test_extract_help_names_every_stats_member():
    """`help` documents the stats file as written: events, kept and last_event_ns (doc/scale.md)."""
    text = " ".join(run_babeltrace2("help", "filter.deepspan.sync-extract").stdout.split())
    assert '{"events": N, "kept": K, "last_event_ns": T}' in text, text


def test_extract_unwritable_stats_only_warns(scenario, tmp_path):
    kernel = next(p.parent for p in sorted(scenario(2, "lock-remote", 11).rglob("metadata")))
    proc = _extract(kernel, f'stats="{tmp_path / "missing" / "s.json"}"')
    assert f'parameter `stats`: cannot write "{tmp_path / "missing" / "s.json"}" (No such file or directory)' \
        in proc.stderr


def test_extract_stats_on_a_full_disk_only_warns(scenario):
    """A stats file whose close fails (/dev/full: the write is buffered, the close gets ENOSPC) is warned about
    once and closed once (it was closed a second time before 2026-12-03)."""
    kernel = next(p.parent for p in sorted(scenario(2, "lock-remote", 11).rglob("metadata")))
    proc = _extract(kernel, 'stats="/dev/full"')
    assert proc.stderr.count('parameter `stats`: cannot write "/dev/full" (No space left on device)') == 1, \
        proc.stderr


# ---- real kernels: two QEMU guests recorded with lttng-modules (tests/fixtures/real-kernel) ----

REAL_DIR = REPORT_SCRIPT.parent.parent / "tests" / "fixtures" / "real-kernel"
REAL_TWO = sorted(p.name[:-len(".tar.xz")] for p in REAL_DIR.glob("two-*.tar.xz"))


@pytest.mark.parametrize("name", REAL_TWO)
def test_real_two_guest_recordings(tmp_path, name):
    """Real spans, real TCP between two real kernels (retransmissions and delays under netem): the per-host mode
    gives the single graph's report, messages and sync fit (the fit's pairs matched in the same order)."""
    import tarfile
    with tarfile.open(REAL_DIR / f"{name}.tar.xz") as tar:
        tar.extractall(tmp_path, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(tmp_path)
    guests = sorted(p for p in (tmp_path / name).iterdir() if p.is_dir() and p.name.startswith("guest"))
    single = report("--sync", "--single-graph", "-o", tmp_path / "single", *guests)
    per_host = report("--sync", "--jobs", "2", "--work-dir", tmp_path / "w", "-o", tmp_path / "jobs", *guests)
    same_files(tmp_path / "single", tmp_path / "jobs")
    assert single.stderr == per_host.stderr
    argv = shlex.split(report("--sync", "--single-graph", "--dry-run", *guests).stdout)
    cut = argv.index("--component=sync:filter.deepspan.sync")
    run_babeltrace2(*argv[2:cut + 1], f'--params=report="{tmp_path / "two-pass.json"}"',
                    "--component=sink:sink.utils.dummy", "--connect=sync:sink")
    fit = json.loads((tmp_path / "w" / "sync.json").read_text())
    two_pass = json.loads((tmp_path / "two-pass.json").read_text())
    assert_fit_is_pass_one(fit, two_pass)
