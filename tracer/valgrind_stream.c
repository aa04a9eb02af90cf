/* The consumer of the Valgrind backend: reads the tool's records, turns
 * each into the event the ptrace tracer would have made (x86_resolve on the
 * register values the record carries), and applies the ptrace tracer's
 * rules for what is traced (trace.c): regions start at a start address
 * and end at the stop address, at the return of the call entered (by
 * stack pointer) or at the end; an instruction is emitted once the next
 * one is known, except a call into --stop; a signal handler's first
 * instruction is flagged; the instruction that faults is not counted (the
 * tool never commits its record), and REP string instructions give one
 * event per iteration (the tool's extra record after the last is dropped). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "tracer/symbols.h"
#include "tracer/trace_internal.h"
#include "tracer/valgrind_trace.h"
#include "tracer/x86.h"

#define READ_SIZE (4 << 20)

enum { S_OUT, S_SKIP, S_IN };

struct stream {
	struct tracer *t;
	struct valgrind_run *r;
	int state;
	uint64_t end_rsp;  /* S_IN: a call's region ends when rsp exceeds it */
	uint64_t skip_rsp; /* S_SKIP: perpi_start() returns when rsp exceeds it */
	int call_entry, signal_entry, have_prev, hello, exec_pending, failed;
	struct perpi_event *cur, *prev;
	struct vg_queue *queue;	    /* to the sink thread */
	struct symbolizer_plt plt;  /* calls through PLT stubs, as trace.c follows them */
	const struct vg_insn *last; /* the previous record's instruction */
	const struct vg_insn *resolving;
	uint32_t known; /* ids below are in the table */
	struct user_regs_struct regs;
	struct x86_xstate xs;
};

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* x86_resolve's extended state: only what the record carried (TOP, the
 * vector registers it asked for) is read. */
static int fetch_xstate(void *ctx, struct x86_xstate *out)
{
	struct stream *s = ctx;
	const struct vg_insn *vi = s->resolving;
	out->fsw = s->xs.fsw;
	out->ftw = 0;
	memset(out->k, 0, sizeof(out->k));
	for (int i = 0; i < vi->n_slots; i++)
		if (vi->slot[i] >= VGP_SLOT_YMM) {
			int n = vi->slot[i] - VGP_SLOT_YMM;
			memcpy(out->zmm[n], s->xs.zmm[n], 32);
			memset(out->zmm[n] + 32, 0, 32);
		}
	return 0;
}

static void resolve(struct stream *s, struct vg_insn *vi, struct perpi_event *ev)
{
	struct x86_state st = {&s->regs, fetch_xstate, s, s->r->xcr0};
	s->resolving = vi;
	if (x86_resolve(&vi->insn, &st, ev) == 0)
		return;
	if (!vi->warned)
		perpi_warn("%#llx: %s: %s", (unsigned long long)vi->insn.addr, vi->insn.text,
			   perpi_error());
	vi->warned = 1;
	memset(ev, 0, sizeof(*ev));
	ev->insn = &vi->insn;
	ev->sp = s->regs.rsp;
	ev->flags = EVENT_UNKNOWN;
}

/* To the sink, as trace.c's emit, through the sink thread; an instruction
 * seen for the first time gets its id (dense, in the order they run, as
 * the ptrace tracer's) and is passed under the lock: the sink may name it
 * while the decoder notes others. */
static int emit(struct stream *s, const struct perpi_event *ev)
{
	struct tracer *t = s->t;
	struct vg_insn *vi = (struct vg_insn *)ev->insn;
	if (t->done_tracing)
		return 0;
	int first = !vi->seen;
	if (first) {
		vi->seen = 1;
		vi->insn.id = t->next_id++;
	}
	if (!vg_queue_put(s->queue, ev, first))
		return 0;
	t->done_tracing = 1;
	return 1;
}

static void enter(struct stream *s, uint64_t rsp, int call_entry)
{
	s->state = S_IN;
	s->t->res.regions++;
	s->end_rsp = rsp;
	s->call_entry = call_entry;
	s->signal_entry = 0;
	s->have_prev = 0;
	s->plt = (struct symbolizer_plt){{0}, 0, CTRL_NONE};
}

/* S_IN, at the state before the next instruction (or the one a signal
 * interrupted): emit the previous one; 1 if the region ends here. */
