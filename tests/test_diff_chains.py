# SPDX-License-Identifier: MIT
"""Chains (doc/critical-path.md, "Reading chains") in sink.deepspan.diff and sink.deepspan.metrics:
hand-made `deepspan:span` events with a `chain` member (tests/span_fixtures.py) — the chain frames,
exact sums in integer ns, invalid chains ignored and counted, the spill and saved traces."""
import bt2
import pytest

from span_fixtures import MS, Span, chain_entry, dispatch_request, run_sink

MYSQL = "frontend: /dispatch;customer: GET /customer;mysql: SELECT"
ARROW = "\u2190"


def with_chain(spans, holder_wait_cpu, holder_tid=1289, culprit="compactor", culprit_tid=991):
    """Adds to mysql's blocked segment (index 2) the chain: blocked on a futex held by mysqld/<tid>,
    which waited `holder_wait_cpu` ns for CPU 1 while <culprit> ran, then ran (User) to the wakeup."""
    mysql = spans[2]
    b, e = mysql.segments[2][0], mysql.segments[2][1]
    mid = b + holder_wait_cpu
    mysql.segments[2] = (b, e, "blocked", f"futex {ARROW} mysqld/{holder_tid}")
    mysql.chain = [
        chain_entry(2, -1, 0, b, e, "blocked", "wait", f"futex {ARROW} mysqld/{holder_tid}", host="cust",
                    tid=30, comm="mysql-conn", process="mysqld"),
        chain_entry(2, 0, 1, b, mid, "wait_cpu", "wait-cpu", f"ran instead: {culprit}/{culprit_tid}",
                    host="beta", tid=holder_tid, comm="mysqld", cpu=1),
        chain_entry(2, 0, 1, mid, e, "user", "running", "-", host="beta", tid=holder_tid, comm="mysqld",
                    cpu=1),
    ]
    return spans


def requests(n_fast=99, block=100 * MS, wait_cpu=60 * MS, **kw):
    spans = []
    for i in range(n_fast):
        spans += dispatch_request(i + 1, i * 200 * MS)
    spans += with_chain(dispatch_request(1000, (n_fast + 1) * 200 * MS, mysql_block=block), wait_cpu, **kw)
    return spans


def folded(path):
    return sorted(path.read_text().splitlines())


def test_chain_frames_replace_the_waited_leaf(bt2_plugin, tmp_path):
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, requests())
    lines = folded(out / "diff.folded")
    blocked = f"{MYSQL};[Waited blocked] futex {ARROW} mysqld"
    assert f"{blocked};mysqld [Waited CPU];ran instead: compactor 0 60000000" in lines
    assert f"{blocked};mysqld [User] 0 40000000" in lines
    # The plain leaf is gone: no line names the tid.
    assert not [line for line in lines if "1289" in line or "991" in line]
    explain = (out / "explain.txt").read_text()
    assert "leaves' differences sum to the latency difference exactly" in explain
    # The tids are in the tooltips of the chain frames (their heaviest contributor).
    svg = (out / "diff.svg").read_text()
    assert "Mostly: waited 60.0 ms for CPU 1 while compactor/991 ran" in svg
    assert "Mostly: blocked on futex held by mysqld/1289 (host beta)" in svg


def test_explain_follows_the_chain(bt2_plugin, tmp_path):
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, requests())
    explain = (out / "explain.txt").read_text()
    print(explain)
    assert ("100.0 ms (100%) blocked on futex held by mysqld/1289 (host beta), which waited 60.0 ms for "
            "CPU 1 while compactor/991 ran") in explain
    assert ("100.0 ms (100%) blocked on futex held by mysqld/1289 (host beta), which ran 40.0 ms in user "
            "space") in explain


