/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * /init of the initramfs that scripts/get-test-kernel builds for a distro
 * kernel whose 9p support is modular (Debian's): load the modules listed in
 * /lib/modules/order, mount the root that the kernel command line names
 * (root=TAG rootfstype=9p rootflags=OPTS [ro]) and hand over to init=PATH
 * in it, as the kernel itself does for a built-in 9p root. Built static
 * (cc -static) so that the initramfs needs no libc of its own.
 *
 * Modules are loaded with finit_module(MODULE_INIT_COMPRESSED_FILE): the
 * kernel decompresses the .ko.xz itself (CONFIG_MODULE_DECOMPRESS), so the
 * initramfs carries them as the package ships them. Any failure is printed
 * on the console with what failed and why, then init exits, which panics
 * the kernel: vm-run reports the console tail.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif

#define NEWROOT "/root"

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("initrd-init: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The value of "NAME=" on the kernel command line, or NULL. */
static char *cmdline_arg(char *cmdline, const char *name)
{
	size_t n = strlen(name);

	for (char *p = cmdline; (p = strstr(p, name)); p += n) {
		if ((p == cmdline || p[-1] == ' ') && p[n] == '=') {
			size_t len = strcspn(p + n + 1, " \n");
			char *v = strndup(p + n + 1, len);

			if (!v)
				fail("out of memory");
			return v;
		}
	}
	return NULL;
}

static int cmdline_flag(const char *cmdline, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = cmdline; (p = strstr(p, name)); p += n)
		if ((p == cmdline || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

static void load_modules(void)
{
	char name[256];
	FILE *order = fopen("/lib/modules/order", "r");

	if (!order)
		fail("cannot open /lib/modules/order: %s", strerror(errno));
	while (fgets(name, sizeof(name), order)) {
		char path[300];
		int fd;

		name[strcspn(name, "\n")] = '\0';
		if (!name[0])
			continue;
		snprintf(path, sizeof(path), "/lib/modules/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fail("cannot open %s: %s", path, strerror(errno));
		if (syscall(SYS_finit_module, fd, "", MODULE_INIT_COMPRESSED_FILE) && errno != EEXIST)
			fail("cannot load module %s: %s", path, strerror(errno));
		close(fd);
	}
	fclose(order);
}

int main(void)
{
	static char cmdline[4096];
	char *root, *fstype, *flags, *init;
	unsigned long mflags = 0;
	ssize_t n;
	int fd;

	mkdir("/dev", 0755);
	mkdir("/proc", 0555);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL))
		return 1; /* no console to say so on */
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (mount("proc", "/proc", "proc", 0, NULL))
		fail("cannot mount /proc: %s", strerror(errno));
	fd = open("/proc/cmdline", O_RDONLY);
	if (fd < 0 || (n = read(fd, cmdline, sizeof(cmdline) - 1)) < 0)
		fail("cannot read /proc/cmdline: %s", strerror(errno));
	cmdline[n] = '\0';
	close(fd);

	root = cmdline_arg(cmdline, "root");
	fstype = cmdline_arg(cmdline, "rootfstype");
	flags = cmdline_arg(cmdline, "rootflags");
	init = cmdline_arg(cmdline, "init");
	if (!root || !fstype || !init)
		fail("the kernel command line needs root=, rootfstype= and init= (it has: %s)", cmdline);
	if (cmdline_flag(cmdline, "ro"))
		mflags |= MS_RDONLY;

	load_modules();

	mkdir(NEWROOT, 0755);
	if (mount(root, NEWROOT, fstype, mflags, flags))
		fail("cannot mount root %s (type %s, options %s) at %s: %s", root, fstype,
		     flags ? flags : "none", NEWROOT, strerror(errno));
	/* the new root's init mounts its own /proc and /dev */
	umount2("/proc", MNT_DETACH);
	umount2("/dev", MNT_DETACH);
	if (chdir(NEWROOT) || mount(".", "/", NULL, MS_MOVE, NULL) || chroot(".") || chdir("/"))
		fail("cannot switch to the root mounted at %s: %s", NEWROOT, strerror(errno));
	execl(init, init, (char *)NULL);
	fail("cannot run init=%s in the new root: %s", init, strerror(errno));
	return 1;
}
