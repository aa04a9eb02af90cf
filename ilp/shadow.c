/* Sparse byte-exact shadow memory: see shadow.h. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/shadow.h"

#define SHADOW_MIN_BITS 4  /* a new or cleared table has 16 slots */
#define SHADOW_KEEP_PAGES 64 /* pages kept for reuse by shadow_clear */

static size_t page_bytes(const struct shadow *sh)
{
	size_t n = (size_t)1 << sh->shift;
	return n * sizeof(uint32_t) + (sh->with_writer ? n * sizeof(int64_t) : 0);
}

static size_t slot_of(uint64_t key, unsigned bits)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

struct shadow *shadow_new(unsigned shift, int with_writer)
{
	struct shadow *sh = xcalloc(1, sizeof(*sh));
	sh->shift = shift;
	sh->with_writer = with_writer;
	sh->bits = SHADOW_MIN_BITS;
	sh->slots = xcalloc((size_t)1 << sh->bits, sizeof(*sh->slots));
	return sh;
}

void shadow_delete(struct shadow *sh)
{
	if (!sh)
		return;
	for (size_t i = 0; i < ((size_t)1 << sh->bits); i++)
		free(sh->slots[i].page);
	for (size_t i = 0; i < sh->n_free; i++)
		free(sh->free_pages[i]);
	free(sh->free_pages);
	free(sh->slots);
	free(sh);
}

void shadow_clear(struct shadow *sh)
{
	size_t n = (size_t)1 << sh->bits;
	sh->cache_key = 0;
	sh->cache_page = NULL;
	if (!sh->used)
		return;
	for (size_t i = 0; i < n; i++) {
		uint32_t *page = sh->slots[i].page;
		if (!page)
			continue;
		if (sh->n_free < SHADOW_KEEP_PAGES) {
			if (sh->n_free == sh->cap_free) {
				sh->cap_free = sh->cap_free ? 2 * sh->cap_free : 8;
				sh->free_pages = xrealloc(sh->free_pages,
							  sh->cap_free * sizeof(*sh->free_pages));
			}
			sh->free_pages[sh->n_free++] = page;
		} else {
			free(page);
		}
	}
	sh->used = 0;
	if (sh->bits > SHADOW_MIN_BITS + 6) {
		free(sh->slots);
		sh->bits = SHADOW_MIN_BITS;
		sh->slots = xcalloc((size_t)1 << sh->bits, sizeof(*sh->slots));
	} else {
		memset(sh->slots, 0, n * sizeof(*sh->slots));
	}
}

size_t shadow_memory(const struct shadow *sh)
{
	return (sh->used + sh->n_free) * page_bytes(sh) +
	       ((size_t)1 << sh->bits) * sizeof(*sh->slots);
}

uint32_t *shadow_lookup_slow(struct shadow *sh, uint64_t no)
{
	uint64_t key = no + 1;
	size_t mask = ((size_t)1 << sh->bits) - 1;
	for (size_t i = slot_of(key, sh->bits);; i = (i + 1) & mask) {
		if (sh->slots[i].key == key) {
			sh->cache_key = key;
			sh->cache_page = sh->slots[i].page;
			return sh->slots[i].page;
		}
		if (!sh->slots[i].key)
			return NULL;
	}
}

static void insert(struct shadow_slot *slots, unsigned bits, uint64_t key, uint32_t *page)
{
	size_t mask = ((size_t)1 << bits) - 1;
	size_t i = slot_of(key, bits);
	while (slots[i].key)
		i = (i + 1) & mask;
	slots[i].key = key;
	slots[i].page = page;
}

static void grow(struct shadow *sh)
{
	size_t n = (size_t)1 << sh->bits;
	struct shadow_slot *slots = xcalloc(2 * n, sizeof(*slots));
	for (size_t i = 0; i < n; i++)
		if (sh->slots[i].key)
			insert(slots, sh->bits + 1, sh->slots[i].key, sh->slots[i].page);
	free(sh->slots);
	sh->slots = slots;
	sh->bits++;
}

static uint32_t *new_page(struct shadow *sh)
{
	size_t n = (size_t)1 << sh->shift;
	uint32_t *page = sh->n_free ? sh->free_pages[--sh->n_free] : xmalloc(page_bytes(sh));
	memset(page, 0, n * sizeof(uint32_t));
	if (sh->with_writer)
		memset(shadow_page_writers(sh, page), 0xff, n * sizeof(int64_t));
	return page;
}

uint32_t *shadow_get_slow(struct shadow *sh, uint64_t no)
{
	uint32_t *page = shadow_lookup_slow(sh, no);
	if (page)
		return page;
	/* keep the load factor at most 1/2 */
	if (2 * (sh->used + 1) > ((size_t)1 << sh->bits))
		grow(sh);
	page = new_page(sh);
	insert(sh->slots, sh->bits, no + 1, page);
	sh->used++;
	sh->cache_key = no + 1;
	sh->cache_page = page;
	return page;
}

uint32_t shadow_max_slow(struct shadow *sh, uint64_t addr, uint64_t size)
{
	uint64_t psize = (uint64_t)1 << sh->shift, m = 0;
	while (size) {
		uint64_t off = addr & (psize - 1);
		uint64_t n = psize - off < size ? psize - off : size;
		const uint32_t *p = shadow_lookup(sh, addr >> sh->shift);
		for (uint64_t i = 0; p && i < n; i++)
			m = p[off + i] > m ? p[off + i] : m;
		addr += n;
		size -= n;
	}
	return (uint32_t)m;
}

void shadow_set_slow(struct shadow *sh, uint64_t addr, uint64_t size, uint32_t ready,
		     int64_t writer)
{
	uint64_t psize = (uint64_t)1 << sh->shift;
	while (size) {
		uint64_t off = addr & (psize - 1);
		uint64_t n = psize - off < size ? psize - off : size;
		uint32_t *p = shadow_get(sh, addr >> sh->shift);
		for (uint64_t i = 0; i < n; i++)
			p[off + i] = ready;
		if (sh->with_writer) {
			int64_t *w = shadow_page_writers(sh, p);
			for (uint64_t i = 0; i < n; i++)
				w[off + i] = writer;
		}
		addr += n;
		size -= n;
	}
}
