// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* pidfd_open() under valgrind (pidfd_native.h). */
#include <errno.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "pidfd_native.h"

int pidfd_native_fail;

#if defined(__x86_64__) && __has_include(<valgrind/valgrind.h>)
/*
 * Called by valgrind on the real CPU (its first argument is valgrind's
 * thread id): the raw system call, -errno on failure. Nothing here may go
 * through the C library, whose state (errno) is the simulated CPU's.
 */
static unsigned long native_pidfd_open(unsigned long vg_tid, unsigned long pid,
				       unsigned long flags)
{
	long r;

	(void)vg_tid;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_pidfd_open), "D"(pid), "S"(flags)
			 : "rcx", "r11", "memory");
	return (unsigned long)r;
}
#endif

int pidfd_open(pid_t pid, unsigned int flags)
{
	if (pidfd_native_fail) {
		errno = pidfd_native_fail;
		return -1;
	}
#if defined(__x86_64__) && __has_include(<valgrind/valgrind.h>)
	if (RUNNING_ON_VALGRIND) {
		long r = (long)VALGRIND_NON_SIMD_CALL2(native_pidfd_open, (unsigned long)pid,
						       (unsigned long)flags);

		if (r < 0) {
			errno = (int)-r;
			return -1;
		}
		return (int)r;
	}
#endif
	return (int)syscall(SYS_pidfd_open, pid, flags);
}
