/* The engine against a second method on random event streams. The
 * reference below is the definition in DESIGN.md written as plainly as
 * possible: it finds every call instance first (by stack pointer, as the
 * rules say), then re-runs a fresh ideal machine over each instance's events
 * alone, with dense arrays for memory and a linear scan for the width. The
 * engine does all instances at once, incrementally, with sparse shadows,
 * pruning, page stamps and shared state; both must give the same I, C and
 * calls for every function, with and without each machine limit, and an
 * observer must see the same step and producers for every event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/engine.h"

#define N_EVENTS 3000
#define DATA_BASE 0x10000ull /* 64 KiB of data: several 4 KiB pages */
#define DATA_SIZE 0x10000ull
#define STACK_TOP 0x7ff0000ull
#define STACK_SIZE 0x4000ull
#define N_FUNCS 6

static uint64_t rng;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static struct perpi_insn insns[N_EVENTS];
static struct perpi_event evs[N_EVENTS];
static int failures;

/* ---- the stream ---- */

static const uint8_t unit_pool[] = {UNIT_RAX, UNIT_RCX, UNIT_RDX, UNIT_RBX, UNIT_RSP,
				    UNIT_RSI, UNIT_RDI, UNIT_VEC_PART(0, 0), UNIT_VEC_PART(0, 1),
				    UNIT_VEC_PART(1, 0), UNIT_CF, UNIT_ZF};

static void random_units(uint8_t *out, uint8_t *n, unsigned max)
{
	*n = 0;
	for (unsigned k = rnd(max + 1); k; k--) {
		uint8_t u = unit_pool[rnd(sizeof(unit_pool))];
		if (!memchr(out, u, *n))
			out[(*n)++] = u;
	}
}

static void make_stream(void)
{
	uint64_t sp = STACK_TOP, keys[64];
	int pushes[64], depth = 0, pending_entry = -1;
	for (int i = 0; i < N_EVENTS; i++) {
		struct perpi_event *ev = &evs[i];
		struct perpi_insn *in = &insns[i];
		memset(ev, 0, sizeof(*ev));
		memset(in, 0, sizeof(*in));
		ev->insn = in;
		in->addr = 0x400000 + 16 * (uint64_t)i;
		in->klass = (uint8_t)rnd(CLASS_COUNT);
		strcpy(in->text, "op");
		if (pending_entry >= 0) { /* a callee's first instruction */
			in->addr = 0x500000 + 0x100 * (uint64_t)pending_entry;
			pending_entry = -1;
		}
		if (i == 2) { /* main opens after two events: it shares nothing */
			ev->flags = EVENT_CALL_ENTRY;
			keys[0] = sp;
			pushes[0] = 0;
			depth = 1;
		}
		ev->sp = sp;
		unsigned what = rnd(100);
		if (depth && depth < 60 && what < 8 && sp > STACK_TOP - STACK_SIZE + 256) {
			in->control = CTRL_CALL;
			ev->n_src = ev->n_dst = 1;
			ev->src[0] = ev->dst[0] = UNIT_RSP;
			ev->mem[ev->n_mem++] = (struct perpi_mem_access){sp - 8, 8, 1};
			sp -= 8;
			keys[depth] = sp;
			pushes[depth++] = 0;
			pending_entry = (int)rnd(N_FUNCS);
			continue;
		}
		if (depth > 1 && what < 16 && !pushes[depth - 1]) {
			in->control = CTRL_RET;
			ev->n_src = ev->n_dst = 1;
			ev->src[0] = ev->dst[0] = UNIT_RSP;
			ev->mem[ev->n_mem++] = (struct perpi_mem_access){sp, 8, 0};
			sp += 8;
			depth--;
			continue;
		}
		if (depth > 2 && what < 17) { /* longjmp: back into a shallower frame */
			int to = 1 + (int)rnd((unsigned)depth - 2);
			sp = keys[to] - 8 * (uint64_t)pushes[to];
			depth = to + 1;
			ev->n_src = 1;
			ev->src[0] = UNIT_RDX;
			ev->n_dst = 1;
			ev->dst[0] = UNIT_RSP;
			continue;
		}
		if (depth && what < 24 && sp > STACK_TOP - STACK_SIZE + 256) {
			strcpy(in->text, "push rbx");
			ev->n_src = 2;
			ev->src[0] = UNIT_RSP;
			ev->src[1] = UNIT_RBX;
			ev->n_dst = 1;
			ev->dst[0] = UNIT_RSP;
			ev->mem[ev->n_mem++] = (struct perpi_mem_access){sp - 8, 8, 1};
			sp -= 8;
			pushes[depth - 1]++;
			continue;
		}
		if (depth && what < 30 && pushes[depth - 1]) {
			strcpy(in->text, "pop rbx");
			ev->n_src = 1;
			ev->src[0] = UNIT_RSP;
			ev->n_dst = 2;
			ev->dst[0] = UNIT_RSP;
			ev->dst[1] = UNIT_RBX;
			ev->mem[ev->n_mem++] = (struct perpi_mem_access){sp, 8, 0};
			sp += 8;
			pushes[depth - 1]--;
			continue;
		}
		random_units(ev->src, &ev->n_src, 3);
		random_units(ev->dst, &ev->n_dst, 2);
		if (what < 33)
			ev->flags |= EVENT_NOT_COUNTED;
		else if (what < 34)
			ev->flags |= EVENT_UNKNOWN;
		for (unsigned k = rnd(100) < 45 ? 1 + rnd(2) : 0; k; k--) {
			static const uint32_t sizes[] = {1, 2, 4, 8, 8, 8, 16, 32};
			uint32_t size = sizes[rnd(8)];
			uint64_t addr = rnd(3) ? DATA_BASE + rnd((unsigned)(DATA_SIZE - 32))
					       : sp + rnd(128) - 64;
			ev->mem[ev->n_mem++] = (struct perpi_mem_access){addr, size, (uint8_t)rnd(2)};
		}
	}
}

