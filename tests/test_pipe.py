# SPDX-License-Identifier: MIT
"""The trace pipe (doc/scale.md, "Trace pipe"): sink.deepspan.pipe writes what span-attrib emits and
source.deepspan.pipe emits it again, in another process: `sink.text.details` of the two is byte-identical
(classes, clocks, environment, every payload) for every output form of span-attrib (packed and field chains,
layers with deepspan:disk events, host context, no chains), through a file and through a FIFO with both
processes running at once; the diff report behind a FIFO is the one graph's; deepspan-report --sink-process own
gives the same reports as `same`; a pipe cut short or corrupt, a bad parameter, an input the pipe does not carry
and a partner process that fails are each a clear error, never a hang or a partial report."""
import os
import random
import shutil
import subprocess
import time

import pytest

from conftest import DIFF_OUTPUTS, PLUGIN_DIR, REPORT_SCRIPT, make_scenario_trace, run_babeltrace2
from scale_support import report, same_files, scenario_maker


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    return scenario_maker(tmp_path_factory, "pipe")


def q(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def sources(trace):
    """Every CTF trace under `trace` straight into span-attrib, as deepspan-report connects them."""
    args = []
    for k, d in enumerate(sorted(p.parent for p in trace.rglob("metadata"))):
        args += [f"--component=s{k}:source.ctf.fs", f"--params=inputs=[{q(d)}]", f"--connect=s{k}:attrib"]
    return args


def analysis(trace, attrib_params, sink):
    params = "pass-through=false" + ("," + attrib_params if attrib_params else "")
    return ["run", *sources(trace), "--component=attrib:filter.deepspan.span-attrib", f"--params={params}",
            "--connect=attrib:sink", *sink]


def pipe_sink(path):
    return ["--component=sink:sink.deepspan.pipe", f"--params=path={q(path)}"]


def from_pipe(path, sink):
    return ["run", "--component=pipe:source.deepspan.pipe", f"--params=path={q(path)}", *sink, "--connect=pipe:sink"]


DETAILS = ["--component=sink:sink.text.details"]

FORMS = [
    ("lock-remote", 2, ""),
    ("lock-remote", 3, 'chain-encoding="fields"'),
    ("disk-contention", 2, "layers=true"),
    ("lock-hog", 2, "host-context=true"),
    ("lock-remote", 2, "follow-wakeups=false"),
]


@pytest.mark.parametrize("cause, hosts, params", FORMS)
def test_details_through_a_file_are_identical(scenario, tmp_path, cause, hosts, params):
    trace = scenario(hosts, cause, 5)
    direct = run_babeltrace2(*analysis(trace, params, DETAILS)).stdout
    run_babeltrace2(*analysis(trace, params, pipe_sink(tmp_path / "spans.pipe")))
    piped = run_babeltrace2(*from_pipe(tmp_path / "spans.pipe", DETAILS)).stdout
    assert "deepspan:span" in direct and direct.count("\n") > 1000
    assert piped == direct


def start(args):
    return subprocess.Popen(["babeltrace2", f"--plugin-path={PLUGIN_DIR}", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_fifo_with_both_processes_at_once_gives_the_one_graph_report(scenario, tmp_path):
    trace = scenario(3, "lock-remote", 5)
    run_babeltrace2(*analysis(trace, "", ["--component=sink:sink.deepspan.diff",
                                          f"--params=output-dir={q(tmp_path / 'one')}"]))
    fifo = tmp_path / "spans.fifo"
    os.mkfifo(fifo)
    writer = start(analysis(trace, "", pipe_sink(fifo)))
    reader = start(from_pipe(fifo, ["--component=sink:sink.deepspan.diff", f"--params=output-dir={q(tmp_path / 'two')}"]))
    out, err = reader.communicate(timeout=300)
    assert reader.returncode == 0, err[-3000:]
    assert writer.wait(timeout=60) == 0, writer.stderr.read()[-3000:]
    same_files(tmp_path / "one", tmp_path / "two")


def test_real_trace_through_the_pipe(shared_traces, tmp_path):
    """A real LTTng kernel and UST recording (cat-kern-ust) through span-attrib and the pipe."""
    trace = shared_traces / "cat-kern-ust"
    direct = run_babeltrace2(*analysis(trace, "", DETAILS)).stdout
    run_babeltrace2(*analysis(trace, "", pipe_sink(tmp_path / "p")))
    assert run_babeltrace2(*from_pipe(tmp_path / "p", DETAILS)).stdout == direct


@pytest.mark.parametrize("extra", [[], ["--metrics", "culprit"]])
def test_report_sink_in_its_own_process_is_identical(scenario, tmp_path, extra):
    trace = scenario(3, "lock-remote", 5)
    out = [] if extra else ["-o"]
    same = report("--sync", "--jobs", "2", "--sink-process", "same", "--work-dir", tmp_path / "ws", *extra,
                  *(out + [tmp_path / "same"] if out else []), trace)
    own = report("--sync", "--jobs", "2", "--sink-process", "own", "--work-dir", tmp_path / "wo", *extra,
                 *(out + [tmp_path / "own"] if out else []), trace)
    assert own.stdout.replace(str(tmp_path / "own"), "OUT") == same.stdout.replace(str(tmp_path / "same"), "OUT")
    assert own.stderr == same.stderr
    if not extra:
        same_files(tmp_path / "same", tmp_path / "own")
    steps = (tmp_path / "wo" / "steps.json").read_text()
    assert '"sink": "own process"' in steps and '"sink"' not in (tmp_path / "ws" / "steps.json").read_text()
    assert not (tmp_path / "wo" / "spans.pipe").exists()
    # auto: its own process with --jobs 2, one process with --jobs 1
    report("--sync", "--jobs", "1", "--work-dir", tmp_path / "w1", *extra, *(out + [tmp_path / "j1"] if out else []),
           trace)
    assert '"sink"' not in (tmp_path / "w1" / "steps.json").read_text()


def test_dry_run_shows_the_two_processes(scenario):
    proc = report("--sync", "--jobs", "2", "--dry-run", scenario(2, "lock-remote", 5))
    assert "sink.deepspan.pipe" in proc.stderr and "source.deepspan.pipe" in proc.stderr
    assert "sink.deepspan.pipe" not in proc.stdout


def test_failing_sink_process_stops_the_analysis(scenario, tmp_path):
    """The sink fails at once (its output directory is a file): the run ends with its error, no hang."""
    (tmp_path / "file").write_text("x")
    began = time.monotonic()
    proc = report("--sync", "--jobs", "2", "--sink-process", "own", "-o", tmp_path / "file" / "out",
                  scenario(2, "lock-remote", 5), check=False, timeout=120)
    assert proc.returncode != 0 and time.monotonic() - began < 60
    assert "output" in proc.stderr.lower()
    assert not list(tmp_path.glob("**/*.pipe"))


def test_failing_analysis_process_stops_the_sink(scenario, tmp_path):
    """span-attrib refuses a parameter: its error, and the sink waiting on the FIFO is stopped."""
    proc = report("--sync", "--jobs", "2", "--sink-process", "own", "-p", 'mode="nonsense"', "-o", tmp_path / "r",
                  scenario(2, "lock-remote", 5), check=False, timeout=120)
    assert proc.returncode != 0 and "mode" in proc.stderr
    trace = scenario(2, "lock-remote", 5)
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    reader = start(from_pipe(fifo, DETAILS))
    writer = start(analysis(trace, "no-such-parameter=1", pipe_sink(fifo)))
    assert writer.wait(timeout=60) != 0
    reader.kill()  # what deepspan-report does: the reader would wait for a writer forever
    reader.wait(timeout=60)


@pytest.fixture(scope="module")
def pipe_file(scenario, tmp_path_factory):
    path = tmp_path_factory.mktemp("pipefile") / "spans.pipe"
    run_babeltrace2(*analysis(scenario(2, "lock-remote", 5), "layers=true", pipe_sink(path)))
    return path


def read_back(path):
    return run_babeltrace2(*from_pipe(path, ["--component=sink:sink.utils.dummy"]), check=False, timeout=120)


@pytest.mark.parametrize("keep", [0, 5, 8, 9, 40, 200, 5000, -30, -1])
def test_pipe_cut_short_names_the_offset(pipe_file, tmp_path, keep):
    data = pipe_file.read_bytes()
    cut = tmp_path / "cut.pipe"
    cut.write_bytes(data[:keep] if keep >= 0 else data[:len(data) + keep])
    proc = read_back(cut)
    assert proc.returncode != 0
    assert "source.deepspan.pipe" in proc.stderr and str(cut) in proc.stderr
    assert ("cut short" in proc.stderr or "not a trace pipe" in proc.stderr)
    assert "at byte" in proc.stderr


def test_trailing_bytes_and_bad_magic(pipe_file, tmp_path):
    data = pipe_file.read_bytes()
    (tmp_path / "t.pipe").write_bytes(data + b"Z")
    assert "bytes after the end frame" in read_back(tmp_path / "t.pipe").stderr
    (tmp_path / "m.pipe").write_bytes(b"DSPAIRS1" + data[8:])
    assert "not a trace pipe" in read_back(tmp_path / "m.pipe").stderr
    assert "cannot open it" in read_back(tmp_path / "missing.pipe").stderr


def test_seeded_corruptions_fail_cleanly(pipe_file, tmp_path):
    """Bytes changed at random: the reader either reads a pipe (the change landed in a value) or fails naming
    the offset; it never crashes."""
    data = bytearray(pipe_file.read_bytes())
    rng = random.Random(20261207)
    failed = 0
    for round_ in range(40):
        bad = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            bad[rng.randrange(8, len(bad))] = rng.randrange(256)
        path = tmp_path / f"c{round_}.pipe"
        path.write_bytes(bytes(bad))
        proc = read_back(path)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        if proc.returncode:
            failed += 1
            assert "source.deepspan.pipe" in proc.stderr and "at byte" in proc.stderr, proc.stderr[-2000:]
    assert failed > 0


@pytest.mark.parametrize("params, text", [
    ("", "parameter `path` is required"),
    ('path=""', "parameter `path` is required"),
    ("path=3", "path"),
    ('path="x",speed=2', "speed"),
])
def test_parameter_errors(scenario, params, text):
    for cls, args in (("sink.deepspan.pipe", analysis(scenario(2, "lock-remote", 5), "", [
            "--component=sink:sink.deepspan.pipe", *([f"--params={params}"] if params else [])])),
            ("source.deepspan.pipe", ["run", "--component=pipe:source.deepspan.pipe",
                                      *([f"--params={params}"] if params else []),
                                      "--component=sink:sink.utils.dummy", "--connect=pipe:sink"])):
        proc = run_babeltrace2(*args, check=False)
        assert proc.returncode != 0 and text in proc.stderr and cls in proc.stderr


def test_unwritable_path_and_full_disk(scenario, tmp_path):
    trace = scenario(2, "lock-remote", 5)
    proc = run_babeltrace2(*analysis(trace, "", pipe_sink(tmp_path / "no" / "dir" / "p")), check=False)
    assert proc.returncode != 0 and "cannot open" in proc.stderr and "for writing" in proc.stderr
    proc = run_babeltrace2(*analysis(trace, "", pipe_sink("/dev/full")), check=False)
    assert proc.returncode != 0 and "cannot write `/dev/full`" in proc.stderr


def test_end_frame_apart_is_the_rest_of_the_pipe(scenario, tmp_path):
    """`end-path`: the pipe in `path` without its end frame (the reader waits for it), the end frame in
    `end-path`; the two put together are the pipe written whole, byte for byte (deepspan-report's streamed
    merge appends it)."""
    trace = scenario(2, "lock-remote", 5)
    run_babeltrace2(*analysis(trace, "", pipe_sink(tmp_path / "whole")))
    run_babeltrace2(*analysis(trace, "", ["--component=sink:sink.deepspan.pipe",
                                          f"--params=path={q(tmp_path / 'body')},end-path={q(tmp_path / 'end')}"]))
    whole, body, end = ((tmp_path / n).read_bytes() for n in ("whole", "body", "end"))
    assert body + end == whole and end[:1] == b"Z" and len(end) <= 11
    proc = run_babeltrace2(*from_pipe(tmp_path / "body", DETAILS), check=False)
    assert proc.returncode != 0 and "cut short" in proc.stderr
    for params, text in ((f"path={q(tmp_path / 'x')},end-path=\"\"", "parameter `end-path` is ``: it must name "
                          "another file than `path`"),
                         (f"path={q(tmp_path / 'x')},end-path={q(tmp_path / 'x')}", "it must name another file"),
                         (f"path={q(tmp_path / 'x')},end-path=4", "end-path")):
        proc = run_babeltrace2(*analysis(trace, "", ["--component=sink:sink.deepspan.pipe", f"--params={params}"]),
                               check=False)
        assert proc.returncode != 0 and text in " ".join(proc.stderr.split()), proc.stderr[-2000:]
    proc = run_babeltrace2(*analysis(trace, "", ["--component=sink:sink.deepspan.pipe",
                                                 f"--params=path={q(tmp_path / 'y')},end-path=\"/dev/full\""]),
                           check=False)
    assert proc.returncode != 0 and "cannot write" in proc.stderr and "/dev/full" in proc.stderr
    proc = run_babeltrace2(*analysis(trace, "", ["--component=sink:sink.deepspan.pipe",
                                                 f"--params=path={q(tmp_path / 'z')},"
                                                 f"end-path={q(tmp_path / 'no' / 'dir' / 'end')}"]), check=False)
    assert proc.returncode != 0 and "cannot write the end frame into" in " ".join(proc.stderr.split())


def test_packets_are_refused_naming_what_to_connect(scenario, tmp_path):
    trace = scenario(2, "lock-remote", 5)
    kernel = sorted(p.parent for p in trace.rglob("metadata"))[0]
    proc = run_babeltrace2("run", "--component=s:source.ctf.fs", f"--params=inputs=[{q(kernel)}]",
                           "--component=mux:filter.utils.muxer", *pipe_sink(tmp_path / "p"), "--connect=s:mux",
                           "--connect=mux:sink", check=False)
    assert proc.returncode != 0
    assert "does not carry" in proc.stderr and "pass-through=false" in proc.stderr


def test_valgrind_on_both_ends(scenario, tmp_path):
    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed")
    trace = make_scenario_trace(tmp_path / "t", requests=20, hosts=2, seed=3, cause="disk-contention")
    memcheck = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q",
                "babeltrace2", f"--plugin-path={PLUGIN_DIR}"]
    proc = subprocess.run([*memcheck, *analysis(trace, "layers=true", pipe_sink(tmp_path / "p"))],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-6000:]
    proc = subprocess.run([*memcheck, *from_pipe(tmp_path / "p", ["--component=sink:sink.deepspan.diff",
                                                                  f"--params=output-dir={q(tmp_path / 'r')}"])],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-6000:]
    data = (tmp_path / "p").read_bytes()
    (tmp_path / "cut").write_bytes(data[:len(data) // 2])
    proc = subprocess.run([*memcheck, *from_pipe(tmp_path / "cut", ["--component=sink:sink.utils.dummy"])],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1 and "cut short" in proc.stderr, proc.stderr[-6000:]


def test_sink_process_errors(tmp_path):
    for args, text in [(["--sync", "--sink-process", "fast"], "--sink-process: expected auto, own or same, got 'fast'"),
                       (["--sink-process=sometimes"], "--sink-process: expected auto, own or same, got 'sometimes'")]:
        proc = report(*args, tmp_path, check=False)
        assert proc.returncode == 2 and text in proc.stderr, proc.stderr


@pytest.mark.parametrize("extra", [[], ["--metrics", "culprit"], ["--sync", "--single-graph"]])
def test_one_graph_without_the_clock_estimate_runs_its_sink_apart(scenario, tmp_path, extra):
    """Without --sync (and with --single-graph) the one graph also runs its sink in a second process with --jobs 2
    (auto) or --sink-process own: the same report, text and messages as one process; the FIFO goes with the
    temporary directory, or from --work-dir."""
    trace = scenario(2, "lock-remote", 5)
    runs = {}
    for how, args in [("same", ["--sink-process", "same"]), ("own", ["--jobs", "2"]),
                      ("j1", ["--jobs", "1"]), ("wd", ["--sink-process", "own", "--work-dir", tmp_path / "wd-work"])]:
        out = [] if "--metrics" in extra else ["-o", tmp_path / how]
        proc = report(*extra, *args, *out, trace)
        runs[how] = (proc.stdout.replace(str(tmp_path / how), "OUT"), proc.stderr)
        if out:
            assert (tmp_path / how).is_dir()
            if how != "same":
                same_files(tmp_path / "same", tmp_path / how)
    assert runs["own"] == runs["same"] == runs["j1"] == runs["wd"]
    assert (tmp_path / "wd-work").is_dir() and not list((tmp_path / "wd-work").glob("*.pipe"))
    proc = report(*extra, "--jobs", "2", "--dry-run", trace)
    assert "sink.deepspan.pipe" in proc.stderr and "source.deepspan.pipe" in proc.stderr
    assert "sink.deepspan.pipe" not in proc.stdout and proc.stdout.startswith("babeltrace2 ")
    assert "sink.deepspan.pipe" not in report(*extra, "--jobs", "1", "--dry-run", trace).stderr


def test_failing_sink_apart_without_sync(scenario, tmp_path):
    """Without --sync, a sink that fails at once (its output directory is a file) ends the run with its error."""
    (tmp_path / "file").write_text("x")
    proc = report("--jobs", "2", "-o", tmp_path / "file" / "out", scenario(2, "lock-remote", 5), check=False,
                  timeout=120)
    assert proc.returncode != 0 and "output" in proc.stderr.lower()


def test_sink_apart_without_a_temporary_directory(scenario, tmp_path):
    """Without --sync and --work-dir, the FIFO goes in a new directory under $TMPDIR, removed after the run; when it
    cannot be made there, a line says so and the sink runs in the analysis's process: the same report."""
    trace = scenario(2, "lock-remote", 5)
    temp = tmp_path / "tmp"
    temp.mkdir()
    runs = {}
    for how, tmpdir in (("made", temp), ("missing", tmp_path / "missing")):
        proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", "--jobs", "2", "-o",
                               str(tmp_path / how), str(trace)], capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, TMPDIR=str(tmpdir)))
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[how] = proc.stderr
    assert not list(temp.iterdir())
    assert "cannot make a temporary directory for the FIFO" not in runs["made"]
    assert ("cannot make a temporary directory for the FIFO" in runs["missing"] and
            "the sink runs in the analysis's process" in runs["missing"])
    same_files(tmp_path / "made", tmp_path / "missing")

def test_no_spans_says_the_same_with_the_sink_apart(scenario, tmp_path):
    """Kernel traces only (no span provider): the diff sink's error names span-attrib upstream in both modes,
    also when span-attrib runs in the other process (source.deepspan.pipe counts as it)."""
    trace = scenario(2, "lock-remote", 5)
    kernel_only = tmp_path / "kernel-only"
    for k, d in enumerate(sorted(p.parent for p in trace.rglob("metadata")
                                 if p.parent.name == "kernel")):
        shutil.copytree(d, kernel_only / f"h{k}" / "kernel")
    texts = []
    for how in ("same", "own"):
        proc = report("--sync", "--jobs", "2", "--analysis", "one-graph", "--sink-process", how, "-o",
                      tmp_path / how, kernel_only, check=False)
        assert proc.returncode != 0
        texts.append(" ".join(proc.stderr.split()))
    for text in texts:
        assert "the input has no spans: filter.deepspan.span-attrib (upstream of this sink) found no span" in text


def test_work_dir_without_fifos_runs_one_process(scenario, tmp_path):
    """The FIFO cannot be made (its name is taken by a directory that cannot be removed): said, and the sink
    runs in the analysis's process with the same report."""
    trace = scenario(2, "lock-remote", 5)
    work = tmp_path / "w"
    (work / "spans.pipe" / "occupied").mkdir(parents=True)
    proc = report("--sync", "--jobs", "2", "--sink-process", "own", "--work-dir", work, "-o", tmp_path / "r", trace)
    assert "cannot make the FIFO" in proc.stderr and "the sink runs in the analysis's process" in proc.stderr
    assert '"sink"' not in (work / "steps.json").read_text()
    report("--sync", "--jobs", "2", "--sink-process", "same", "-o", tmp_path / "same", trace)
    same_files(tmp_path / "r", tmp_path / "same")
