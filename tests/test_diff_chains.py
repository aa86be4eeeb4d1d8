"""Chains (doc/critical-path.md, "Reading chains") in sink.deepspan.diff and sink.deepspan.metrics:
hand-made `deepspan:span` events with a `chain` member (tests/span_fixtures.py) — the chain frames,
exact sums in integer ns, invalid chains ignored and counted, the spill and saved traces."""
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
