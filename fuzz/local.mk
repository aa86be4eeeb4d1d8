# SPDX-License-Identifier: MIT
# fuzz: libFuzzer harnesses, built by fuzz/build with clang (not by automake: see doc/testing.md,
# "Fuzzing"); the corrupt-trace corpus script and the long run.
EXTRA_DIST += fuzz scripts/corrupt-corpus bench/fuzz-long
