# SPDX-License-Identifier: MIT
"""Corrupt traces whose times overflow int64 ns from origin fail the graph cleanly (no SIGABRT).

Each filter (sync, span-attrib, nodejs-ctx) reads, through source.ctf.fs, a copy of a scenario trace
written by sink.ctf.fs and damaged in one of two ways:
- `offset`: the clock's `offset_s` set to 2^40 s in the metadata.  source.ctf.fs itself refuses that
  offset when the packets carry their begin/end times (it converts them while indexing), so the copy also
  unmaps the packet context's `timestamp_begin`/`timestamp_end` (same layout, names changed): the event
  timestamps then reach the filters unconverted, as they would from any source that does not index.
- `flip`: one flipped bit (the top bit of a `sched_switch` event's 64-bit timestamp) in a stream file.
Before the fix, sync and span-attrib aborted ("API function called while current thread has an error").
"""
import re
import shutil
import struct

import bt2
import pytest

from conftest import make_scenario_trace, run_babeltrace2

FILTERS = {"sync": "filter.deepspan.sync", "span_attrib": "filter.deepspan.span-attrib",
           "nodejs": "filter.deepspan.nodejs-ctx"}
DOCS = {"sync": "doc/sync.md", "span_attrib": "doc/span-attrib.md", "nodejs": "doc/nodejs.md"}


@pytest.fixture(scope="module")
def scenario_trace(tmp_path_factory, plugin_dir):
    return make_scenario_trace(tmp_path_factory.mktemp("overflow") / "trace", requests=10, hosts=2)


def kernel_dir(trace):
    return next(p.parent for p in sorted(trace.rglob("metadata")) if p.parent.name == "kernel")


def single_stream_copy(src_dir, dst_dir, stream_file="channel0_0"):
    """metadata + one stream file: source.ctf.fs then has one output port (nodejs-ctx has one input)."""
    dst_dir.mkdir(parents=True)
    shutil.copy(src_dir / "metadata", dst_dir / "metadata")
    shutil.copy(src_dir / stream_file, dst_dir / stream_file)
    return dst_dir


def break_offset(trace_dir):
    meta = trace_dir / "metadata"
    text = meta.read_text()
    lines = [line for line in text.splitlines() if "offset_s =" in line]
    assert len(lines) == 1, lines
    text = text.replace(lines[0], f"\toffset_s = {2 ** 40};")
    for field in ("timestamp_begin", "timestamp_end"):
        old = f" map = clock.monotonic.value; }} {field};"
        assert old in text
        text = text.replace(old, f" }} unmapped_{field};")
    meta.write_text(text)


def flip_a_timestamp(trace_dir, stream_file="channel0_0"):
    """Sets the top bit of one mid-stream sched_switch timestamp (a value found once in the file)."""
    path = trace_dir / stream_file
    data = bytearray(path.read_bytes())
    it = bt2.TraceCollectionMessageIterator(str(trace_dir))
    seen = 0
    for msg in it:
        if type(msg) is not bt2._EventMessageConst or msg.event.name != "sched_switch":
            continue
        seen += 1
        if seen < 20:
            continue
        needle = struct.pack("<Q", msg.default_clock_snapshot.value)
        if data.count(needle) == 1:
            data[data.index(needle) + 7] ^= 0x80
            path.write_bytes(bytes(data))
            return
    raise AssertionError(f"no unique sched_switch timestamp in {path}")


@pytest.fixture(scope="module")
def broken(scenario_trace, tmp_path_factory):
    """name -> list of directories (one source.ctf.fs each)."""
    base = tmp_path_factory.mktemp("broken")
    kdir = kernel_dir(scenario_trace)
    out = {}
    offset_all = base / "offset-all"
    shutil.copytree(scenario_trace, offset_all)
    dirs = sorted(p.parent for p in offset_all.rglob("metadata"))
    for d in dirs:
        break_offset(d)
    out["offset"] = dirs
    one = single_stream_copy(kdir, base / "offset-one")
    break_offset(one)
    out["offset-one"] = [one]
    flip = single_stream_copy(kdir, base / "flip-one")
    flip_a_timestamp(flip)
    out["flip-one"] = [flip]
    return out


def run_filter(filter_class, dirs):
    args = ["run"]
    for i, d in enumerate(dirs):
        args += ["-c", f"s{i}:source.ctf.fs", "-p", f'inputs=["{d}"]']
    args += ["-c", f"f:{filter_class}", "-c", "o:sink.utils.dummy"]
    for i in range(len(dirs)):
        args += ["--connect", f"s{i}:f"]
    args += ["--connect", "f:o"]
    proc = run_babeltrace2(*args, check=False)
    return proc, " ".join(proc.stderr.split())


def assert_clean_failure(proc, err, key):
    assert proc.returncode > 0, f"returncode {proc.returncode} (-6 is SIGABRT)\n{err[-3000:]}"
    assert "current thread has an error" not in err
    assert f"[f (out): '{FILTERS[key]}']" in err
    assert f"see {DOCS[key]}" in err


# sync and span-attrib take every stream of both hosts on their dynamic ports; nodejs-ctx one stream.
CASES = [("sync", "offset"), ("span_attrib", "offset"), ("sync", "offset-one"),
         ("span_attrib", "offset-one"), ("nodejs", "offset-one"),
         ("sync", "flip-one"), ("span_attrib", "flip-one"), ("nodejs", "flip-one")]


@pytest.mark.parametrize("key, damage", CASES, ids=[f"{k}-{d}" for k, d in CASES])
def test_overflowing_time_fails_cleanly(broken, key, damage):
    proc, err = run_filter(FILTERS[key], broken[damage])
    assert_clean_failure(proc, err, key)
    if key == "span_attrib" and damage != "flip-one":
        # its own clock mapping (hosts.c) refuses the offset before any event
        assert re.search(r"the offset of clock `monotonic` \(offset 1099511627776 s \+ \d+ cycles, frequency "
                         r"1000000000 Hz\) does not fit in signed 64-bit nanoseconds from the clock's origin", err)
    elif key == "span_attrib":
        assert "the timestamp of event `sched_switch` (" in err
        assert "does not fit in signed 64-bit nanoseconds from the clock's origin" in err
    else:
        assert f"{FILTERS[key]}: the time of an event message `" in err
        assert "does not fit in signed 64-bit nanoseconds from the origin of clock `monotonic`" in err
        assert "of trace `frontend`, host `frontend`" in err or "of trace `customer`, host `customer`" in err


def test_undamaged_copy_still_runs(scenario_trace, tmp_path):
    """The single-stream copy itself is readable: the failures above come from the damage."""
    one = single_stream_copy(kernel_dir(scenario_trace), tmp_path / "one")
    for key in FILTERS:
        proc, err = run_filter(FILTERS[key], [one])
        assert proc.returncode == 0, err[-3000:]
