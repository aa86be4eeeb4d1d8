# SPDX-License-Identifier: MIT
"""Chains (issue 12, doc/critical-path.md) against the scenario's chain truth (doc/scenario.md "Chain truth").

Three layers:
- the truth itself (runs on its own): every chain partitions its span's waited time exactly, and the time it
  charges names the thread each chain cause injects (the hog, the sleeping holder, the remote thread, the pool
  thread, the deadlock's cycle);
- filter.deepspan.span-attrib's chain (`chain_packed`, and the `chain` array of chain-encoding="fields"): every
  leaf equals the truth to 0 ns (several seeds, 2-5 hosts);
- sink.deepspan.diff's explain.txt: the top cause of each chain case names the culprit.
Exact clocks (clock="none") so that cross-host chain times are exact without filter.deepspan.sync.
"""
import collections
import json
import re

import bt2
import pytest

from conftest import run_babeltrace2
from scenario_fixtures import scenario_class
from span_attrib_support import payload_dict

CHAIN_CAUSES = ("lock-hog", "lock-sleep", "lock-remote", "handoff", "deadlock", "net-delay", "net-retransmit")
KINDS = {"running", "wait-cpu", "wait", "timer", "irq", "softirq", "network", "in-flight", "disk", "unknown",
         "deadlock", "depth-limit"}
STATES = ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")


def run_truth(tmp_path, name, **params):
    """Runs the scenario alone (sink.utils.dummy) and returns its truth."""
    truth = tmp_path / f"{name}.json"
    parts = [f'{k}="{v}"' if isinstance(v, str) else f"{k}={str(v).lower() if isinstance(v, bool) else v}"
             for k, v in params.items()]
    parts.append(f'truth="{truth}"')
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", ",".join(parts), "-c", "sink.utils.dummy")
    return json.loads(truth.read_text())


def key(span):
    return (span["trace_id_high"], span["trace_id_low"], span["span_id"])


def slow_requests(truth):
    return {(r["trace_id_high"], r["trace_id_low"]): r for r in truth["requests"] if r["slow"]}


def all_spans(truth):
    return truth["spans"] + truth.get("open_spans", [])


# ---- the truth on its own ----

def chain_truth_problems(tmp_path, bt2_plugin, cause, seed, hosts, check_span=None, encoding="packed"):
    """Runs the scenario (40 requests, clock "none", every span's chain in the truth) through span-attrib and
    compares every span's chain leaves with the truth's on COMPARED; `check_span(truth_span, our_leaves)` runs
    for each span found.  Returns (problems, number of leaves compared)."""
    truth_path = tmp_path / "truth.json"
    params = {"requests": 40, "seed": seed, "hosts": hosts, "cause": cause, "clock": "none",
              "slow-ratio": 0.2, "truth-chains": True, "truth": str(truth_path)}
    ours = producer_chains(bt2_plugin, params, encoding)
    truth = json.loads(truth_path.read_text())
    problems = []
    compared = 0
    for span in all_spans(truth):
        mine = ours.get(key(span))
        if mine is None:
            problems.append(("missing span", key(span)))
            continue
        want = [tuple(leaf[k] for k in COMPARED) for leaf in span["chain"]]
        got = [tuple(leaf[k] for k in COMPARED) for leaf in mine]
        compared += len(want)
        if want != got:
            problems.append((key(span), span["operation"], [w for w in want if w not in got][:3],
                             [g for g in got if g not in want][:3]))
        if check_span:
            check_span(span, mine)
    return problems, compared


