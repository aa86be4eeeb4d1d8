# SPDX-License-Identifier: MIT
"""filter.deepspan.span-attrib never drops input silently (Python bt2 graphs, scripted sources)."""
import bt2
import pytest

from span_attrib_support import STATES, run_script
from test_span_attrib_graph import HOST, end, kev, start, sw


def states(span):
    return {s: span[s] for s in STATES if span[s]}


def one_line(text):
    return " ".join(text.split())


def test_discarded_packets_make_threads_unknown(bt2_plugin, capfd):
    script = [
        sw(1000, 0, 0, 0, 100), start(1001, 100, 1),
        ("discard_packets", HOST, "k0", 1010, 1015, 3),
        kev(1020, 0, "syscall_entry_read"),      # current thread unknown after the loss: ignored
        sw(1030, 0, 100, 1, 0),
        end(1040, 100, 1),
    ]
    _, spans = run_script(bt2_plugin, script)
    # before the fix, the lost time was User: {"user": 29, "blocked": 10}
    assert states(spans[0]) == {"user": 9, "unknown": 20, "blocked": 10}
    err = one_line(capfd.readouterr().err)
    assert ("1 discarded-packets message(s) (3 packets lost): threads of the host were Unknown "
            "until their next defining event.") in err


def test_discarded_events_without_count_list_no_zero(bt2_plugin, capfd):
    script = [sw(1000, 0, 0, 0, 100), start(1001, 100, 1),
              ("discard", HOST, "k0", 1010, 1015, None), sw(1030, 0, 100, 1, 0), end(1040, 100, 1)]
    run_script(bt2_plugin, script)
    err = one_line(capfd.readouterr().err)
    assert "1 discarded-events message(s): threads of the host were Unknown" in err
    assert "0 events lost" not in err


def test_stream_without_clock_warns(bt2_plugin, capfd):
    script = [sw(1000, 0, 0, 0, 100), start(1001, 100, 1), end(1040, 100, 1)]
    _, spans = run_script(bt2_plugin, script, clock={"none": True})
    assert spans == []
    err = one_line(capfd.readouterr().err)
    assert "filter.deepspan.span-attrib" in err
    # one warning per stream: the kernel stream and the UST stream of host h1
    assert err.count("has no default clock: its kernel and span events are ignored (no span comes "
                     "from it).") == 2
    assert "(host `h1`) has no default clock" in err
    assert "see doc/span-attrib.md" in err


def test_kernel_stream_without_cpu_id_warns(bt2_plugin, capfd):
    script = [sw(1000, 0, 0, 0, 100), start(1001, 100, 1), kev(1010, 0, "syscall_entry_read"),
              end(1040, 100, 1)]
    _, spans = run_script(bt2_plugin, script, kernel_cpu_id=False)
    assert states(spans[0]) == {"unknown": 39}
    err = one_line(capfd.readouterr().err)
    assert err.count("has no integer `cpu_id` member in its packet context") == 1
    assert ("(host `h1`) has no integer `cpu_id` member in its packet context: the CPU of its events "
            "is unknown, so the time of its threads is Unknown.") in err


def test_negative_vtid_is_said_invalid(bt2_plugin, capfd):
    script = [sw(1000, 0, 0, 0, 100),
              (1001, HOST, "u", "deepspan_ust:span_start",
               dict(trace_id_high=0, trace_id_low=1, span_id=1, parent_span_id=0, service="s",
                    operation="o", kind=1, vpid=100, vtid=-5, procname="proc")),
              end(1040, 100, 1)]
    _, spans = run_script(bt2_plugin, script)
    assert states(spans[0]) == {"unknown": 39}
    err = one_line(capfd.readouterr().err)
    assert "1 span(s) had a negative (invalid) vtid context value" in err
    assert "had no vtid context" not in err


@pytest.mark.parametrize("offset_s, what", [
    (2 ** 40, "the offset of clock `monotonic`"),
    # the offset fits (about 9.2e9 s), the event times do not
    (9223372036, "the timestamp of event `sched_switch` (1000000000 cycles) of clock `monotonic`"),
])
def test_clock_offset_near_the_limits_fails_cleanly(bt2_plugin, offset_s, what):
    script = [sw(1_000_000_000, 0, 0, 0, 100), start(1_000_000_001, 100, 1), end(1_000_000_040, 100, 1)]
    with pytest.raises(bt2._Error) as info:
        run_script(bt2_plugin, script, clock={"offset_s": offset_s, "unix_epoch": True})
    causes = one_line(" | ".join(str(c.message) for c in info.value))
    assert (f"filter.deepspan.span-attrib: host `h1`, trace `(unnamed)`: {what} (offset {offset_s} s + 0 "
            "cycles, frequency 1000000000 Hz) does not fit in signed 64-bit nanoseconds from the clock's "
            "origin") in causes
    assert "see doc/span-attrib.md" in causes
