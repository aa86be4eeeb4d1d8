# SPDX-License-Identifier: MIT
"""Names from the trace in the sinks' outputs (issue 11, defect 5): invalid UTF-8 and control characters in
service, operation, host and detail names never make an SVG or the HTML ill-formed, never split a folded
line, and never reach the terminal raw.

Python bt2 cannot write invalid UTF-8 into a string field, so the spans are saved with sink.ctf.fs under
placeholder names of the same length, the placeholders are replaced by the hostile bytes in the binary
stream files, and the trace is read back with source.ctf.fs."""
import csv
import html.parser
import io
import json
import pathlib
import xml.etree.ElementTree as ET

import bt2

from conftest import DIFF_OUTPUTS, run_babeltrace2
from span_fixtures import MS, Span, SpanSource

# Same length as their placeholders: the CTF strings keep their layout.
HOSTILE = {
    b"SERVICEPLACEHOLD": b"svc\xff\xfe\n\x1b[31m;x\r\x01S",
    b"OPERATIONPLACEHO": b"op\xc3(\xe2\x82;\x1b]0;t\x07\t\x7fO",
    b"DETAILPLACEHOLDE": b"rd\x0b\x0c\xed\xa0\x80\xc2\x85z<&>'\"D",
    b"HOSTPLACEHOLDERX": b"h\n\x1b[2Jb\xf4\x90\x80\x80\xc0\xaf!HH",
}
for _placeholder, _value in HOSTILE.items():
    assert len(_placeholder) == len(_value)
SERVICE, OPERATION, DETAIL, HOST = (p.decode() for p in HOSTILE)


def hostile_spans(n=30):
    spans = []
    for i in range(n):
        t = (i + 1) * 100 * MS
        extra = 50 * MS if i == n - 1 else i * 10_000
        end = t + 10 * MS + extra
        spans.append(Span(i + 1, 1, 0, SERVICE, OPERATION, t, end, host=HOST,
                          segments=[(t, t + 2 * MS, "user", "-"), (t + 2 * MS, end, "syscall", DETAIL)]))
        spans.append(Span(i + 1, 2, 1, "db", OPERATION, t + 3 * MS, t + 5 * MS, host=HOST,
                          segments=[(t + 3 * MS, t + 5 * MS, "blocked", DETAIL)], syscalls=[(DETAIL, 1, MS)]))
    return spans


def save_spans(spans, out):
    """SpanSource(spans) -> sink.ctf.fs; metadata is written when the graph is destroyed (on return)."""
    graph = bt2.Graph()
    src = graph.add_component(SpanSource, "src", obj={"spans": spans})
    sink = graph.add_component(bt2.find_plugin("ctf").sink_component_classes["fs"], "sink",
                               {"path": str(out)})
    graph.connect_ports(src.output_ports["out"], sink.input_ports["in"])
    graph.run()


def save_hostile_trace(tmp_path):
    """The spans through sink.ctf.fs, then the placeholders replaced by HOSTILE in the stream files."""
    out = tmp_path / "ctf"
    save_spans(hostile_spans(), out)
    patched = 0
    for stream in out.rglob("*"):
        if not stream.is_file() or stream.name == "metadata":
            continue
        data = stream.read_bytes()
        for placeholder, value in HOSTILE.items():
            patched += data.count(placeholder)
            data = data.replace(placeholder, value)
        stream.write_bytes(data)
    assert patched > 0
    return next(p.parent for p in out.rglob("metadata"))


def check_text(data, what):
    text = data.decode("utf-8")  # strict: any invalid UTF-8 fails
    for raw in ("\x1b", "\r", "\x07", "\x0b", "\x0c", "\x7f", "\x85", "\x01"):
        assert raw not in text, f"raw {raw!r} in {what}"
    return text


class _Strict(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []

    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "input", "br", "img", "link"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-3:]}"
        self.stack.pop()


