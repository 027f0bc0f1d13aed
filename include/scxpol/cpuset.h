/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * CPU sets: dynamically sized CPU bitmaps.
 *
 * A set holds CPUs 0..capacity-1, where the capacity is chosen at creation
 * (usually the number of possible CPUs, scxpol_topo_nr_cpus()): there is no
 * compile-time limit such as 64 or NR_CPUS. Bits are stored as 64-bit words,
 * CPU c in bit c % 64 of word c / 64, which is the layout BPF-side cpumask
 * code wants (scxpol_cpuset_words()).
 *
 * CPU lists use the kernel's text form (/sys/devices/system/cpu/online,
 * taskset -c): "0-3,8,10-11"; "" is the empty set.
 */
#ifndef SCXPOL_CPUSET_H
#define SCXPOL_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <scxpol/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct scxpol_cpuset;

/* Largest capacity a set can have (CPU numbers must fit in an int). */
#define SCXPOL_CPUSET_MAX_CAPACITY 0x7fffffffU

/*
 * scxpol_cpuset_new - an empty set that can hold CPUs 0..@capacity-1
 * (@capacity may be 0). Returns NULL with errno EINVAL when @capacity is
 * above SCXPOL_CPUSET_MAX_CAPACITY, ENOMEM when out of memory.
 */
SCXPOL_API struct scxpol_cpuset *scxpol_cpuset_new(unsigned int capacity);

/* scxpol_cpuset_dup - a copy of @s (same capacity). NULL + errno on failure. */
SCXPOL_API struct scxpol_cpuset *scxpol_cpuset_dup(const struct scxpol_cpuset *s);

/* scxpol_cpuset_free - free @s. NULL is a no-op. */
SCXPOL_API void scxpol_cpuset_free(struct scxpol_cpuset *s);

/* scxpol_cpuset_capacity - how many CPUs @s can hold (0 for NULL). */
SCXPOL_API unsigned int scxpol_cpuset_capacity(const struct scxpol_cpuset *s);

/*
 * scxpol_cpuset_set/clear - add or remove @cpu. Return 0, or -ERANGE when
 * @cpu >= the capacity (the message names the CPU and the capacity),
 * -EINVAL for a NULL set.
 */
SCXPOL_API int scxpol_cpuset_set(struct scxpol_cpuset *s, unsigned int cpu);
SCXPOL_API int scxpol_cpuset_clear(struct scxpol_cpuset *s, unsigned int cpu);

/* scxpol_cpuset_test - whether @cpu is in @s; false past the capacity. */
SCXPOL_API bool scxpol_cpuset_test(const struct scxpol_cpuset *s, unsigned int cpu);

/* scxpol_cpuset_count - number of CPUs in @s. */
SCXPOL_API unsigned int scxpol_cpuset_count(const struct scxpol_cpuset *s);

/*
 * scxpol_cpuset_next - the lowest CPU in @s that is greater than @cpu
 * (@cpu = -1 finds the first one), or -1 when there is none.
 */
SCXPOL_API int scxpol_cpuset_next(const struct scxpol_cpuset *s, int cpu);

/* Iterate @cpu (an int) over the CPUs of @s in increasing order. */
#define scxpol_cpuset_for_each(cpu, s) \
	for ((cpu) = scxpol_cpuset_next((s), -1); (cpu) >= 0; \
	     (cpu) = scxpol_cpuset_next((s), (cpu)))

/*
 * scxpol_cpuset_equal - whether @a and @b hold the same CPUs. Capacities
 * may differ: {1} with capacity 8 equals {1} with capacity 256.
 */
SCXPOL_API bool scxpol_cpuset_equal(const struct scxpol_cpuset *a, const struct scxpol_cpuset *b);

/* scxpol_cpuset_intersects - whether some CPU is in both @a and @b. */
SCXPOL_API bool scxpol_cpuset_intersects(const struct scxpol_cpuset *a,
					 const struct scxpol_cpuset *b);

/* scxpol_cpuset_subset - whether every CPU of @a is also in @b. */
SCXPOL_API bool scxpol_cpuset_subset(const struct scxpol_cpuset *a, const struct scxpol_cpuset *b);

/*
 * In-place set algebra. @dst keeps its capacity: CPUs of @src that @dst
 * cannot hold are ignored by scxpol_cpuset_or().
 *   or:     dst |= src
 *   and:    dst &= src
 *   andnot: dst &= ~src
 */
SCXPOL_API void scxpol_cpuset_or(struct scxpol_cpuset *dst, const struct scxpol_cpuset *src);
SCXPOL_API void scxpol_cpuset_and(struct scxpol_cpuset *dst, const struct scxpol_cpuset *src);
SCXPOL_API void scxpol_cpuset_andnot(struct scxpol_cpuset *dst, const struct scxpol_cpuset *src);

/*
 * scxpol_cpuset_parse - parse a CPU list ("0-3,8,10-11"; "" is empty) into a
 * new set of @capacity CPUs stored in *@out. The grammar is exactly the
 * kernel's printed form: comma-separated CPU numbers and ranges "A-B" with
 * A <= B, no spaces, no trailing comma. Items may repeat or come in any
 * order. Returns the set, or NULL with errno:
 *   EINVAL   syntax: `cpu list "0-3,x": bad character 'x' at column 5`,
 *            `cpu list "0-": expected a CPU number at column 3`,
 *            `cpu list "5-3": reversed range 5-3 at column 1`
 *   ERANGE   `cpu list "0-8": CPU 8 at column 3 is out of range (the set
 *            holds CPUs 0-7)`, `cpu list "99999999999": number at column 1
 *            is too large`
 *   ENOMEM
 * Columns count from 1.
 */
SCXPOL_API struct scxpol_cpuset *scxpol_cpuset_parse(const char *list, unsigned int capacity);

/*
 * scxpol_cpuset_format - write @s as a CPU list into @buf (NUL-terminated;
 * runs of two or more CPUs become ranges, "0-1"). Returns the length
 * without the NUL, or -ENOSPC (message gives the size needed; @buf is set
 * to "" when @len > 0) when it does not fit; -EINVAL for a NULL @s, or a
 * NULL @buf with @len > 0.
 */
SCXPOL_API int scxpol_cpuset_format(const struct scxpol_cpuset *s, char *buf, size_t len);

/*
 * scxpol_cpuset_words - the set's bitmap: CPU c is bit c % 64 of word
 * c / 64; *@nr_words (if not NULL) receives the number of words,
 * (capacity + 63) / 64. Bits at and past the capacity are zero. The
 * pointer is valid until @s is freed.
 */
SCXPOL_API const uint64_t *scxpol_cpuset_words(const struct scxpol_cpuset *s, size_t *nr_words);

#ifdef __cplusplus
}
#endif
#endif /* SCXPOL_CPUSET_H */
