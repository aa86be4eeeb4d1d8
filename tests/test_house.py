# SPDX-License-Identifier: MIT
"""The house rules that a file can show: the licence is declared once (LICENSE, MIT as the plugin says) and
every source file of the repository carries its SPDX line."""
import subprocess

from conftest import SRC_DIR

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
        import pytest
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
