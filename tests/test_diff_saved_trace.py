# SPDX-License-Identifier: MIT
"""Issue 11, defect 12: a trace enriched by filter.deepspan.span-attrib and saved with sink.ctf.fs gives the
same diff as the direct run, byte for byte. babeltrace2 2.0.4's CTF decoder can give an empty string field
the text of an earlier event, so span-attrib never writes "" (a "none" is "-", doc/span-attrib.md) and the
sinks read both."""
import filecmp
import re

from conftest import DIFF_OUTPUTS, make_scenario_trace, run_babeltrace2


def test_saved_enriched_trace_gives_the_same_diff(tmp_path):
    trace = make_scenario_trace(tmp_path / "trace", requests=300, hosts=2, seed=11, cause="mixed",
                                **{"slow-ratio": 0.1})
    direct = tmp_path / "direct"
    run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.deepspan.diff", "-p", f'output-dir="{direct}",summary=false')
    saved = tmp_path / "saved"
    run_babeltrace2(trace, "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                    "-c", "sink.ctf.fs", "-p", f'path="{saved}"')
    assert not any(saved.rglob("*.la"))
    from_saved = tmp_path / "from-saved"
    run_babeltrace2(saved, "-c", "sink.deepspan.diff", "-p", f'output-dir="{from_saved}",summary=false')
    for name in DIFF_OUTPUTS:
        assert filecmp.cmp(direct / name, from_saved / name, shallow=False), f"{name} differs"
    # The states without a detail are plain leaves, not leaves named after another event's detail; with
    # chains (doc/critical-path.md) a Waited CPU segment names who ran instead, and the chains survive too.
    folded = (direct / "b.folded").read_text()
    assert re.search(r"\[User\] \d+$", folded, re.M)
    assert re.search(r"\[Waited CPU\] ran instead: \S+ \d+$", folded, re.M)
    assert not re.search(r"\[User\] \D", folded)
    assert not re.search(r" - \d+$", folded, re.M)
    assert re.search(r"\[Waited blocked\] [^;]+;[^;]+ \[", folded), "chains are saved and read back"


def test_old_empty_details_read_as_none(bt2_plugin, tmp_path):
    """Traces written before (detail "") and after ("-") give the same leaves."""
    from span_fixtures import MS, dispatch_request, run_sink

    def spans(none):
        out = []
        for i in range(30):
            for span in dispatch_request(i + 1, i * 100 * MS, route_wait=(MS if i == 29 else 0)):
                span.segments = [(b, e, s, d or none) for b, e, s, d in span.segments]
                out.append(span)
        return out

    old, new = tmp_path / "old", tmp_path / "new"
    run_sink(bt2_plugin, "diff", {"output-dir": str(old), "summary": False}, spans(""))
    run_sink(bt2_plugin, "diff", {"output-dir": str(new), "summary": False}, spans("-"))
    for name in DIFF_OUTPUTS:
        assert filecmp.cmp(old / name, new / name, shallow=False), f"{name} differs"
    assert "frontend: /dispatch;route: GET /route;[Waited CPU] 1000000" in (new / "b.folded").read_text()
