/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IAT consistent hashing (Algorithm 3 of the serverless paper): the control
 * plane's choice of a scheduling domain for each invocation, with capacity
 * accounting.
 *
 * Per function the policy keeps an inter-arrival time estimate: the first
 * gap sets it, later gaps update it as an EWMA, iat = alpha * gap +
 * (1 - alpha) * iat (alpha = 1: the last IAT). The gap of an arrival counts
 * towards its own estimate. A function's first arrival has no IAT yet and
 * uses the bucket FAAS_IAT_BUCKET_NEW.
 *
 * On arrival:
 *   bucket = floor(iat / bucket_us)
 *   d = first domain of cached[bucket] that can serve `cpus` (in cache order)
 *   if none: d = first domain of all domains that can serve `cpus`, in index
 *            order (the paper), or starting at bucket % nr_domains and
 *            wrapping (home_scan: different IAT classes start on different
 *            domains instead of all filling domain 0 first)
 *   if found: cached[bucket] += d (kept in insertion order, no duplicates)
 *   else: FAAS_DOMAIN_SHARED, the shared queue; counted in stats.shared
 * An invocation left to the shared queue may try again later, when an
 * invocation completed (faas_iat_retry(): the same choice for its
 * function's bucket now, without a new IAT sample), for a control plane
 * that holds such invocations back until a domain can take them
 * (faas_iat_arrive() queues one behind them without a choice).
 * "Can serve" is can_serve_and_acquire(): used[d] + cpus <= capacity[d],
 * and on success used[d] += cpus. Capacity is a domain's CPU count or any
 * number of concurrent invocations the caller configures. Release on
 * completion returns the CPUs; a release of an invocation that holds
 * nothing (never assigned, already released) is an error.
 */
#ifndef FAAS_IAT_H
#define FAAS_IAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAAS_DOMAIN_SHARED (-1)
#define FAAS_IAT_BUCKET_NEW UINT64_MAX
#define FAAS_IAT_MAX_DOMAINS 1024

struct faas_iat_config {
	unsigned int nr_domains;      /* 1..FAAS_IAT_MAX_DOMAINS */
	const unsigned int *capacity; /* per domain, each >= 1 */
	uint64_t bucket_us;	      /* bucket size, >= 1 */
	double alpha;		      /* EWMA weight of the newest gap, (0, 1] */
	uint32_t nr_funcs;	      /* functions are 0..nr_funcs-1 */
	bool home_scan;		      /* see above */
};

struct faas_iat_stats {
	uint64_t assigned;   /* invocations given a domain */
	uint64_t cache_hits; /* ... found in their bucket's cached domains */
	uint64_t scans;	     /* ... found by the scan over all domains */
	uint64_t shared;     /* invocations given no domain on arrival */
	uint64_t late;	     /* ... of those, given a domain later by faas_iat_retry() */
	uint64_t released;
	uint64_t active;     /* assigned or shared, not yet released */
	uint64_t buckets;    /* buckets with cached domains */
};

struct faas_iat;

/*
 * faas_iat_new - a policy for @cfg. NULL on a bad configuration (or no
 * memory), with the reason in @err.
 */
struct faas_iat *faas_iat_new(const struct faas_iat_config *cfg, char *err, size_t errlen);

/* faas_iat_free - free @p (NULL is fine). */
void faas_iat_free(struct faas_iat *p);

/*
 * faas_iat_assign - invocation @id of function @func arrives at @arrival_us
 * and needs @cpus units of capacity: update the function's IAT and pick a
 * domain. Stores the domain or FAAS_DOMAIN_SHARED in *@domain and returns
 * 0; -EINVAL (unknown function, cpus 0, arrival before the function's
 * previous one, @id still active) with the reason in faas_iat_error().
 */
int faas_iat_assign(struct faas_iat *p, uint64_t id, uint32_t func, uint64_t arrival_us,
		    unsigned int cpus, int *domain);

/*
 * faas_iat_arrive - invocation @id arrives as for faas_iat_assign() (its
 * IAT counts), but goes to the shared queue without a choice: for a
 * control plane that holds invocations in arrival order and has older ones
 * waiting, which the choice must not overtake. 0, -EINVAL or -ENOMEM as
 * there.
 */
int faas_iat_arrive(struct faas_iat *p, uint64_t id, uint32_t func, uint64_t arrival_us,
		    unsigned int cpus);

/*
 * faas_iat_retry - invocation @id of function @func, which
 * faas_iat_assign() or faas_iat_arrive() left to the shared queue, tries
 * again for a domain. Stores the domain (it then holds that domain's
 * capacity, as if assigned) or FAAS_DOMAIN_SHARED (no domain can serve it
 * yet) in *@domain and returns 0; -EINVAL if @id is not on the shared
 * queue or @func does not exist, -ENOMEM (reason in faas_iat_error()).
 * @func must be @id's function: its bucket decides.
 */
int faas_iat_retry(struct faas_iat *p, uint64_t id, uint32_t func, int *domain);

/*
 * faas_iat_release - invocation @id completed: give back what it acquired.
 * -ENOENT if @id holds nothing (never assigned, or released twice).
 */
int faas_iat_release(struct faas_iat *p, uint64_t id);

/* faas_iat_error - why the last call failed. */
const char *faas_iat_error(const struct faas_iat *p);

/* faas_iat_used - capacity of domain @d in use now (0 for a bad @d). */
unsigned int faas_iat_used(const struct faas_iat *p, unsigned int d);

/*
 * faas_iat_fits - whether some domain could ever serve @cpus (its capacity
 * is at least that): one that none can runs on the shared queue whenever it
 * arrives, so a control plane holding invocations must not hold it.
 */
bool faas_iat_fits(const struct faas_iat *p, unsigned int cpus);

/*
 * faas_iat_bucket - the bucket of function @func's IAT estimate now: the
 * one its last arrival used, and a retry of its invocations uses
 * (FAAS_IAT_BUCKET_NEW before its second arrival). Its next arrival adds
 * its own gap to the estimate first, so may use another.
 */
uint64_t faas_iat_bucket(const struct faas_iat *p, uint32_t func);

/* faas_iat_iat_us - function @func's IAT estimate (0: none yet). */
double faas_iat_iat_us(const struct faas_iat *p, uint32_t func);

/*
 * faas_iat_cached - copy up to @max of @bucket's cached domains, in cache
 * order, to @out; returns how many the bucket has.
 */
unsigned int faas_iat_cached(const struct faas_iat *p, uint64_t bucket, int *out,
			     unsigned int max);

/* faas_iat_get_stats - counters since faas_iat_new(). */
void faas_iat_get_stats(const struct faas_iat *p, struct faas_iat_stats *st);

#endif
