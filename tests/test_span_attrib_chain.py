# SPDX-License-Identifier: MIT
"""filter.deepspan.span-attrib's chains (doc/critical-path.md): parameters, the `chain` member's invariants on
the scenario and on the real traces, follow-wakeups=false unchanged, a saved trace read back."""
import functools
import gc

import bt2
import pytest

from chain_support import chain_problems, ctf_spans, leaves, scenario_spans
from conftest import make_scenario_trace, run_babeltrace2
from span_attrib_support import ONE_SPAN_SCRIPT, Collector, Source, payload_dict, run_script, strip_details_members
from span_fixtures import error_text

STATES = ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")


@pytest.mark.parametrize("params, texts", [
    ({"follow-wakeups": True, "segments": False},
     ["parameter `follow-wakeups`: expected false (or absent) when `segments` is false, got true",
      "doc/critical-path.md"]),
    ({"chain-depth": 0}, ["chain-depth", "[1, 64]", "0"]),
    ({"chain-depth": 65}, ["chain-depth", "[1, 64]", "65"]),
    ({"chain-depth": "8"}, ["chain-depth", "unsigned integer"]),
    ({"chain-window": "0s"}, ["parameter `chain-window`: expected a duration above 0", "got 0"]),
    ({"chain-window": "2 parsecs"}, ["chain-window", "2 parsecs"]),
    ({"follow-wakeups": "yes"}, ["follow-wakeups", "a boolean"]),
    ({"chain-encoding": "compact"}, ["parameter `chain-encoding`: expected one of the", '"packed", "fields"',
                                     '"compact"']),
])
def test_bad_chain_parameters(bt2_plugin, params, texts):
    graph = bt2.Graph()
    with pytest.raises(bt2._Error) as exc:
        graph.add_component(bt2_plugin.filter_component_classes["span-attrib"], "sa", params=params)
    message = error_text(exc.value)
    assert "filter.deepspan.span-attrib" in message
    for text in texts:
        assert text in message


def _member_names(bt2_plugin, params):
    return list(run_script(bt2_plugin, ONE_SPAN_SCRIPT, dict({"pass-through": False}, **params))[1][0])


def test_chain_member_present_only_with_follow_wakeups(bt2_plugin):
    names = _member_names(bt2_plugin, {"layers": False, "host-context": False})
    assert names[-1] == "chain"
    names = _member_names(bt2_plugin, {})
    # `chain` right after `truncated`; the layers members follow `chain` (doc/storage-network.md, "Page cache"),
    # then the host context (doc/host-context.md)
    assert names[names.index("truncated") + 1] == "chain"
    assert names[names.index("chain") + 1:][:4] == ["cache_hits", "cache_misses", "cache_hit_time", "cache_miss_time"]
    assert names[-2:] == ["host_window", "host_context"]
    assert "chain" not in _member_names(bt2_plugin, {"follow-wakeups": False})
    assert "chain" not in _member_names(bt2_plugin, {"segments": False})


def _details(trace, *params):
    proc = run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", ",".join(("pass-through=false",) + params),
                           "-c", "sink.text.details")
    return proc.stdout


def _strip_chain(text, member):
    """sink.text.details output without the chain member (its class description and every value)."""
    return strip_details_members(text, member)


@pytest.mark.parametrize("encoding, member", [(None, "chain_packed"), ("fields", "chain")])
def test_follow_wakeups_false_changes_nothing_else(tmp_path, encoding, member):
    """The whole sink.text.details output with chains is the follow-wakeups=false one plus the chain member."""
    trace = make_scenario_trace(tmp_path / "t", requests=40, hosts=2, cause="lock", seed=3)
    off = _details(trace, "follow-wakeups=false")
    on = _details(trace, *([f"chain-encoding={encoding}"] if encoding else []))
    assert f"{member}:" not in off and f"{member}:" in on
    assert _strip_chain(on, member) == _strip_chain(off, member)


def test_packed_and_fields_encode_the_same_chains(bt2_plugin):
    """chain-encoding=packed (the default) and fields give the same entries, on every span of a mixed run."""
    params = {"requests": 40, "hosts": 3, "cause": "mixed", "seed": 5}
    packed = scenario_spans(bt2_plugin, params)
    fields = scenario_spans(bt2_plugin, params, {"chain-encoding": "fields"})
    assert len(packed) == len(fields) > 0
    assert sum(len(s["chain"]) for s in packed) > 100
    assert packed == fields


