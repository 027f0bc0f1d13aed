// SPDX-License-Identifier: GPL-2.0
/* faas's options, their defaults and checks, and its domains' plan. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <scxpol/cli.h>
#include <scxpol/common.h>
#include <scxpol/pool.h>
#include <scxpol/topology.h>

#include "faas_conf.h"

enum {
	O_DOMAINS = FAAS_OPT_BASE, O_PAPER, O_SWITCH, O_VTIME_RESET, O_DISPATCH, O_STEAL,
	O_NO_STEAL, O_BUSY_POLL, O_RESET_EVERY, O_SLICE_US,
};

/* what was given explicitly (struct faas_conf.given) */
#define G(o) (1U << ((o) - FAAS_OPT_BASE))

const struct option faas_conf_options[] = {
	{ "domains", required_argument, NULL, O_DOMAINS },
	{ "paper", no_argument, NULL, O_PAPER },
	{ "switch", required_argument, NULL, O_SWITCH },
	{ "vtime-reset", required_argument, NULL, O_VTIME_RESET },
	{ "dispatch", required_argument, NULL, O_DISPATCH },
	{ "steal", no_argument, NULL, O_STEAL },
	{ "no-steal", no_argument, NULL, O_NO_STEAL },
	{ "busy-poll", no_argument, NULL, O_BUSY_POLL },
	{ "reset-every", required_argument, NULL, O_RESET_EVERY },
	{ "slice-us", required_argument, NULL, O_SLICE_US },
	{ 0 },
};

void faas_conf_init(struct faas_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->reset_every = 8;
	c->slice_us = 5000;
}

/* @arg as one of two words: *@out = (@arg is @yes). */
static int choice(const char *opt, const char *arg, const char *no, const char *yes, bool *out,
		  char *err, size_t errlen)
{
	if (strcmp(arg, no) && strcmp(arg, yes)) {
		snprintf(err, errlen, "%s '%s': want %s or %s", opt, arg, no, yes);
		return -EINVAL;
	}
	*out = !strcmp(arg, yes);
	return 0;
}

/* scxpol_cli_parse_uint(), its message into @err. */
static int uint_arg(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi,
		    unsigned long long *out, char *err, size_t errlen)
{
	if (!scxpol_cli_parse_uint(opt, arg, lo, hi, out))
		return 0;
	snprintf(err, errlen, "%s", scxpol_last_error());
	return -EINVAL;
}

int faas_conf_option(struct faas_conf *c, int opt, const char *arg, char *err, size_t errlen)
{
	unsigned long long v;
	int r = 0;

	switch (opt) {
	case O_DOMAINS:
		r = uint_arg("--domains", arg, 1, FAAS_MAX_DOMAINS, &v, err, errlen);
		c->nr_domains = (unsigned int)v;
		break;
	case O_PAPER:
		c->paper = true;
		break;
	case O_SWITCH:
		r = choice("--switch", arg, "all", "partial", &c->partial, err, errlen);
		break;
	case O_VTIME_RESET:
		r = choice("--vtime-reset", arg, "clock", "now", &c->vtime_now, err, errlen);
		break;
	case O_DISPATCH:
		r = choice("--dispatch", arg, "project", "paper", &c->dispatch_paper, err, errlen);
		break;
	case O_STEAL:
	case O_NO_STEAL:
		c->steal = opt == O_STEAL;
		break;
	case O_BUSY_POLL:
		c->busy_poll = true;
		break;
	case O_RESET_EVERY:
		r = uint_arg("--reset-every", arg, 0, 1000000, &v, err, errlen);
		c->reset_every = (unsigned int)v;
		break;
	case O_SLICE_US:
		r = uint_arg("--slice-us", arg, 1, 1000000, &c->slice_us, err, errlen);
		break;
	default:
		return 1;
	}
	if (!r)
		c->given |= G(opt);
	return r;
}

int faas_conf_finish(struct faas_conf *c, char *err, size_t errlen)
{
	if ((c->given & G(O_STEAL)) && (c->given & G(O_NO_STEAL))) {
		snprintf(err, errlen, "--steal and --no-steal: give one");
		return -EINVAL;
	}
	if (!c->paper)
		return 0;
	if (!(c->given & G(O_SWITCH)))
		c->partial = true;
	if (!(c->given & G(O_VTIME_RESET)))
		c->vtime_now = true;
	if (!(c->given & G(O_DISPATCH)))
		c->dispatch_paper = true;
	if (!(c->given & (G(O_STEAL) | G(O_NO_STEAL))))
		c->steal = true;
	if (!(c->given & G(O_SLICE_US)))
		c->slice_us = 3000;
	return 0;
}

int faas_conf_plan(const struct faas_conf *c, const struct scxpol_topo *topo,
		   struct scxpol_pool_plan **out, char *err, size_t errlen)
{
	unsigned int n = c->nr_domains ? c->nr_domains : scxpol_topo_nr_llcs(topo);
	int r;

	*out = scxpol_pool_plan_domains(topo, n, c->steal ? SCXPOL_POOL_STEAL : 0);
	if (*out)
		return 0;
	r = -errno;
	if (c->nr_domains)
		snprintf(err, errlen, "--domains %u: %s", n, scxpol_last_error());
	else
		snprintf(err, errlen, "one domain per LLC (%u): %s", n, scxpol_last_error());
	return r;
}

void faas_conf_format(const struct faas_conf *c, char *buf, size_t len)
{
	char reset[32];

	snprintf(reset, sizeof(reset), "every %u enqueues", c->reset_every);
	snprintf(buf, len, "%s: switch %s, vtime reset to the %s %s, slice %llu us, dispatch %s, "
		 "stealing %s, busy-poll %s", c->paper ? "paper" : "project",
		 c->partial ? "partial (SCHED_EXT tasks only)" : "all",
		 c->vtime_now ? "current time" : "domain's clock",
		 c->reset_every ? reset : "never", c->slice_us, c->dispatch_paper ? "paper" : "project",
		 c->steal ? "on" : "off", c->busy_poll ? "on" : "off");
}
