/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Shared between the fake kernel's files; tests use host_fake.h only. */
#ifndef SCXPOL_FAKE_INTERNAL_H
#define SCXPOL_FAKE_INTERNAL_H

/* A bug in a test or in the fake: print and abort. */
void fake_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fake_maps_reset(void);

#endif
