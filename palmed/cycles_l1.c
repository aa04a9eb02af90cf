/* The simulated L1 data cache of the cycle model: set-associative, LRU,
 * write-allocate, over the addresses of the trace's loads and stores.
 *
 * It starts warm: a region usually works on data the program touched just
 * before it (initialised arrays, its stack), which the real cache holds
 * when the region starts. So a line missed while its set still has an
 * empty way is filled without counting a miss; once a set is full, every
 * miss counts. A region whose data fits in L1 thus shows no misses, and
 * one that streams through more than L1 holds shows its real miss rate
 * (less the first L1-full of lines). */
#include <stdlib.h>

#include "common/util.h"
#include "palmed/cycles_private.h"

struct l1 {
	unsigned sets, ways, shift;
	uint64_t *tag;	 /* sets x ways: line number + 1, 0 empty */
	uint64_t *stamp; /* last use, for LRU */
	uint64_t clock;
};

struct l1 *l1_new(unsigned size, unsigned ways, unsigned line)
{
	struct l1 *c = xcalloc(1, sizeof(*c));
	unsigned shift = 0;
	while ((1u << shift) < line)
		shift++;
	c->shift = shift;
	c->ways = ways ? ways : 1;
	c->sets = size / (line ? line : 64) / c->ways;
	if (!c->sets)
		c->sets = 1;
	c->tag = xcalloc((size_t)c->sets * c->ways, sizeof(*c->tag));
	c->stamp = xcalloc((size_t)c->sets * c->ways, sizeof(*c->stamp));
	return c;
}

void l1_delete(struct l1 *c)
{
	if (!c)
		return;
	free(c->tag);
	free(c->stamp);
	free(c);
}

/* 1 when the line misses (and is brought in). */
static int line_access(struct l1 *c, uint64_t line)
{
	size_t set = (size_t)(line % c->sets) * c->ways, victim = set;
	int empty = 0;
	c->clock++;
	for (size_t w = set; w < set + c->ways; w++) {
		if (c->tag[w] == line + 1) {
			c->stamp[w] = c->clock;
			return 0;
		}
		if (!c->tag[w] && !empty) {
			empty = 1;
			victim = w;
		} else if (!empty && c->stamp[w] < c->stamp[victim]) {
			victim = w;
		}
	}
	c->tag[victim] = line + 1;
	c->stamp[victim] = c->clock;
	return !empty;
}

void l1_access(struct l1 *c, uint64_t addr, uint32_t size, uint64_t *accesses, uint64_t *misses)
{
	uint64_t first = addr >> c->shift, last = (addr + (size ? size : 1) - 1) >> c->shift;
	for (uint64_t line = first; line <= last; line++) {
		(*accesses)++;
		*misses += (uint64_t)line_access(c, line);
	}
}