static int region_ends(struct stream *s, uint64_t pc, uint64_t rsp)
{
	struct tracer *t = s->t;
	int at_stop = t->have_stop && pc == t->stop_addr;
	int at_end = at_stop || (t->end_kind == END_RETURN && rsp > s->end_rsp);
	/* the previous instruction completed; a call into --stop is not traced */
	if (s->have_prev && !(at_stop && s->prev->insn->control == CTRL_CALL))
		at_end |= emit(s, s->prev);
	s->have_prev = 0;
	return at_end;
}

static int resolve_libs(struct stream *s)
{
	pthread_mutex_lock(&s->r->lock);
	int r = trace_region_resolve_libs(s->t, 0);
	pthread_mutex_unlock(&s->r->lock);
	return r;
}

/* S_OUT: what the ptrace tracer's breakpoints do. 1 if a region starts. */
static int outside(struct stream *s, uint64_t pc, uint64_t rsp)
{
	struct tracer *t = s->t;
	if (t->done_tracing)
		return 0;
	if (t->have_resolve && pc == t->resolve_addr) {
		t->have_resolve = 0;
		if (resolve_libs(s) < 0)
			return s->failed = -1;
	} else if (t->debug_state && pc == t->debug_state && t->n_lib_functions) {
		if (resolve_libs(s) < 0) /* after a dlopen */
			return s->failed = -1;
	}
	if (!trace_is_start(t, pc))
		return 0;
	if (t->skip_start_call) {
		s->state = S_SKIP;
		s->skip_rsp = rsp;
		return 1;
	}
	enter(s, rsp, t->starts_are_functions);
	return 1;
}

/* symbolizer_follow_plt on each event of a region, as the ptrace tracer
 * calls it; the symbolizer (shared with the decoder and the sink) is
 * locked only where the answer depends on it: after a call, and at a jump
 * at the stack pointer of an open trampoline. The returns popped here first
 * are the ones symbolizer_follow_plt would pop. */
static unsigned follow_plt(struct stream *s, const struct perpi_event *ev)
{
	struct symbolizer_plt *plt = &s->plt;
	while (plt->n && ev->sp > plt->sp[plt->n - 1])
		plt->n--;
	if (plt->last_control != CTRL_CALL &&
	    !(plt->n && plt->last_control == CTRL_JUMP && ev->sp == plt->sp[plt->n - 1])) {
		plt->last_control = ev->insn->control;
		return 0;
	}
	pthread_mutex_lock(&s->r->lock);
	unsigned flags = symbolizer_follow_plt(s->t->syms, plt, ev);
	pthread_mutex_unlock(&s->r->lock);
	return flags;
}

static void inside(struct stream *s, struct vg_insn *vi)
{
	resolve(s, vi, s->cur);
	if (s->signal_entry)
		s->cur->flags |= EVENT_SIGNAL_ENTRY;
	if (s->call_entry) /* a function entered by a call not traced */
		s->cur->flags |= EVENT_CALL_ENTRY;
	s->signal_entry = s->call_entry = 0;
	s->t->res.steps++;
	s->cur->flags |= follow_plt(s, s->cur);
	struct perpi_event *tmp = s->prev;
	s->prev = s->cur;
	s->cur = tmp;
	s->have_prev = 1;
}

/* One instruction about to run (its registers in s->regs). */
static void step(struct stream *s, struct vg_insn *vi)
{
	uint64_t pc = vi->insn.addr, rsp = s->regs.rsp;
	int left = 0; /* left a region at this instruction: it starts none */
	for (;;) {
		if (s->state == S_OUT) {
			if (left || !outside(s, pc, rsp) || s->failed)
				return;
		} else if (s->state == S_SKIP) {
			if (rsp <= s->skip_rsp)
				return;
			enter(s, rsp, 0);
		} else if (region_ends(s, pc, rsp)) {
			s->state = S_OUT;
			left = 1;
		} else {
			inside(s, vi);
			return;
		}
	}
}