@pytest.mark.parametrize("cause, seed, hosts", [
    ("lock-hog", 1, 3), ("lock-sleep", 2, 2), ("lock-remote", 3, 5), ("handoff", 4, 3), ("deadlock", 5, 2),
    ("lock-remote", 6, 2), ("lock-hog", 7, 5), ("net-delay", 8, 2), ("net-retransmit", 9, 4),
])
def test_truth_chains_partition_the_waited_time(tmp_path, plugin_dir, cause, seed, hosts):
    truth = run_truth(tmp_path, cause, requests=50, seed=seed, hosts=hosts, cause=cause, clock="none",
                      **{"slow-ratio": 0.2})
    slow = slow_requests(truth)
    assert slow and all(r["cause"] == cause for r in slow.values())
    with_chain = [s for s in all_spans(truth) if "chain" in s]
    # the spans of the chain-cause requests, and only them, carry a chain
    assert {(s["trace_id_high"], s["trace_id_low"]) for s in with_chain} == set(slow)
    for span in with_chain:
        chain = span["chain"]
        waited = span["states"]["blocked"] + span["states"]["wait_cpu"]
        assert sum(leaf["end"] - leaf["begin"] for leaf in chain) == waited, key(span)
        by_segment = collections.defaultdict(list)
        for leaf in chain:
            assert leaf["kind"] in KINDS and leaf["state"] in STATES and leaf["detail"] and leaf["comm"]
            assert leaf["begin"] < leaf["end"] and 0 <= leaf["depth"] <= 8
            by_segment[leaf["segment_begin"]].append(leaf)
        for begin, leaves in by_segment.items():
            # the leaves of a waited segment partition it: contiguous, in time order, from its begin
            assert leaves[0]["begin"] == begin
            assert all(a["end"] == b["begin"] for a, b in zip(leaves, leaves[1:])), key(span)
            assert span["begin"] <= begin and leaves[-1]["end"] <= span["end"]
        for leaf in chain:
            if leaf["depth"] == 0:
                assert (leaf["host"], leaf["tid"]) == (span["host"], span["tid"])
            if leaf["kind"] == "wait-cpu":
                assert re.fullmatch(r"ran instead: (idle|unknown|\S+/\d+)", leaf["detail"]), leaf


def culprit_time(truth, span_filter):
    """Time of the chains of slow requests' spans, per culprit label (what the leaf ends on)."""
    slow = slow_requests(truth)
    out = collections.Counter()
    for span in all_spans(truth):
        if (span["trace_id_high"], span["trace_id_low"]) not in slow or not span_filter(span):
            continue
        for leaf in span.get("chain", []):
            if leaf["kind"] == "wait-cpu":
                who = leaf["detail"].split(": ", 1)[1].rsplit("/", 1)[0]
                label = ("ran instead", who)
            elif leaf["kind"] == "running":
                label = ("running", leaf["host"], leaf["comm"], leaf["tid"])
            else:
                label = (leaf["kind"], leaf["host"], leaf["comm"], leaf["tid"])
            out[label] += leaf["end"] - leaf["begin"]
    return out


def is_sql_server(span):
    return span["operation"] == "SQL SELECT" and span["kind"] == 1


@pytest.mark.parametrize("seed, hosts", [(1, 3), (2, 5)])
def test_truth_culprits(tmp_path, plugin_dir, seed, hosts):
    """The chains charge the most time to the thread each cause injects (requests[].culprit)."""
    for cause in ("lock-hog", "lock-sleep", "lock-remote", "handoff"):
        truth = run_truth(tmp_path, f"{cause}-{seed}", requests=50, seed=seed, hosts=hosts, cause=cause,
                          clock="none", **{"slow-ratio": 0.15})
        culprits = {r["culprit"]["tid"]: r["culprit"] for r in slow_requests(truth).values()}
        assert len(culprits) == 1, (cause, culprits)
        culprit = next(iter(culprits.values()))
        top = culprit_time(truth, is_sql_server).most_common(1)[0][0]
        if cause == "lock-hog":
            # three hogs share the holder's CPU: together they are the top, and the holder waits for them
            assert culprit["comm"] == "stress-ng-cpu" and culprit["process"] == "stress-ng"
            assert top == ("ran instead", "stress-ng-cpu")
        elif cause == "lock-sleep":
            assert top == ("timer", culprit["host"], culprit["comm"], culprit["tid"])
            assert culprit["comm"] == "mysqld"
        elif cause == "lock-remote":
            assert top == ("running", culprit["host"], culprit["comm"], culprit["tid"])
            assert culprit["comm"] == "redis-server"
            mysql_host = next(s["host"] for s in truth["spans"] if is_sql_server(s))
            assert culprit["host"] != mysql_host    # the chain crosses hosts through TCP
        else:
            assert top == ("running", culprit["host"], culprit["comm"], culprit["tid"])
            sql_tids = {s["tid"] for s in truth["spans"] if is_sql_server(s)}
            assert culprit["tid"] not in sql_tids   # the pool thread, not a worker


