# SPDX-License-Identifier: MIT
"""Replaying the trace with the thread-state rules of DESIGN.md section 5 gives back the truth exactly.

This is what filter.deepspan.span-attrib computes; the test keeps the truth and the trace honest with each
other (a mismatch here would make span-attrib chase a simulator bug).
"""
import collections

import pytest

from scenario_fixtures import iterate, load_truth, make_scenario_trace

USER, SYSCALL, BLOCKED, WAIT_CPU, INTERRUPTED, UNKNOWN = STATES = (
    "user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")


def state_after_switch_out(prev_state):
    if prev_state in (0, 256) or (prev_state >= 1024 and prev_state & 1023 == 0):
        return WAIT_CPU
    if prev_state & (1 | 2 | 64 | 128):
        return BLOCKED
    return UNKNOWN


class Host:
    def __init__(self):
        self.current = {}                   # cpu -> tid
        self.state = {}                     # tid -> (state, since)
        self.syscall = {}                   # tid -> (name, entry ts)
        self.spans = collections.defaultdict(list)  # tid -> open spans
        self.done = {}

    def running_state(self, tid):
        return SYSCALL if tid in self.syscall else USER

    def set(self, tid, state, ts):
        old, since = self.state.get(tid, (UNKNOWN, ts))
        for span in self.spans.get(tid, ()):
            start = max(since, span["begin"])
            if ts > start:
                span["states"][old] += ts - start
        self.state[tid] = (state, ts)

    def is_running(self, tid):
        return tid in self.current.values()

    def kernel(self, name, cpu, ts, p):
        cur = self.current.get(cpu, 0)
        if name == "sched_switch":
            if p["prev_tid"]:
                self.set(p["prev_tid"], state_after_switch_out(p["prev_state"]), ts)
            self.current[cpu] = p["next_tid"]
            if p["next_tid"]:
                self.set(p["next_tid"], self.running_state(p["next_tid"]), ts)
        elif name in ("sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task"):
            if not self.is_running(p["tid"]):
                self.set(p["tid"], WAIT_CPU, ts)
        elif name.startswith("syscall_entry_") and cur:
            self.syscall[cur] = (name[len("syscall_entry_"):], ts)
            self.set(cur, SYSCALL, ts)
        elif name.startswith("syscall_exit_") and cur:
            entry = self.syscall.pop(cur, None)
            if entry:
                for span in self.spans.get(cur, ()):
                    sc = span["syscalls"].setdefault(entry[0], [0, 0])
                    sc[0] += 1
                    sc[1] += ts - max(entry[1], span["begin"])
            self.set(cur, USER, ts)
        elif name in ("irq_handler_entry", "irq_softirq_entry") and cur:
            self.set(cur, INTERRUPTED, ts)
        elif name in ("irq_handler_exit", "irq_softirq_exit") and cur:
            self.set(cur, self.running_state(cur), ts)

    def ust(self, name, tid, ts, p):
        if name == "deepspan_ust:span_start":
            self.set(tid, self.state.get(tid, (UNKNOWN, ts))[0], ts)
            self.spans[tid].append({"id": p["span_id"], "begin": ts, "tid": tid,
                                    "states": dict.fromkeys(STATES, 0), "syscalls": {}})
        elif name == "deepspan_ust:span_end":
            self.set(tid, self.state[tid][0], ts)
            span = self.spans[tid].pop()
            assert span["id"] == p["span_id"]
            span["end"] = ts
            self.done[span["id"]] = span


@pytest.mark.parametrize("cause", ["mixed", "cpu"])
def test_replay_matches_truth(tmp_path, plugin_dir, cause):
    truth_path = tmp_path / "truth.json"
    trace = make_scenario_trace(tmp_path / "trace", truth=truth_path, requests=25, cpus=2,
                                cause=cause, **{"slow-ratio": 0.4})
    hosts = collections.defaultdict(Host)
    for msg in iterate(trace):
        event = msg.event
        env = event.stream.trace.environment
        host = hosts[str(env["hostname"])]
        ts = msg.default_clock_snapshot.ns_from_origin
        payload = event.payload_field
        if str(env["domain"]) == "kernel":
            name = event.name
            wanted = ("prev_tid", "prev_state", "next_tid", "tid")
            p = {k: int(payload[k]) for k in wanted if k in payload}
            host.kernel(name, int(event.packet.context_field["cpu_id"]), ts, p)
        else:
            p = {"span_id": int(payload["span_id"])}
            host.ust(event.name, int(event.common_context_field["vtid"]), ts, p)
    replayed = {}
    for host in hosts.values():
        replayed.update(host.done)
    truth = load_truth(truth_path)
    assert len(replayed) == len(truth["spans"])
    mismatches = []
    for span in truth["spans"]:
        mine = replayed[span["span_id"]]
        syscalls = {s["name"]: [s["count"], s["duration"]] for s in span["syscalls"]}
        if mine["states"] != span["states"] or mine["syscalls"] != syscalls:
            mismatches.append((span["operation"], span["states"], mine["states"], syscalls, mine["syscalls"]))
    assert not mismatches, f"{len(mismatches)} spans differ, first: {mismatches[0]}"
