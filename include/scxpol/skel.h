/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What a policy's loader includes before its bpftool-generated skeleton:
 * the UAPI integer types the skeleton uses for BPF globals (the build's
 * scxpol-bpf-skel writes __u64 where the BPF source says u64, so no short
 * typedef enters the loader) and the glue that lets the library drive the
 * skeleton.
 *
 *   #include <scxpol/skel.h>
 *   #include "my.bpf.skel.h"
 *   SCXPOL_SKEL_DEFINE(my_bpf);
 *   ... opts.skel = SCXPOL_SKEL(my_bpf);
 */
#ifndef SCXPOL_SKEL_H
#define SCXPOL_SKEL_H

#include <linux/types.h>

#include <scxpol/sched.h>

/*
 * How the library drives a bpftool-generated skeleton. Fill it with
 * SCXPOL_SKEL_DEFINE(name), where `name` is the skeleton's type name
 * (e.g. minimal_bpf for minimal.bpf.c).
 */
struct scxpol_skel {
	void *(*open)(const struct bpf_object_open_opts *opts);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
	struct bpf_object *(*object)(void *skel);
};

/*
 * Define the struct scxpol_skel of skeleton type @name (static, in the
 * loader's file): wrappers of name__open_opts(), name__load(),
 * name__destroy() and the skeleton's object.
 */
#define SCXPOL_SKEL_DEFINE(name)                                              \
	static void *name##__scxpol_open(const struct bpf_object_open_opts *o) \
	{                                                                      \
		return name##__open_opts(o);                                   \
	}                                                                      \
	static int name##__scxpol_load(void *s)                                \
	{                                                                      \
		return name##__load((struct name *)s);                         \
	}                                                                      \
	static void name##__scxpol_destroy(void *s)                            \
	{                                                                      \
		name##__destroy((struct name *)s);                             \
	}                                                                      \
	static struct bpf_object *name##__scxpol_object(void *s)               \
	{                                                                      \
		return ((struct name *)s)->obj;                                \
	}                                                                      \
	static const struct scxpol_skel name##__scxpol_skel = {                \
		.open = name##__scxpol_open,                                   \
		.load = name##__scxpol_load,                                   \
		.destroy = name##__scxpol_destroy,                             \
		.object = name##__scxpol_object,                               \
	}

/* The skeleton description produced by SCXPOL_SKEL_DEFINE(name). */
#define SCXPOL_SKEL(name) (&name##__scxpol_skel)

#endif
