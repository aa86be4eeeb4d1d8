# SPDX-License-Identifier: MIT
"""The packed chain (doc/critical-path.md, "Encoding"): `chain_packed` text to the entries of `chain` as
plain Python values (unpack) and back (pack), for the tests: the same dicts whichever encoding a trace has."""

STATES = ("user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown")
KINDS = ("running", "wait-cpu", "wait", "timer", "irq", "softirq", "network", "in-flight", "disk",
         "unknown", "deadlock", "depth-limit")
LAST, MORE = ord("0"), ord("P")


class PackedError(ValueError):
    pass


def _uint(data, pos):
    value = shift = 0
    while pos < len(data):
        c = data[pos]
        pos += 1
        if LAST <= c < LAST + 32:
            if shift == 60 and c - LAST > 15:
                break
            return value | (c - LAST) << shift, pos
        if not MORE <= c < MORE + 32 or shift == 60:
            break
        value |= (c - MORE) << shift
        shift += 5
    raise PackedError(f"not an integer at byte {pos - 1}")


def _int(data, pos):
    code, pos = _uint(data, pos)
    return (code >> 1) ^ -(code & 1), pos


def unpack(text, span_begin):
    """The entries of a `chain_packed` text of a span that begins at `span_begin` (state and kind labels)."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    if not data or data[0] not in b"CD":
        raise PackedError("no C or D header")
    with_bytes, pos = data[0] == ord("D"), 1
    count, pos = _uint(data, pos)
    strings, entries, begin = [], [], span_begin

    def string(pos):
        ref, pos = _uint(data, pos)
        if ref:
            if ref > len(strings):
                raise PackedError(f"string {ref} of {len(strings)}")
            return strings[ref - 1], pos
        length, pos = _uint(data, pos)
        if pos + length > len(data):
            raise PackedError("string past the end")
        strings.append(data[pos:pos + length].decode())
        return strings[-1], pos + length

    for i in range(count):
        e = {}
        e["segment"], pos = _uint(data, pos)
        parent, pos = _uint(data, pos)
        e["parent"] = parent - 1
        if not 0 <= parent <= i:
            raise PackedError(f"entry {i}: parent {parent - 1}")
        e["depth"] = 0 if e["parent"] < 0 else entries[e["parent"]]["depth"] + 1
        delta, pos = _int(data, pos)
        e["begin"] = begin = begin + delta
        duration, pos = _int(data, pos)
        e["end"] = begin + duration
        e["host"], pos = string(pos)
        tid, pos = _int(data, pos)
        pid, pos = _int(data, pos)
        e["pid"], e["tid"] = pid + tid, tid
        e["comm"], pos = string(pos)
        e["process"], pos = string(pos)
        e["cpu"], pos = _int(data, pos)
        state, pos = _uint(data, pos)
        kind, pos = _uint(data, pos)
        e["state"] = STATES[state] if state < len(STATES) else state
        e["kind"] = KINDS[kind] if kind < len(KINDS) else kind
        e["detail"], pos = string(pos)
        if with_bytes:
            e["bytes"], pos = _uint(data, pos)
        entries.append(e)
    if pos != len(data):
        raise PackedError(f"{len(data) - pos} bytes after the last entry")
    return entries


def _put(value):
    out = bytearray()
    while value >= 32:
        out.append(MORE + (value & 31))
        value >>= 5
    out.append(LAST + value)
    return bytes(out)


def _zig(value):
    return _put(((value << 1) ^ (value >> 63)) & (2 ** 64 - 1))


def pack(entries, span_begin, with_bytes=False):
    """The `chain_packed` text of `entries` (dicts as unpack gives, state and kind as labels or values)."""
    out, table, begin = bytearray(b"D" if with_bytes else b"C"), {}, span_begin
    out += _put(len(entries))

    def string(text):
        if text in table:
            return _put(table[text])
        table[text] = len(table) + 1
        raw = text.encode()
        return _put(0) + _put(len(raw)) + raw

    for e in entries:
        state = STATES.index(e["state"]) if isinstance(e["state"], str) else e["state"]
        kind = KINDS.index(e["kind"]) if isinstance(e["kind"], str) else e["kind"]
        out += _put(e["segment"]) + _put(e["parent"] + 1) + _zig(e["begin"] - begin) + _zig(e["end"] - e["begin"])
        out += string(e["host"]) + _zig(e["tid"]) + _zig(e["pid"] - e["tid"]) + string(e["comm"]) + string(e["process"])
        out += _zig(e["cpu"]) + _put(state) + _put(kind) + string(e["detail"])
        if with_bytes:
            out += _put(e.get("bytes", 0))
        begin = e["begin"]
    return out.decode()
