/* The ideal-machine dependency engine (DESIGN.md, "The ideal machine" and
 * "Per-function analysis"), with the constrained variants.
 *
 * The whole run keeps one ready step per unit and a sparse byte-exact shadow
 * of memory. Each open call instance (a frame) is analysed in isolation, so
 * it keeps its own ready steps:
 * - units: a per-frame array that is never cleared; an entry is valid only
 *   if the unit's last writer in the run (unit_writer, shared) started at or
 *   after the frame's first event, since then that write updated the frame
 *   too. Opening a frame costs nothing.
 * - memory: a per-frame shadow of the bytes written inside the frame, one
 *   per depth, cleared when the frame closes. The run's shadow stamps each
 *   page with its last writer, so a read of a page nobody wrote since a
 *   frame opened skips that frame's shadow (and every deeper one's).
 * The outermost frame, when it opens on the very first event, sees exactly
 * what the whole run sees and shares its state instead. Each event costs
 * one pass over the open frames: time and memory grow with the call depth.
 *
 * Frames are matched by stack pointer: an instance opens on the event after
 * a call (or a signal handler's or region's first instruction) with its RSP
 * as key, closes with the ret at that RSP, and is unwound (closed before
 * the event) by any event above it. Free instructions (syscalls, classes
 * left out by --only) take no step and no place in the window or a step's
 * width: their outputs are ready when their inputs are. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/engine.h"
#include "ilp/engine_limits.h"
#include "ilp/shadow.h"

#define GLOBAL_PAGE_SHIFT 12 /* 4 KiB of the address space per page */
#define FRAME_PAGE_SHIFT 8   /* frames mostly write a little stack */
#define FRAME_POOL_KEEP 16384 /* free frame pages kept: 16 MiB */
#define MAX_OBSERVERS 8
#define DEEP_CALLS 4096 /* nested instances before a warning about the cost */
#define SIGRETURN_EVENTS 8 /* at most this many events from a handler's ret to sigreturn */

struct frame {
	uint64_t entry, key; /* callee's first instruction; its RSP there */
	int64_t start;       /* dynamic index of its first event */
	uint64_t insns_before; /* the run's I when it opened: its I is the difference */
	uint32_t steps;
	int shares_global;
	int signal;          /* opened by a signal handler's first instruction */
	uint64_t resume_sp;  /* the handler interrupted a call: its callee's RSP */
	struct shadow *mem;  /* owned by this depth slot, reused */
	struct limits lim;   /* initialised once per depth slot when limited */
	int lim_ready;
	uint32_t unit_ready[UNIT_COUNT];
};

struct observer {
	engine_observer_fn fn;
	void *ctx;
	int want_deps;
};

struct engine {
	struct engine_options opt;
	int limited;
	int64_t index; /* dynamic index of the next event */
	uint32_t unit_ready[UNIT_COUNT];
	int64_t unit_writer[UNIT_COUNT]; /* -1: never written in the region */
	struct shadow *mem;              /* with writers when an observer wants deps */
	struct limits lim;
	struct engine_totals totals;
	int pending_call;    /* the last event was a call */
	uint64_t call_sp;    /* the RSP its callee starts with */
	uint64_t resume_sp;  /* a call interrupted by a signal: its callee's RSP, 0 = none */
	int in_sigreturn;    /* events left between a handler's ret and the sigreturn
			      * syscall (0: not there) */
	int warned_deep;

	struct frame *frames;
	size_t depth, frames_cap;
	struct shadow_pool frame_pool;

	struct engine_function *funcs;
	size_t n_funcs, funcs_cap;
	uint32_t *func_slots; /* hash of entry -> index + 1 */
	unsigned func_bits;

	struct observer observers[MAX_OBSERVERS];
	size_t n_observers;
	int want_deps;
	struct engine_dep *deps;
	size_t n_deps, deps_cap;
};

