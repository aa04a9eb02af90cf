/* The decode cache: each static instruction is read and decoded once, by
 * address; lookups cost a multiply and, nearly always, one probe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tracer/symbols.h"
#include "tracer/trace_internal.h"
#include "tracer/x86.h"

#define CHUNK_ENTRIES 1024

void insn_cache_init(struct insn_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->mask = (1 << 12) - 1;
	c->slots = xcalloc(c->mask + 1, sizeof(*c->slots));
}

void insn_cache_done(struct insn_cache *c)
{
	for (size_t i = 0; i < c->n_chunks; i++)
		free(c->chunks[i]);
	free(c->chunks);
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

static size_t slot_of(uint64_t addr, size_t mask)
{
	uint64_t x = addr * 0x9E3779B97F4A7C15ULL;
	return (size_t)(x ^ (x >> 32)) & mask;
}

static void cache_grow(struct insn_cache *c)
{
	size_t mask = c->mask * 2 + 1;
	struct insn_entry **slots = xcalloc(mask + 1, sizeof(*slots));
	for (size_t i = 0; i <= c->mask; i++) {
		struct insn_entry *e = c->slots[i];
		if (!e)
			continue;
		size_t h = slot_of(e->insn.addr, mask);
		while (slots[h])
			h = (h + 1) & mask;
		slots[h] = e;
	}
	free(c->slots);
	c->slots = slots;
	c->mask = mask;
}

static struct insn_entry *cache_new_entry(struct insn_cache *c)
{
	if (!c->n_chunks || c->chunk_used == CHUNK_ENTRIES) {
		c->chunks = xrealloc(c->chunks, (c->n_chunks + 1) * sizeof(*c->chunks));
		c->chunks[c->n_chunks++] = xmalloc(CHUNK_ENTRIES * sizeof(struct insn_entry));
		c->chunk_used = 0;
	}
	struct insn_entry *e = &c->chunks[c->n_chunks - 1][c->chunk_used++];
	memset(e, 0, sizeof(*e));
	return e;
}

/* pushf (9c) after legacy and REX prefixes: the size it pushes. */
static uint8_t pushf_size(const uint8_t *b, size_t len)
{
	int opsize16 = 0;
	for (size_t i = 0; i < len; i++) {
		uint8_t x = b[i];
		if (x == 0x66)
			opsize16 = 1;
		else if (x == 0xf0 || x == 0xf2 || x == 0xf3 || x == 0x2e || x == 0x36 ||
			 x == 0x3e || x == 0x26 || x == 0x64 || x == 0x65 ||
			 (x >= 0x40 && x <= 0x4f))
			continue;
		else
			return x == 0x9c ? (opsize16 ? 2 : 8) : 0;
	}
	return 0;
}

static void entry_fill(struct tracer *t, struct insn_entry *e, uint64_t addr)
{
	uint8_t bytes[16];
	ssize_t got = process_read(t->pid, addr, bytes, sizeof(bytes));
	if (got <= 0) {
		got = 0;
		perpi_warn("%#llx: cannot read the instruction", (unsigned long long)addr);
	}
	if (x86_decode(t->dec, addr, bytes, (size_t)got, &e->insn) < 0 || !e->insn.len) {
		memset(&e->insn, 0, sizeof(e->insn));
		e->insn.addr = addr;
		e->insn.len = 1;
		e->insn.decoder = DECODER_UNKNOWN;
		e->insn.klass = CLASS_OTHER;
		snprintf(e->insn.text, sizeof(e->insn.text), "(unreadable)");
	}
	e->insn.id = t->next_id++;
	e->pushf_size = pushf_size(bytes, got < e->insn.len ? (size_t)got : e->insn.len);
	if (e->insn.decoder == DECODER_UNKNOWN) {
		struct strbuf sb;
		strbuf_init(&sb);
		for (ssize_t i = 0; i < got && i < 15; i++)
			strbuf_addf(&sb, "%s%02x", i ? " " : "", bytes[i]);
		perpi_warn("%#llx: undecodable instruction (bytes %s): treated as reading and "
			   "writing everything",
			   (unsigned long long)addr, sb.buf);
		strbuf_done(&sb);
	}
	symbolizer_note(t->syms, addr);
}

struct insn_entry *insn_cache_get(struct tracer *t, uint64_t addr)
{
	struct insn_cache *c = &t->cache;
	size_t h = slot_of(addr, c->mask);
	for (struct insn_entry *e; (e = c->slots[h]); h = (h + 1) & c->mask)
		if (e->insn.addr == addr)
			return e;
	struct insn_entry *e = cache_new_entry(c);
	entry_fill(t, e, addr);
	e->insn.addr = addr;
	c->slots[h] = e;
	if (++c->count * 2 > c->mask)
		cache_grow(c);
	return e;
}