static void on_record(struct stream *s, struct vg_insn *vi, const uint8_t *p)
{
	for (int i = 0; i < vi->n_slots; i++) {
		int slot = vi->slot[i];
		if (slot < 16)
			memcpy((char *)&s->regs + x86_gpr_offset[slot], p, 8);
		else if (slot == VGP_SLOT_FS_BASE)
			s->regs.fs_base = get_u64(p);
		else if (slot == VGP_SLOT_GS_BASE)
			s->regs.gs_base = get_u64(p);
		else if (slot == VGP_SLOT_FPU_TOP)
			s->xs.fsw = (uint16_t)((get_u64(p) & 7) << 11);
		else
			memcpy(s->xs.zmm[slot - VGP_SLOT_YMM], p, 32);
		p += VGP_SLOT_SIZE(slot);
	}
	if (vi->rep_string && s->last == vi &&
	    (vi->rcx_32 ? (uint32_t)s->regs.rcx : s->regs.rcx) == 0) {
		s->last = NULL; /* Valgrind's extra pass, after the last iteration */
		return;
	}
	s->last = vi;
	step(s, vi);
}

/* A handler starts; pc and sp are where the interrupted code resumes. */
static void on_signal(struct stream *s, uint64_t pc, uint64_t sp)
{
	s->last = NULL;
	if (s->state == S_IN) {
		if (region_ends(s, pc, sp))
			s->state = S_OUT;
		else
			s->signal_entry = 1; /* the interrupted instruction did not run */
	} else if (s->state == S_SKIP) {
		s->skip_rsp = 0; /* tracing starts at the handler, as under ptrace */
	}
}

/* An EVEX prefix (0x62) after the legacy ones: AVX-512. */
static int is_evex(const uint8_t *b, uint32_t len)
{
	uint32_t i = 0;
	while (i < len &&
	       (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x2e ||
		b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x36 || b[i] == 0x64 || b[i] == 0x65))
		i++;
	return i < len && b[i] == 0x62;
}

/* Valgrind cannot run the instruction at addr: say which, where, and what
 * to do; never a result computed on another path than the native one. */
static int nodecode(struct stream *s, const uint8_t *p)
{
	uint32_t len = get_u32(p);
	uint64_t addr = get_u64(p + 4);
	struct perpi_insn insn;
	struct x86_decoder *dec = x86_decoder_new();
	char text[128] = "an instruction";
	if (len <= 15 && x86_decode(dec, addr, p + 12, len, &insn) == 0 &&
	    insn.decoder != DECODER_UNKNOWN)
		snprintf(text, sizeof(text), "'%s'", insn.text);
	x86_decoder_delete(dec);
	pthread_mutex_lock(&s->r->lock);
	symbolizer_note(s->t->syms, addr);
	const char *where = symbolizer_name(s->t->syms, addr);
	pthread_mutex_unlock(&s->r->lock);
	return perpi_set_error("%s runs %s at %#llx (%s), which Valgrind's virtual CPU cannot "
			       "run (%s): use the ptrace backend (leave out --backend=valgrind)",
			       s->t->path, text, (unsigned long long)addr, where ? where : "?",
			       len <= 15 && is_evex(p + 12, len)
				   ? "an AVX-512 instruction: it has AVX2 at most"
				   : "Valgrind does not implement it");
}

static int on_hello(struct stream *s, const uint8_t *p)
{
	if (get_u32(p) != VGP_VERSION)
		return perpi_set_error("perpi's Valgrind tool speaks version %u, perpi %d: "
				       "reinstall perpi",
				       get_u32(p), VGP_VERSION);
	s->r->xcr0 = get_u64(p + 16);
	s->hello = 1;
	if (s->t->start_now)
		s->state = S_SKIP, s->skip_rsp = 0; /* --all: from the first instruction */
	pthread_mutex_lock(&s->r->lock);
	int r = trace_region_place(s->t, get_u64(p + 8));
	pthread_mutex_unlock(&s->r->lock);
	return r;
}

static int marker_size(uint32_t kind)
{
	switch (kind) {
	case VGP_HELLO:
		return VGP_HELLO_SIZE;
	case VGP_SIGNAL:
		return VGP_SIGNAL_SIZE;
	case VGP_EXEC:
	case VGP_EXEC_FAILED:
		return VGP_EXEC_SIZE;
	case VGP_NODECODE:
		return VGP_NODECODE_SIZE;
	case VGP_END:
		return VGP_END_SIZE;
	default:
		return -1;
	}
}

static int on_marker(struct stream *s, uint32_t kind, const uint8_t *p)
{
	switch (kind) {
	case VGP_HELLO:
		return on_hello(s, p);
	case VGP_SIGNAL:
		on_signal(s, get_u64(p + 4), get_u64(p + 12));
		return 0;
	case VGP_EXEC:
		s->exec_pending = 1;
		return 0;
	case VGP_EXEC_FAILED:
		s->exec_pending = 0;
		return 0;
	case VGP_NODECODE:
		return nodecode(s, p);
	default:
		return 0;
	}
}