def test_truth_deadlock(tmp_path, plugin_dir):
    truth = run_truth(tmp_path, "deadlock", requests=40, seed=3, hosts=3, cause="deadlock", clock="none",
                      **{"slow-ratio": 0.3})
    slow = list(slow_requests(truth).values())
    assert len(slow) == 1 and slow[0]["open"] and slow[0]["end"] == -1
    # the others complete: 39 closed requests
    assert len(truth["requests"]) == 40 and sum(1 for r in truth["requests"] if not r.get("open")) == 39
    cycle = slow[0]["cycle"]
    assert [t["comm"] for t in cycle] == ["replica", "mysqld"] and cycle[0]["host"] != cycle[1]["host"]
    sql = [s for s in truth["open_spans"] if is_sql_server(s)]
    assert len(sql) == 1 and sql[0]["truncated"] and sql[0]["tid"] == cycle[1]["tid"]
    last = sql[0]["chain"][-1]
    assert last["kind"] == "deadlock" and last["end"] == sql[0]["end"]
    assert f"replica/{cycle[0]['tid']}" in last["detail"] and f"mysqld/{cycle[1]['tid']}" in last["detail"]
    # the replica's answer went through the network: sender before its send, in flight, after arrival
    kinds = [leaf["kind"] for leaf in sql[0]["chain"]]
    assert "in-flight" in kinds and any(leaf["comm"] == "replica" and leaf["kind"] == "running"
                                        for leaf in sql[0]["chain"])
    # its callers wait for it, still blocked at the end of the trace
    others = [s for s in truth["open_spans"] if s is not sql[0]]
    assert others and all(s["chain"][-1]["detail"].startswith("unknown: still blocked at end of trace in ")
                          for s in others)


def test_truth_existing_causes_have_no_chain_keys(tmp_path, plugin_dir):
    """Without a chain cause the truth is what it was; truth-chains=true gives every span its chain."""
    plain = run_truth(tmp_path, "plain", requests=30, cause="mixed", **{"slow-ratio": 0.3})
    assert not any("chain" in s for s in plain["spans"]) and "open_spans" not in plain
    assert not any("culprit" in r or "open" in r for r in plain["requests"])
    full = run_truth(tmp_path, "full", requests=30, cause="mixed", **{"slow-ratio": 0.3, "truth-chains": True})
    assert all("chain" in s for s in full["spans"])
    assert [dict(s, chain=None) for s in full["spans"]] == [dict(s, chain=None) for s in plain["spans"]]
    for span in full["spans"]:
        assert sum(leaf["end"] - leaf["begin"] for leaf in span["chain"]) == \
            span["states"]["blocked"] + span["states"]["wait_cpu"]


def test_truth_irq_storm_is_on_the_chain(tmp_path, plugin_dir):
    """cause=irq: the GetDriver caller's NET_RX wait continues on redis, interrupted by the storm."""
    truth = run_truth(tmp_path, "irq", requests=40, seed=2, hosts=3, cause="irq", clock="none",
                      **{"slow-ratio": 0.2, "truth-chains": True})
    storm = collections.Counter()
    for span in truth["spans"]:
        if (span["trace_id_high"], span["trace_id_low"]) not in slow_requests(truth):
            continue
        if span["operation"] == "GetDriver" and span["kind"] == 2:
            for leaf in span["chain"]:
                storm[leaf["detail"] if leaf["state"] == "interrupted" else leaf["kind"]] += \
                    leaf["end"] - leaf["begin"]
    assert storm.most_common(1)[0][0] == "irq:ehci_hcd:usb1", storm.most_common(4)