def test_metrics_by_culprit(bt2_plugin, tmp_path):
    out = tmp_path / "culprit.csv"
    run_sink(bt2_plugin, "metrics", {"by": "culprit", "format": "csv", "output": str(out)}, requests())
    rows = out.read_text().splitlines()
    assert rows[0] == "host,process,comm,tid,state,kind,b_mean,a_mean,b_minus_a"
    # The top row: the thread that ran instead of the lock holder, on the holder's host.
    assert rows[1].startswith("beta,-,compactor,991,wait_cpu,wait-cpu,60000000")
    assert any(r.startswith("beta,mysqld,mysqld,1289,user,running,40000000") for r in rows)
    # The span threads' own time outside chains (kind "-") is charged to them; every group's rows
    # sum to its mean latency.
    body = [r.split(",") for r in rows[1:]]
    assert sum(float(r[6]) for r in body) == pytest.approx(110 * MS)
    assert sum(float(r[7]) for r in body) == pytest.approx(10 * MS)


def test_metrics_group_params_need_culprit(bt2_plugin, tmp_path):
    import bt2
    with pytest.raises(bt2._Error) as exc:
        run_sink(bt2_plugin, "metrics", {"by": "operation", "group-a": {"percentiles": [0, 50]}}, requests(3))
    from span_fixtures import error_text
    assert 'parameter `group-a` only applies to the table by culprit: add by="culprit"' in error_text(exc.value)


def test_empty_chains_change_nothing(bt2_plugin, tmp_path):
    """A `chain` member with no entries (follow-wakeups found nothing) gives today's outputs byte for byte."""
    import filecmp
    from conftest import DIFF_OUTPUTS
    spans = []
    for i in range(99):
        spans += dispatch_request(i + 1, i * 200 * MS)
    spans += dispatch_request(1000, 99 * 200 * MS, mysql_block=100 * MS)
    plain, chained = tmp_path / "plain", tmp_path / "chained"
    run_sink(bt2_plugin, "diff", {"output-dir": str(plain), "summary": False}, spans)
    run_sink(bt2_plugin, "diff", {"output-dir": str(chained), "summary": False}, spans, schema={"chain": True})
    for name in DIFF_OUTPUTS:
        assert filecmp.cmp(plain / name, chained / name, shallow=False), f"{name} differs"


def broken(kind):
    spans = requests()
    chain = spans[-4 + 2].chain
    if kind == "parent-after-child":
        chain[1]["parent"] = 2
    elif kind == "gap":
        chain[2]["begin"] += 1
    elif kind == "short":
        chain[0]["end"] -= 1
    elif kind == "wrong-depth":
        chain[1]["depth"] = 2
    elif kind == "not-waited":
        for entry in chain:
            entry["segment"] = 1
    elif kind == "bad-segment":
        for entry in chain:
            entry["segment"] = 9
    return spans


@pytest.mark.parametrize("kind", ["parent-after-child", "gap", "short", "wrong-depth", "not-waited",
                                  "bad-segment"])
def test_invalid_chain_counted_and_ignored(bt2_plugin, tmp_path, capfd, kind):
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, broken(kind), logging_level=bt2.LoggingLevel.WARNING)
    err = capfd.readouterr().err
    assert "1 span chains break their invariants" in err and "doc/critical-path.md" in err
    explain = (out / "explain.txt").read_text()
    assert "Warning: 1 span chain broke the chain invariants and was ignored" in explain
    # The span keeps its waited time as one leaf: no wrong number.
    assert f"{MYSQL};[Waited blocked] futex {ARROW} mysqld/1289 0 100000000" in folded(out / "diff.folded")
    assert "sum to the latency difference exactly" in explain


def test_chain_kinds_read_by_label(bt2_plugin, tmp_path):
    """A chain whose enumerations list their labels in another order is read by label, not by value."""
    spans = requests()
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, spans, schema={"chain_kinds_reversed": True})
    lines = folded(out / "diff.folded")
    assert f"{MYSQL};[Waited blocked] futex {ARROW} mysqld;mysqld [Waited CPU];ran instead: compactor 0 60000000" in lines