struct engine *engine_new(const struct engine_options *opt)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	if (opt)
		e->opt = *opt;
	e->limited = e->opt.window || e->opt.width;
	for (size_t u = 0; u < UNIT_COUNT; u++)
		e->unit_writer[u] = -1;
	e->mem = shadow_new(GLOBAL_PAGE_SHIFT, 0);
	limits_init(&e->lim, e->opt.window, e->opt.width);
	e->frame_pool.keep = FRAME_POOL_KEEP;
	e->func_bits = 6;
	e->func_slots = xcalloc((size_t)1 << e->func_bits, sizeof(*e->func_slots));
	return e;
}

void engine_delete(struct engine *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->frames_cap; i++) {
		shadow_delete(e->frames[i].mem);
		if (e->frames[i].lim_ready)
			limits_done(&e->frames[i].lim);
	}
	free(e->frames);
	shadow_pool_done(&e->frame_pool);
	shadow_delete(e->mem);
	limits_done(&e->lim);
	free(e->funcs);
	free(e->func_slots);
	free(e->deps);
	free(e);
}

void engine_add_observer(struct engine *e, engine_observer_fn fn, void *ctx, int want_deps)
{
	if (e->n_observers == MAX_OBSERVERS)
		perpi_fatal("engine: more than %d observers", MAX_OBSERVERS);
	e->observers[e->n_observers++] = (struct observer){fn, ctx, want_deps};
	if (want_deps && !e->want_deps) {
		/* Producers of memory bytes need a writer per byte, from the
		 * first event on. */
		if (e->index)
			perpi_fatal("engine: an observer of dependencies must be added before "
				    "the first event");
		e->want_deps = 1;
		shadow_delete(e->mem);
		e->mem = shadow_new(GLOBAL_PAGE_SHIFT, 1);
	}
}

void engine_totals(const struct engine *e, struct engine_totals *out)
{
	*out = e->totals;
}

size_t engine_functions(const struct engine *e, const struct engine_function **out)
{
	*out = e->funcs;
	return e->n_funcs;
}

/* ---- per-function figures ---- */

