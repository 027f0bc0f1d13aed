// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Policy modules: a policy's .bpf.c built as a shared object for the host
 * (-DSCXPOL_HOST_TEST, against libscxpol-sim), loaded with dlopen(). Its
 * struct_ops map is found through the pointer SCXPOL_OPS_DEFINE() defines
 * for the host, its maps and programs by their names, as libbpf finds
 * them in an object. Its `const volatile` globals (the skeleton's rodata)
 * are written before the simulation starts, as a loader writes them
 * before load: the page holding one is made writable for the write.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <scxpol/sim/module.h>

#include "kernel.h"

struct scxpol_sim_module {
	void *handle;
	const struct sched_ext_ops *ops;
	char *path;
};

static __thread char err[512];

const char *scxpol_sim_module_error(void)
{
	return err;
}

static int fail(int e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, sizeof(err), fmt, ap);
	va_end(ap);
	errno = e;
	return -e;
}

struct scxpol_sim_module *scxpol_sim_module_open(const char *path)
{
	struct sched_ext_ops *const *ops;
	struct scxpol_sim_module *m;
	void *h;

	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fail(ENOENT, "cannot load policy module %s: %s", path, dlerror());
		return NULL;
	}
	ops = dlsym(h, "scxpol_sim_ops");
	if (!ops || !*ops) {
		fail(EINVAL, "%s: no scxpol_sim_ops: not a policy built with -DSCXPOL_HOST_TEST "
		     "(SCXPOL_OPS_DEFINE() defines it)", path);
		dlclose(h);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		dlclose(h);
		fail(ENOMEM, "out of memory");
		return NULL;
	}
	m->handle = h;
	m->ops = *ops;
	return m;
}

void scxpol_sim_module_close(struct scxpol_sim_module *m)
{
	if (!m)
		return;
	dlclose(m->handle);
	free(m->path);
	free(m);
}

const struct sched_ext_ops *scxpol_sim_module_ops(const struct scxpol_sim_module *m)
{
	return m->ops;
}

const char *scxpol_sim_module_name(const struct scxpol_sim_module *m)
{
	return m->ops->name;
}

void *scxpol_sim_module_sym(const struct scxpol_sim_module *m, const char *name)
{
	return dlsym(m->handle, name);
}

struct seg_find {
	uintptr_t addr;
	int prot; /* of the loadable segment holding addr; -1 not found */
};

static int seg_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct seg_find *f = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || f->addr < lo || f->addr >= lo + ph->p_memsz)
			continue;
		f->prot = ((ph->p_flags & PF_R) ? PROT_READ : 0) |
			  ((ph->p_flags & PF_W) ? PROT_WRITE : 0) |
			  ((ph->p_flags & PF_X) ? PROT_EXEC : 0);
		return 1;
	}
	return 0;
}

int scxpol_sim_module_set(struct scxpol_sim_module *m, const char *name, const void *val,
			  size_t sz)
{
	struct seg_find seg = { .prot = -1 };
	long page = sysconf(_SC_PAGESIZE);
	const ElfW(Sym) *sym = NULL;
	uintptr_t start, end;
	Dl_info info;
	void *addr;

	addr = dlsym(m->handle, name);
	if (!addr || !dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return fail(ENOENT, "%s: no global '%s'", m->path, name);
	if (sym->st_size != sz)
		return fail(EINVAL, "%s: '%s' is %zu bytes, the loader writes %zu", m->path, name,
			    (size_t)sym->st_size, sz);
	seg.addr = (uintptr_t)addr;
	dl_iterate_phdr(seg_cb, &seg);
	if (seg.prot < 0)
		return fail(EINVAL, "%s: '%s' is in no loaded segment", m->path, name);
	start = (uintptr_t)addr & ~(uintptr_t)(page - 1);
	end = ((uintptr_t)addr + sz + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
	if (mprotect((void *)start, end - start, PROT_READ | PROT_WRITE))
		return fail(errno, "%s: cannot write '%s': %s", m->path, name, strerror(errno));
	memcpy(addr, val, sz);
	/* as its segment was: rodata read-only again, as the kernel freezes it at load */
	if (mprotect((void *)start, end - start, seg.prot))
		return fail(errno, "%s: cannot protect '%s' again: %s", m->path, name,
			    strerror(errno));
	return 0;
}