def test_chain_integers_of_other_signedness_read_the_same(bt2_plugin, tmp_path):
    """A chain whose integer members are not of span-attrib's signedness (segment, depth, cpu and tid
    signed or unsigned the other way) is read through the layout's types: the same report, byte for byte,
    as with span-attrib's types (chain-reader.c reads the standard types without looking them up)."""
    import filecmp
    from conftest import DIFF_OUTPUTS
    standard, other = tmp_path / "standard", tmp_path / "other"
    run_sink(bt2_plugin, "diff", {"output-dir": str(standard)}, requests(), schema={"chain": True})
    run_sink(bt2_plugin, "diff", {"output-dir": str(other)}, requests(), schema={
        "chain": True, "chain_retype": {"segment": "s64", "depth": "s64", "begin": "u64", "end": "u64",
                                        "tid": "u64"}})
    lines = folded(other / "diff.folded")
    assert f"{MYSQL};[Waited blocked] futex {ARROW} mysqld;mysqld [Waited CPU];ran instead: compactor 0 60000000" in lines
    for name in DIFF_OUTPUTS:
        assert filecmp.cmp(standard / name, other / name, shallow=False), name


def test_saved_trace_with_chains_gives_the_same_report(bt2_plugin, tmp_path):
    """Spans with chains saved with sink.ctf.fs and read back give the same outputs, byte for byte."""
    import filecmp
    from conftest import DIFF_OUTPUTS, run_babeltrace2
    from span_fixtures import SpanSource
    spans = requests()
    for span in spans:  # "none" is "-" as span-attrib writes it: "" does not survive a save (BT2-NOTES)
        span.segments = [(b, e, s, d or "-") for b, e, s, d in span.segments]
    direct = tmp_path / "direct"
    run_sink(bt2_plugin, "diff", {"output-dir": str(direct), "summary": False}, spans)
    saved = tmp_path / "saved"
    graph = bt2.Graph()
    src = graph.add_component(SpanSource, "src", obj={"spans": spans})
    ctf = bt2.find_plugin("ctf")
    sink = graph.add_component(ctf.sink_component_classes["fs"], "save",
                               {"path": str(saved), "assume-single-trace": True})
    graph.connect_ports(src.output_ports["out"], sink.input_ports["in"])
    graph.run()
    del graph, src, sink  # sink.ctf.fs writes `metadata` when finalized (BT2-NOTES)
    import gc
    gc.collect()
    from_saved = tmp_path / "from-saved"
    run_babeltrace2(saved, "-c", "sink.deepspan.diff", "-p", f'output-dir="{from_saved}",summary=false')
    for name in DIFF_OUTPUTS:
        assert filecmp.cmp(direct / name, from_saved / name, shallow=False), f"{name} differs"
    assert "ran instead: compactor" in (from_saved / "diff.folded").read_text()
    culprit_direct = tmp_path / "culprit-direct.csv"
    run_sink(bt2_plugin, "metrics", {"by": "culprit", "format": "csv", "output": str(culprit_direct)}, spans)
    culprit_saved = tmp_path / "culprit-saved.csv"
    run_babeltrace2(saved, "-c", "sink.deepspan.metrics",
                    "-p", f'by="culprit",format="csv",output="{culprit_saved}"')
    assert culprit_direct.read_bytes() == culprit_saved.read_bytes()


def test_streamed_chains_equal_held_chains(bt2_plugin, tmp_path):
    """More than one batch of the request stream (32,768 spans): chains recorded, spilled and read back
    for the waterfalls give the same outputs as holding every request to the end."""
    from conftest import DIFF_OUTPUTS
    spans = []
    for i in range(8600):
        spans += dispatch_request(i + 1, i * 20 * MS)
    for i in range(100):
        spans += with_chain(dispatch_request(20000 + i, (8600 + i) * 20 * MS + i * 200 * MS,
                                             mysql_block=100 * MS + i * MS), 60 * MS, holder_tid=1289 + i % 3)
    streamed, held = tmp_path / "streamed", tmp_path / "held"
    run_sink(bt2_plugin, "diff", {"output-dir": str(streamed), "summary": False, "grace": "1s"}, spans)
    run_sink(bt2_plugin, "diff", {"output-dir": str(held), "summary": False, "grace": "100000s"}, spans)
    for name in DIFF_OUTPUTS:
        assert (streamed / name).read_bytes() == (held / name).read_bytes(), name
    html = (streamed / "report.html").read_text()
    assert "chain depth 1 (its waker)" in html and "ran instead: compactor/991" in html
    # The heaviest holder among mysqld/1289, /1290, /1291 in B (blocked 15+18+...+99 ms in all) is named.
    assert "blocked on futex held by mysqld/1289 (host beta)" in (streamed / "explain.txt").read_text()


