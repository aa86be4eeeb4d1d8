# SPDX-License-Identifier: MIT
"""A short fuzzing run: each libFuzzer harness of fuzz/ for a few seconds with a fixed seed, the inputs that
crashed them before (fuzz/regressions/), and scripts/corrupt-corpus on 30 corrupt traces under
ASan+UBSan.  The long run is bench/fuzz-long (doc/testing.md, "Fuzzing")."""
import json
import os
import pathlib
import re
import subprocess

import pytest

from conftest import ASAN_BUILD_DIR, PLUGIN_DIR, SRC_DIR

FUZZ_BUILD_DIR = pathlib.Path(os.environ.get("DEEPSPAN_FUZZ_BUILD_DIR", SRC_DIR / "build-fuzz"))
CORPUS_DIR = SRC_DIR / "fuzz" / "corpus"
REPRODUCERS_DIR = SRC_DIR / "fuzz" / "regressions"
SECONDS_PER_HARNESS = int(os.environ.get("DEEPSPAN_FUZZ_SECONDS", "4"))
# (test id, harness, environment): fuzz_spans also runs with spans that keep the producer's contract.
HARNESSES = [
    ("fuzz_duration", "fuzz_duration", {}),
    ("fuzz_params", "fuzz_params", {}),
    ("fuzz_json", "fuzz_json", {}),
    ("fuzz_formula", "fuzz_formula", {}),
    ("fuzz_pair_records", "fuzz_pair_records", {}),
    ("fuzz_spans", "fuzz_spans", {}),
    ("fuzz_spans-contract", "fuzz_spans", {"DEEPSPAN_FUZZ_CONTRACT": "1"}),
    ("fuzz_pipe", "fuzz_pipe", {}),
]
# A harness reports a broken invariant on a line of its own starting with its name ("fuzz_duration: ...");
# libFuzzer's "/path/fuzz_duration: Running 1 inputs" line is not one.
FINDING_RE = re.compile(r"ERROR: libFuzzer|ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|"
                        r"^fuzz_\w+: ", re.MULTILINE)

_build_result = {}


def fuzz_build():
    """Builds the harnesses once per session (fuzz/build is incremental); skips when clang cannot."""
    if "proc" not in _build_result:
        _build_result["proc"] = subprocess.run([str(SRC_DIR / "fuzz" / "build"), str(FUZZ_BUILD_DIR)],
                                               capture_output=True, text=True, timeout=1800)
    proc = _build_result["proc"]
    if proc.returncode == 77:
        pytest.skip(f"fuzz harnesses not built: {proc.stderr.strip()}")
    assert proc.returncode == 0, f"fuzz/build failed:\n{proc.stderr[-6000:]}"
    return FUZZ_BUILD_DIR


