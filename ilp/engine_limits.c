/* Window and width limits of the constrained machine: see engine_limits.h. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/engine_limits.h"

void limits_init(struct limits *l, unsigned window, unsigned width)
{
	memset(l, 0, sizeof(*l));
	l->window = window;
	l->width = width;
	if (window)
		l->ring = xcalloc(window, sizeof(*l->ring));
}

void limits_done(struct limits *l)
{
	free(l->ring);
	free(l->count);
	free(l->next);
	memset(l, 0, sizeof(*l));
}

void limits_reset(struct limits *l)
{
	l->placed = 0;
	for (uint64_t s = 0; s < l->high; s++) {
		l->count[s] = 0;
		l->next[s] = (uint32_t)s;
	}
	l->high = 0;
}

/* Make steps [0, s] exist in count and next. */
static void cover(struct limits *l, uint64_t s)
{
	if (s < l->cap)
		return;
	uint64_t cap = l->cap ? l->cap : 1024;
	while (cap <= s)
		cap *= 2;
	l->count = xrealloc(l->count, cap * sizeof(*l->count));
	l->next = xrealloc(l->next, cap * sizeof(*l->next));
	for (uint64_t i = l->cap; i < cap; i++) {
		l->count[i] = 0;
		l->next[i] = (uint32_t)i;
	}
	l->cap = cap;
}

/* The first step >= s with room, with path compression. */
static uint64_t first_free(struct limits *l, uint64_t s)
{
	uint64_t r = s;
	cover(l, r);
	while (l->next[r] != r) {
		r = l->next[r];
		cover(l, r);
	}
	while (s != r) {
		uint64_t t = l->next[s];
		l->next[s] = (uint32_t)r;
		s = t;
	}
	return r;
}

uint32_t limits_place(struct limits *l, uint64_t c, unsigned latency)
{
	if (l->window && l->placed >= l->window) {
		uint64_t before = l->ring[l->placed % l->window];
		if (c < before + 1)
			c = before + 1;
	}
	if (c >= UINT32_MAX)
		return 0;
	if (l->width) {
		c = first_free(l, c);
		if (c >= UINT32_MAX - 1)
			return 0;
		if (++l->count[c] == l->width)
			l->next[c] = (uint32_t)(c + 1);
		if (c + 1 > l->high)
			l->high = c + 1;
	}
	c += latency - 1;
	if (c >= UINT32_MAX)
		return 0;
	if (l->window)
		l->ring[l->placed % l->window] = (uint32_t)c;
	l->placed++;
	return (uint32_t)c;
}
