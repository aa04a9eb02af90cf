/* Basic blocks of a traced run: see blocks.h.
 *
 * Block boundaries are only known once the whole run has been seen (a
 * late jump into a straight run splits it), so the run is counted per
 * static instruction (starts and counted events), globally and per open
 * call instance; blocks_finish then cuts the instructions into blocks and
 * projects the counts onto them. A block's occurrences are its first
 * instruction's starts, whatever came before. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/blocks.h"

/* Counts per static instruction id: an open-addressing hash (key id + 1)
 * with the list of its used slots, so that a frame's counts are walked
 * and cleared in the time of what it holds, not of its capacity (frames
 * are reused: a small callee's frame may have held main's counts). */
struct counts {
	uint64_t *key, *starts, *events;
	size_t *used;
	size_t cap, n;
};

static void counts_grow(struct counts *c);

static size_t counts_slot(struct counts *c, uint64_t id)
{
	if (2 * (c->n + 1) > c->cap)
		counts_grow(c);
	size_t mask = c->cap - 1, i = (size_t)(id * 0x9E3779B97F4A7C15ull >> 20) & mask;
	while (c->key[i] && c->key[i] != id + 1)
		i = (i + 1) & mask;
	if (!c->key[i]) {
		c->key[i] = id + 1;
		c->used[c->n++] = i;
	}
	return i;
}

static void counts_grow(struct counts *c)
{
	struct counts old = *c;
	c->cap = old.cap ? 2 * old.cap : 64;
	c->n = 0;
	c->key = xcalloc(c->cap, sizeof(*c->key));
	c->starts = xcalloc(c->cap, sizeof(*c->starts));
	c->events = xcalloc(c->cap, sizeof(*c->events));
	c->used = xmalloc(c->cap / 2 * sizeof(*c->used));
	for (size_t u = 0; u < old.n; u++) {
		size_t i = old.used[u], k = counts_slot(c, old.key[i] - 1);
		c->starts[k] = old.starts[i];
		c->events[k] = old.events[i];
	}
	free(old.used);
	free(old.key);
	free(old.starts);
	free(old.events);
}

/* The slot holding id, or -1; never inserts. */
static long counts_find(const struct counts *c, uint64_t id)
{
	if (!c->cap)
		return -1;
	size_t mask = c->cap - 1, i = (size_t)(id * 0x9E3779B97F4A7C15ull >> 20) & mask;
	while (c->key[i] && c->key[i] != id + 1)
		i = (i + 1) & mask;
	return c->key[i] ? (long)i : -1;
}

static void counts_add(struct counts *c, uint64_t id, uint64_t starts, uint64_t events)
{
	size_t k = counts_slot(c, id);
	c->starts[k] += starts;
	c->events[k] += events;
}

/* Adds src into dst and empties src (keeping its memory). */
static void counts_move(struct counts *dst, struct counts *src)
{
	for (size_t u = 0; u < src->n; u++) {
		size_t i = src->used[u];
		if (dst)
			counts_add(dst, src->key[i] - 1, src->starts[i], src->events[i]);
		src->key[i] = 0;
		src->starts[i] = src->events[i] = 0;
	}
	src->n = 0;
}

static void counts_done(struct counts *c)
{
	free(c->used);
	free(c->key);
	free(c->starts);
	free(c->events);
}

struct istat {
	const struct perpi_insn *insn; /* NULL: never executed */
	uint64_t starts, events;
	int64_t next; /* id of the instruction it fell through to, or -1 */
	int leader;
	size_t block, pos; /* after blocks_finish */
};

struct frame {
	uint64_t entry, key, insns_before;
	struct counts counts;
};

struct function_acc {
	uint64_t entry, calls, insns;
	struct counts counts;
};

struct blocks {
	struct istat *stat;
	size_t nstat;
	const struct perpi_insn *prev;
	int pending_call;
	uint64_t insns;
	struct frame *frames;
	size_t depth, frames_cap;
	struct function_acc *acc;
	size_t nacc;
	struct counts acc_index; /* entry -> acc index (in starts) */
	struct block *blocks;
	size_t nblocks;
	struct blocks_function *functions;
	size_t nfunctions;
	/* The ILP pass: the occurrence being analysed, in isolation. */
	const struct perpi_insn *ilp_prev;
	size_t ilp_block; /* its block, or SIZE_MAX before the first */
	uint64_t gen, ilp_depth;
	uint64_t unit_gen[UNIT_COUNT];
	uint64_t unit_ready[UNIT_COUNT];
	struct counts mem; /* byte address -> step it was written at (in starts) */
};