# ---- filter.deepspan.span-attrib against the truth ----

def _chain_leaves(event):
    """The leaves of a deepspan:span's chain as truth-like dicts, from `chain_packed` (span-attrib's default) or
    the `chain` array (chain-encoding="fields"); None when the event has neither."""
    payload = payload_dict(event)
    if "chain" not in payload:
        return None
    segments = [s["begin"] for s in payload["segments"]]
    entries = payload["chain"]
    parents = {e["parent"] for e in entries}
    leaves = []
    for index, e in enumerate(entries):
        if index in parents:
            continue
        leaves.append({"segment_begin": segments[e["segment"]], "begin": e["begin"], "end": e["end"],
                       "host": e["host"], "pid": e["pid"], "tid": e["tid"], "comm": e["comm"], "state": e["state"],
                       "kind": e["kind"], "depth": e["depth"], "detail": e["detail"]})
    return leaves


def producer_chains(bt2_plugin, scenario_params, encoding="packed"):
    """{span key: chain leaves} from scenario -> span-attrib (follow-wakeups, chain-encoding `encoding`)."""
    src = bt2.ComponentSpec(scenario_class(), scenario_params)
    flt_class = bt2_plugin.filter_component_classes["span-attrib"]
    flt = bt2.ComponentSpec(flt_class, {"pass-through": False, "follow-wakeups": True, "chain-encoding": encoding})
    out = {}
    for msg in bt2.TraceCollectionMessageIterator([src], [flt]):
        if type(msg) is not bt2._EventMessageConst or msg.event.name != "deepspan:span":
            continue
        leaves = _chain_leaves(msg.event)
        assert leaves is not None, "a deepspan:span event without chain_packed or chain"
        p = msg.event.payload_field
        out[(int(p["trace_id_high"]), int(p["trace_id_low"]), int(p["span_id"]))] = leaves
    return out


COMPARED = ("segment_begin", "begin", "end", "host", "tid", "state", "kind", "depth")


@pytest.mark.parametrize("cause, seed, hosts", [
    ("lock-hog", 1, 3), ("lock-sleep", 2, 2), ("lock-remote", 3, 5), ("handoff", 4, 3), ("deadlock", 5, 2),
    ("lock-remote", 6, 2), ("irq", 7, 4), ("cpu", 8, 3), ("disk", 9, 2), ("lock", 10, 5),
    ("net-delay", 11, 2), ("net-delay", 12, 5), ("net-retransmit", 13, 3), ("net-retransmit", 14, 2),
    ("net-retransmit", 15, 5),
])
def test_span_attrib_chains_equal_the_truth(tmp_path, bt2_plugin, cause, seed, hosts):
    problems, compared = chain_truth_problems(tmp_path, bt2_plugin, cause, seed, hosts)
    assert compared > 0
    assert not problems, problems[:5]


@pytest.mark.parametrize("cause, seed, hosts", [("lock-remote", 3, 5), ("net-retransmit", 13, 3), ("disk", 9, 2)])
def test_span_attrib_chains_as_fields_equal_the_truth(tmp_path, bt2_plugin, cause, seed, hosts):
    """chain-encoding="fields" (the `chain` array) gives the same leaves."""
    problems, compared = chain_truth_problems(tmp_path, bt2_plugin, cause, seed, hosts, encoding="fields")
    assert compared > 0
    assert not problems, problems[:5]


@pytest.mark.parametrize("cause", ["lock-hog", "lock-sleep", "lock-remote", "handoff", "net-delay",
                                   "net-retransmit"])
