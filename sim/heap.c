// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The event heap: a binary min-heap of armed events ordered by (time,
 * insertion number), each event knowing its slot so cancelling or
 * re-arming is O(log n) without a search. The order never depends on an
 * address: two runs of the same inputs pop the same events.
 */
#include <stdlib.h>

#include "engine.h"

static bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void heap_set(struct engine *e, u32 i, struct sim_event *ev)
{
	e->heap[i] = ev;
	ev->idx = i + 1;
}

static void heap_up(struct engine *e, u32 i)
{
	struct sim_event *ev = e->heap[i];

	while (i) {
		u32 parent = (i - 1) / 2;

		if (!ev_before(ev, e->heap[parent]))
			break;
		heap_set(e, i, e->heap[parent]);
		i = parent;
	}
	heap_set(e, i, ev);
}

static void heap_down(struct engine *e, u32 i)
{
	struct sim_event *ev = e->heap[i];

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= e->nr_heap)
			break;
		if (c + 1 < e->nr_heap && ev_before(e->heap[c + 1], e->heap[c]))
			c++;
		if (!ev_before(e->heap[c], ev))
			break;
		heap_set(e, i, e->heap[c]);
		i = c;
	}
	heap_set(e, i, ev);
}

void ev_cancel(struct engine *e, struct sim_event *ev)
{
	u32 i = ev->idx;
	struct sim_event *last;

	if (!i)
		return;
	ev->idx = 0;
	last = e->heap[--e->nr_heap];
	if (last == ev)
		return;
	heap_set(e, i - 1, last);
	heap_up(e, i - 1);
	heap_down(e, last->idx - 1);
}

void ev_arm(struct engine *e, struct sim_event *ev, u64 at)
{
	ev_cancel(e, ev);
	if (e->nr_heap == e->heap_cap) {
		u32 cap = e->heap_cap ? 2 * e->heap_cap : 256;
		struct sim_event **h = realloc(e->heap, cap * sizeof(*h));

		if (!h)
			sim_die("out of memory for %u events", cap);
		e->heap = h;
		e->heap_cap = cap;
	}
	ev->at = at;
	ev->seq = e->seq++;
	heap_set(e, e->nr_heap, ev);
	heap_up(e, e->nr_heap++);
}

struct sim_event *ev_pop(struct engine *e)
{
	struct sim_event *ev;

	if (!e->nr_heap)
		return NULL;
	ev = e->heap[0];
	ev_cancel(e, ev);
	return ev;
}