struct blocks *blocks_new(void)
{
	struct blocks *b = xcalloc(1, sizeof(struct blocks));
	b->ilp_block = SIZE_MAX;
	return b;
}

void blocks_delete(struct blocks *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->frames_cap; i++)
		counts_done(&b->frames[i].counts);
	for (size_t i = 0; i < b->nacc; i++)
		counts_done(&b->acc[i].counts);
	counts_done(&b->acc_index);
	counts_done(&b->mem);
	for (size_t i = 0; i < b->nblocks; i++) {
		free(b->blocks[i].insns);
		free(b->blocks[i].events);
	}
	for (size_t f = 0; f < b->nfunctions; f++) {
		for (size_t s = 0; s < b->functions[f].n; s++)
			free(b->functions[f].shares[s].events);
		free(b->functions[f].shares);
	}
	free(b->functions);
	free(b->blocks);
	free(b->frames);
	free(b->acc);
	free(b->stat);
	free(b);
}

static struct istat *stat_of(struct blocks *b, const struct perpi_insn *insn)
{
	if (insn->id >= b->nstat) {
		size_t n = b->nstat ? b->nstat : 256;
		while (n <= insn->id)
			n *= 2;
		b->stat = xrealloc(b->stat, n * sizeof(*b->stat));
		memset(b->stat + b->nstat, 0, (n - b->nstat) * sizeof(*b->stat));
		for (size_t i = b->nstat; i < n; i++)
			b->stat[i].next = -1;
		b->nstat = n;
	}
	struct istat *s = &b->stat[insn->id];
	s->insn = insn;
	return s;
}

static struct function_acc *function_acc(struct blocks *b, uint64_t entry)
{
	size_t k = counts_slot(&b->acc_index, entry);
	if (b->acc_index.events[k])
		return &b->acc[b->acc_index.starts[k]];
	b->acc = xrealloc(b->acc, (b->nacc + 1) * sizeof(*b->acc));
	memset(&b->acc[b->nacc], 0, sizeof(b->acc[b->nacc]));
	b->acc[b->nacc].entry = entry;
	b->acc_index.starts[k] = b->nacc;
	b->acc_index.events[k] = 1;
	return &b->acc[b->nacc++];
}

static void frame_open(struct blocks *b, const struct perpi_event *ev)
{
	if (b->depth == b->frames_cap) {
		size_t cap = b->frames_cap ? 2 * b->frames_cap : 16;
		b->frames = xrealloc(b->frames, cap * sizeof(*b->frames));
		memset(b->frames + b->frames_cap, 0, (cap - b->frames_cap) * sizeof(*b->frames));
		b->frames_cap = cap;
	}
	struct frame *f = &b->frames[b->depth++];
	f->entry = ev->insn->addr;
	f->key = ev->sp;
	f->insns_before = b->insns;
}

/* A closing instance adds its counts to its function and, since a
 * caller's figures include its callees, to the instance below it. */
static void frame_close(struct blocks *b)
{
	struct frame *f = &b->frames[--b->depth];
	struct function_acc *a = function_acc(b, f->entry);
	a->calls++;
	a->insns += b->insns - f->insns_before;
	for (size_t u = 0; u < f->counts.n; u++) {
		size_t i = f->counts.used[u];
		counts_add(&a->counts, f->counts.key[i] - 1, f->counts.starts[i],
			   f->counts.events[i]);
	}
	counts_move(b->depth ? &b->frames[b->depth - 1].counts : NULL, &f->counts);
}