@pytest.mark.parametrize("seed, hosts, cause, clock", [
    (1, 2, "lock", "none"),
    (2, 3, "cpu", "none"),
    (3, 5, "irq", "none"),
    (4, 4, "mixed", "random"),
])
def test_scenario_chains_partition_segments(bt2_plugin, seed, hosts, cause, clock):
    params = {"requests": 40, "hosts": hosts, "cause": cause, "seed": seed, "clock": clock}
    spans = scenario_spans(bt2_plugin, params)
    plain = scenario_spans(bt2_plugin, params, {"follow-wakeups": False})
    assert spans and len(spans) == len(plain)
    for span, before in zip(spans, plain):
        assert chain_problems(span) == [], (span["operation"], span["span_id"])
        assert [span[s] for s in STATES] == [before[s] for s in STATES]
        assert span["segments"] == before["segments"]
        assert all(e["begin"] < e["end"] for e in span["chain"])
    kinds = {e["kind"] for span in spans for e in leaves(span)}
    assert "wait-cpu" in kinds
    if clock == "none" and hosts > 1:
        # requests cross hosts: some waits continue on the remote sender
        assert any(e["kind"] == "network" for span in spans for e in span["chain"])
        assert any(e["kind"] == "in-flight" and e["end"] > e["begin"] for span in spans for e in span["chain"])


def _per_tid_spans(kernel_dir, host, begin, end, tids):
    script = [(begin, host, "u", "deepspan_ust:span_start",
               dict(trace_id_high=0, trace_id_low=1, span_id=tid, parent_span_id=0, service="s", operation="o",
                    kind=0, vpid=tid, vtid=tid, procname="p")) for tid in tids]
    script += [(end, host, "u", "deepspan_ust:span_end",
                dict(trace_id_high=0, trace_id_low=1, span_id=tid, status=1, vpid=tid, vtid=tid, procname="p"))
               for tid in tids]
    return script


class _Scan(bt2._UserSinkComponent):
    """Reads one port without any muxer (the synctraces' packets overlap): obj = (times, tids, hosts)."""

    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._times, self._tids, self._hosts = obj

    def _user_graph_is_configured(self):
        self._it = self._create_message_iterator(self._port)

    def _user_consume(self):
        try:
            msg = next(self._it)
        except StopIteration:
            self._it = None
            raise
        if type(msg) is bt2._EventMessageConst:
            self._times.append(msg.default_clock_snapshot.ns_from_origin)
            self._hosts.add(str(msg.event.stream.trace.environment["hostname"]))
            if msg.event.name == "sched_switch":
                self._tids.add(int(msg.event["next_tid"]))


@functools.lru_cache(maxsize=None)
def _scan(kernel_dir):
    """(first time, last time, tids, host) of one kernel trace directory (read once per test run)."""
    ctf = bt2.find_plugin("ctf").source_component_classes["fs"]
    times, tids, hosts = [], set(), set()
    graph = bt2.Graph()
    src = graph.add_component(ctf, "k", params={"inputs": [str(kernel_dir)]})
    for i, port in enumerate(src.output_ports.values()):
        sink = graph.add_component(_Scan, f"scan{i}", obj=(times, tids, hosts))
        graph.connect_ports(port, sink.input_ports["in"])
    graph.run()
    del graph, src
    gc.collect()
    assert len(hosts) == 1
    return min(times), max(times), tuple(sorted(t for t in tids if t > 0)), hosts.pop()


