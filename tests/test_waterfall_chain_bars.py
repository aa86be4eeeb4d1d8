# SPDX-License-Identifier: MIT
"""The chain rectangles of report.html's waterfall (plugins/diff-sink/waterfall-svg.c), written without
printf since issue 12's performance work (doc/performance.md, "Chains"): every coordinate is what
printf's "%.2f" / "%.1f" gives (Python's `%` formatting rounds the same way, on the exact binary value),
and every tooltip holds the entry's names as they are — names with XML specials, arrows, long details
(more than the rectangle's buffer) and controls included — in a well-formed SVG."""
import xml.etree.ElementTree as ET

from span_fixtures import MS, STATES, chain_entry, dispatch_request, run_sink

SVG = "{http://www.w3.org/2000/svg}"
TITLES = ["User", "System call", "Waited blocked", "Waited CPU", "Interrupted", "Unknown"]
KINDS = ["running", "wait-cpu", "wait", "timer", "irq", "softirq", "network", "in-flight", "disk",
         "unknown", "deadlock", "depth-limit"]
LONG = "recvfrom \u2190 " + "x&<y>" * 130 + " \u2192 end"      # 650+ bytes, specials and arrows
ODD = "futex \u2190 my'sql\"/1289 caf\u00e9 \U0001F600"


def slow_request(trace, start):
    """dispatch_request with mysql blocked 100 ms, its chain three deep with awkward names."""
    spans = dispatch_request(trace, start, mysql_block=100 * MS)
    mysql = spans[2]
    b, e = mysql.segments[2][0], mysql.segments[2][1]
    third = (e - b) // 3
    mysql.chain = [
        chain_entry(2, -1, 0, b, e, "blocked", "wait", ODD, host="cu&st", tid=30, comm="my<sql>", process="mysqld"),
        chain_entry(2, 0, 1, b, b + third, "wait_cpu", "wait-cpu", "ran instead: compactor/991", host="beta",
                    tid=1289, comm="mysqld", cpu=1),
        chain_entry(2, 0, 1, b + third, e, "blocked", "wait", LONG, host="beta", tid=1289, comm="mysqld"),
        chain_entry(2, 2, 2, b + third, b + third + 7, "syscall", "running", "sendto", host="h\u00f6st",
                    tid=77, comm="tab\tcomm", cpu=3),
        chain_entry(2, 2, 2, b + third + 7, e, "unknown", "unknown", "unknown: history expired", host="beta",
                    tid=-1, comm="-"),
    ]
    return spans


def expected_title(e, span_begin, span_end):
    begin, end = max(e["begin"], span_begin), min(e["end"], span_end)
    comm = e["comm"].replace("\t", "\\t")            # the sanitizer shows controls as escapes
    cpu = f", CPU {e['cpu']}" if e["cpu"] >= 0 else ""
    return (f"{comm}/{e['tid']} on {e['host']}{cpu}: {TITLES[e['state']]}, {KINDS[e['kind']]}: "
            f"{e['detail']} ({end - begin} ns)")


def test_chain_rectangles_exact(bt2_plugin, tmp_path):
    spans = []
    for i in range(40):
        spans += dispatch_request(i + 1, i * 200 * MS)
    spans += slow_request(1000, 41 * 200 * MS)
    out = tmp_path / "report"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out)}, spans)
    page = (out / "report.html").read_text()
    request = [s for s in spans if s.trace == 1000]
    mysql = request[2]
    t0, t1 = min(s.begin for s in request), max(s.end for s in request)

    def x_of(t):
        return 330.0 + (t - t0) / (t1 - t0) * 880.0

    drawn = None
    for part in page.split("<svg class=\"waterfall\"")[1:]:
        root = ET.fromstring("<svg xmlns=\"http://www.w3.org/2000/svg\"" + part.split("</svg>")[0] + "</svg>")
        groups = [g for g in root.iter(SVG + "g") if g.get("class") == "chain"]
        if groups:
            drawn = groups
            break
    assert drawn, "no waterfall draws the chain"
    assert len(drawn) == 3                  # depths 0, 1, 2
    rects = [(depth, r) for depth, g in enumerate(drawn) for r in g.iter(SVG + "rect")]
    assert len(rects) == len(mysql.chain)
    by_depth = sorted(mysql.chain, key=lambda e: e["depth"])    # stable: time order within a depth
    for (depth, rect), e in zip(rects, by_depth):
        assert depth == e["depth"]
        begin, end = max(e["begin"], mysql.begin), min(e["end"], mysql.end)
        assert rect.get("x") == "%.2f" % x_of(begin)
        assert rect.get("width") == "%.2f" % max(x_of(end) - x_of(begin), 0.3)
        assert rect.get("height") == "11.0"
        assert rect.get("y").endswith(".0") and float(rect.get("y")) % 16 == 1
        assert rect.find(SVG + "title").text == expected_title(e, mysql.begin, mysql.end)
    assert STATES[by_depth[-1]["state"]] == "unknown"
