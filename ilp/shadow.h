/* Sparse, byte-exact shadow memory: for every byte of the traced address
 * space that was written, the step at which its value is ready and,
 * optionally, the dynamic index of its last writer. Bytes never written read
 * as ready 0 and writer -1.
 *
 * Pages of 2^shift bytes live in an open-addressing hash table keyed by page
 * number, so cost and memory follow the bytes actually touched (4 bytes of
 * shadow per byte, 12 with writers, plus one table slot per page), however
 * scattered they are in the 47-bit address space. The struct is in this
 * header only so that the one-access fast path can be inlined; its fields
 * are private to shadow.c. */
#ifndef PERPI_SHADOW_H
#define PERPI_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#define SHADOW_CACHE 4

struct shadow_slot {
	uint64_t key;   /* page number + 1; 0 = empty */
	uint32_t *page; /* ready[1 << shift], the page's stamp (int64_t), then
			 * int64_t writer[1 << shift] if any */
};

/* Free pages of one size, shared by shadows that come and go (the engine's
 * per-frame shadows), so a call does not cost a malloc and a free. */
struct shadow_pool {
	uint32_t **pages;
	size_t n, cap;
	size_t keep; /* at most this many free pages are kept */
};

struct shadow {
	unsigned shift;     /* page size is 1 << shift bytes */
	int with_writer;
	struct shadow_pool *pool, own_pool;
	/* recently used pages, direct-mapped by page number (stack and heap
	 * accesses alternate): key page number + 1, 0 = none */
	uint64_t cache_key[SHADOW_CACHE];
	uint32_t *cache_page[SHADOW_CACHE];
	struct shadow_slot *slots;
	unsigned bits;      /* the table has 1 << bits slots */
	size_t used;        /* pages in the table */
	uint64_t *keys;     /* the keys in the table, in insertion order */
	size_t keys_cap;
};

/* A new empty shadow with pages of 2^shift bytes (4 <= shift <= 16), with a
 * writer index per byte when with_writer. The caller frees it with
 * shadow_delete. */
struct shadow *shadow_new(unsigned shift, int with_writer);
void shadow_delete(struct shadow *sh);

/* A shadow without writers whose pages come from and go back to pool (which
 * must outlive it and only serve shadows of the same shift). */
struct shadow *shadow_new_pooled(unsigned shift, struct shadow_pool *pool);
void shadow_pool_done(struct shadow_pool *pool);

/* Forget every byte (they read as never written again); its pages go back
 * to the pool (up to its keep limit), a large table shrinks. */
void shadow_clear(struct shadow *sh);

/* Bytes of shadow currently allocated (pages and table). */
size_t shadow_memory(const struct shadow *sh);

/* The page holding page number no, or NULL when none of its bytes was
 * written (lookup) / allocated on demand (get). */
uint32_t *shadow_lookup_slow(struct shadow *sh, uint64_t no);
uint32_t *shadow_get_slow(struct shadow *sh, uint64_t no);

static inline uint32_t *shadow_lookup(struct shadow *sh, uint64_t no)
{
	unsigned i = (unsigned)no & (SHADOW_CACHE - 1);
	if (sh->cache_key[i] == no + 1)
		return sh->cache_page[i];
	return shadow_lookup_slow(sh, no);
}

static inline uint32_t *shadow_get(struct shadow *sh, uint64_t no)
{
	unsigned i = (unsigned)no & (SHADOW_CACHE - 1);
	if (sh->cache_key[i] == no + 1)
		return sh->cache_page[i];
	return shadow_get_slow(sh, no);
}

/* The last writer of any byte of a page returned by lookup/get (the
 * writer given to shadow_set, with or without with_writer), -1 if none. */
static inline int64_t *shadow_page_stamp(const struct shadow *sh, uint32_t *page)
{
	return (int64_t *)(page + ((size_t)1 << sh->shift));
}

/* The writer array of a page returned by lookup/get (with_writer only). */
static inline int64_t *shadow_page_writers(const struct shadow *sh, uint32_t *page)
{
	return (int64_t *)(page + ((size_t)1 << sh->shift) + 2);
}

uint32_t shadow_max_slow(struct shadow *sh, uint64_t addr, uint64_t size);
void shadow_set_slow(struct shadow *sh, uint64_t addr, uint64_t size, uint32_t ready,
		     int64_t writer);

static inline uint32_t shadow_max2(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* Max of p[0..n): the common 8-byte access as a tree, without a loop. */
static inline uint32_t shadow_max_n(const uint32_t *p, uint64_t n)
{
	uint32_t m = 0;
	if (n == 8)
		return shadow_max2(shadow_max2(shadow_max2(p[0], p[1]), shadow_max2(p[2], p[3])),
				   shadow_max2(shadow_max2(p[4], p[5]), shadow_max2(p[6], p[7])));
	for (uint64_t i = 0; i < n; i++)
		m = shadow_max2(m, p[i]);
	return m;
}

/* Max ready time over bytes [addr, addr + size). */
static inline uint32_t shadow_max(struct shadow *sh, uint64_t addr, uint64_t size)
{
	uint64_t mask = ((uint64_t)1 << sh->shift) - 1, off = addr & mask;
	if (off + size > mask + 1)
		return shadow_max_slow(sh, addr, size);
	const uint32_t *p = shadow_lookup(sh, addr >> sh->shift);
	return p ? shadow_max_n(p + off, size) : 0;
}

/* Bytes [addr, addr + size) become ready at ready, written by writer (kept
 * per byte with with_writer, and as the stamp of their pages). */
static inline void shadow_set(struct shadow *sh, uint64_t addr, uint64_t size, uint32_t ready,
			      int64_t writer)
{
	uint64_t mask = ((uint64_t)1 << sh->shift) - 1, off = addr & mask;
	if (off + size > mask + 1 || sh->with_writer) {
		shadow_set_slow(sh, addr, size, ready, writer);
		return;
	}
	uint32_t *page = shadow_get(sh, addr >> sh->shift), *p = page + off;
	*shadow_page_stamp(sh, page) = writer;
	if (size == 8) {
		p[0] = p[1] = p[2] = p[3] = p[4] = p[5] = p[6] = p[7] = ready;
		return;
	}
	for (uint64_t i = 0; i < size; i++)
		p[i] = ready;
}

#endif