def test_span_attrib_chain_details_equal_the_truth(tmp_path, bt2_plugin, cause):
    truth_path = tmp_path / "truth.json"
    params = {"requests": 40, "seed": 11, "hosts": 3, "cause": cause, "clock": "none", "slow-ratio": 0.2,
              "truth": str(truth_path)}
    ours = producer_chains(bt2_plugin, params)
    truth = json.loads(truth_path.read_text())
    problems = []
    for span in truth["spans"]:
        if "chain" not in span:
            continue
        want = [(leaf["begin"], leaf["comm"], leaf["pid"], leaf["detail"]) for leaf in span["chain"]]
        got = [(leaf["begin"], leaf["comm"], leaf["pid"], leaf["detail"]) for leaf in ours[key(span)]]
        if want != got:
            problems.append((key(span), [w for w in want if w not in got][:3], [g for g in got if g not in want][:3]))
    assert not problems, problems[:5]


# ---- sink.deepspan.diff: the top cause names the culprit ----

def top_cause(explain_text):
    block = explain_text.split("Top causes")[1].split("\n\n")[0]
    for line in block.splitlines()[1:]:
        m = re.match(r"\s+[+-][\d.]+ \S+ \((-?\d+)%\)  (.*)$", line)
        if m:
            return m.group(2)
    return ""


def has_chain_frames(out_dir):
    for folded in out_dir.glob("*.folded"):
        for line in folded.read_text().splitlines():
            frames = line.rsplit(" ", 1)[0].split(";")
            if any(f.startswith("[Waited") for f in frames[:-1]):
                return True
    return False


@pytest.mark.parametrize("cause, names", [
    ("lock-hog", ["stress-ng-cpu"]),
    ("lock-sleep", ["timer"]),
    ("lock-remote", ["redis-server"]),
    ("handoff", ["[Waited blocked] futex \u2190 mysqld > mysqld [User]"]),
    ("irq", ["ehci_hcd:usb1"]),
])
def test_diff_top_cause_names_the_culprit(tmp_path, plugin_dir, cause, names):
    out = tmp_path / cause
    proc = run_babeltrace2("-c", "source.deepspan.scenario",
                           "-p", f'cause="{cause}",requests=200,hosts=6,clock="none"',
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}"', check=False)
    assert proc.returncode == 0, proc.stderr
    assert has_chain_frames(out), "the folded files have no chain frames"
    top = top_cause((out / "explain.txt").read_text())
    assert all(name in top for name in names), top


def test_span_attrib_reports_the_deadlock_cycle(tmp_path, plugin_dir):
    """cause=deadlock: span-attrib's warning names the cycle of the truth (threads and hosts)."""
    truth_path = tmp_path / "truth.json"
    proc = run_babeltrace2("-c", "source.deepspan.scenario",
                           "-p", f'cause="deadlock",requests=60,hosts=3,clock="none",truth="{truth_path}"',
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.utils.dummy", check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    replica, worker = json.loads(truth_path.read_text())["requests"][-1]["cycle"]
    assert f"deadlock: mysqld/{worker['tid']} (host {worker['host']}, recvfrom) \u2190 " \
        f"replica/{replica['tid']} (host {replica['host']}, recvfrom) \u2190 mysqld/{worker['tid']}" in output


def test_diff_lists_the_deadlock_cycle(tmp_path, plugin_dir):
    """cause=deadlock: explain.txt lists the truth's cycle under Deadlocks."""
    truth_path = tmp_path / "truth.json"
    out = tmp_path / "diff"
    run_babeltrace2("-c", "source.deepspan.scenario",
                    "-p", f'cause="deadlock",requests=200,hosts=6,clock="none",truth="{truth_path}"',
                    "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}"')
    explain = (out / "explain.txt").read_text()
    replica, worker = json.loads(truth_path.read_text())["requests"][-1]["cycle"]
    block = explain.split("Deadlocks")[1].split("\n\n")[0]
    assert f"mysqld/{worker['tid']} (host {worker['host']}, recvfrom) \u2190 replica/{replica['tid']} " \
        f"(host {replica['host']}, recvfrom)" in block
    assert "Left out: 1 request with truncated spans" in explain