def test_deadlocks_and_stuck_threads_listed(bt2_plugin, tmp_path, capfd):
    spans = requests()
    # Two more slow requests whose wait ends in a cycle of two threads on two hosts.
    for trace in (3001, 3002):
        extra = dispatch_request(trace, 300 * 200 * MS + trace * MS, mysql_block=90 * MS)
        b, e = extra[2].segments[2][:2]
        extra[2].chain = [chain_entry(2, -1, 0, b, e, "blocked", "wait", f"futex {ARROW} mysqld/1289", tid=30,
                                      comm="mysql-conn", process="mysqld"),
                          chain_entry(2, 0, 1, b, e, "blocked", "deadlock",
                                      f"deadlock: mysql-conn/30 {ARROW} mysqld/1289 {ARROW} mysql-conn/30",
                                      host="beta", tid=1289, comm="mysqld")]
        spans += extra
    # A request still open at the end of the trace: its thread still blocked in futex.
    stuck = dispatch_request(4000, 400 * 200 * MS, mysql_block=50 * MS)
    for span in stuck:
        span.truncated = True
    b, e = stuck[2].segments[2][:2]
    stuck[2].chain = [chain_entry(2, -1, 0, b, e, "blocked", "unknown",
                                  "unknown: still blocked at end of trace in futex", tid=30, comm="mysql-conn")]
    spans += stuck
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, spans, schema={"truncated": True},
             logging_level=bt2.LoggingLevel.WARNING)
    assert "1 deadlock: chains come back to a thread already on them" in capfd.readouterr().err
    explain = (out / "explain.txt").read_text()
    assert ("Deadlocks (chains that come back to a thread on them; doc/critical-path.md):\n"
            f"  2 spans: deadlock: mysql-conn/30 {ARROW} mysqld/1289 {ARROW} mysql-conn/30\n") in explain
    assert ("Still blocked at the end of the trace (spans of requests still open):\n"
            "  1 span: unknown: still blocked at end of trace in futex\n") in explain
    assert "sum to the latency difference exactly" in explain


@pytest.mark.parametrize("sink", ["diff", "metrics"])
def test_chain_class_without_a_member_is_an_error(bt2_plugin, tmp_path, sink):
    from span_fixtures import error_text
    params = {"output-dir": str(tmp_path / "r")} if sink == "diff" else {"by": "culprit"}
    with pytest.raises(bt2._Error) as exc:
        run_sink(bt2_plugin, sink, params, requests(3), schema={"chain_drop": ["kind"]})
    text = error_text(exc.value)
    assert f"sink.deepspan.{sink}: event `deepspan:span`: elements of `chain` need a member `kind` that is an integer" \
        in text


def test_metrics_culprit_groups_as_in_diff(bt2_plugin, tmp_path):
    """group-a/group-b select the groups as in sink.deepspan.diff: B = the requests over 50 ms (the chained
    one), A = every request under 20 ms."""
    out = tmp_path / "culprit.csv"
    run_sink(bt2_plugin, "metrics", {"by": "culprit", "format": "csv", "output": str(out),
                                     "group-a": {"max-duration": "20ms"}, "group-b": {"min-duration": "50ms"}},
             requests())
    rows = [r.split(",") for r in out.read_text().splitlines()[1:]]
    assert rows[0][:6] == ["beta", "-", "compactor", "991", "wait_cpu", "wait-cpu"]
    # A is the 99 fast requests (10 ms each), B the slow one (110 ms).
    assert sum(float(r[7]) for r in rows) == pytest.approx(10 * MS)
    assert sum(float(r[6]) for r in rows) == pytest.approx(110 * MS)


PACKED = {"chain": False, "chain_packed": True}


