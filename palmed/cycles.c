/* The trace-driven out-of-order core model: see cycles.h. One pass over
 * the events in program order; each instruction gets its dispatch, issue,
 * completion and retirement times from those of the instructions before
 * it, so the cost is a few lookups per instruction, whatever the run's
 * length. */
#include "palmed/cycles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/shadow.h"
#include "palmed/cycles_private.h"

#define STORE_RING 1024 /* stores remembered for forwarding (> any store queue) */
#define EPS 1e-6	/* times within EPS of a cycle boundary are on it */
#define SLACK                                                                                      \
	0.1 /* ready this little after a cycle starts: ready in it (measured                       \
	     * latencies carry noise: 4.03 for an L1 hit of 4) */
#define MEM_PAGE_SHIFT 12
#define STACK_KEY 0x5354ACull /* the address expression of push and pop */

struct store {
	uint64_t addr, key;
	uint32_t size;
	uint8_t vec;
	double data, retire; /* its data ready; its retirement */
};

struct counters {
	uint64_t insns, mapped, timed, branches, mispredicts, l1_accesses, l1_misses;
};

struct frame {
	uint64_t entry, key;
	double start; /* retirement of the instruction before its first one */
	struct counters at;
};

#define INSTANCES_KEPT 1024 /* each function's first instances' cycles */

struct func {
	uint64_t entry, calls;
	double cycles, min_call;
	struct counters n;
	double *instances; /* the first INSTANCES_KEPT instances' cycles */
};

struct cycles {
	const struct model *m;
	const struct core *core;
	double width, retire_width;
	unsigned window;
	cycles_observer_fn obs;
	void *obs_ctx;

	struct cycles_static *st; /* by insn->id */
	size_t st_cap;
	struct cycles_usage use;
	struct sched sched;
	struct bpred *bp;
	struct l1 *l1;

	double avail[UNIT_COUNT];     /* when each unit's value is ready */
	uint8_t producer[UNIT_COUNT]; /* its writer's cycles_static.fp */
	double dispatch, retire;      /* of the last counted instruction */
	double front;		      /* the front end's earliest next dispatch */
	double block_start;	      /* dispatch of the first instruction after a taken branch */
	int after_taken;
	double *rob; /* retirement of the last `window` instructions, a ring */
	uint64_t n;  /* counted instructions so far */

	size_t line_res;	  /* the resource of stores to another line */
	unsigned l1_shift;	  /* log2 of the line size */
	uint64_t last_store_line; /* the line of the last store, + 1 */
	size_t pipe_res;	  /* the pipes: 4 per resource from this resource on */
	unsigned *steer;	  /* per resource: the pipe the next one is steered to */
	struct shadow *mem;	  /* per byte: 1 + the store number of its last writer */
	struct store *stores;
	uint64_t nstores;

	const struct perpi_insn *last; /* the last counted instruction */
	double rep_done; /* a REP execution's last iteration complete (schedule) */
	/* per memory operand of a REP iteration: the line it last reached (+ 1)
	 * and whether the simulated L1 missed it (the line streams past L1) */
	uint64_t rep_line[2];
	int rep_line_missed[2];
	const struct perpi_insn *branch; /* the last control transfer, to resolve */
	double branch_done;
	int mispredicted;

	struct counters total;
	int pending_call;
	uint64_t call_sp;
	struct frame *frames;
	size_t depth, frames_cap;
	struct func *funcs;
	size_t nfuncs, funcs_cap;
};

double cycles_l1_miss_rate(const struct cycles_figures *f)
{
	return f->l1_accesses ? (double)f->l1_misses / (double)f->l1_accesses : 0.0;
}

int cycles_flagged(const struct cycles_figures *f)
{
	return cycles_l1_miss_rate(f) > CYCLES_L1_FLAG;
}