/* ---- the reference ---- */

struct ref_func {
	uint64_t entry, insns, steps, calls;
};
static struct ref_func ref_funcs[64];
static size_t n_ref_funcs;

static int is_stack_insn(const struct perpi_insn *in)
{
	return in->control == CTRL_CALL || in->control == CTRL_RET ||
	       !strncmp(in->text, "push ", 5) || !strncmp(in->text, "pop ", 4);
}

/* The ideal (or constrained) machine from scratch over events [s, e]:
 * returns C, sets *insns and, for the whole run, per-class counts. */
static uint64_t ref_step[N_EVENTS];           /* step of each event (0: free) */
static struct engine_dep ref_deps[N_EVENTS][8 + 2 * 32]; /* its producers */
static size_t ref_n_deps[N_EVENTS];

/* The producers of event i's sources, from the last writer of each unit and
 * byte (-1: none): one per unit, one per producer of each read access at
 * the first byte it carries, in the order they come. */
static void ref_producers(int i, int free_rsp, const int64_t *unit_w, const int64_t *data_w,
			  const int64_t *stack_w)
{
	const struct perpi_event *ev = &evs[i];
	size_t n = 0;
	for (int k = 0; k < ev->n_src; k++)
		if (!(free_rsp && ev->src[k] == UNIT_RSP) && unit_w[ev->src[k]] >= 0)
			ref_deps[i][n++] = (struct engine_dep){(uint64_t)unit_w[ev->src[k]],
							       ev->src[k], DEP_UNIT, 0};
	for (int m = 0; m < ev->n_mem; m++) {
		size_t first = n;
		for (uint32_t b = 0; !ev->mem[m].write && b < ev->mem[m].size; b++) {
			uint64_t a = ev->mem[m].addr + b;
			int64_t w = a >= DATA_BASE && a < DATA_BASE + DATA_SIZE + 64
					    ? data_w[a - DATA_BASE]
					    : stack_w[a - (STACK_TOP - STACK_SIZE)];
			size_t d = first;
			while (w >= 0 && d < n && ref_deps[i][d].producer != (uint64_t)w)
				d++;
			if (w < 0)
				continue;
			if (d < n)
				ref_deps[i][d].size++;
			else
				ref_deps[i][n++] = (struct engine_dep){(uint64_t)w, a, DEP_MEMORY, 1};
		}
	}
	ref_n_deps[i] = n;
}

