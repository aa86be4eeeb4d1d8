# SPDX-License-Identifier: MIT
"""Pair records (doc/scale.md, "Pair records"): filter.deepspan.sync-extract `records=` and
source.deepspan.clock-fit give, without decoding any pair trace, the report filter.deepspan.sync writes with
`report-only=true` on the pair traces, byte for byte (TCP, span and Node.js HTTP pairs, other parameters);
every broken records file, parameter or unwritable path is refused with a message naming it."""
import random
import shutil
import struct
import subprocess

import bt2
import pytest

from conftest import run_babeltrace2
from scale_support import scenario_maker
from test_sync_http import _VnodeSource

SCENARIOS = [(2, "lock-remote", 11), (3, "net-retransmit", 3), (5, "lock-remote", 7)]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    return scenario_maker(tmp_path_factory, "records")


def trace_dirs(trace):
    """The scenario's CTF traces in deepspan-report's order (host by host, kernel then UST)."""
    return sorted(p.parent for p in trace.rglob("metadata"))


def ctf_string(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def extract(trace_dir, sink_args, extra=""):
    """trace_dir -> filter.deepspan.sync-extract (with `extra` parameters) -> the sink of sink_args."""
    return run_babeltrace2("run", "--component=s:source.ctf.fs", f"--params=inputs=[{ctf_string(trace_dir)}]",
                           "--component=x:filter.deepspan.sync-extract", *([f"--params={extra}"] if extra else []),
                           *sink_args, "--connect=s:x", "--connect=x:w", check=False)


def write_records(trace, out):
    """One records file per trace of `trace`, in order; returns their paths."""
    paths = []
    for k, d in enumerate(trace_dirs(trace)):
        paths.append(out / f"pairs-{k}.bin")
        proc = extract(d, ["--component=w:sink.utils.dummy"], f"records={ctf_string(paths[-1])}")
        assert proc.returncode == 0, proc.stderr
    return paths


def clock_fit(paths, report, extra="", check=True):
    records = ",".join(ctf_string(p) for p in paths)
    return run_babeltrace2("run", "--component=sync:source.deepspan.clock-fit",
                           f"--params=records=[{records}],report={ctf_string(report)}" + (f",{extra}" if extra else ""),
                           "--component=k:sink.utils.dummy", "--connect=sync:k", check=check)


def sync_on_pair_traces(trace, out, report, extra=""):
    """The fit as deepspan-report made it before pair records: pair traces (sync-extract -> sink.ctf.fs), then
    filter.deepspan.sync report-only=true on them."""
    args = ["run"]
    for k, d in enumerate(trace_dirs(trace)):
        proc = extract(d, ["--component=w:sink.ctf.fs", f"--params=path={ctf_string(out / str(k))},quiet=true"])
        assert proc.returncode == 0, proc.stderr
        pair_trace = next(p.parent for p in (out / str(k)).rglob("metadata"))
        args += [f"--component=src{k}:source.ctf.fs", f"--params=inputs=[{ctf_string(pair_trace)}]",
                 f"--connect=src{k}:sync"]
    params = f"report={ctf_string(report)},report-only=true" + (f",{extra}" if extra else "")
    run_babeltrace2(*args, "--component=sync:filter.deepspan.sync", f"--params={params}",
                    "--component=k:sink.utils.dummy", "--connect=sync:k")


@pytest.mark.parametrize("hosts, cause, seed", SCENARIOS)
@pytest.mark.parametrize("extra", ["", 'match="tcp",pair-expiry="200ms"', 'match="spans",reference="{second}"'])
def test_clock_fit_is_sync_on_the_pair_traces(scenario, tmp_path, hosts, cause, seed, extra):
    trace = scenario(hosts, cause, seed)
    extra = extra.replace("{second}", sorted(p.name for p in trace.iterdir())[1])
    sync_on_pair_traces(trace, tmp_path / "pt", tmp_path / "from-pair-traces.json", extra)
    (tmp_path / "rec").mkdir()
    clock_fit(write_records(trace, tmp_path / "rec"), tmp_path / "from-records.json", extra)
    expected = (tmp_path / "from-pair-traces.json").read_bytes()
    assert b'"tcp": 0,' not in expected or "spans" in extra  # the pairs are there to be found
    assert (tmp_path / "from-records.json").read_bytes() == expected


def test_records_file_parses_as_documented(good_records):
    """The layout of doc/scale.md ("Pair records"): magic, clock items before the records that use them, every
    kind of record of a scenario's traces, the end item counting the items before it."""
    data = b"".join(p.read_bytes() for p in good_records[:1])
    assert data[:8] == b"DSPAIRS1"
    tags = [tag for tag, _ in items(data)]
    assert tags[0] == b"C" and tags[-1] == b"E" and {b"T", b"N"} <= set(tags)
    assert struct.unpack("<Q", data[-12:-4])[0] == len(tags) - 1
    spans = [tag for p in good_records for tag, _ in items(p.read_bytes()) if tag == b"S"]
    assert spans  # the UST traces' span starts and ends


def test_http_pairs_from_records(bt2_plugin, tmp_path):
    """Node.js HTTP pairs (a Python source of two hosts, test_sync_http.py): the same report both ways."""
    utils = bt2.find_plugin("utils")
    graph = bt2.Graph()
    src = graph.add_component(_VnodeSource, "src")
    x = graph.add_component(bt2_plugin.filter_component_classes["sync-extract"], "x",
                            params={"records": str(tmp_path / "http.bin")})
    sink = graph.add_component(utils.sink_component_classes["dummy"], "d")
    for i, name in enumerate(sorted(src.output_ports)):
        graph.connect_ports(src.output_ports[name], x.input_ports[f"in{i}"])
    graph.connect_ports(x.output_ports["out"], sink.input_ports["in"])
    graph.run()
    del graph
    graph = bt2.Graph()
    fit = graph.add_component(bt2_plugin.source_component_classes["clock-fit"], "sync",
                              params={"records": [str(tmp_path / "http.bin")], "report": str(tmp_path / "r.json"),
                                      "reference": "web"})
    graph.connect_ports(fit.output_ports["out"], graph.add_component(utils.sink_component_classes["dummy"],
                                                                     "d").input_ports["in"])
    graph.run()
    del graph
    graph = bt2.Graph()
    src = graph.add_component(_VnodeSource, "src")
    sync = graph.add_component(bt2_plugin.filter_component_classes["sync"], "sync",
                               params={"report": str(tmp_path / "s.json"), "report-only": True, "reference": "web"})
    for i, name in enumerate(sorted(src.output_ports)):
        graph.connect_ports(src.output_ports[name], sync.input_ports[f"in{i}"])
    graph.connect_ports(sync.output_ports["out"], graph.add_component(utils.sink_component_classes["dummy"],
                                                                      "d").input_ports["in"])
    graph.run()
    del graph
    assert b'"http": 120' in (tmp_path / "r.json").read_bytes()
    assert (tmp_path / "r.json").read_bytes() == (tmp_path / "s.json").read_bytes()


# ---- bad input ----

@pytest.fixture(scope="module")
def good_records(scenario, tmp_path_factory):
    """The records of a 2-host scenario and the report clock-fit makes of them."""
    out = tmp_path_factory.mktemp("good-records")
    paths = write_records(scenario(2, "lock-remote", 11), out)
    clock_fit(paths, out / "report.json")
    return paths


def test_extract_records_to_an_unwritable_path(scenario, tmp_path):
    d = trace_dirs(scenario(2, "lock-remote", 11))[0]
    proc = extract(d, ["--component=w:sink.utils.dummy"], f'records="{tmp_path}/missing/p.bin"')
    text = " ".join(proc.stderr.split())
    assert proc.returncode != 0
    assert (f'filter.deepspan.sync-extract: parameter `records`: cannot write "{tmp_path}/missing/p.bin" (No such '
            "file or directory); give a path in a writable directory") in text, text


def test_extract_records_on_a_full_disk(scenario):
    """/dev/full takes the buffered writes and fails them at the close: the step fails, it does not leave a
    partial file behind as if it were whole."""
    d = trace_dirs(scenario(2, "lock-remote", 11))[0]
    proc = extract(d, ["--component=w:sink.utils.dummy"], 'records="/dev/full"')
    text = " ".join(proc.stderr.split())
    assert proc.returncode != 0
    assert ('parameter `records`: cannot write "/dev/full" (No space left on device); the pair records are '
            "incomplete (is the disk full?)") in text, text


@pytest.mark.parametrize("params, text", [
    ('report="r.json"', "parameter `records`: expected a non-empty array of paths (strings) of files written by "
                        "filter.deepspan.sync-extract's `records`, got nothing"),
    ('records=[],report="r.json"', "parameter `records`: expected a non-empty array of paths"),
    ('records=["a.bin", 3],report="r.json"', "parameter `records`: expected a non-empty array of paths"),
    ('records="a.bin",report="r.json"', "parameter `records`: expected a non-empty array of paths"),
    ('records=["a.bin"]', "source.deepspan.clock-fit: parameter `report` is required"),
    ('records=["a.bin"],report="r.json",match="udp"', "source.deepspan.clock-fit: parameter `match`: expected an "
                                                      "array of `tcp`, `spans`, `http`"),
    ('records=["a.bin"],report="r.json",formula="f.json"', "source.deepspan.clock-fit: unknown parameter `formula`"),
])
def test_clock_fit_parameter_errors(params, text):
    proc = run_babeltrace2("run", "--component=sync:source.deepspan.clock-fit", f"--params={params}",
                           "--component=k:sink.utils.dummy", "--connect=sync:k", check=False)
    assert proc.returncode != 0 and text in " ".join(proc.stderr.split()), proc.stderr


FIXED_SIZES = {b"T": 16, b"N": 33, b"S": 54, b"H": 25, b"E": 12}


def items(data):
    """(tag, offset) of each item of a records file (plugins/common/pair-records.h)."""
    at = 8
    while at < len(data):
        tag = data[at:at + 1]
        yield tag, at
        if tag == b"C":
            flags = data[at + 5]
            end = at + 6 + (36 if flags & 1 else 0)
            for bit in (4, 8):
                if flags & bit:
                    end += 4 + struct.unpack("<I", data[end:end + 4])[0]
            at = end
        else:
            at += 1 + FIXED_SIZES[tag]


def _cut_end(data):
    return data[:-13]


def _count_off(data):
    return data[:-12] + struct.pack("<Q", struct.unpack("<Q", data[-12:-4])[0] + 1) + data[-4:]


def _unknown_item(data):
    return data[:8] + b"Z" + data[8:]


def _record_of_a_later_clock(data):
    """A 'T' record before any clock item names clock 0."""
    return data[:8] + b"T" + struct.pack("<IIq", 0, 0, 5) + data[8:]


def _bad_direction(data):
    """The first TCP record's direction (1 send, 2 receive) becomes 7."""
    i = next(at for tag, at in items(data) if tag == b"N")
    return data[:i + 17] + b"\x07" + data[i + 18:]


@pytest.mark.parametrize("corrupt, text", [
    (lambda d: b"", "is not a whole pair-records file: no DSPAIRS1 header at byte 0"),
    (lambda d: b"CTF metadata" + d, "is not a whole pair-records file: no DSPAIRS1 header at byte 0"),
    (_cut_end, "the file ends without its end item (the step that wrote it did not finish)"),
    (lambda d: d[:len(d) // 2], "is not a whole pair-records file: "),
    (_count_off, "its end item counts another number of items"),
    (lambda d: d + b"\x00", "bytes after its end item"),
    (_unknown_item, "an unknown item at byte 8"),
    (_record_of_a_later_clock, "a record of a clock not defined before it"),
    (_bad_direction, "a cut or malformed item"),
], ids=["empty", "not-records", "no-end", "cut", "count", "trailing", "unknown-item", "clock", "direction"])
def test_clock_fit_refuses_broken_records(good_records, tmp_path, corrupt, text):
    broken = tmp_path / "broken.bin"
    broken.write_bytes(corrupt(good_records[0].read_bytes()))
    proc = clock_fit([broken, *good_records[1:]], tmp_path / "report.json", check=False)
    stderr = " ".join(proc.stderr.split())
    assert proc.returncode != 0 and text in stderr and str(broken) in stderr, stderr
    assert "write it again with filter.deepspan.sync-extract's `records`" in stderr
    assert not (tmp_path / "report.json").exists()  # never a fit of part of the pairs


def test_clock_fit_missing_records_file(good_records, tmp_path):
    proc = clock_fit([tmp_path / "nowhere.bin", *good_records], tmp_path / "report.json", check=False)
    assert proc.returncode != 0
    assert f'cannot open "{tmp_path / "nowhere.bin"}" (No such file or directory)' in " ".join(proc.stderr.split())


def test_random_corruptions_fail_cleanly(good_records, tmp_path):
    """Seeded byte changes and cuts of a real records file: clock-fit either fits or says which file is broken,
    never crashes (the reader alone: fuzz/fuzz_pair_records.c)."""
    data = good_records[1].read_bytes()
    rng = random.Random(20261207)
    for i in range(40):
        changed = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            changed[rng.randrange(len(changed))] = rng.randrange(256)
        if i % 4 == 0:
            changed = changed[:rng.randrange(len(changed))]
        broken = tmp_path / f"c{i}.bin"
        broken.write_bytes(bytes(changed))
        proc = clock_fit([good_records[0], broken], tmp_path / f"r{i}.json", check=False)
        assert proc.returncode in (0, 1), f"corruption {i}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
        stderr = " ".join(proc.stderr.split())
        if proc.returncode:
            assert str(broken) in stderr and "parameter `records`" in stderr, stderr[-3000:]


def test_valgrind_on_records_and_the_clock_fit(scenario, tmp_path, plugin_dir):
    """Memcheck on both ends: sync-extract writing records of a UST trace, and the clock fit of two hosts."""
    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed")
    trace = scenario(2, "lock-remote", 11)
    paths = write_records(trace, tmp_path)
    memcheck = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q",
                "babeltrace2", f"--plugin-path={plugin_dir}", "run"]
    ust = trace_dirs(trace)[1]
    proc = subprocess.run([*memcheck, "--component=s:source.ctf.fs", f"--params=inputs=[{ctf_string(ust)}]",
                           "--component=x:filter.deepspan.sync-extract",
                           f"--params=records={ctf_string(tmp_path / 'ust.bin')}", "--component=w:sink.utils.dummy",
                           "--connect=s:x", "--connect=x:w"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-6000:]
    records = ",".join(ctf_string(p) for p in paths)
    proc = subprocess.run([*memcheck, "--component=sync:source.deepspan.clock-fit",
                           f"--params=records=[{records}],report={ctf_string(tmp_path / 'fit.json')}",
                           "--component=k:sink.utils.dummy", "--connect=sync:k"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-6000:]
    assert '"tcp": ' in (tmp_path / "fit.json").read_text()