struct cycles *cycles_new(const struct model *m, const struct core *c)
{
	struct cycles *cy = xcalloc(1, sizeof(*cy));
	cy->m = m;
	cy->core = c;
	cy->width = c->value[CORE_WIDTH] > 0 ? c->value[CORE_WIDTH] : 1;
	cy->retire_width = c->value[CORE_RETIRE_WIDTH] > 0 ? c->value[CORE_RETIRE_WIDTH] : 1;
	cy->window = c->value[CORE_WINDOW] >= 1 ? (unsigned)c->value[CORE_WINDOW] : 1;
	cy->rob = xcalloc(cy->window, sizeof(*cy->rob));
	cy->dispatch = -1.0 / cy->width;
	cy->line_res = m ? m->nres : 0; /* one more resource: stores to new lines */
	cy->use.front = xcalloc(cy->line_res + 1, 1);
	cycles_front_resources(m, cy->use.front);
	cy->pipe_res = cy->line_res + 1;
	cy->steer = xcalloc(cy->line_res + 1, sizeof(*cy->steer));
	sched_init(&cy->sched, cy->pipe_res + 4 * (cy->line_res + 1));
	cy->bp = bpred_new();
	cy->l1 = l1_new((unsigned)c->value[CORE_L1_SIZE], (unsigned)c->value[CORE_L1_WAYS],
			(unsigned)c->value[CORE_L1_LINE]);
	cy->mem = shadow_new(MEM_PAGE_SHIFT, 0);
	while ((1u << cy->l1_shift) < (unsigned)c->value[CORE_L1_LINE])
		cy->l1_shift++;
	cy->stores = xcalloc(STORE_RING, sizeof(*cy->stores));
	return cy;
}

void cycles_delete(struct cycles *cy)
{
	if (!cy)
		return;
	free(cy->st);
	free(cy->use.res);
	free(cy->use.rho);
	free(cy->use.front);
	free(cy->steer);
	sched_done(&cy->sched);
	bpred_delete(cy->bp);
	l1_delete(cy->l1);
	shadow_delete(cy->mem);
	free(cy->stores);
	free(cy->rob);
	free(cy->frames);
	for (size_t i = 0; i < cy->nfuncs; i++)
		free(cy->funcs[i].instances);
	free(cy->funcs);
	free(cy);
}

void cycles_set_observer(struct cycles *cy, cycles_observer_fn fn, void *ctx)
{
	cy->obs = fn;
	cy->obs_ctx = ctx;
}

static struct cycles_static *static_of(struct cycles *cy, const struct perpi_event *ev)
{
	uint32_t id = ev->insn->id;
	if (id >= cy->st_cap) {
		size_t cap = cy->st_cap ? cy->st_cap : 1024;
		while (cap <= id)
			cap *= 2;
		cy->st = xrealloc(cy->st, cap * sizeof(*cy->st));
		memset(cy->st + cy->st_cap, 0, (cap - cy->st_cap) * sizeof(*cy->st));
		cy->st_cap = cap;
	}
	struct cycles_static *s = &cy->st[id];
	if (!s->known) {
		cycles_static_fill(s, ev, cy->m, cy->core, &cy->use);
		if (s->stack && !s->addr_key)
			s->addr_key = STACK_KEY;
	}
	return s;
}

/* ---- functions ---- */

