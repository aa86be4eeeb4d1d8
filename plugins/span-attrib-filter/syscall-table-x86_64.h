/* SPDX-License-Identifier: MIT */
/*
 * x86_64 system call names, for the ids lttng-modules leaves unnamed (syscall_entry_unknown,
 * field `id`: e.g. 334 rseq, 318 getrandom, 435 clone3 with lttng-modules 2.13.9 on Linux 6.1).
 * The table is generated (gen-syscall-table-x86_64); see doc/span-attrib.md.
 */
#ifndef DEEPSPAN_SYSCALL_TABLE_X86_64_H
#define DEEPSPAN_SYSCALL_TABLE_X86_64_H

#include <stdint.h>

/* The name of x86_64 system call `id` (static storage), or NULL when the table has none. */
const char *ds_syscall_name_x86_64(int64_t id);

#endif /* DEEPSPAN_SYSCALL_TABLE_X86_64_H */