static struct vg_insn *insn_of(struct stream *s, uint32_t id)
{
	struct vg_table *tb = &s->r->table;
	if (id >= s->known) {
		s->known = atomic_load_explicit(&tb->count, memory_order_acquire);
		if (id >= s->known)
			return NULL;
	}
	return &tb->chunk[id / VG_TABLE_CHUNK][id % VG_TABLE_CHUNK];
}

/* Applies the complete records of p[0..n); returns the bytes used, or -1. */
static ssize_t consume(struct stream *s, const uint8_t *p, size_t n)
{
	size_t off = 0;
	while (off + 4 <= n && !s->t->done_tracing && !trace_stop_signal) {
		uint32_t id = get_u32(p + off);
		if (id) {
			struct vg_insn *vi = insn_of(s, id);
			if (!vi || !s->hello)
				return perpi_set_error(
				    "the Valgrind tool sent an unknown instruction");
			if (off + vi->record_size > n)
				break;
			on_record(s, vi, p + off + 4);
			if (s->failed)
				return -1;
			off += vi->record_size;
			continue;
		}
		if (off + 8 > n)
			break;
		uint32_t kind = get_u32(p + off + 4);
		int size = marker_size(kind);
		if (size < 0)
			return perpi_set_error("the Valgrind tool sent a bad marker");
		if (off + 8 + (size_t)size > n)
			break;
		if (on_marker(s, kind, p + off + 8) < 0)
			return -1;
		off += 8 + (size_t)size;
	}
	return (ssize_t)off;
}

/* The end of tracing (of the stream, or perpi's): the instruction that
 * completed last is emitted, as the ptrace tracer emits every completed one. */
static void finish(struct stream *s)
{
	if (s->state == S_IN && s->have_prev)
		emit(s, s->prev);
	s->have_prev = 0;
}

/* --duration, or the sink had enough: the program runs on, untraced. */
static void drain(struct stream *s, uint8_t *buf)
{
	for (;;) {
		ssize_t n = read(s->r->events_fd, buf, READ_SIZE);
		if (n == 0 || (n < 0 && errno != EINTR))
			return;
		if (n < 0 && (trace_stop_signal == SIGINT || trace_stop_signal == SIGTERM))
			return;
	}
}

static int stream_loop(struct stream *s, uint8_t *buf)
{
	size_t have = 0;
	for (;;) {
		if (trace_stop_signal || s->t->done_tracing)
			return STEP_INTERRUPTED;
		ssize_t n = read(s->r->events_fd, buf + have, READ_SIZE - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return perpi_set_error("reading the Valgrind tool: %s", strerror(errno)),
			       STEP_ERROR;
		if (n == 0)
			return have ? (perpi_set_error("the Valgrind tool's stream ends inside a "
						       "record"),
				       STEP_ERROR)
				    : STEP_EXITED;
		have += (size_t)n;
		ssize_t used = consume(s, buf, have);
		if (used < 0)
			return STEP_ERROR;
		memmove(buf, buf + used, have - (size_t)used);
		have -= (size_t)used;
	}
}

int valgrind_stream_run(struct tracer *t)
{
	struct stream *s = xcalloc(1, sizeof(*s));
	uint8_t *buf = xmalloc(READ_SIZE);
	s->t = t;
	s->r = t->vg;
	s->cur = &t->ev[0];
	s->prev = &t->ev[1];
	s->queue = vg_queue_new(t->sink, t->ctx, &t->vg->lock);
	int r = s->queue ? stream_loop(s, buf) : STEP_ERROR;
	if (r != STEP_ERROR)
		finish(s);
	if (s->queue)
		vg_queue_finish(s->queue);
	vg_queue_delete(s->queue);
	if (r == STEP_INTERRUPTED && (t->done_tracing || trace_stop_signal == SIGALRM)) {
		if (trace_stop_signal == SIGALRM) /* --duration */
			t->res.interrupted = 1;
		t->done_tracing = 1;
		trace_stop_signal = 0;
		drain(s, buf);
		r = trace_stop_signal ? STEP_INTERRUPTED : STEP_EXITED;
	}
	if (r == STEP_EXITED && s->exec_pending)
		r = STEP_EXECED;
	free(buf);
	free(s);
	return r;
}
