# SPDX-License-Identifier: MIT
# scripts/deepspan-vm: record real kernel traces in QEMU guests (doc/real-kernels.md).
bin_SCRIPTS += scripts/deepspan-vm
EXTRA_DIST += scripts/deepspan-vm
dist_docpages_DATA += doc/real-kernels.md