static struct func *func_of(struct cycles *cy, uint64_t entry)
{
	for (size_t i = 0; i < cy->nfuncs; i++) /* few distinct functions are open */
		if (cy->funcs[i].entry == entry)
			return &cy->funcs[i];
	if (cy->nfuncs == cy->funcs_cap) {
		cy->funcs_cap = cy->funcs_cap ? 2 * cy->funcs_cap : 32;
		cy->funcs = xrealloc(cy->funcs, cy->funcs_cap * sizeof(*cy->funcs));
	}
	struct func *f = &cy->funcs[cy->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->entry = entry;
	return f;
}

static void counters_add_diff(struct counters *to, const struct counters *now,
			      const struct counters *then)
{
	to->insns += now->insns - then->insns;
	to->mapped += now->mapped - then->mapped;
	to->timed += now->timed - then->timed;
	to->branches += now->branches - then->branches;
	to->mispredicts += now->mispredicts - then->mispredicts;
	to->l1_accesses += now->l1_accesses - then->l1_accesses;
	to->l1_misses += now->l1_misses - then->l1_misses;
}

static void frame_open(struct cycles *cy, const struct perpi_event *ev)
{
	if (cy->depth == cy->frames_cap) {
		cy->frames_cap = cy->frames_cap ? 2 * cy->frames_cap : 64;
		cy->frames = xrealloc(cy->frames, cy->frames_cap * sizeof(*cy->frames));
	}
	struct frame *f = &cy->frames[cy->depth++];
	f->entry = ev->insn->addr;
	f->key = ev->sp;
	f->start = cy->n ? cy->retire : 0;
	f->at = cy->total;
}

static void frame_close(struct cycles *cy)
{
	struct frame *f = &cy->frames[--cy->depth];
	struct func *fn = func_of(cy, f->entry);
	double cycles = cy->retire - f->start;
	fn->min_call = !fn->calls || cycles < fn->min_call ? cycles : fn->min_call;
	if (fn->calls < INSTANCES_KEPT) {
		if (!fn->instances)
			fn->instances = xcalloc(INSTANCES_KEPT, sizeof(*fn->instances));
		fn->instances[fn->calls] = cycles;
	}
	fn->cycles += cycles;
	fn->calls++;
	counters_add_diff(&fn->n, &cy->total, &f->at);
}

/* The engine's frame rules (ilp/engine.c), without its signal subtleties. */
static void frames_enter(struct cycles *cy, const struct perpi_event *ev)
{
	if (!(ev->flags & EVENT_SIGNAL_ENTRY))
		while (cy->depth && ev->sp > cy->frames[cy->depth - 1].key)
			frame_close(cy);
	if ((ev->flags & (EVENT_SIGNAL_ENTRY | EVENT_CALL_ENTRY)) ||
	    (cy->pending_call && ev->sp == cy->call_sp))
		frame_open(cy, ev);
	cy->pending_call = ev->insn->control == CTRL_CALL;
	cy->call_sp = ev->sp - 8;
}

/* ---- branches ---- */

/* The last control transfer, now that ev tells where it went. */
static void resolve_branch(struct cycles *cy, const struct perpi_event *ev)
{
	const struct perpi_insn *b = cy->branch;
	if (!b)
		return;
	cy->branch = NULL;
	uint64_t next = ev->insn->addr, fall = b->addr + b->len;
	int taken = next != fall, wrong = 0;
	int indirect = cy->st[b->id].indirect;
	switch (b->control) {
	case CTRL_COND_JUMP:
		cy->total.branches++;
		wrong = bpred_conditional(cy->bp, b->addr, taken, next);
		break;
	case CTRL_CALL:
		bpred_call(cy->bp, fall);
		/* an indirect call's target is predicted like a jump's */
		__attribute__((fallthrough));
	case CTRL_JUMP:
		if (indirect) {
			cy->total.branches++;
			wrong = bpred_indirect(cy->bp, b->addr, next);
		} else {
			bpred_taken(cy->bp, next);
		}
		break;
	case CTRL_RET:
		cy->total.branches++;
		wrong = bpred_return(cy->bp, next);
		break;
	default:
		return; /* syscalls and the like: their own costs are not modelled */
	}
	if (wrong) {
		cy->total.mispredicts++;
		cy->front = fmax(cy->front, cy->branch_done + cy->core->value[CORE_MISPREDICT]);
		cy->mispredicted = 1;
	}
	if (taken) {
		/* one fetch block ending in a taken branch per taken_branch cycles */
		cy->front = fmax(cy->front, cy->block_start + cy->core->value[CORE_TAKEN_BRANCH]);
		cy->after_taken = 1;
	}
}

/* ---- one instruction ---- */

struct timing {
	double dispatch, ready, data, issue, complete, retire;
	double store_data; /* when what it stores is ready */
};

static double cycle_ceil(double t)
{
	double c = ceil(t - SLACK);
	return c > 0 ? c : 0;
}

static int is_addr_unit(const struct cycles_static *s, uint8_t u)
{
	return u == s->addr_unit[0] || u == s->addr_unit[1];
}

/* When the sources are ready: address registers in *addr, the others in
 * *data. The stack engine keeps RSP ready for push/pop/call/ret. */
static void sources(const struct cycles *cy, const struct perpi_event *ev,
		    const struct cycles_static *s, double *addr, double *data)
{
	*addr = *data = 0;
	for (size_t i = 0; i < ev->n_src; i++) {
		uint8_t u = ev->src[i];
		if (s->stack && u == UNIT_RSP)
			continue;
		/* a fast FP op forwards only to its kind: from a slower FP op,
		 * the operand comes through a bypass (Zen 5: an addsd fed by a
		 * mulsd takes 3 cycles, not 2) */
		double ready = cy->avail[u];
		if (s->fp == 1 && cy->producer[u] == 2)
			ready += cy->core->value[CORE_FP_BYPASS];
		if (UNIT_IS_FLAG(u))
			ready += s->flags_extra;
		if (is_addr_unit(s, u))
			*addr = fmax(*addr, ready);
		else
			*data = fmax(*data, ready);
	}
}

/* When the bytes of load a can reach the instruction, issued at b: from L1,
 * or from the youngest store to them still in flight. */
static double load_data(const struct cycles *cy, const struct perpi_mem_access *a,
			const struct cycles_static *s, double b)
{
	const double *v = cy->core->value;
	double from_l1 = b + (s->vec_dst ? v[CORE_LOAD_LATENCY_VEC] : v[CORE_LOAD_LATENCY]);
	uint32_t youngest = shadow_max(cy->mem, a->addr, a->size);
	if (!youngest || cy->nstores - (youngest - 1) > STORE_RING)
		return from_l1;
	const struct store *st = &cy->stores[(youngest - 1) % STORE_RING];
	int contained = st->addr <= a->addr && a->addr + a->size <= st->addr + st->size;
	if (!contained) /* forwarding fails: wait for the store to be written */
		return fmax(from_l1, st->retire + v[CORE_LOAD_LATENCY]);
	if (s->addr_key && st->key == s->addr_key && st->addr == a->addr && !s->vec_dst && !st->vec)
		return st->data + v[CORE_RENAMED_LATENCY];
	if (st->retire <= b) /* already retired: from the cache */
		return from_l1;
	double fwd = s->vec_dst ? v[CORE_FORWARD_LATENCY_VEC] : v[CORE_FORWARD_LATENCY];
	return fmax(from_l1, st->data + fwd);
}

static void store_bytes(struct cycles *cy, const struct perpi_mem_access *a,
			const struct cycles_static *s, const struct timing *t)
{
	if (cy->nstores >= UINT32_MAX - 1)
		return; /* beyond 4 G stores: no more forwarding */
	struct store *st = &cy->stores[cy->nstores % STORE_RING];
	*st = (struct store){a->addr, s->addr_key, a->size, s->vec_src, t->store_data, t->retire};
	shadow_set(cy->mem, a->addr, a->size, (uint32_t)(++cy->nstores), 0);
}

/* Dispatch: in order, width per cycle, behind the front end, and not
 * before the instruction `window` places earlier has retired; and where
 * the instruction's front-end resources have room (booked here, in
 * order: they hold up the instructions after it, never its own issue). */
static double dispatch_time(struct cycles *cy, const struct cycles_static *s)
{
	double d = cy->dispatch + 1.0 / cy->width;
	d = fmax(d, cy->front);
	d = fmax(d, cy->rob[cy->n % cy->window]);
	if (d > (double)cy->sched.floor + 1)
		sched_advance(&cy->sched, (uint64_t)d);
	if (s->nfront) {
		uint64_t b = sched_book(&cy->sched, (uint64_t)d, cy->use.res + s->first_use,
					cy->use.rho + s->first_use, s->nfront);
		d = fmax(d, (double)b);
	}
	if (cy->after_taken) {
		cy->block_start = d;
		cy->after_taken = 0;
	}
	cy->dispatch = d;
	return d;
}

/* Books the instruction's resources from cycle from; a store to another
 * line than the last store's also takes the line resource (L1 takes one
 * new line per cycle: 8-byte stores 64 bytes apart run at 1 a cycle, 8
 * bytes apart at 2); an instruction steered to a pipe (pipe >= 0) takes
 * all of that pipe's cycle too. */
static uint64_t book(struct cycles *cy, const struct perpi_event *ev, const struct cycles_static *s,
		     uint64_t from, int stores, int pipe, float scale)
{
	const uint16_t *res = cy->use.res + s->first_use + s->nfront; /* (booked at dispatch) */
	const float *rho = cy->use.rho + s->first_use + s->nfront;
	size_t nuse = s->nuse - s->nfront;
	uint16_t r2[128];
	float rho2[128];
	uint64_t line = 0;
	for (size_t m = 0; stores && m < ev->n_mem && !line; m++)
		if (ev->mem[m].write)
			line = (ev->mem[m].addr >> cy->l1_shift) + 1;
	double cost = cy->core->value[CORE_STORE_LINE];
	int new_line = line && line != cy->last_store_line && cost > 0;
	if ((!new_line && pipe < 0 && scale == 1.0f) || nuse >= 126)
		return sched_book(&cy->sched, from, res, rho, nuse);
	memcpy(r2, res, nuse * sizeof(*r2));
	for (size_t i = 0; i < nuse; i++)
		rho2[i] = rho[i] * scale;
	if (new_line) {
		cy->last_store_line = line;
		r2[nuse] = (uint16_t)cy->line_res;
		rho2[nuse++] = (float)cost;
	}
	if (pipe >= 0) {
		r2[nuse] = (uint16_t)(cy->pipe_res + 4 * s->bind_res + (size_t)pipe);
		rho2[nuse++] = 1.0f;
	}
	return sched_book(&cy->sched, from, r2, rho2, nuse);
}

/* A REP iteration's cycles: past L1 where a line it works on missed. */
static double rep_iteration(const struct cycles *cy, const struct cycles_static *s)
{
	return s->rep_far > 0 && (cy->rep_line_missed[0] || cy->rep_line_missed[1])
		   ? s->rep_far
		   : s->rep_iteration;
}

/* A REP iteration's L1 accesses, noting for each memory operand whether
 * the line it reaches into (its last byte's) missed: the iterations after
 * the one that brought a line in work on it too. */
static void rep_accesses(struct cycles *cy, const struct perpi_event *ev)
{
	for (size_t m = 0; m < 2; m++) {
		if (m >= ev->n_mem) {
			cy->rep_line_missed[m] = 0;
			continue;
		}
		const struct perpi_mem_access *a = &ev->mem[m];
		uint64_t missed = cy->total.l1_misses,
			 line = ((a->addr + (a->size ? a->size : 1) - 1) >> cy->l1_shift) + 1;
		l1_access(cy->l1, a->addr, a->size, &cy->total.l1_accesses, &cy->total.l1_misses);
		if (line != cy->rep_line[m] || cy->total.l1_misses > missed) {
			cy->rep_line[m] = line;
			cy->rep_line_missed[m] = cy->total.l1_misses > missed;
		}
	}
}

/* The simulated L1's accesses of ev. */
static void l1_accesses(struct cycles *cy, const struct perpi_event *ev)
{
	for (size_t m = 0; m < ev->n_mem; m++)
		l1_access(cy->l1, ev->mem[m].addr, ev->mem[m].size, &cy->total.l1_accesses,
			  &cy->total.l1_misses);
}

/* A REP string instruction the model timed at two lengths runs one
 * execution of its iterations (model strings[]): the first iteration
 * takes the start and an iteration, on its resources and before its
 * registers are ready; each next one (the same instruction again: cont)
 * an iteration after the one before, without a dispatch or a retire slot
 * of its own, and not rounded to a cycle (the CPU moves 32 bytes a cycle
 * where the trace counts one iteration a byte). An iteration on a line
 * the simulated L1 missed takes the core's stream rate instead (rep_far),
 * where that is slower. */
static void schedule(struct cycles *cy, const struct perpi_event *ev, const struct cycles_static *s,
		     struct timing *t, int cont)
{
	double addr, data;
	int loads = 0, stores = 0;
	for (size_t m = 0; m < ev->n_mem; m++)
		*(ev->mem[m].write ? &stores : &loads) += 1;
	sources(cy, ev, s, &addr, &data);
	if (cont) { /* from the last iteration, in the cycle it completed in */
		t->dispatch = cy->dispatch;
		t->ready = floor(cy->rep_done);
		t->issue = (double)book(cy, ev, s, (uint64_t)t->ready, stores, -1, s->rep_next);
		t->data = fmax(t->issue, cy->rep_done);
		t->complete = cy->rep_done = t->data + rep_iteration(cy, s);
		t->store_data = t->complete;
		t->retire = fmax(t->complete, cy->retire);
		return;
	}
	t->dispatch = dispatch_time(cy, s);
	/* the width spreads dispatch over a cycle: all of them may issue in
	 * the cycle they dispatch in */
	t->ready = fmax(floor(t->dispatch + EPS), cycle_ceil(loads ? addr : fmax(addr, data)));
	/* steered in dispatch order, round robin over the resource's pipes */
	int pipe = s->bind_n ? (int)(cy->steer[s->bind_res]++ % s->bind_n) : -1;
	t->issue = (double)book(cy, ev, s, (uint64_t)t->ready, stores, pipe,
				s->rep_next > 0 ? s->rep_first : 1.0f);
	t->data = t->issue;
	if (loads) {
		double mem = 0;
		for (size_t m = 0; m < ev->n_mem; m++)
			if (!ev->mem[m].write)
				mem = fmax(mem, load_data(cy, &ev->mem[m], s, t->issue));
		t->data = fmax(mem, data);
	}
	if (s->rep_next > 0) { /* an execution's first iteration */
		t->data = fmax(t->issue, data);
		t->complete = cy->rep_done = t->data + s->rep_start + rep_iteration(cy, s);
	} else {
		t->complete = t->data + s->latency;
	}
	t->store_data = loads ? t->complete : fmax(t->issue, data);
	/* not before it issued: a renamed load's data (and so its completion)
	 * may come before the load itself runs, its retirement may not */
	t->retire = fmax(fmax(t->complete, t->issue), cy->retire + 1.0 / cy->retire_width);
}

static void commit(struct cycles *cy, const struct perpi_event *ev, const struct cycles_static *s,
		   const struct timing *t, int l1_done)
{
	for (size_t i = 0; i < ev->n_dst; i++)
		if (!(s->stack && ev->dst[i] == UNIT_RSP)) {
			cy->avail[ev->dst[i]] = t->complete;
			cy->producer[ev->dst[i]] = s->fp;
		}
	cy->retire = t->retire;
	cy->rob[cy->n % cy->window] = t->retire;
	if (!l1_done)
		l1_accesses(cy, ev);
	for (size_t m = 0; m < ev->n_mem; m++)
		if (ev->mem[m].write)
			store_bytes(cy, &ev->mem[m], s, t);
	cy->n++;
	cy->total.insns++;
	cy->total.mapped += s->mapped;
	cy->total.timed += s->timed;
}

/* A syscall: not counted, takes no time; what it writes is ready when
 * what it reads is (as in the engine). */
static void free_event(struct cycles *cy, const struct perpi_event *ev)
{
	double ready = 0;
	for (size_t i = 0; i < ev->n_src; i++)
		ready = fmax(ready, cy->avail[ev->src[i]]);
	for (size_t i = 0; i < ev->n_dst; i++)
		cy->avail[ev->dst[i]] = ready;
}

/* The trace resumes at a function's entry (stepping starts there: what ran
 * since the last event is not in the trace) or enters a signal handler:
 * the pipeline is drained, as around a timed call, and the last branch's
 * target is unknown. */
static void resume(struct cycles *cy)
{
	cy->branch = NULL;
	cy->front = fmax(cy->front, cy->retire);
}

int cycles_event(void *ctx, const struct perpi_event *ev)
{
	struct cycles *cy = ctx;
	if (ev->flags & (EVENT_CALL_ENTRY | EVENT_SIGNAL_ENTRY))
		resume(cy);
	resolve_branch(cy, ev);
	frames_enter(cy, ev);
	if (ev->flags & EVENT_NOT_COUNTED) {
		free_event(cy, ev);
		return 0;
	}
	const struct cycles_static *s = static_of(cy, ev);
	struct timing t;
	/* a REP iteration that may stream past L1: its L1 accesses first */
	int rep_l1 = s->rep_far > 0 && ev->n_mem <= 2;
	if (rep_l1)
		rep_accesses(cy, ev);
	schedule(cy, ev, s, &t, s->rep_next > 0 && cy->last == ev->insn);
	cy->last = ev->insn;
	if (cy->obs) {
		struct cycles_insn_times times = {cy->n,      ev,	t.dispatch,	 t.issue,
						  t.complete, t.retire, cy->mispredicted};
		cy->obs(cy->obs_ctx, &times);
	}
	cy->mispredicted = 0;
	commit(cy, ev, s, &t, rep_l1);
	if (ev->insn->control != CTRL_NONE) {
		cy->branch = ev->insn;
		cy->branch_done = t.complete;
	}
	if (ev->insn->control == CTRL_RET && cy->depth && ev->sp == cy->frames[cy->depth - 1].key)
		frame_close(cy);
	return 0;
}

void cycles_finish(struct cycles *cy)
{
	while (cy->depth)
		frame_close(cy);
}

static void figures(const struct counters *n, struct cycles_figures *out)
{
	out->insns = n->insns;
	out->mapped = n->mapped;
	out->timed = n->timed;
	out->branches = n->branches;
	out->mispredicts = n->mispredicts;
	out->l1_accesses = n->l1_accesses;
	out->l1_misses = n->l1_misses;
}

void cycles_total(const struct cycles *cy, struct cycles_figures *out)
{
	memset(out, 0, sizeof(*out));
	figures(&cy->total, out);
	out->cycles = out->min_call = cy->n ? cy->retire : 0;
	out->calls = 1;
}

int cycles_function(const struct cycles *cy, uint64_t entry, struct cycles_figures *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < cy->nfuncs; i++)
		if (cy->funcs[i].entry == entry) {
			figures(&cy->funcs[i].n, out);
			out->cycles = cy->funcs[i].cycles;
			out->min_call = cy->funcs[i].min_call;
			out->calls = cy->funcs[i].calls;
			return 0;
		}
	return -1;
}

size_t cycles_function_instances(const struct cycles *cy, uint64_t entry, const double **out)
{
	*out = NULL;
	for (size_t i = 0; i < cy->nfuncs; i++)
		if (cy->funcs[i].entry == entry) {
			*out = cy->funcs[i].instances;
			return cy->funcs[i].calls < INSTANCES_KEPT ? cy->funcs[i].calls
								   : INSTANCES_KEPT;
		}
	return 0;
}
