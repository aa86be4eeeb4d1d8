/* SPDX-License-Identifier: MIT */
/* The x86_64 syscall table that names lttng-modules' syscall_entry_unknown ids (span-attrib). */
#include "unit.h"
#include "../../plugins/span-attrib-filter/syscall-table-x86_64.c"

int main(void)
{
	/* The ids lttng-modules 2.13.9 leaves unnamed on Linux 6.1 (seen in the real-kernel fixtures). */
	UNIT_EQ_STR(ds_syscall_name_x86_64(334), "rseq", "334 is rseq");
	UNIT_EQ_STR(ds_syscall_name_x86_64(318), "getrandom", "318 is getrandom");
	UNIT_EQ_STR(ds_syscall_name_x86_64(435), "clone3", "435 is clone3");
	UNIT_EQ_STR(ds_syscall_name_x86_64(324), "membarrier", "324 is membarrier");
	UNIT_EQ_STR(ds_syscall_name_x86_64(15), "rt_sigreturn", "15 is rt_sigreturn");
	UNIT_EQ_STR(ds_syscall_name_x86_64(158), "arch_prctl", "158 is arch_prctl");
	UNIT_EQ_STR(ds_syscall_name_x86_64(0), "read", "0 is read");
	UNIT_CHECK(ds_syscall_name_x86_64(-1) == NULL, "a negative id has no name");
	UNIT_CHECK(ds_syscall_name_x86_64(100000) == NULL, "an id past the table has no name");
	UNIT_CHECK(ds_syscall_name_x86_64(400) == NULL, "an unassigned id (400) has no name");
	return unit_finish();
}
