/* The resource calendar of the cycle model: for each Palmed resource and
 * each cycle, the share of the resource already booked. An instruction
 * books rho(form, r) of each resource it uses at the first cycle where all
 * of them have room; a usage above what is left of that cycle spills into
 * the following ones, so that a resource serves exactly 1 per cycle over
 * any stretch of cycles (Palmed's throughput bound, reached by code with
 * no dependencies). Full cycles are skipped through a union-find pointer,
 * so a saturated resource costs no scan. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/cycles_private.h"

#define RING_MASK (SCHED_RING - 1)
#define FULL 0.999f /* a cycle with less room than this is full */

/* Slot of cycle b's resource r: the resources of a cycle side by side. */
#define SLOT(s, r, b) (((b)&RING_MASK) * (s)->nres + (r))

void sched_init(struct sched *s, size_t nres)
{
	s->nres = nres;
	s->floor = 0;
	s->used = xcalloc(nres * SCHED_RING + 1, sizeof(*s->used));
	s->next = xmalloc((nres * SCHED_RING + 1) * sizeof(*s->next));
	for (size_t r = 0; r < nres; r++)
		for (uint64_t b = 0; b < SCHED_RING; b++)
			s->next[SLOT(s, r, b)] = b;
}

void sched_done(struct sched *s)
{
	free(s->used);
	free(s->next);
}

void sched_advance(struct sched *s, uint64_t floor)
{
	if (floor <= s->floor)
		return;
	uint64_t from = s->floor, to = floor;
	if (to - from > SCHED_RING)
		from = to - SCHED_RING;
	/* slot b % RING now stands for cycle b + RING */
	for (uint64_t b = from; b < to; b++)
		for (size_t r = 0; r < s->nres; r++) {
			s->used[SLOT(s, r, b)] = 0;
			s->next[SLOT(s, r, b)] = b + SCHED_RING;
		}
	s->floor = floor;
}

/* The first cycle >= b where resource r has room, or the end of the ring. */
static uint64_t find(struct sched *s, size_t r, uint64_t b)
{
	uint64_t x = b, end = s->floor + SCHED_RING;
	if (b >= end)
		return b;
	while (x < end && s->used[SLOT(s, r, x)] >= FULL) {
		uint64_t n = s->next[SLOT(s, r, x)];
		x = n > x ? n : x + 1;
	}
	x = x < end ? x : end;
	for (uint64_t y = b; y < x;) { /* path compression */
		uint64_t n = s->next[SLOT(s, r, y)];
		s->next[SLOT(s, r, y)] = x;
		y = n > y ? n : y + 1;
	}
	return x;
}

static void take(struct sched *s, size_t r, uint64_t b, float rho)
{
	while (rho > 0 && b < s->floor + SCHED_RING) {
		b = find(s, r, b);
		if (b >= s->floor + SCHED_RING)
			return;
		float *used = &s->used[SLOT(s, r, b)], room = 1.0f - *used,
		      part = rho < room ? rho : room;
		*used += part;
		if (*used >= FULL)
			s->next[SLOT(s, r, b)] = b + 1;
		rho -= part;
		b++;
	}
}

uint64_t sched_book(struct sched *s, uint64_t from, const uint16_t *res, const float *rho, size_t n)
{
	uint64_t b = from < s->floor ? s->floor : from;
	if (!n)
		return b;
	for (int moved = 1; moved;) {
		moved = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t x = find(s, res[i], b);
			if (x != b) {
				b = x;
				moved = 1;
			}
		}
		/* beyond the ring: no booking (a backlog of SCHED_RING cycles) */
		if (b >= s->floor + SCHED_RING)
			return b;
	}
	for (size_t i = 0; i < n; i++)
		take(s, res[i], b, rho[i]);
	return b;
}
