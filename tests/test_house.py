# SPDX-License-Identifier: MIT
"""The house rules that a file can show: the licence is declared once (LICENSE, MIT as the plugin says),
every source file of the repository carries its SPDX line, and each shared object the build makes defines
one type per name (read from its DWARF: two `struct walk`s of two files are two types of one name)."""
import collections
import os
import subprocess

import pytest

from conftest import BUILD_DIR, PLUGIN_DIR, SRC_DIR

SPDX = "SPDX-License-Identifier: MIT"
# Data, fixtures and prose carry no licence line: fuzz inputs, recorded traces, docs, generated autotools input.
NOT_SOURCE = ("fuzz/corpus/", "fuzz/corpus-extra/", "fuzz/regressions/", "tests/fixtures/", "m4/")
NOT_SOURCE_NAMES = (".md", ".gitignore", ".gitkeep", ".editorconfig", "LICENSE", ".txt", ".json", ".xz")


def tracked_files():
    out = subprocess.run(["git", "-C", str(SRC_DIR), "ls-files"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return [line for line in out.stdout.splitlines()
            if not line.startswith(NOT_SOURCE) and not line.endswith(NOT_SOURCE_NAMES)]


def test_license_file_is_mit_as_the_plugin_declares():
    text = (SRC_DIR / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert 'BT_PLUGIN_LICENSE_WITH_ID(deepspan, "MIT")' in (SRC_DIR / "plugins" / "plugin.c").read_text()


def test_every_source_file_has_its_spdx_line():
    files = tracked_files()
    if files is None:
        pytest.skip("not a git checkout")
    missing = []
    for name in files:
        path = SRC_DIR / name
        if not path.is_file():
            continue
        head = path.read_bytes()[:400].decode("utf-8", "replace").splitlines()[:3]
        if not any(SPDX in line for line in head):
            missing.append(name)
    assert not missing, f"files without `{SPDX}` in their first 3 lines: {missing}"


DWARF_TYPE_TAGS = {"DW_TAG_structure_type": "struct", "DW_TAG_union_type": "union",
                   "DW_TAG_enumeration_type": "enum", "DW_TAG_typedef": "typedef"}


def _file_names(dwarf, cu):
    """The CU's line-table file names, by DW_AT_decl_file index (DWARF 5 counts from 0, earlier from 1)."""
    program = dwarf.line_program_for_CU(cu)
    version = program.header.version
    files, dirs = program["file_entry"], program["include_directory"]

    def name(index):
        entry = files[index if version >= 5 else index - 1]
        if version >= 5:
            directory = dirs[entry.dir_index]
        else:
            directory = dirs[entry.dir_index - 1] if entry.dir_index else b""
        return os.path.normpath(os.path.join(directory.decode(), entry.name.decode()))
    return name


def type_definitions(path):
    """{(kind, name): {(declaring file, line)}} of the named types an ELF object's DWARF defines."""
    from elftools.elf.elffile import ELFFile

    found = collections.defaultdict(set)
    with open(path, "rb") as stream:
        elf = ELFFile(stream)
        if not elf.has_dwarf_info():
            return None
        dwarf = elf.get_dwarf_info()
        for cu in dwarf.iter_CUs():
            file_name = _file_names(dwarf, cu)
            for die in cu.iter_DIEs():
                kind = DWARF_TYPE_TAGS.get(die.tag)
                attrs = die.attributes
                if kind is None or "DW_AT_name" not in attrs or "DW_AT_declaration" in attrs \
                        or "DW_AT_decl_file" not in attrs:
                    continue
                where = (file_name(attrs["DW_AT_decl_file"].value), attrs["DW_AT_decl_line"].value)
                found[(kind, attrs["DW_AT_name"].value.decode())].add(where)
    return found


@pytest.mark.parametrize("shared_object", [
    PLUGIN_DIR / "babeltrace-plugin-deepspan.so",
    BUILD_DIR / "instrumentation" / "nodejs" / "deepspan_vnode.node",
    BUILD_DIR / "instrumentation" / ".libs" / "libdeepspan-ust.so",
], ids=lambda path: path.name)
def test_each_shared_object_defines_one_type_per_name(shared_object):
    pytest.importorskip("elftools", reason="python3-pyelftools is not installed (scripts/dev setup installs it)")
    if not shared_object.exists():
        pytest.skip(f"{shared_object} is not built")
    definitions = type_definitions(shared_object.resolve())
    if definitions is None:
        pytest.skip(f"{shared_object} has no DWARF (built without -g)")
    assert definitions, f"{shared_object.name}: the DWARF reader found no type at all"
    twice = {f"{kind} {name}": sorted(f"{os.path.relpath(f, SRC_DIR)}:{line}" for f, line in where)
             for (kind, name), where in definitions.items() if len(where) > 1}
    assert not twice, f"{shared_object.name}: names defined as more than one type: {twice}"
