/* The resource calendar of the cycle model: for each Palmed resource and
 * each cycle, the share of the resource already booked. An instruction
 * books rho(form, r) of each resource it uses at the first cycle where all
 * of them have room; a usage above what is left of that cycle spills into
 * the following ones, so that a resource serves exactly 1 per cycle over
 * any stretch of cycles (Palmed's throughput bound, reached by code with
 * no dependencies). Full cycles are skipped through a union-find pointer,
 * so a saturated resource costs no scan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/util.h"
#include "palmed/cycles_private.h"

#define RING_MASK (SCHED_RING - 1)
#define FULL 0.999f /* a cycle with less room than this is full */

/* Slot of resource r's cycle b: each resource's cycles side by side (a
 * booking walks one resource's cycles). */
#define SLOT(s, r, b) ((r)*SCHED_RING + ((b)&RING_MASK))

/* Zeroed pages of the kernel's, mapped only when written: a resource no
 * instruction uses costs neither memory nor the time to clear it (calloc
 * clears what it takes from the heap, 40 MB a model of 50 resources). */
static void *zeroed(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "perpi: out of memory mapping %zu bytes\n", bytes);
		abort();
	}
	return p;
}

void sched_init(struct sched *s, size_t nres)
{
	size_t n = nres * SCHED_RING + 1;
	s->nres = nres;
	s->floor = 0;
	/* filled lazily */
	s->used = zeroed(n * sizeof(*s->used));
	s->next = zeroed(n * sizeof(*s->next));
	s->stamp = zeroed(n * sizeof(*s->stamp));
}

void sched_done(struct sched *s)
{
	size_t n = s->nres * SCHED_RING + 1;
	munmap(s->used, n * sizeof(*s->used));
	munmap(s->next, n * sizeof(*s->next));
	munmap(s->stamp, n * sizeof(*s->stamp));
}

/* Slot b % RING stands for cycle b from now on: cleared lazily, when a
 * booking first looks at it for cycle b (so that advancing costs nothing,
 * however many resources there are). */
void sched_advance(struct sched *s, uint64_t floor)
{
	if (floor > s->floor)
		s->floor = floor;
}

static inline size_t fresh(struct sched *s, size_t r, uint64_t b)
{
	size_t i = SLOT(s, r, b);
	if (s->stamp[i] != b + 1) {
		s->stamp[i] = b + 1;
		s->used[i] = 0;
		s->next[i] = b;
	}
	return i;
}

/* The first cycle >= b where resource r has room, or the end of the ring. */
static uint64_t find(struct sched *s, size_t r, uint64_t b)
{
	uint64_t x = b, end = s->floor + SCHED_RING;
	if (b >= end)
		return b;
	size_t i;
	while (x < end && s->used[i = fresh(s, r, x)] >= FULL) {
		uint64_t n = s->next[i];
		x = n > x ? n : x + 1;
	}
	x = x < end ? x : end;
	for (uint64_t y = b; y < x;) { /* path compression */
		size_t j = fresh(s, r, y);
		uint64_t n = s->next[j];
		s->next[j] = x;
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