int blocks_event(void *ctx, const struct perpi_event *ev)
{
	struct blocks *b = ctx;
	const struct perpi_insn *insn = ev->insn, *prev = b->prev;
	/* The engine's frame rules, in the engine's order. */
	if (!(ev->flags & EVENT_SIGNAL_ENTRY))
		while (b->depth && ev->sp > b->frames[b->depth - 1].key)
			frame_close(b);
	if (b->pending_call || (ev->flags & (EVENT_SIGNAL_ENTRY | EVENT_CALL_ENTRY)))
		frame_open(b, ev);
	b->pending_call = insn->control == CTRL_CALL;
	if ((ev->flags & EVENT_CALL_TARGET) && b->depth && b->frames[b->depth - 1].key == ev->sp)
		b->frames[b->depth - 1].entry = insn->addr; /* through a PLT stub */

	struct istat *s = stat_of(b, insn);
	/* REP string iterations repeat the same instruction: one start. */
	int start = !(prev == insn && insn->control == CTRL_NONE);
	if (start) {
		int fell = prev && prev->control == CTRL_NONE &&
			   prev->addr + prev->len == insn->addr &&
			   !(ev->flags & (EVENT_SIGNAL_ENTRY | EVENT_CALL_ENTRY));
		if (fell)
			b->stat[prev->id].next = insn->id;
		else
			s->leader = 1;
		s->starts++;
	}
	int counted = !(ev->flags & EVENT_NOT_COUNTED);
	s->events += counted;
	b->insns += counted;
	if (b->depth)
		counts_add(&b->frames[b->depth - 1].counts, insn->id, start, counted);
	b->prev = insn;

	if (insn->control == CTRL_RET && b->depth && ev->sp == b->frames[b->depth - 1].key)
		frame_close(b);
	return 0;
}

static int by_addr(const void *x, const void *y)
{
	const struct istat *const *a = x, *const *b = y;
	uint64_t p = (*a)->insn->addr, q = (*b)->insn->addr;
	return (p > q) - (p < q);
}

/* Cuts the executed instructions into blocks, by address. */
static void build_blocks(struct blocks *b)
{
	struct istat **leaders = xmalloc((b->nstat + 1) * sizeof(*leaders));
	size_t nl = 0;
	for (size_t i = 0; i < b->nstat; i++)
		if (b->stat[i].insn && b->stat[i].leader)
			leaders[nl++] = &b->stat[i];
	qsort(leaders, nl, sizeof(*leaders), by_addr);
	b->blocks = xcalloc(nl + 1, sizeof(*b->blocks));
	for (size_t k = 0; k < nl; k++) {
		struct block *blk = &b->blocks[b->nblocks++];
		blk->addr = leaders[k]->insn->addr;
		blk->occurrences = leaders[k]->starts;
		for (struct istat *s = leaders[k];;) {
			blk->insns = xrealloc(blk->insns, (blk->n + 1) * sizeof(*blk->insns));
			blk->events = xrealloc(blk->events, (blk->n + 1) * sizeof(*blk->events));
			blk->insns[blk->n] = s->insn;
			blk->events[blk->n] = s->events;
			blk->insns_executed += s->events;
			s->block = k;
			s->pos = blk->n++;
			if (s->insn->control != CTRL_NONE || s->next < 0 || b->stat[s->next].leader)
				break;
			s = &b->stat[s->next];
		}
	}
	free(leaders);
}

struct entry {
	size_t block, pos;
	uint64_t starts, events;
};

