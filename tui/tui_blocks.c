/* Basic blocks as executed, for the Blocks screen: each occurrence is
 * analysed in isolation from the engine's producers and added to its
 * block, found by (first, last static instruction, length). */
#include "tui/tui_blocks.h"

#include <stdlib.h>

#include "common/util.h"

static uint64_t insn_addr(const struct tui_model *m, uint32_t i)
{
	const struct tui_insn *mi = tui_model_insn(m, i);
	const struct perpi_insn *insn = mi ? tui_model_static(m, mi->insn) : NULL;
	return insn ? insn->addr : 0;
}

static int compare_block_weight(const void *a, const void *b)
{
	const struct tui_block *x = a, *y = b;
	uint64_t wx = x->occurrences * x->insns, wy = y->occurrences * y->insns;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->last_addr < y->last_addr ? -1 : x->last_addr > y->last_addr;
}

/* Blocks are found by (first, last static instruction, length) in an
 * open-addressing table of indices into the block array. */
struct block_table {
	uint32_t *slot; /* block index + 1; 0 is empty */
	size_t size;    /* a power of two */
	struct tui_block *blocks;
	uint32_t *first_id, *last_id;
	size_t n, cap;
};

static size_t block_hash(uint32_t a, uint32_t b, uint32_t n, size_t size)
{
	uint64_t h = ((uint64_t)a * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)b * 0xc2b2ae3d27d4eb4full) ^ n;
	return (size_t)(h ^ (h >> 29)) & (size - 1);
}

static void block_rehash(struct block_table *t)
{
	free(t->slot);
	t->size = t->size ? t->size * 2 : 1024;
	t->slot = xcalloc(t->size, sizeof(*t->slot));
	for (size_t i = 0; i < t->n; i++) {
		size_t h = block_hash(t->first_id[i], t->last_id[i], t->blocks[i].insns, t->size);
		while (t->slot[h])
			h = (h + 1) & (t->size - 1);
		t->slot[h] = (uint32_t)i + 1;
	}
}

static struct tui_block *block_find(const struct tui_model *m, struct block_table *t, uint32_t start,
				      uint32_t end)
{
	uint32_t a = tui_model_insn(m, start)->insn, b = tui_model_insn(m, end)->insn, n = end - start + 1;
	if (2 * (t->n + 1) > t->size)
		block_rehash(t);
	size_t h = block_hash(a, b, n, t->size);
	for (; t->slot[h]; h = (h + 1) & (t->size - 1)) {
		uint32_t i = t->slot[h] - 1;
		if (t->first_id[i] == a && t->last_id[i] == b && t->blocks[i].insns == n)
			return &t->blocks[i];
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->blocks = xrealloc(t->blocks, t->cap * sizeof(*t->blocks));
		t->first_id = xrealloc(t->first_id, t->cap * sizeof(*t->first_id));
		t->last_id = xrealloc(t->last_id, t->cap * sizeof(*t->last_id));
	}
	t->first_id[t->n] = a;
	t->last_id[t->n] = b;
	t->blocks[t->n] = (struct tui_block){.addr = insn_addr(m, start),
					       .last_addr = insn_addr(m, end),
					       .insns = n,
					       .first = start};
	t->slot[h] = (uint32_t)++t->n;
	return &t->blocks[t->n - 1];
}

/* Each occurrence is analysed in isolation and added to its block. */
struct tui_block *tui_model_blocks_compute(const struct tui_model *m, size_t *n_blocks)
{
	struct block_table t = {0};
	size_t longest = 0;
	uint32_t *step = NULL;
	size_t n_insns = tui_model_insn_count(m);
	for (size_t start = 0; start < n_insns;) {
		size_t end = start;
		while (end + 1 < n_insns) {
			const struct perpi_insn *insn = tui_model_static(m, tui_model_insn(m, end)->insn);
			if (!insn || insn->control != CTRL_NONE)
				break;
			end++;
		}
		if (end - start + 1 > longest) {
			longest = end - start + 1;
			step = xrealloc(step, longest * sizeof(*step));
		}
		struct tui_block *b = block_find(m, &t, (uint32_t)start, (uint32_t)end);
		b->occurrences++;
		b->steps += tui_model_isolated_steps(m, (uint32_t)start, (uint32_t)end, step);
		start = end + 1;
	}
	free(step);
	free(t.slot);
	free(t.first_id);
	free(t.last_id);
	for (size_t i = 0; i < t.n; i++)
		t.blocks[i].ilp = t.blocks[i].steps ? (double)(t.blocks[i].occurrences *
							       t.blocks[i].insns) /
							      (double)t.blocks[i].steps
						    : 0;
	if (t.n)
		qsort(t.blocks, t.n, sizeof(*t.blocks), compare_block_weight);
	*n_blocks = t.n;
	return t.blocks;
}

