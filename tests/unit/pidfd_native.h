/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * pidfd_open() for the unit tests, in place of the C library's (every unit
 * test links tests/unit/pidfd_native.c): under valgrind it runs the system
 * call on the real CPU, as valgrind 3.19 (Debian 12's) does not know it and
 * answers ENOSYS. The call and its result are the kernel's either way; the
 * library's code around it stays under valgrind's eye.
 */
#ifndef PIDFD_NATIVE_H
#define PIDFD_NATIVE_H

/* When not 0, pidfd_open() fails with this errno: a kernel without the call. */
extern int pidfd_native_fail;

#endif
