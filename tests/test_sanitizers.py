# SPDX-License-Identifier: MIT
"""The ASan+UBSan build: its unit programs and real graphs, with the instrumented plugin preloaded into babeltrace2."""
import os
import pathlib
import re
import subprocess

import pytest

from conftest import ASAN_BUILD_DIR

pytestmark = pytest.mark.skipif(not ASAN_BUILD_DIR, reason="DEEPSPAN_ASAN_BUILD_DIR not set (scripts/dev test sets it)")


def asan_env():
    """Environment that loads the ASan runtime first, so an instrumented plugin works in babeltrace2/python."""
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    libubsan = subprocess.run(["gcc", "-print-file-name=libubsan.so"], capture_output=True, text=True).stdout.strip()
    env = dict(os.environ)
    env["LD_PRELOAD"] = f"{libasan}:{libubsan}"
    # babeltrace2 and glib keep global allocations at exit: leaks are not ours to judge there.
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0:exitcode=86:verify_asan_link_order=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:exitcode=87"
    return env


def asan_unit_programs():
    if not ASAN_BUILD_DIR:
        return []
    unit_dir = pathlib.Path(ASAN_BUILD_DIR) / "tests" / "unit"
    return sorted(p for p in unit_dir.glob("test_*") if p.is_file() and p.suffix == "" and os.access(p, os.X_OK))