static uint64_t ref_machine(const struct engine_options *o, int s, int e, uint64_t *insns)
{
	static uint64_t unit[UNIT_COUNT], data[DATA_SIZE + 64], stack[STACK_SIZE + 256];
	static int64_t unit_w[UNIT_COUNT], data_w[DATA_SIZE + 64], stack_w[STACK_SIZE + 256];
	memset(unit_w, 0xff, sizeof(unit_w));
	memset(data_w, 0xff, sizeof(data_w));
	memset(stack_w, 0xff, sizeof(stack_w));
	static uint64_t placed[N_EVENTS], count[4 * N_EVENTS + 8];
	uint64_t c_max = 0, n = 0;
	memset(unit, 0, sizeof(unit));
	memset(data, 0, sizeof(data));
	memset(stack, 0, sizeof(stack));
	memset(count, 0, sizeof(count));
	for (int i = s; i <= e; i++) {
		const struct perpi_event *ev = &evs[i];
		int free_rsp = o->stack_engine && is_stack_insn(ev->insn);
		int counted = !(ev->flags & EVENT_NOT_COUNTED) &&
			      (!o->class_mask || (o->class_mask >> ev->insn->klass & 1));
		uint64_t c = 0;
		ref_producers(i, free_rsp, unit_w, data_w, stack_w);
		for (int k = 0; k < ev->n_src; k++)
			if (!(free_rsp && ev->src[k] == UNIT_RSP) && unit[ev->src[k]] > c)
				c = unit[ev->src[k]];
		for (int m = 0; m < ev->n_mem; m++)
			for (uint32_t b = 0; !ev->mem[m].write && b < ev->mem[m].size; b++) {
				uint64_t a = ev->mem[m].addr + b, r;
				r = a >= DATA_BASE && a < DATA_BASE + DATA_SIZE + 64
					    ? data[a - DATA_BASE]
					    : stack[a - (STACK_TOP - STACK_SIZE)];
				c = r > c ? r : c;
			}
		if (counted) {
			unsigned lat = o->latency ? o->latency(NULL, ev->insn) : 1;
			c++; /* the first step it may issue at */
			if (o->window && n >= o->window && c < placed[n - o->window] + 1)
				c = placed[n - o->window] + 1;
			while (o->width && count[c] >= o->width)
				c++;
			count[c]++;
			c += lat - 1; /* done */
			placed[n++] = c;
			c_max = c > c_max ? c : c_max;
		}
		ref_step[i] = counted ? c : 0;
		for (int k = 0; k < ev->n_dst; k++)
			if (!(free_rsp && ev->dst[k] == UNIT_RSP)) {
				unit[ev->dst[k]] = c;
				unit_w[ev->dst[k]] = i;
			}
		for (int m = 0; m < ev->n_mem; m++)
			for (uint32_t b = 0; ev->mem[m].write && b < ev->mem[m].size; b++) {
				uint64_t a = ev->mem[m].addr + b;
				if (a >= DATA_BASE && a < DATA_BASE + DATA_SIZE + 64) {
					data[a - DATA_BASE] = c;
					data_w[a - DATA_BASE] = i;
				} else {
					stack[a - (STACK_TOP - STACK_SIZE)] = c;
					stack_w[a - (STACK_TOP - STACK_SIZE)] = i;
				}
			}
	}
	*insns = n;
	return c_max;
}

static void ref_instance(const struct engine_options *o, uint64_t entry, int s, int e)
{
	uint64_t insns, steps = ref_machine(o, s, e, &insns);
	size_t f = 0;
	while (f < n_ref_funcs && ref_funcs[f].entry != entry)
		f++;
	if (f == n_ref_funcs)
		ref_funcs[n_ref_funcs++] = (struct ref_func){.entry = entry};
	ref_funcs[f].insns += insns;
	ref_funcs[f].steps += steps;
	ref_funcs[f].calls++;
}

/* Instances by DESIGN.md's rules: from the callee's first instruction to
 * the ret at its entry RSP, or to the last event below it (unwinding). */
static void ref_functions(const struct engine_options *o)
{
	struct {
		uint64_t key, entry;
		int start;
	} stack[128];
	int depth = 0;
	n_ref_funcs = 0;
	for (int i = 0; i < N_EVENTS; i++) {
		const struct perpi_event *ev = &evs[i];
		while (depth && ev->sp > stack[depth - 1].key) {
			depth--;
			ref_instance(o, stack[depth].entry, stack[depth].start, i - 1);
		}
		if ((i && evs[i - 1].insn->control == CTRL_CALL) || (ev->flags & EVENT_CALL_ENTRY)) {
			stack[depth].key = ev->sp;
			stack[depth].entry = ev->insn->addr;
			stack[depth++].start = i;
		}
		if (ev->insn->control == CTRL_RET && depth && ev->sp == stack[depth - 1].key) {
			depth--;
			ref_instance(o, stack[depth].entry, stack[depth].start, i);
		}
	}
	while (depth--)
		ref_instance(o, stack[depth].entry, stack[depth].start, N_EVENTS - 1);
}

/* ---- the comparison ---- */

/* What an observer that wants dependencies saw of the whole run. */
struct seen {
	uint64_t step[N_EVENTS];
	struct engine_dep deps[N_EVENTS][8 + 2 * 32];
	size_t n_deps[N_EVENTS];
	int bad; /* more deps than the reference can have */
};
static struct seen seen;

static void observe(void *ctx, const struct engine_step_info *info)
{
	struct seen *s = ctx;
	if (info->index >= N_EVENTS || info->n_deps > ARRAY_SIZE(s->deps[0])) {
		s->bad = 1;
		return;
	}
	s->step[info->index] = info->step;
	s->n_deps[info->index] = info->n_deps;
	if (info->n_deps)
		memcpy(s->deps[info->index], info->deps, info->n_deps * sizeof(*info->deps));
}