static int by_block(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	if (a->block != b->block)
		return (a->block > b->block) - (a->block < b->block);
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* A function's counts per instruction, projected onto the blocks. */
static void build_shares(struct blocks *b, const struct function_acc *a, struct blocks_function *f)
{
	struct entry *e = xmalloc((a->counts.n + 1) * sizeof(*e));
	size_t n = 0;
	for (size_t u = 0; u < a->counts.n; u++) {
		size_t i = a->counts.used[u];
		const struct istat *s = &b->stat[a->counts.key[i] - 1];
		e[n++] = (struct entry){s->block, s->pos, a->counts.starts[i], a->counts.events[i]};
	}
	qsort(e, n, sizeof(*e), by_block);
	f->entry = a->entry;
	f->calls = a->calls;
	f->insns = a->insns;
	for (size_t i = 0; i < n; i++) {
		if (!f->n || f->shares[f->n - 1].block != e[i].block) {
			f->shares = xrealloc(f->shares, (f->n + 1) * sizeof(*f->shares));
			f->shares[f->n].block = e[i].block;
			f->shares[f->n].occurrences = 0;
			f->shares[f->n].events = xcalloc(b->blocks[e[i].block].n, sizeof(uint64_t));
			f->n++;
		}
		struct block_share *sh = &f->shares[f->n - 1];
		if (e[i].pos == 0)
			sh->occurrences = e[i].starts;
		sh->events[e[i].pos] = e[i].events;
	}
	free(e);
}

static int by_entry(const void *x, const void *y)
{
	const struct blocks_function *a = x, *b = y;
	return (a->entry > b->entry) - (a->entry < b->entry);
}

void blocks_finish(struct blocks *b)
{
	while (b->depth)
		frame_close(b);
	build_blocks(b);
	b->functions = xcalloc(b->nacc + 1, sizeof(*b->functions));
	for (size_t i = 0; i < b->nacc; i++)
		build_shares(b, &b->acc[i], &b->functions[b->nfunctions++]);
	qsort(b->functions, b->nfunctions, sizeof(*b->functions), by_entry);
}

size_t blocks_list(const struct blocks *b, const struct block **out)
{
	*out = b->blocks;
	return b->nblocks;
}

size_t blocks_functions(const struct blocks *b, const struct blocks_function **out)
{
	*out = b->functions;
	return b->nfunctions;
}

const struct blocks_function *blocks_function(const struct blocks *b, uint64_t entry)
{
	struct blocks_function key = {.entry = entry};
	return bsearch(&key, b->functions, b->nfunctions, sizeof(key), by_entry);
}

uint64_t blocks_insns(const struct blocks *b)
{
	return b->insns;
}

/* ---- the ILP pass ---- */

static void occurrence_close(struct blocks *b)
{
	if (b->ilp_block != SIZE_MAX)
		b->blocks[b->ilp_block].steps += b->ilp_depth;
}

/* The ideal machine's step of one event inside the occurrence: sources
 * written before the occurrence began are ready at step 0. */
static uint64_t occurrence_step(struct blocks *b, const struct perpi_event *ev)
{
	uint64_t c = 0;
	for (unsigned i = 0; i < ev->n_src; i++) {
		unsigned u = ev->src[i];
		if (u < UNIT_COUNT && b->unit_gen[u] == b->gen && b->unit_ready[u] > c)
			c = b->unit_ready[u];
	}
	for (unsigned m = 0; m < ev->n_mem && m < EVENT_MAX_MEM; m++) {
		if (ev->mem[m].write)
			continue;
		for (uint32_t k = 0; k < ev->mem[m].size; k++) {
			long slot = counts_find(&b->mem, ev->mem[m].addr + k);
			if (slot >= 0 && b->mem.starts[slot] > c)
				c = b->mem.starts[slot];
		}
	}
	/* A system call takes no step: what it writes is ready with its inputs. */
	return c + !(ev->flags & EVENT_NOT_COUNTED);
}

int blocks_ilp_event(void *ctx, const struct perpi_event *ev)
{
	struct blocks *b = ctx;
	const struct perpi_insn *insn = ev->insn;
	int start = !(b->ilp_prev == insn && insn->control == CTRL_NONE);
	b->ilp_prev = insn;
	if (insn->id >= b->nstat || !b->stat[insn->id].insn ||
	    b->stat[insn->id].insn->addr != insn->addr)
		return 0; /* not in the first pass's run */
	if (start && b->stat[insn->id].leader) {
		occurrence_close(b);
		b->ilp_block = b->stat[insn->id].block;
		b->gen++;
		b->ilp_depth = 0;
		counts_move(NULL, &b->mem);
	}
	if (b->ilp_block == SIZE_MAX)
		return 0;
	uint64_t c = occurrence_step(b, ev);
	for (unsigned i = 0; i < ev->n_dst; i++) {
		unsigned u = ev->dst[i];
		if (u < UNIT_COUNT) {
			b->unit_gen[u] = b->gen;
			b->unit_ready[u] = c;
		}
	}
	for (unsigned m = 0; m < ev->n_mem && m < EVENT_MAX_MEM; m++)
		for (uint32_t k = 0; ev->mem[m].write && k < ev->mem[m].size; k++) {
			size_t slot = counts_slot(&b->mem, ev->mem[m].addr + k); /* may grow */
			b->mem.starts[slot] = c;
		}
	if (c > b->ilp_depth)
		b->ilp_depth = c;
	return 0;
}

void blocks_ilp_finish(struct blocks *b)
{
	occurrence_close(b);
	b->ilp_block = SIZE_MAX;
}
