/* Sparse byte-exact shadow memory: see shadow.h. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/shadow.h"

#define SHADOW_MIN_BITS 4  /* a new or cleared table has 16 slots */
#define SHADOW_KEEP_PAGES 64 /* free pages a shadow's own pool keeps */

static size_t page_bytes(const struct shadow *sh)
{
	size_t n = (size_t)1 << sh->shift;
	return n * sizeof(uint32_t) + sizeof(int64_t) + (sh->with_writer ? n * sizeof(int64_t) : 0);
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
	sh->pool = &sh->own_pool;
	sh->own_pool.keep = SHADOW_KEEP_PAGES;
	return sh;
}

struct shadow *shadow_new_pooled(unsigned shift, struct shadow_pool *pool)
{
	struct shadow *sh = shadow_new(shift, 0);
	sh->pool = pool;
	return sh;
}

void shadow_pool_done(struct shadow_pool *pool)
{
	for (size_t i = 0; i < pool->n; i++)
		free(pool->pages[i]);
	free(pool->pages);
	pool->pages = NULL;
	pool->n = pool->cap = 0;
}

void shadow_delete(struct shadow *sh)
{
	if (!sh)
		return;
	for (size_t i = 0; i < ((size_t)1 << sh->bits); i++)
		free(sh->slots[i].page);
	shadow_pool_done(&sh->own_pool);
	free(sh->keys);
	free(sh->slots);
	free(sh);
}

static void pool_put(struct shadow_pool *pool, uint32_t *page)
{
	if (pool->n == pool->keep) {
		free(page);
		return;
	}
	if (pool->n == pool->cap) {
		pool->cap = pool->cap ? 2 * pool->cap : 64;
		pool->pages = xrealloc(pool->pages, pool->cap * sizeof(*pool->pages));
	}
	pool->pages[pool->n++] = page;
}

void shadow_clear(struct shadow *sh)
{
	size_t n = (size_t)1 << sh->bits;
	memset(sh->cache_key, 0, sizeof(sh->cache_key));
	if (!sh->used)
		return;
	if (sh->bits > SHADOW_MIN_BITS + 6) {
		for (size_t i = 0; i < n; i++)
			if (sh->slots[i].page)
				pool_put(sh->pool, sh->slots[i].page);
		free(sh->slots);
		sh->bits = SHADOW_MIN_BITS;
		sh->slots = xcalloc((size_t)1 << sh->bits, sizeof(*sh->slots));
	} else {
		/* Cost proportional to the pages used, not the table: find each
		 * key from its home slot (it is there: skip anything else). */
		for (size_t k = 0; k < sh->used; k++) {
			size_t i = slot_of(sh->keys[k], sh->bits);
			while (sh->slots[i].key != sh->keys[k])
				i = (i + 1) & (n - 1);
			pool_put(sh->pool, sh->slots[i].page);
			sh->slots[i].page = NULL;
			sh->slots[i].key = 0;
		}
	}
	sh->used = 0;
}

size_t shadow_memory(const struct shadow *sh)
{
	return (sh->used + sh->own_pool.n) * page_bytes(sh) +
	       ((size_t)1 << sh->bits) * sizeof(*sh->slots) + sh->keys_cap * sizeof(*sh->keys);
}

uint32_t *shadow_lookup_slow(struct shadow *sh, uint64_t no)
{
	uint64_t key = no + 1;
	size_t mask = ((size_t)1 << sh->bits) - 1;
	for (size_t i = slot_of(key, sh->bits);; i = (i + 1) & mask) {
		if (sh->slots[i].key == key) {
			sh->cache_key[no & (SHADOW_CACHE - 1)] = key;
			sh->cache_page[no & (SHADOW_CACHE - 1)] = sh->slots[i].page;
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
	struct shadow_pool *pool = sh->pool;
	uint32_t *page = pool->n ? pool->pages[--pool->n] : xmalloc(page_bytes(sh));
	memset(page, 0, n * sizeof(uint32_t));
	*shadow_page_stamp(sh, page) = -1;
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
	if (sh->used == sh->keys_cap) {
		sh->keys_cap = sh->keys_cap ? 2 * sh->keys_cap : 16;
		sh->keys = xrealloc(sh->keys, sh->keys_cap * sizeof(*sh->keys));
	}
	sh->keys[sh->used++] = no + 1;
	sh->cache_key[no & (SHADOW_CACHE - 1)] = no + 1;
	sh->cache_page[no & (SHADOW_CACHE - 1)] = page;
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
		*shadow_page_stamp(sh, p) = writer;
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
