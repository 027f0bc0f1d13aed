/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faas's configuration, for its loader (faas.c): the options, their
 * defaults, the checks across them and the plan of the domains.
 *
 * Two designs, and one switch per difference between them, so that a
 * benchmark can change one at a time (a switch given explicitly wins over
 * the design, wherever it stands on the command line):
 *
 *   difference                      the project (default)    --paper
 *   which tasks run here            --switch all             --switch partial
 *   Algorithm 1's reset             --vtime-reset clock      --vtime-reset now
 *   time slice                      --slice-us 5000          --slice-us 3000
 *   Algorithm 2's dispatch order    --dispatch project       --dispatch paper
 *   work stealing                   --no-steal               --steal
 *
 *   --switch partial: SCX_OPS_SWITCH_PARTIAL, only tasks set to SCHED_EXT
 *     run under the policy (the control plane's function bodies:
 *     faas-replay --body-class ext); every other task stays in the fair
 *     class, which runs before it. all: every task.
 *   --vtime-reset now: Algorithm 1 line by line, every n-th enqueue resets
 *     a task's vtime to the current time, no lag floor and no lead cap;
 *     clock: to its domain's virtual clock, a waking task at most a slice
 *     behind it, none more than two slices ahead (<scxpol/vtime.bpf.h>).
 *   --dispatch paper: a CPU takes its domain's head, else the shared
 *     queue's, else steals; project: a task whose slice ran out keeps the
 *     CPU while it is ahead of its queue, and every 8th dispatch serves
 *     stranded tasks and the shared queue first.
 *   --steal: idle domains take queued work from the others, the neighbours
 *     expanding on each side (within an LLC; nearer LLCs first).
 * The fifth difference, FIFO holding of invocations no domain has room for
 * (Algorithm 3), is the control plane's: faas-replay --overflow hold.
 */
#ifndef FAAS_CONF_H
#define FAAS_CONF_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

struct scxpol_pool_plan;
struct scxpol_topo;

#define FAAS_MAX_DOMAINS 1024
/* --busy-poll: full-slice stints without sleeping before a task is demoted */
#define FAAS_BUSY_POLL_AFTER 4
/* enum scx_ops_flags of the kernel (the same value in every release) */
#define FAAS_SCX_OPS_SWITCH_PARTIAL 8ULL

struct faas_conf {
	unsigned int nr_domains;  /* --domains; 0: one per LLC */
	bool partial;		  /* --switch partial */
	bool vtime_now;		  /* --vtime-reset now */
	bool dispatch_paper;	  /* --dispatch paper */
	bool steal;		  /* --steal */
	bool busy_poll;		  /* --busy-poll */
	unsigned int reset_every; /* --reset-every: Algorithm 1's n; 0: never */
	unsigned long long slice_us;
	/* private: the design, and what was given explicitly */
	bool paper;
	unsigned int given;
};

/*
 * The long options faas_conf_option() takes, a getopt_long() table ending
 * in a zero entry; each one's val is FAAS_OPT_BASE or above.
 */
#define FAAS_OPT_BASE 0x1000
extern const struct option faas_conf_options[];

/* faas_conf_init - nothing given yet: the project's design. */
void faas_conf_init(struct faas_conf *c);

/*
 * faas_conf_option - apply the option whose val is @opt (value @arg).
 * 0; 1 if @opt is none of faas_conf_options; -EINVAL with a message naming
 * the option and the value in @err ("--switch 'x': want all or partial").
 */
int faas_conf_option(struct faas_conf *c, int opt, const char *arg, char *err, size_t errlen);

/*
 * faas_conf_finish - the options given, over the design's defaults.
 * 0, or -EINVAL for options that contradict each other, with a message
 * naming them in @err.
 */
int faas_conf_finish(struct faas_conf *c, char *err, size_t errlen);

/*
 * faas_conf_plan - the domains over @topo into *@out: --domains N, or one
 * per LLC; stealing domains with --steal. 0, or a negative errno with a
 * message naming the option in @err ("--domains 9: domains: 9 domains need
 * at least 9 CPUs, 8 are online").
 */
int faas_conf_plan(const struct faas_conf *c, const struct scxpol_topo *topo,
		   struct scxpol_pool_plan **out, char *err, size_t errlen);

/* faas_conf_format - one line for people: every switch's value. */
void faas_conf_format(const struct faas_conf *c, char *buf, size_t len);

#endif
