/* test_same_events A.data B.data: the two recorded runs hold the same
 * events, one by one: the same instruction (text, class, control), flags,
 * units read and written (as sets), and memory accesses (kind, size, and
 * address: the same, or, near the stack pointer, the same offset from it,
 * since the two backends place the stack apart). Exit 0 when they do; 1 at
 * the first difference, which it prints with its index and function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/trace_file.h"

#define STACK_NEAR (1 << 20)

struct saved {
	const struct perpi_insn *insn;
	uint64_t sp;
	uint16_t flags;
	uint64_t src[3], dst[3]; /* unit sets */
	uint16_t n_mem;
	struct perpi_mem_access mem[EVENT_MAX_MEM];
};

struct run {
	struct trace_reader *reader;
	struct saved *ev;
	size_t n, cap, at;
	int failed;
	struct trace_reader *other_reader;
	const char *a, *b;
};

static void save(struct saved *s, const struct perpi_event *ev)
{
	memset(s, 0, sizeof(*s));
	s->insn = ev->insn;
	s->sp = ev->sp;
	s->flags = ev->flags;
	for (int i = 0; i < ev->n_src; i++)
		s->src[ev->src[i] / 64] |= 1ull << (ev->src[i] % 64);
	for (int i = 0; i < ev->n_dst; i++)
		s->dst[ev->dst[i] / 64] |= 1ull << (ev->dst[i] % 64);
	s->n_mem = ev->n_mem;
	memcpy(s->mem, ev->mem, ev->n_mem * sizeof(*ev->mem));
}

static int collect(void *ctx, const struct perpi_event *ev)
{
	struct run *r = ctx;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->ev = xrealloc(r->ev, r->cap * sizeof(*r->ev));
	}
	save(&r->ev[r->n++], ev);
	return 0;
}

static int64_t where(uint64_t addr, uint64_t sp, int *on_stack)
{
	*on_stack = addr + STACK_NEAR > sp && addr < sp + STACK_NEAR;
	return *on_stack ? (int64_t)(addr - sp) : (int64_t)addr;
}

static const char *differ(const struct saved *x, const struct saved *y)
{
	if (strcmp(x->insn->text, y->insn->text) || x->insn->klass != y->insn->klass ||
	    x->insn->control != y->insn->control)
		return "instruction";
	if (x->flags != y->flags)
		return "flags";
	if (memcmp(x->src, y->src, sizeof(x->src)))
		return "units read";
	if (memcmp(x->dst, y->dst, sizeof(x->dst)))
		return "units written";
	if (x->n_mem != y->n_mem)
		return "number of memory accesses";
	for (int i = 0; i < x->n_mem; i++) {
		int sx, sy;
		int64_t ax = where(x->mem[i].addr, x->sp, &sx),
			ay = where(y->mem[i].addr, y->sp, &sy);
		if (x->mem[i].write != y->mem[i].write || x->mem[i].size != y->mem[i].size ||
		    sx != sy || ax != ay)
			return "memory accesses";
	}
	return NULL;
}

static void show(const char *file, struct trace_reader *r, const struct saved *s)
{
	uint64_t off = 0;
	const char *fn = trace_reader_function(r, s->insn, &off);
	printf("  %s: %s+%#llx %s, flags %#x, %u accesses:", file, fn ? fn : "?",
	       (unsigned long long)off, s->insn->text, s->flags, s->n_mem);
	for (int i = 0; i < s->n_mem; i++)
		printf(" %c%u@%#llx", s->mem[i].write ? 'w' : 'r', s->mem[i].size,
		       (unsigned long long)s->mem[i].addr);
	printf(" (sp %#llx)\n", (unsigned long long)s->sp);
}

static int compare(void *ctx, const struct perpi_event *ev)
{
	struct run *r = ctx;
	struct saved y;
	save(&y, ev);
	if (r->at >= r->n) {
		printf("FAIL: %s has more events than %s (%zu)\n", r->b, r->a, r->n);
		show(r->b, r->other_reader, &y);
		r->failed = 1;
		return 1;
	}
	const char *what = differ(&r->ev[r->at], &y);
	if (what) {
		printf("FAIL: event %zu: the %s differ\n", r->at, what);
		show(r->a, r->reader, &r->ev[r->at]);
		show(r->b, r->other_reader, &y);
		r->failed = 1;
		return 1;
	}
	r->at++;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_same_events A.data B.data\n");
		return 2;
	}
	struct run r = {.a = argv[1], .b = argv[2]};
	r.reader = trace_reader_open(argv[1]);
	r.other_reader = trace_reader_open(argv[2]);
	if (!r.reader || !r.other_reader) {
		fprintf(stderr, "test_same_events: %s\n", perpi_error());
		return 2;
	}
	if (trace_reader_replay(r.reader, collect, &r) < 0 ||
	    (trace_reader_replay(r.other_reader, compare, &r) < 0 && !r.failed)) {
		fprintf(stderr, "test_same_events: %s\n", perpi_error());
		return 2;
	}
	if (!r.failed && r.at != r.n) {
		printf("FAIL: %s has %zu events, %s %zu\n", r.a, r.n, r.b, r.at);
		r.failed = 1;
	}
	if (!r.failed)
		printf("PASS: %zu events, the same\n", r.n);
	trace_reader_close(r.reader);
	trace_reader_close(r.other_reader);
	free(r.ev);
	return r.failed;
}
