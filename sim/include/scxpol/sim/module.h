/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Policy modules for libscxpol-sim: a policy's .bpf.c compiled for the
 * host as a shared object,
 *   cc -shared -fPIC -DSCXPOL_HOST_TEST $(pkg-config --cflags scxpol-sim) \
 *      mypol.bpf.c -o mypol.so $(pkg-config --libs scxpol-sim)
 * and opened here. What a loader does with the skeleton before load and
 * with the maps after it, the simulator's loaders do through this: write
 * the policy's `const volatile` globals, find its maps and programs by
 * name (then use them through <scxpol/sim/host.h>'s map helpers).
 */
#ifndef SCXPOL_SIM_MODULE_H
#define SCXPOL_SIM_MODULE_H

#include <stddef.h>

#include <scxpol/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

struct scxpol_sim_module;

/*
 * scxpol_sim_module_open - load the module at @path (dlopen: a path with a
 * '/' is a file, a bare name is searched as dlopen searches). NULL + errno
 * with the reason in scxpol_sim_module_error(): it does not load, or it is
 * not a policy (no struct_ops map). Each open module has its own maps and
 * globals; open it again for a fresh run (after closing it).
 */
SCXPOL_SIM_API struct scxpol_sim_module *scxpol_sim_module_open(const char *path);
SCXPOL_SIM_API void scxpol_sim_module_close(struct scxpol_sim_module *m);
SCXPOL_SIM_API const char *scxpol_sim_module_error(void);

/* The policy's struct_ops map, and its name (what /sys/kernel/sched_ext/root/ops shows). */
SCXPOL_SIM_API const struct sched_ext_ops *scxpol_sim_module_ops(const struct scxpol_sim_module *m);
SCXPOL_SIM_API const char *scxpol_sim_module_name(const struct scxpol_sim_module *m);

/* The address of the module's global @name (a map definition, a program), or NULL. */
SCXPOL_SIM_API void *scxpol_sim_module_sym(const struct scxpol_sim_module *m, const char *name);

/*
 * scxpol_sim_module_set - write @sz bytes of @val to the module's global
 * @name (a `const volatile` knob: the skeleton's rodata), before the
 * simulation starts. 0, -ENOENT (no such global), -EINVAL (its size is
 * not @sz), or an mprotect() error.
 */
SCXPOL_SIM_API int scxpol_sim_module_set(struct scxpol_sim_module *m, const char *name,
					 const void *val, size_t sz);

#ifdef __cplusplus
}
#endif
#endif