static void compare_observed(unsigned seed, const char *what)
{
	for (int i = 0; i < N_EVENTS && !seen.bad; i++) {
		int same = seen.step[i] == ref_step[i] && seen.n_deps[i] == ref_n_deps[i];
		for (size_t d = 0; same && d < ref_n_deps[i]; d++)
			same = seen.deps[i][d].producer == ref_deps[i][d].producer &&
			       seen.deps[i][d].what == ref_deps[i][d].what &&
			       seen.deps[i][d].kind == ref_deps[i][d].kind &&
			       seen.deps[i][d].size == ref_deps[i][d].size;
		if (!same) {
			printf("FAIL: seed %u %s: event %d: step %llu with %zu deps, reference "
			       "step %llu with %zu deps\n",
			       seed, what, i, (unsigned long long)seen.step[i], seen.n_deps[i],
			       (unsigned long long)ref_step[i], ref_n_deps[i]);
			failures++;
			return;
		}
	}
	if (seen.bad) {
		printf("FAIL: seed %u %s: an observed event out of range\n", seed, what);
		failures++;
	}
}

static void compare(unsigned seed, const struct engine_options *o, const char *what)
{
	struct engine *e = engine_new(o);
	struct engine_totals t;
	const struct engine_function *fns;
	uint64_t ref_insns, ref_steps;
	memset(&seen, 0, sizeof(seen));
	engine_add_observer(e, observe, &seen, 1);
	for (int i = 0; i < N_EVENTS; i++)
		engine_event(e, &evs[i]);
	engine_finish(e);
	engine_totals(e, &t);
	ref_steps = ref_machine(o, 0, N_EVENTS - 1, &ref_insns);
	compare_observed(seed, what);
	if (t.insns != ref_insns || t.steps != ref_steps) {
		printf("FAIL: seed %u %s: whole run I %llu C %llu, reference I %llu C %llu\n", seed,
		       what, (unsigned long long)t.insns, (unsigned long long)t.steps,
		       (unsigned long long)ref_insns, (unsigned long long)ref_steps);
		failures++;
	}
	ref_functions(o);
	size_t n = engine_functions(e, &fns);
	if (n != n_ref_funcs) {
		printf("FAIL: seed %u %s: %zu functions, reference %zu\n", seed, what, n,
		       n_ref_funcs);
		failures++;
	}
	for (size_t r = 0; r < n_ref_funcs; r++) {
		size_t f = 0;
		while (f < n && fns[f].entry != ref_funcs[r].entry)
			f++;
		if (f == n || fns[f].insns != ref_funcs[r].insns ||
		    fns[f].steps != ref_funcs[r].steps || fns[f].calls != ref_funcs[r].calls) {
			printf("FAIL: seed %u %s: function 0x%llx: engine I %llu C %llu calls %llu, "
			       "reference I %llu C %llu calls %llu\n",
			       seed, what, (unsigned long long)ref_funcs[r].entry,
			       f < n ? (unsigned long long)fns[f].insns : 0ull,
			       f < n ? (unsigned long long)fns[f].steps : 0ull,
			       f < n ? (unsigned long long)fns[f].calls : 0ull,
			       (unsigned long long)ref_funcs[r].insns,
			       (unsigned long long)ref_funcs[r].steps,
			       (unsigned long long)ref_funcs[r].calls);
			failures++;
		}
	}
	engine_delete(e);
}

/* Latency by class: 1 to 3 steps. */
static unsigned class_latency(void *ctx, const struct perpi_insn *insn)
{
	(void)ctx;
	return 1 + insn->klass % 3;
}

int main(void)
{
	static const struct {
		struct engine_options o;
		const char *what;
	} machines[] = {
		{{0}, "ideal"},
		{{.stack_engine = 1}, "stack engine"},
		{{.class_mask = 1u << CLASS_INT | 1u << CLASS_LOAD}, "--only int,load"},
		{{.window = 4}, "window 4"},
		{{.width = 2}, "width 2"},
		{{.window = 16, .width = 3, .stack_engine = 1}, "window 16 width 3 stack engine"},
		{{.latency = class_latency}, "latency 1-3"},
		{{.latency = class_latency, .window = 8, .width = 2}, "latency window 8 width 2"},
	};
	unsigned instances = 0;
	for (unsigned seed = 1; seed <= 40; seed++) {
		rng = 0x9E3779B97F4A7C15ull * seed;
		make_stream();
		for (size_t m = 0; m < ARRAY_SIZE(machines); m++)
			compare(seed, &machines[m].o, machines[m].what);
		for (size_t f = 0; f < n_ref_funcs; f++)
			instances += (unsigned)ref_funcs[f].calls;
	}
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("reference: 40 random streams x %zu machines agree (%u call instances)\n",
	       ARRAY_SIZE(machines), instances);
	return 0;
}