def _real_spans(bt2_plugin, kernel_dirs, params, middle_percent=90):
    """One span per thread over the middle `middle_percent` of the trace of each kernel directory, through
    span-attrib."""
    ctf = bt2.find_plugin("ctf").source_component_classes["fs"]
    scripts = []
    for kernel_dir in kernel_dirs:
        first, last, tids, host = _scan(kernel_dir)
        margin = (last - first) * (100 - middle_percent) // 200
        scripts += _per_tid_spans(kernel_dir, host, first + margin, last - margin, list(tids))
    scripts.sort(key=lambda s: s[0])
    graph = bt2.Graph()
    ports = []
    for i, kernel_dir in enumerate(kernel_dirs):
        src = graph.add_component(ctf, f"k{i}", params={"inputs": [str(kernel_dir)]})
        ports += list(src.output_ports.values())
    src_u = graph.add_component(Source, "spans", obj={"script": scripts})
    ports.append(src_u.output_ports["out"])
    flt = graph.add_component(bt2_plugin.filter_component_classes["span-attrib"], "sa",
                              params=dict({"pass-through": False}, **params))
    out = []
    sink = graph.add_component(Collector, "sink", obj=out)
    for i, port in enumerate(ports):
        graph.connect_ports(port, flt.input_ports[f"in{i}"])
    graph.connect_ports(flt.output_ports["out"], sink.input_ports["in"])
    graph.run()
    spans = [payload_dict(m.event) for m in out
             if type(m) is bt2._EventMessageConst and m.event.name == "deepspan:span"]
    del graph, flt, sink, out, src_u
    gc.collect()
    return spans


@pytest.mark.parametrize("dirs", [["cat-kern-ust/cat-kernel"], ["synctraces/scp_src", "synctraces/scp_dest"]])
def test_real_traces_chains_partition(shared_traces, bt2_plugin, dirs):
    kernel_dirs = [shared_traces / d for d in dirs]
    # the middle tenth: on cat-kernel a span per thread over 90% carries 900,000 chain entries, which
    # take the Python bindings minutes to read
    spans = _real_spans(bt2_plugin, kernel_dirs, {}, middle_percent=10)
    plain = _real_spans(bt2_plugin, kernel_dirs, {"follow-wakeups": False}, middle_percent=10)
    assert len(spans) == len(plain) > 0
    key = lambda s: (s["host"], s["span_id"])
    plain_by = {key(s): s for s in plain}
    waited = 0
    for span in spans:
        assert chain_problems(span) == [], (span["host"], span["tid"], chain_problems(span)[:3])
        assert [span[s] for s in STATES] == [plain_by[key(span)][s] for s in STATES]
        waited += sum(1 for seg in span["segments"] if seg["state"] in ("blocked", "wait_cpu"))
    assert waited > 100
    details = {e["detail"] for span in spans for e in span["chain"]}
    assert any(d.startswith("ran instead: ") for d in details)
    assert {span["host"] for span in spans} == ({"VM1", "VM3"} if len(dirs) == 2 else {"wilbrod"})


def test_saved_chains_read_back_equal(tmp_path, bt2_plugin):
    trace = make_scenario_trace(tmp_path / "t", requests=30, hosts=2, cause="lock", seed=5, clock="none")
    saved = tmp_path / "enriched"
    run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.ctf.fs", "-p", f'path="{saved}"')
    direct = ctf_spans([trace], bt2_plugin)
    back = []
    for msg in bt2.TraceCollectionMessageIterator(str(saved)):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "deepspan:span":
            # sink.ctf.fs adds the dynamic arrays' length fields (`__chain_len`, ...)
            back.append({k: v for k, v in payload_dict(msg.event).items() if not k.startswith("__")})
    key = lambda s: (s["host"], s["span_id"])
    assert sorted(map(str, sorted(direct, key=key))) == sorted(map(str, sorted(back, key=key)))
    assert any(span["chain"] for span in back)


def test_packed_example_of_the_doc_decodes_as_it_says():
    """doc/critical-path.md, "Encoding": the example text is that entry, both ways (tests/chain_packed.py)."""
    import pathlib
    import re
    import chain_packed
    doc = (pathlib.Path(__file__).resolve().parent.parent / "doc" / "critical-path.md").read_text()
    text = re.search(r"packs as\n\n```\n(.*)\n```", doc).group(1)
    entry = dict(segment=1, parent=-1, depth=0, begin=1025, end=2025, host="alpha", pid=7, tid=8, comm="mysqld",
                 process="mysqld", cpu=-1, state="blocked", kind="timer", detail="nanosleep \u2190 timer")
    assert chain_packed.unpack(text, 1000) == [entry]
    assert chain_packed.pack([entry], 1000) == text
    assert "1000 is `XO`" in doc and chain_packed._put(1000) == b"XO" and chain_packed._put(32) == b"P1"