def test_hostile_names_in_diff_outputs(tmp_path):
    trace = save_hostile_trace(tmp_path)
    out = tmp_path / "report"
    proc = run_babeltrace2(trace, "-c", "sink.deepspan.diff", "-p", f'output-dir="{out}"')
    stdout = check_text(proc.stdout.encode(), "stdout")
    assert "\\x1b[31m" in stdout  # the escape sequence is shown, not interpreted
    assert "\ufffd" in stdout  # invalid UTF-8 became U+FFFD
    check_text(proc.stderr.encode(), "stderr")
    for name in ("diff.svg", "a.svg", "b.svg"):
        root = ET.fromstring((out / name).read_bytes())  # well-formed XML
        labels = [g.get("data-label") for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-label")]
        assert any("\ufffd" in label and "\\x1b" in label for label in labels), name
    page = (out / "report.html").read_bytes()
    check_text(page, "report.html")
    parser = _Strict()
    parser.feed(page.decode())
    parser.close()
    for svg in page.decode().split("<svg")[1:]:
        ET.fromstring("<svg" + svg.split("</svg>")[0] + "</svg>")  # every inline SVG is well-formed XML
    explain = check_text((out / "explain.txt").read_bytes(), "explain.txt")
    assert "svc\ufffd\ufffd\\n\\x1b[31m,x" not in explain  # `;` is only replaced in folded stacks
    assert "svc\ufffd\ufffd\\n\\x1b[31m;x\\r\\x01S: op\ufffd(\ufffd\ufffd;\\x1b]0;t\\x07\\t\\x7fO" in explain
    for name in ("a.folded", "b.folded"):
        lines = check_text((out / name).read_bytes(), name).splitlines()
        # Two frames with own time per request tree: the root's [User] and [System call] leaves, and db's
        # [Waited blocked] leaf: three lines, each `frames value` with the frames split only at `;`.
        assert len(lines) == 3, lines
        for line in lines:
            stack, value = line.rsplit(" ", 1)
            assert int(value) > 0
            frames = stack.split(";")
            assert frames[0] == "svc\ufffd\ufffd\\n\\x1b[31m,x\\r\\x01S: op\ufffd(\ufffd\ufffd,\\x1b]0,t\\x07\\t\\x7fO"
            assert len(frames) in (2, 3)
    diff_lines = check_text((out / "diff.folded").read_bytes(), "diff.folded").splitlines()
    assert len(diff_lines) == 3 and all(len(line.rsplit(" ", 2)) == 3 for line in diff_lines)
    for name in DIFF_OUTPUTS:
        check_text((out / name).read_bytes(), name)


def test_hostile_names_in_metrics(tmp_path):
    trace = save_hostile_trace(tmp_path)
    for by in ("operation", "request", "syscall", "thread"):
        for fmt in ("text", "csv", "json", "markdown"):
            proc = run_babeltrace2(trace, "-c", "sink.deepspan.metrics", "-p", f'by="{by}",format="{fmt}"')
            text = check_text(proc.stdout.encode(), f"metrics {by} {fmt}")
            if fmt == "json":
                rows = json.loads(text)["rows"]
            elif fmt == "csv":
                rows = list(csv.DictReader(io.StringIO(text)))
            else:
                # One line per row: the header (and markdown's rule) then the rows.
                rows = text.splitlines()[1 if fmt == "text" else 2:]
            expected = {"operation": 2, "request": 30, "syscall": 1, "thread": 1}[by]
            assert len(rows) == expected, (by, fmt, text)


def test_valid_names_unchanged(bt2_plugin, tmp_path):
    """Printable UTF-8 passes through every output unchanged (only XML entities in SVG/HTML)."""
    from span_fixtures import run_sink
    name = "caf\u00e9 \u2190 \u6f22\u5b57 <a&b>"
    spans = [Span(i + 1, 1, 0, "svc", name, i * 10 * MS, i * 10 * MS + MS + i * 1000) for i in range(20)]
    out = tmp_path / "ok"
    run_sink(bt2_plugin, "diff", {"output-dir": str(out), "summary": False}, spans)
    assert f"svc: {name};[User]" in (out / "a.folded").read_text()
    assert "caf\u00e9 \u2190 \u6f22\u5b57 &lt;a&amp;b&gt;" in (out / "a.svg").read_text()
    ET.parse(out / "a.svg")
    assert pathlib.Path(out / "explain.txt").read_text().count(name) >= 1