def run_harness(harness, args, env_extra, timeout):
    env = dict(os.environ, **env_extra)
    env["ASAN_OPTIONS"] = "detect_leaks=0:allocator_may_return_null=1"
    env.pop("LD_PRELOAD", None)
    return subprocess.run([str(fuzz_build() / harness), *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.mark.parametrize("harness,env_extra", [(h, e) for _, h, e in HARNESSES],
                         ids=[i for i, _, _ in HARNESSES])
def test_fuzz_harness_short_run(tmp_path, harness, env_extra):
    """A few seconds from the committed seeds, seed 1: no crash, no sanitizer report, no broken invariant."""
    new_inputs = tmp_path / "corpus"
    new_inputs.mkdir()
    proc = run_harness(harness, ["-seed=1", f"-max_total_time={SECONDS_PER_HARNESS}", "-timeout=20",
                                 "-max_len=2048", "-rss_limit_mb=4096", "-print_final_stats=1",
                                 f"-artifact_prefix={tmp_path}/", str(new_inputs),
                                 str(CORPUS_DIR / harness)],
                       env_extra, timeout=SECONDS_PER_HARNESS + 120)
    execs = re.search(r"stat::number_of_executed_units:\s*(\d+)", proc.stderr)
    crash = sorted(tmp_path.glob("crash-*")) + sorted(tmp_path.glob("timeout-*")) + sorted(tmp_path.glob("oom-*"))
    assert proc.returncode == 0 and not crash and not FINDING_RE.search(proc.stderr), (
        f"{harness} found a defect (input kept in {crash[0] if crash else '-'}; reproduce with "
        f"`build-fuzz/{harness} FILE`):\n{proc.stderr[-5000:]}")
    # the run really ran: it executed at least the seeds
    assert execs and int(execs.group(1)) >= len(list((CORPUS_DIR / harness).iterdir()))


def reproducers():
    if not REPRODUCERS_DIR.is_dir():
        return []
    return sorted(p for p in REPRODUCERS_DIR.glob("*/*") if p.is_file() and p.name != "README.md")


@pytest.mark.parametrize("path", reproducers(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fuzz_reproducer(path):
    """Inputs that crashed a harness: each must now run clean (the fixes are in the parsers' and sinks' owners'
    branches; see fuzz/regressions/README.md)."""
    harness = path.parent.name
    env_extra = {"DEEPSPAN_FUZZ_CONTRACT": "1"} if harness.endswith("-contract") else {}
    proc = run_harness(harness.replace("-contract", ""), ["-runs=1", str(path)], env_extra, timeout=120)
    assert proc.returncode == 0 and not FINDING_RE.search(proc.stderr), (
        f"{path.relative_to(SRC_DIR)} still fails:\n{proc.stderr[-4000:]}")


@pytest.mark.skipif(not ASAN_BUILD_DIR, reason="DEEPSPAN_ASAN_BUILD_DIR not set (scripts/dev test sets it)")
def test_corrupt_corpus_short(tmp_path):
    """30 corrupt scenario and real traces (seed 1), one graph each in turn, the ASan+UBSan plugin: no deepspan
    crash, sanitizer report or hang; every input ran."""
    plugin_dir = pathlib.Path(ASAN_BUILD_DIR) / "plugin-dir"
    if not (plugin_dir / "babeltrace-plugin-deepspan.so").exists():
        pytest.skip(f"{plugin_dir} has no plugin: build {ASAN_BUILD_DIR} first")
    report = tmp_path / "report.json"
    cmd = [str(SRC_DIR / "scripts" / "corrupt-corpus"), "--count", "30", "--seed", "1",
           "--bases", "scenario-hotrod-2,scenario-jaeger-3,multi-domains", "--timeout", "10",
           "--plugin-dir", str(plugin_dir), "--base-plugin-dir", str(PLUGIN_DIR),
           "--work", str(tmp_path / "work"), "--report", str(report), "--findings", str(tmp_path / "findings")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert report.exists(), f"corrupt-corpus did not finish ({proc.returncode}):\n{proc.stderr[-4000:]}"
    summary = json.loads(report.read_text())["summary"]
    assert summary["inputs"] == 30 and summary["runs"] >= 30, summary
    deepspan = {k: v for k, v in summary["outcomes"].items() if "(deepspan)" in k}
    assert proc.returncode == 0 and not deepspan, (
        f"deepspan defects on corrupt traces: {deepspan}\n{proc.stdout[-4000:]}\n"
        f"(inputs kept in {tmp_path / 'findings'}: copy them before the temporary directory goes)")
    # a run of only clean errors would mean the corruption never reached deepspan's code
    assert summary["outcomes"].get("success", 0) > 0, summary


def test_corrupt_corpus_deterministic(tmp_path):
    """The same seed and index give the same corruption, even with the scenario base written again."""
    if not (PLUGIN_DIR / "babeltrace-plugin-deepspan.so").exists():
        pytest.skip("the plugin is not built")
    descriptions = []
    for attempt in range(2):
        # a work directory each: the scenario base is written again (with new random trace UUIDs)
        report = tmp_path / f"r{attempt}.json"
        subprocess.run([str(SRC_DIR / "scripts" / "corrupt-corpus"), "--count", "8", "--seed", "3",
                        "--bases", "scenario-hotrod-2", "--graphs", "span-attrib", "--no-sanitizer-env",
                        "--plugin-dir", str(PLUGIN_DIR), "--work", str(tmp_path / f"work{attempt}"),
                        "--report", str(report)], capture_output=True, text=True, timeout=600)
        runs = json.loads(report.read_text())["runs"]
        descriptions.append([{k: r.get(k) for k in ("input", "mutation", "file", "bits", "offset", "offsets",
                                                    "length", "fill")} for r in runs])
    assert len(descriptions[0]) == 8 and descriptions[0] == descriptions[1]


def test_corrupt_corpus_refuses_unknown_graph(tmp_path):
    if not (PLUGIN_DIR / "babeltrace-plugin-deepspan.so").exists():
        pytest.skip("the plugin is not built")
    proc = subprocess.run([str(SRC_DIR / "scripts" / "corrupt-corpus"), "--graphs", "sync-diff,nope",
                           "--plugin-dir", str(PLUGIN_DIR), "--no-sanitizer-env"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "unknown graph(s) nope; known: sync-diff, nodejs-metrics, span-attrib, sync-report" in proc.stderr


def corrupt_corpus_module():
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("corrupt_corpus", str(SRC_DIR / "scripts" / "corrupt-corpus"))
    spec = importlib.util.spec_from_loader("corrupt_corpus", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


ABORT_IN_API_CALL = """\
==42==ERROR: AddressSanitizer: ABRT on unknown address 0x00000000002a (pc 0x7f01 bp 0x7f02 sp 0x7f03 T0)
    #0 0x7f0000 in __pthread_kill_implementation nptl/pthread_kill.c:44
    #1 0x7f0001 in raise ../sysdeps/posix/raise.c:26
    #2 0x7f0002 in abort stdlib/abort.c:79
    #3 0x7f0003  (/lib/x86_64-linux-gnu/libbabeltrace2.so.0+0x1f2e3)
    #4 0x7f0004 in bt_clock_snapshot_get_ns_from_origin (/lib/x86_64-linux-gnu/libbabeltrace2.so.0+0x2a000)
    #5 0x7f0005 in sync_next ../plugins/sync-filter/sync-iter.c:300
    #6 0x7f0006  (/lib/x86_64-linux-gnu/libbabeltrace2.so.0+0x2b565)
"""
SEGV_IN_CTF = """\
==42==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x7f01 bp 0x7f02 sp 0x7f03 T0)
    #0 0x7f0000 in ctf_msg_iter_get_next_message (/usr/lib/x86_64-linux-gnu/babeltrace2/plugins/babeltrace-plugin-ctf.so+0x3a1b0)
    #1 0x7f0001  (/lib/x86_64-linux-gnu/libbabeltrace2.so.0+0x2b565)
    #2 0x7f0002 in sync_pass1 ../plugins/sync-filter/sync-pass1.c:120
"""
OVERFLOW_IN_SINK = """\
==42==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011 at pc 0x7f01 bp 0x7f02 sp 0x7f03
READ of size 1 at 0x602000000011 thread T0
    #0 0x7f0000 in __interceptor_strlen ../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:387
    #1 0x7f0001 in ds_strings_intern ../plugins/metrics-sink/strings.c:40
    #2 0x7f0002 in ds_span_reader_read ../plugins/span-consumer/span-reader.c:560
"""
UBSAN_IN_SINK = ("../plugins/diff-sink/metrics-build.c:259:43: runtime error: signed integer overflow: "
                 "7205759403792859392 + 4611686018427387903 cannot be represented in type 'long int'\n")


@pytest.mark.parametrize("stderr,owner,where", [
    (ABORT_IN_API_CALL, "deepspan", "ABRT in sync_next sync-iter.c:300"),
    (SEGV_IN_CTF, "babeltrace2", "SEGV in ctf_msg_iter_get_next_message"),
    (OVERFLOW_IN_SINK, "deepspan", "heap-buffer-overflow in ds_strings_intern strings.c:40"),
    (UBSAN_IN_SINK, "deepspan", "metrics-build.c:259: signed integer overflow"),
], ids=["abort-in-api-call", "segv-in-ctf", "overflow-in-sink", "ubsan-in-sink"])
def test_corrupt_corpus_attribution(stderr, owner, where):
    """Whose defect a report is: the first frame outside libc/the sanitizer; an abort inside babeltrace2
    belongs to the deepspan frame that called it."""
    cc = corrupt_corpus_module()
    got_owner, signature = cc.attribute(stderr)
    assert got_owner == owner and signature.startswith(where), (got_owner, signature)


def test_corrupt_corpus_outcomes():
    cc = corrupt_corpus_module()
    assert cc.classify(0, "", False) == "success"
    assert cc.classify(1, "ERROR:    [Babeltrace CLI] (babeltrace2.c:2480)\n  Graph failed\n", False) == "error"
    assert cc.classify(1, "", False) == "silent-error"
    assert cc.classify(-11, "", False) == "crash"
    assert cc.classify(86, ABORT_IN_API_CALL, False) == "crash"
    assert cc.classify(86, OVERFLOW_IN_SINK, False) == "sanitizer"
    assert cc.classify(87, UBSAN_IN_SINK, False) == "sanitizer"
    assert cc.classify(None, "", True) == "hang"


@pytest.mark.skipif(not ASAN_BUILD_DIR, reason="DEEPSPAN_ASAN_BUILD_DIR not set (scripts/dev test sets it)")
def test_corrupt_trace_sync_abort_reproducer(tmp_path):
    """Found by scripts/corrupt-corpus (seed 2, input 355, before UUID digits were excluded): one digit of the
    frontend UST metadata of a jaeger_ust scenario trace changed, `_duration` read as 61 bits, so later
    timestamps are garbage.  filter.deepspan.sync aborted: a failed clock-snapshot conversion of pass 1 was
    left on the thread and bt_message_iterator_can_seek_beginning() aborted (sync-iter.c:256).  babeltrace2
    alone reads the trace.  The fix is the sync engineer's; this is its regression test."""
    cc = corrupt_corpus_module()
    plugin_dir = pathlib.Path(ASAN_BUILD_DIR) / "plugin-dir"
    if not (plugin_dir / "babeltrace-plugin-deepspan.so").exists():
        pytest.skip(f"{plugin_dir} has no plugin: build {ASAN_BUILD_DIR} first")
    trace = tmp_path / "trace"
    proc = subprocess.run(["babeltrace2", f"--plugin-path={PLUGIN_DIR}", "-c", "source.deepspan.scenario",
                           "-p", cc.SCENARIO_BASES["scenario-jaeger-3"], "-c", "sink.ctf.fs", "-p", f'path="{trace}"'],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (metadata,) = [p for p in trace.rglob("metadata") if "frontend" in str(p) and "/ust/" in str(p)]
    text = metadata.read_text()
    needle = "integer { size = 64; align = 8; signed = true; } _duration;"
    assert needle in text
    metadata.write_text(text.replace(needle, needle.replace("64", "61")))
    assert subprocess.run(["babeltrace2", str(trace), "-c", "sink.utils.dummy"], capture_output=True,
                          timeout=600).returncode == 0
    out = tmp_path / "out"
    out.mkdir()
    cmd = ["babeltrace2", f"--plugin-path={plugin_dir}", str(trace), *cc.GRAPHS["sync-report"](out)]
    code, stderr, hung, _ = cc.run(cmd, cc.sanitizer_env(), 120, out)
    outcome = cc.classify(code, stderr, hung)
    assert outcome in ("success", "error"), f"{outcome}: {cc.attribute(stderr)}\n{stderr[-4000:]}"