def test_packed_chains_give_the_same_reports_as_fields(bt2_plugin, tmp_path):
    """The same chains in `chain_packed` (doc/critical-path.md, "Encoding") and in `chain`: the diff outputs
    and the metrics by culprit byte for byte the same."""
    import filecmp
    from conftest import DIFF_OUTPUTS
    for schema, name in ((None, "fields"), (PACKED, "packed")):
        run_sink(bt2_plugin, "diff", {"output-dir": str(tmp_path / name)}, requests(), schema=schema)
        run_sink(bt2_plugin, "metrics", {"by": "culprit", "format": "csv", "output": str(tmp_path / f"{name}.csv")},
                 requests(), schema=schema)
    lines = folded(tmp_path / "packed" / "diff.folded")
    assert f"{MYSQL};[Waited blocked] futex {ARROW} mysqld;mysqld [Waited CPU];ran instead: compactor 0 60000000" in lines
    for name in DIFF_OUTPUTS:
        assert filecmp.cmp(tmp_path / "fields" / name, tmp_path / "packed" / name, shallow=False), name
    assert (tmp_path / "fields.csv").read_bytes() == (tmp_path / "packed.csv").read_bytes()


def _packed_text(spans):
    """The packed chain of the chained span of `spans` (its (trace, span id), its text), to corrupt."""
    import chain_packed
    span = next(s for s in spans if s.chain)
    return (span.trace, span.span_id), chain_packed.pack(span.chain, span.begin)


def _zig(value):
    import chain_packed
    return chain_packed._zig(value).decode()


def _int_end(text, pos):
    """Where the integer at `pos` of a packed text ends."""
    import chain_packed
    return chain_packed._uint(text.encode(), pos)[1]


# Texts not of the packed format, each made from the good one (`t`).
BAD_PACKED = {
    "no header": lambda t: "X" + t[1:],
    "header only": lambda t: "C",
    "fewer entries than counted": lambda t: "C4" + t[2:],
    "more bytes than the entries": lambda t: t + "0",
    "cut inside an entry": lambda t: t[:len(t) // 2],
    "a continuing digit at the end": lambda t: t + "P",
    "an integer of more than 64 bits": lambda t: "C" + "o" * 13 + "O" + t[2:],
    "a character outside the alphabets": lambda t: t[:3] + "~" + t[4:],
    "a string numbered before it was written": lambda t: t.replace("04cust", "9", 1),
    "a literal longer than the text": lambda t: t[:t.index("04cust")] + "0oooooooooooO",
    "a parent after its entry": lambda t: t[:2] + t[2] + "2" + t[4:],
    "a huge entry count": lambda t: "Coooooooooooo?" + t[2:],
    "begin overflows": lambda t: t[:4] + _zig(2 ** 63 - 1) + t[_int_end(t, 4):],
}


@pytest.mark.parametrize("what", sorted(BAD_PACKED))
def test_packed_text_not_of_the_format_counted_and_ignored(bt2_plugin, tmp_path, capfd, what):
    """A `chain_packed` text that is not of the format: the span kept without its chain, counted, and said."""
    spans = requests()
    key, text = _packed_text(spans)
    bad = BAD_PACKED[what](text)
    assert bad != text
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, spans, schema=dict(PACKED, chain_packed_text={key: bad}),
             logging_level=bt2.LoggingLevel.WARNING)
    err = capfd.readouterr().err
    assert "1 span chains break their invariants" in err and "chain_packed" in err and "\"Encoding\"" in err
    assert "Warning: 1 span chain broke the chain invariants and was ignored" in (out / "explain.txt").read_text()
    assert f"{MYSQL};[Waited blocked] futex {ARROW} mysqld/1289 0 100000000" in folded(out / "diff.folded")


@pytest.mark.parametrize("kind", ["parent-after-child", "gap", "short", "not-waited", "bad-segment"])
def test_packed_chain_breaking_the_invariants_counted(bt2_plugin, tmp_path, capfd, kind):
    """A packed chain of the format whose entries break the invariants is ignored as the array would be."""
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, broken(kind), schema=PACKED,
             logging_level=bt2.LoggingLevel.WARNING)
    assert "1 span chains break their invariants" in capfd.readouterr().err
    assert f"{MYSQL};[Waited blocked] futex {ARROW} mysqld/1289 0 100000000" in folded(out / "diff.folded")