@pytest.mark.parametrize("program", asan_unit_programs(), ids=lambda p: p.name)
def test_asan_unit_program(program):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:exitcode=86", UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87")
    proc = subprocess.run([str(program)], capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, f"{program.name} under ASan/UBSan failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
    assert re.search(r"^1\.\.[1-9]", proc.stdout, re.M)


def asan_graph(tmp_path, *args):
    """Runs babeltrace2 with the ASan/UBSan plugin; fails on any sanitizer report or non-zero exit."""
    plugin_dir = pathlib.Path(ASAN_BUILD_DIR) / "plugin-dir"
    cmd = ["babeltrace2", f"--plugin-path={plugin_dir}", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=asan_env(), cwd=tmp_path)
    report = re.search(r"(ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer)", proc.stderr)
    assert proc.returncode == 0 and not report, (
        f"{' '.join(cmd)}\nexit {proc.returncode}\n{proc.stderr[-8000:]}")
    return proc


SCENARIOS = {
    "hotrod-3-hosts": 'requests=150,seed=11',
    "lock-6-hosts-half-slow": 'cause="lock",slow-ratio=0.5,requests=150,hosts=6,clock="none",seed=4',
    "cpu-jaeger": 'cause="cpu",span-schema="jaeger_ust",requests=120,seed=5',
    "disk-2-hosts": 'cause="disk",requests=120,hosts=2,seed=6',
    "irq-5-hosts": 'cause="irq",requests=120,hosts=5,seed=8',
}


@pytest.mark.parametrize("params", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_asan_scenario_sync_attrib_diff(tmp_path, params):
    asan_graph(tmp_path, "-c", "source.deepspan.scenario", "-p", params,
               "-c", "filter.deepspan.sync", "-c", "filter.deepspan.nodejs-ctx",
               "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
               "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "report"}"')


def test_asan_metrics_every_table(tmp_path):
    for by in ("operation", "request", "syscall", "thread"):
        asan_graph(tmp_path, "-c", "source.deepspan.scenario", "-p", "requests=80,seed=2",
                   "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                   "-c", "sink.deepspan.metrics", "-p", f'by="{by}",format="json",output="{tmp_path / by}.json"')


def test_asan_streaming_many_batches(tmp_path):
    """Enough spans (about 37,000) for several batches of the request stream: carried open requests,
    reused store memory, late spans (a tiny grace), the spill file read back, chunked durations."""
    scenario = 'requests=1600,seed=11,cause="lock",slow-ratio=0.05'
    for grace in ("1s", "10us"):
        asan_graph(tmp_path, "-c", "source.deepspan.scenario", "-p", scenario,
                   "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                   "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / grace}",grace="{grace}"')
    for by in ("operation", "request"):
        asan_graph(tmp_path, "-c", "source.deepspan.scenario", "-p", scenario,
                   "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                   "-c", "sink.deepspan.metrics", "-p", f'by="{by}",output="{tmp_path / by}.txt",grace="10us"')


@pytest.mark.parametrize("trace", ["cat-kern-ust", "multi-domains"])
def test_asan_real_traces(tmp_path, shared_traces, trace):
    asan_graph(tmp_path, shared_traces / trace, "-c", "filter.deepspan.sync", "-c", "filter.deepspan.nodejs-ctx",
               "-c", "filter.deepspan.span-attrib", "-c", "sink.utils.dummy")


def test_asan_real_two_hosts_run_mode(tmp_path, shared_traces):
    sync = shared_traces / "synctraces"
    asan_graph(tmp_path, "run",
               "--component=src:source.ctf.fs", f"--params=inputs=[\"{sync / 'scp_src'}\"]",
               "--component=dst:source.ctf.fs", f"--params=inputs=[\"{sync / 'scp_dest'}\"]",
               "--component=sync:filter.deepspan.sync",
               "--component=attrib:filter.deepspan.span-attrib",
               "--component=sink:sink.utils.dummy",
               "--connect=src:sync", "--connect=dst:sync", "--connect=sync:attrib", "--connect=attrib:sink")


def test_asan_real_two_hosts_clock_formula(tmp_path, shared_traces):
    """span-attrib's clock-formula (its merge on sync's code, messages held by the reorder buffer) on the real
    two-host traces: the fit written by sync's two passes, then applied by span-attrib without sync."""
    sync = shared_traces / "synctraces"
    sources = ["--component=src:source.ctf.fs", f"--params=inputs=[\"{sync / 'scp_src'}\"]",
               "--component=dst:source.ctf.fs", f"--params=inputs=[\"{sync / 'scp_dest'}\"]"]
    fit = tmp_path / "sync.json"
    asan_graph(tmp_path, "run", *sources, "--component=sync:filter.deepspan.sync", f'--params=report="{fit}"',
               "--component=sink:sink.utils.dummy", "--connect=src:sync", "--connect=dst:sync", "--connect=sync:sink")
    asan_graph(tmp_path, "run", *sources, "--component=attrib:filter.deepspan.span-attrib",
               f'--params=pass-through=false,clock-formula="{fit}"', "--component=sink:sink.utils.dummy",
               "--connect=src:attrib", "--connect=dst:attrib", "--connect=attrib:sink")


def test_asan_pair_records_and_clock_fit(tmp_path, shared_traces):
    """The real two-host traces through filter.deepspan.sync-extract `records=` and source.deepspan.clock-fit
    (doc/scale.md, "Pair records"), then a cut records file refused: no sanitizer report either way."""
    sync = shared_traces / "synctraces"
    records = []
    for name in ("scp_src", "scp_dest"):
        records.append(tmp_path / f"{name}.bin")
        asan_graph(tmp_path, "run", "--component=src:source.ctf.fs", f"--params=inputs=[\"{sync / name}\"]",
                   "--component=x:filter.deepspan.sync-extract", f"--params=records=\"{records[-1]}\"",
                   "--component=sink:sink.utils.dummy", "--connect=src:x", "--connect=x:sink")
    files = ",".join(f'"{r}"' for r in records)
    def fit(params):  # --params applies to the component named just before it
        return ["--component=sync:source.deepspan.clock-fit", f"--params={params}",
                "--component=sink:sink.utils.dummy", "--connect=sync:sink"]
    asan_graph(tmp_path, "run", *fit(f"records=[{files}],report=\"{tmp_path / 'fit.json'}\""))
    assert '"tcp": ' in (tmp_path / "fit.json").read_text()
    cut = tmp_path / "cut.bin"
    cut.write_bytes(records[1].read_bytes()[:-7])
    plugin_dir = pathlib.Path(ASAN_BUILD_DIR) / "plugin-dir"
    proc = subprocess.run(["babeltrace2", f"--plugin-path={plugin_dir}", "run",
                           *fit(f"records=[\"{records[0]}\",\"{cut}\"],report=\"{tmp_path / 'no.json'}\"")],
                          capture_output=True, text=True, timeout=900, env=asan_env(), cwd=tmp_path)
    assert proc.returncode == 1 and "is not a whole pair-records file" in " ".join(proc.stderr.split())
    assert not re.search(r"(ERROR: AddressSanitizer|runtime error:)", proc.stderr), proc.stderr[-8000:]


def test_asan_trace_pipe(tmp_path):
    """A scenario's spans (layers: deepspan:disk events too) through sink.deepspan.pipe and source.deepspan.pipe
    into the diff sink (doc/scale.md, "Trace pipe"), then a pipe cut short refused: no sanitizer report."""
    plugin_dir = pathlib.Path(ASAN_BUILD_DIR) / "plugin-dir"
    trace = tmp_path / "t"
    subprocess.run(["babeltrace2", f"--plugin-path={plugin_dir}", "-c", "source.deepspan.scenario", "-p",
                    'requests=40,hosts=2,seed=3,cause="disk-contention"', "-c", "sink.ctf.fs", "-p", f'path="{trace}"'],
                   check=True, capture_output=True, env=asan_env(), timeout=900)
    pipe = tmp_path / "spans.pipe"
    sources = []
    for k, d in enumerate(sorted(p.parent for p in trace.rglob("metadata"))):
        sources += [f"--component=s{k}:source.ctf.fs", f"--params=inputs=[\"{d}\"]", f"--connect=s{k}:attrib"]
    asan_graph(tmp_path, "run", *sources, "--component=attrib:filter.deepspan.span-attrib",
               "--params=pass-through=false,layers=true", "--connect=attrib:sink",
               "--component=sink:sink.deepspan.pipe", f"--params=path=\"{pipe}\"")
    asan_graph(tmp_path, "run", "--component=p:source.deepspan.pipe", f"--params=path=\"{pipe}\"",
               "--component=sink:sink.deepspan.diff", f"--params=output-dir=\"{tmp_path / 'r'}\"", "--connect=p:sink")
    cut = tmp_path / "cut.pipe"
    cut.write_bytes(pipe.read_bytes()[:-3])
    proc = subprocess.run(["babeltrace2", f"--plugin-path={plugin_dir}", "run", "--component=p:source.deepspan.pipe",
                           f"--params=path=\"{cut}\"", "--component=sink:sink.utils.dummy", "--connect=p:sink"],
                          capture_output=True, text=True, timeout=900, env=asan_env(), cwd=tmp_path)
    assert proc.returncode == 1 and "cut short" in proc.stderr
    assert not re.search(r"(ERROR: AddressSanitizer|runtime error:)", proc.stderr), proc.stderr[-8000:]
    # the end frame apart (`end-path`, deepspan-report's streamed merge): the two files are the whole pipe
    asan_graph(tmp_path, "run", *sources, "--component=attrib:filter.deepspan.span-attrib",
               "--params=pass-through=false,layers=true", "--connect=attrib:sink",
               "--component=sink:sink.deepspan.pipe", f"--params=path=\"{tmp_path / 'body'}\",end-path=\"{tmp_path / 'end'}\"")
    assert (tmp_path / "body").read_bytes() + (tmp_path / "end").read_bytes() == pipe.read_bytes()