static size_t func_slot(uint64_t entry, unsigned bits)
{
	return (size_t)((entry * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

static void func_rehash(struct engine *e)
{
	free(e->func_slots);
	e->func_bits++;
	size_t mask = ((size_t)1 << e->func_bits) - 1;
	e->func_slots = xcalloc(mask + 1, sizeof(*e->func_slots));
	for (size_t f = 0; f < e->n_funcs; f++) {
		size_t i = func_slot(e->funcs[f].entry, e->func_bits);
		while (e->func_slots[i])
			i = (i + 1) & mask;
		e->func_slots[i] = (uint32_t)(f + 1);
	}
}

static struct engine_function *func_find(struct engine *e, uint64_t entry)
{
	size_t mask = ((size_t)1 << e->func_bits) - 1;
	size_t i = func_slot(entry, e->func_bits);
	for (; e->func_slots[i]; i = (i + 1) & mask)
		if (e->funcs[e->func_slots[i] - 1].entry == entry)
			return &e->funcs[e->func_slots[i] - 1];
	if (e->n_funcs == e->funcs_cap) {
		e->funcs_cap = e->funcs_cap ? 2 * e->funcs_cap : 64;
		e->funcs = xrealloc(e->funcs, e->funcs_cap * sizeof(*e->funcs));
	}
	e->func_slots[i] = (uint32_t)(e->n_funcs + 1);
	struct engine_function *f = &e->funcs[e->n_funcs++];
	*f = (struct engine_function){.entry = entry};
	if (2 * e->n_funcs > mask + 1)
		func_rehash(e);
	return func_find(e, entry);
}

/* ---- call instances ---- */

static void frame_open(struct engine *e, const struct perpi_event *ev, int64_t index)
{
	if (e->depth == e->frames_cap) {
		size_t cap = e->frames_cap ? 2 * e->frames_cap : 16;
		e->frames = xrealloc(e->frames, cap * sizeof(*e->frames));
		memset(e->frames + e->frames_cap, 0, (cap - e->frames_cap) * sizeof(*e->frames));
		e->frames_cap = cap;
	}
	if (e->depth == DEEP_CALLS && !e->warned_deep) {
		e->warned_deep = 1;
		perpi_warn("more than %d nested calls: each instance is analysed apart, so the "
			   "per-function analysis slows down and grows with the depth",
			   DEEP_CALLS);
	}
	struct frame *f = &e->frames[e->depth++];
	f->entry = ev->insn->addr;
	f->key = ev->sp;
	f->start = index;
	f->insns_before = e->totals.insns;
	f->steps = 0;
	/* Opened on the region's first event, the instance sees exactly what
	 * the whole run sees (same ready steps, same limits state). */
	f->shares_global = index == 0;
	f->signal = 0;
	f->resume_sp = 0;
	if (e->limited && !f->lim_ready) {
		limits_init(&f->lim, e->opt.window, e->opt.width);
		f->lim_ready = 1;
	} else if (e->limited) {
		limits_reset(&f->lim);
	}
}

static void frame_close(struct engine *e)
{
	struct frame *f = &e->frames[--e->depth];
	struct engine_function *fn = func_find(e, f->entry);
	fn->insns += e->totals.insns - f->insns_before;
	fn->steps += f->steps;
	fn->calls++;
	if (f->mem)
		shadow_clear(f->mem);
}

/* A ret closes the top instance. A signal handler's ret leads to the
 * sigreturn stub and syscall, perhaps on an alternate stack above the
 * program's: no unwinding until that syscall, and a call the signal
 * interrupted opens its instance when the program gets back to it. */
static void frame_return(struct engine *e)
{
	struct frame *f = &e->frames[e->depth - 1];
	if (f->signal) {
		e->in_sigreturn = SIGRETURN_EVENTS;
		e->resume_sp = f->resume_sp;
	}
	frame_close(e);
}

/* Open the instances this event starts: after a call, at a signal
 * handler's or a region's entry, or back from a signal that arrived
 * between a call and its callee's first instruction. */
static void frames_enter(struct engine *e, const struct perpi_event *ev, int64_t index)
{
	if (ev->flags & EVENT_SIGNAL_ENTRY) {
		frame_open(e, ev, index);
		e->frames[e->depth - 1].signal = 1;
		e->frames[e->depth - 1].resume_sp = e->pending_call ? e->call_sp : 0;
	} else if ((e->pending_call && ev->sp == e->call_sp) || (ev->flags & EVENT_CALL_ENTRY)) {
		/* (a callee starts 8 bytes below its call: anything else after
		 * a call is a gap in the trace, not its callee) */
		frame_open(e, ev, index);
	} else if (e->resume_sp && ev->sp == e->resume_sp && !e->in_sigreturn) {
		frame_open(e, ev, index);
		e->resume_sp = 0;
	} else if (e->resume_sp && ev->sp > e->resume_sp && !e->in_sigreturn) {
		e->resume_sp = 0; /* back in the caller: the call did not happen */
	}
	/* A call through a PLT stub: the instance is the function it reached. */
	if ((ev->flags & EVENT_CALL_TARGET) && e->depth && e->frames[e->depth - 1].key == ev->sp)
		e->frames[e->depth - 1].entry = ev->insn->addr;
	e->pending_call = ev->insn->control == CTRL_CALL;
	e->call_sp = ev->sp - 8;
}

void engine_finish(struct engine *e)
{
	while (e->depth)
		frame_close(e);
}

/* ---- one event ---- */

/* push/pop/call/ret, whose implicit RSP update a stack engine makes free
 * (but not "pop rsp", whose RSP comes from memory). */
static int is_stack_insn(const struct perpi_insn *insn)
{
	static const char *const names[] = {"push", "pushq", "pushw", "pushf", "pushfq", "pushfw",
					    "pop",  "popq",  "popw",  "popf",  "popfq",  "popfw"};
	if (insn->control == CTRL_CALL || insn->control == CTRL_RET)
		return 1;
	const char *t = insn->text;
	if (t[0] != 'p' || (strncmp(t, "push", 4) && strncmp(t, "pop", 3)))
		return 0;
	size_t n = strcspn(t, " ");
	if (!strcmp(t + n, " rsp") && t[1] == 'o')
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == n && !strncmp(t, names[i], n))
			return 1;
	return 0;
}

static size_t without_rsp(const uint8_t *in, size_t n, uint8_t *out)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (in[i] != UNIT_RSP)
			out[m++] = in[i];
	return m;
}

static void dep_add(struct engine *e, struct engine_dep d)
{
	if (e->n_deps == e->deps_cap) {
		e->deps_cap = e->deps_cap ? 2 * e->deps_cap : 64;
		e->deps = xrealloc(e->deps, e->deps_cap * sizeof(*e->deps));
	}
	e->deps[e->n_deps++] = d;
}

/* The producers of one read access: one dep per distinct producer (split
 * every 255 bytes), at the first byte it carries. */
static void mem_deps(struct engine *e, uint64_t addr, uint64_t size)
{
	size_t first = e->n_deps;
	for (uint64_t i = 0; i < size; i++) {
		uint64_t a = addr + i;
		uint32_t *page = shadow_lookup(e->mem, a >> e->mem->shift);
		if (!page)
			continue;
		int64_t w = shadow_page_writers(e->mem, page)[a & (((uint64_t)1 << e->mem->shift) - 1)];
		if (w < 0)
			continue;
		size_t d = first;
		while (d < e->n_deps && !(e->deps[d].producer == (uint64_t)w && e->deps[d].size < 255))
			d++;
		if (d < e->n_deps)
			e->deps[d].size++;
		else
			dep_add(e, (struct engine_dep){(uint64_t)w, a, DEP_MEMORY, 1});
	}
}

static void collect_deps(struct engine *e, const struct perpi_event *ev, const uint8_t *src,
			 size_t n_src)
{
	e->n_deps = 0;
	for (size_t i = 0; i < n_src; i++)
		if (e->unit_writer[src[i]] >= 0)
			dep_add(e, (struct engine_dep){(uint64_t)e->unit_writer[src[i]], src[i],
						       DEP_UNIT, 0});
	for (size_t m = 0; m < ev->n_mem; m++)
		if (!ev->mem[m].write)
			mem_deps(e, ev->mem[m].addr, ev->mem[m].size);
}

/* The step of a counted instruction whose sources are ready at ready and
 * whose results take latency steps; 0 when it does not fit in 32 bits. */
static uint32_t place(const struct engine *e, struct limits *l, uint64_t ready, unsigned latency)
{
	if (e->limited)
		return limits_place(l, ready + 1, latency);
	return ready + latency < UINT32_MAX ? (uint32_t)(ready + latency) : 0;
}

/* One event as the frames see it: the sources still worth looking up.
 * Frames are nested in time (each deeper one opened later), so a unit last
 * written before frame k opened was written before every deeper frame, and
 * a page frame k never wrote no deeper frame wrote: such sources drop out
 * as the walk goes deeper. */
struct pending {
	const struct perpi_event *ev;
	int counted;
	unsigned latency;
	size_t n_src, n_reads, n_writes, n_dst;
	const uint8_t *dst;
	uint8_t src[UNIT_COUNT];
	int64_t writer[UNIT_COUNT]; /* last writer of src[i] before this event */
	uint8_t reads[EVENT_MAX_MEM], writes[EVENT_MAX_MEM]; /* indices into ev->mem */
	int64_t read_stamp[EVENT_MAX_MEM]; /* last write to the read's page in the run */
};

/* Max ready step of access a in frame f's own memory; 0 when f never wrote
 * its page (nor, then, any deeper frame). */
static int frame_read(const struct frame *f, const struct perpi_mem_access *a, uint32_t *ready)
{
	struct shadow *sh = f->mem;
	uint64_t psize;
	if (!sh || !sh->used)
		return 0;
	psize = (uint64_t)1 << sh->shift;
	if ((a->addr & (psize - 1)) + a->size <= psize && !shadow_lookup(sh, a->addr >> sh->shift))
		return 0;
	*ready = shadow_max(sh, a->addr, a->size);
	return 1;
}

/* The event in one private frame: its step there, and its writes. */
static int frame_step(struct engine *e, struct frame *f, struct pending *p)
{
	uint64_t c = 0;
	for (size_t i = 0; i < p->n_src;) {
		if (p->writer[i] < f->start) {
			p->n_src--;
			p->src[i] = p->src[p->n_src];
			p->writer[i] = p->writer[p->n_src];
			continue;
		}
		c = f->unit_ready[p->src[i]] > c ? f->unit_ready[p->src[i]] : c;
		i++;
	}
	for (size_t i = 0; i < p->n_reads;) {
		uint32_t r;
		if (p->read_stamp[i] < f->start || !frame_read(f, &p->ev->mem[p->reads[i]], &r)) {
			p->n_reads--;
			p->reads[i] = p->reads[p->n_reads];
			p->read_stamp[i] = p->read_stamp[p->n_reads];
			continue;
		}
		c = r > c ? r : c;
		i++;
	}
	if (p->counted) {
		if (!(c = place(e, &f->lim, c, p->latency)))
			return -1;
		if (c > f->steps)
			f->steps = (uint32_t)c;
	}
	for (size_t i = 0; i < p->n_dst; i++)
		f->unit_ready[p->dst[i]] = (uint32_t)c;
	for (size_t i = 0; i < p->n_writes; i++) {
		const struct perpi_mem_access *a = &p->ev->mem[p->writes[i]];
		if (!f->mem)
			f->mem = shadow_new_pooled(FRAME_PAGE_SHIFT, &e->frame_pool);
		shadow_set(f->mem, a->addr, a->size, (uint32_t)c, 0);
	}
	return 0;
}

/* The event in every private frame, before the whole run's writes. */
static int frames_step(struct engine *e, const struct perpi_event *ev, int counted,
		       unsigned latency, const uint8_t *src, size_t n_src, const uint8_t *dst,
		       size_t n_dst)
{
	struct pending p;
	size_t k = e->frames[0].shares_global ? 1 : 0;
	if (k == e->depth)
		return 0;
	p.ev = ev;
	p.counted = counted;
	p.latency = latency;
	p.n_src = p.n_reads = p.n_writes = 0;
	p.dst = dst;
	p.n_dst = n_dst;
	for (size_t i = 0; i < n_src; i++)
		if (e->unit_writer[src[i]] >= 0) { /* never written: 0 everywhere */
			p.src[p.n_src] = src[i];
			p.writer[p.n_src++] = e->unit_writer[src[i]];
		}
	for (size_t m = 0; m < ev->n_mem; m++) {
		if (ev->mem[m].write) {
			p.writes[p.n_writes++] = (uint8_t)m;
			continue;
		}
		/* A page last written before a frame opened holds nothing that
		 * frame wrote: the run's page stamp prunes without a lookup. */
		int64_t stamp = INT64_MAX;
		uint64_t psize = (uint64_t)1 << e->mem->shift, a = ev->mem[m].addr;
		if ((a & (psize - 1)) + ev->mem[m].size <= psize) {
			uint32_t *page = shadow_lookup(e->mem, a >> e->mem->shift);
			if (!page)
				continue;
			stamp = *shadow_page_stamp(e->mem, page);
		}
		p.read_stamp[p.n_reads] = stamp;
		p.reads[p.n_reads++] = (uint8_t)m;
	}
	for (; k < e->depth; k++)
		if (frame_step(e, &e->frames[k], &p) < 0)
			return -1;
	return 0;
}

/* The event's step in the whole run; 0 on overflow. */
static uint32_t global_step(struct engine *e, const struct perpi_event *ev, int counted,
			    unsigned latency, const uint8_t *src, size_t n_src)
{
	uint64_t c = 0;
	for (size_t i = 0; i < n_src; i++)
		c = e->unit_ready[src[i]] > c ? e->unit_ready[src[i]] : c;
	for (size_t m = 0; m < ev->n_mem; m++)
		if (!ev->mem[m].write) {
			uint32_t r = shadow_max(e->mem, ev->mem[m].addr, ev->mem[m].size);
			c = r > c ? r : c;
		}
	if (counted)
		return place(e, &e->lim, c, latency);
	return (uint32_t)c;
}

static void global_writes(struct engine *e, const struct perpi_event *ev, uint32_t c,
			  int64_t index, const uint8_t *dst, size_t n_dst)
{
	for (size_t i = 0; i < n_dst; i++) {
		e->unit_ready[dst[i]] = c;
		e->unit_writer[dst[i]] = index;
	}
	for (size_t m = 0; m < ev->n_mem; m++)
		if (ev->mem[m].write)
			shadow_set(e->mem, ev->mem[m].addr, ev->mem[m].size, c, index);
}

static void account(struct engine *e, const struct perpi_event *ev, int counted, uint32_t c)
{
	if (ev->flags & EVENT_UNKNOWN)
		e->totals.unknown++;
	if (ev->flags & EVENT_NOT_COUNTED)
		e->totals.syscalls++;
	if (!counted)
		return;
	e->totals.insns++;
	if (ev->insn->klass < CLASS_COUNT)
		e->totals.class_insns[ev->insn->klass]++;
	if (c > e->totals.steps)
		e->totals.steps = c;
	if (e->depth && e->frames[0].shares_global && c > e->frames[0].steps)
		e->frames[0].steps = c;
}

static void notify(struct engine *e, const struct perpi_event *ev, int64_t index, uint64_t step)
{
	for (size_t i = 0; i < e->n_observers; i++) {
		struct observer *o = &e->observers[i];
		struct engine_step_info info = {(uint64_t)index, step, ev, 0, NULL};
		if (o->want_deps) {
			info.n_deps = e->n_deps;
			info.deps = e->deps;
		}
		o->fn(o->ctx, &info);
	}
}

int engine_event(void *engine, const struct perpi_event *ev)
{
	struct engine *e = engine;
	int64_t index = e->index++;
	const struct perpi_insn *insn = ev->insn;

	/* An event above a frame's entry RSP left it without its ret
	 * (longjmp, exceptions); a signal handler may run on another stack. */
	if (!(ev->flags & EVENT_SIGNAL_ENTRY) && !e->in_sigreturn)
		while (e->depth && ev->sp > e->frames[e->depth - 1].key)
			frame_close(e);
	frames_enter(e, ev, index);

	int counted = !(ev->flags & EVENT_NOT_COUNTED) &&
		      (!e->opt.class_mask ||
		       (insn->klass < CLASS_COUNT && ((e->opt.class_mask >> insn->klass) & 1)));
	const uint8_t *src = ev->src, *dst = ev->dst;
	size_t n_src = ev->n_src, n_dst = ev->n_dst;
	uint8_t src_buf[UNIT_COUNT], dst_buf[UNIT_COUNT];
	if (e->opt.stack_engine && is_stack_insn(insn)) {
		n_src = without_rsp(src, n_src, src_buf);
		n_dst = without_rsp(dst, n_dst, dst_buf);
		src = src_buf;
		dst = dst_buf;
	}
	if (e->want_deps)
		collect_deps(e, ev, src, n_src);

	unsigned latency = 1;
	if (counted && e->opt.latency && !(latency = e->opt.latency(e->opt.latency_ctx, insn)))
		latency = 1;
	uint32_t c = global_step(e, ev, counted, latency, src, n_src);
	if ((counted && !c) ||
	    (e->depth && frames_step(e, ev, counted, latency, src, n_src, dst, n_dst) < 0))
		return perpi_set_error("engine: more than 2^32 steps, beyond the engine's range");
	global_writes(e, ev, c, index, dst, n_dst);
	account(e, ev, counted, c);
	if (e->n_observers)
		notify(e, ev, index, counted ? c : 0);

	/* The stub is two instructions (mov eax, 15; syscall): do not wait
	 * long for a syscall that does not come. */
	if (e->in_sigreturn && ((ev->flags & EVENT_NOT_COUNTED) || !--e->in_sigreturn))
		e->in_sigreturn = 0;
	if (insn->control == CTRL_RET && e->depth && ev->sp == e->frames[e->depth - 1].key)
		frame_return(e);
	return 0;
}
