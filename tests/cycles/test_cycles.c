/* The out-of-order cycle model (palmed/cycles.h) on small hand-made runs
 * of real x86-64 instructions, each with its cycles derived by hand below.
 *
 * The core (set here, not measured): dispatch width W = 4, retire width 4,
 * window 64 unless a test says otherwise, L1 load-to-use 4, forwarding 5,
 * renamed 1, misprediction penalty 10, taken branch 1. Latencies: IMUL 3,
 * ADD 1, CMP 1, ADDSD 3. The Palmed model: R0 (integer ALU) 0.25 per
 * ADD, CMP and IMUL; R1 (FP adds) 0.5 per ADDSD: two per cycle; R2 (loads)
 * 0.5 per load.
 *
 * Rules the derivations use (cycles.h): instruction k dispatches at
 * max(previous + 1/W, front end, retirement of instruction k - window),
 * and may issue from the cycle it dispatches in (the integer part);
 * it issues at the first cycle >= that and >= its sources' ready cycles
 * where its resources have room; completes after its latency; retires at
 * max(completion, previous retirement + 1/4). The run's cycles are the
 * last retirement.
 *
 * usage: test_cycles                          run the checks
 *        test_cycles write DATA MODEL CORE [T] write a run (main calls f:
 *                                             the chain of 10 imul, then
 *                                             ret; hlt), the model and the
 *                                             core file, for report.sh; T
 *                                             "f" or "h": with the native
 *                                             figures of measured_run() */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/util.h"
#include "ilp/trace_file.h"
#include "palmed/core_measure.h"
#include "palmed/cycles.h"

static int failures;

static void check(const char *what, double got, double want)
{
	if (fabs(got - want) > 1e-6) {
		printf("FAIL: %s = %g, want %g\n", what, got, want);
		failures++;
	}
}

/* got within most (a bound derived by hand, not an exact figure) */
static void check_at_most(const char *what, double got, double most)
{
	if (got > most)
		check(what, got, most);
}

/* One static instruction: bytes, text, control, its units and memory. */
struct code {
	const char *hex, *text;
	int ctrl;
	uint8_t src[6], dst[6]; /* units, terminated by 0xff */
	int mem;		/* 0 none, 'r' a load, 'w' a store (8 bytes) */
};

#define END 0xff
#define ZF UNIT_ZF
static const struct code code[] = {
    /* 0 */ {"480fafc3",
	     "imul rax, rbx",
	     CTRL_NONE,
	     {UNIT_RAX, UNIT_RBX, END},
	     {UNIT_RAX, UNIT_CF, UNIT_OF, END},
	     0},
    /* 1 */
    {"480fafca",
     "imul rcx, rdx",
     CTRL_NONE,
     {UNIT_RCX, UNIT_RDX, END},
     {UNIT_RCX, UNIT_CF, UNIT_OF, END},
     0},
    /* 2 */
    {"4801d1", "add rcx, rdx", CTRL_NONE, {UNIT_RCX, UNIT_RDX, END}, {UNIT_RCX, ZF, END}, 0},
    /* 3 */
    {"f2410f58c7",
     "addsd xmm0, xmm15",
     CTRL_NONE,
     {UNIT_VEC_PART(0, 0), UNIT_VEC_PART(15, 0), END},
     {UNIT_VEC_PART(0, 0), END},
     0},
    /* 4 */ {"4839d8", "cmp rax, rbx", CTRL_NONE, {UNIT_RAX, UNIT_RBX, END}, {ZF, END}, 0},
    /* 5 */ {"751e", "jne 0x38", CTRL_COND_JUMP, {ZF, END}, {END}, 0},
    /* 6 */
    {"488907", "mov qword ptr [rdi], rax", CTRL_NONE, {UNIT_RDI, UNIT_RAX, END}, {END}, 'w'},
    /* 7 */
    {"488b0e", "mov rcx, qword ptr [rsi]", CTRL_NONE, {UNIT_RSI, END}, {UNIT_RCX, END}, 'r'},
    /* 8 */
    {"488b0f", "mov rcx, qword ptr [rdi]", CTRL_NONE, {UNIT_RDI, END}, {UNIT_RCX, END}, 'r'},
    /* 9 */
    {"488b04ce",
     "mov rax, qword ptr [rsi + rcx*8]",
     CTRL_NONE,
     {UNIT_RSI, UNIT_RCX, END},
     {UNIT_RAX, END},
     'r'},
    /* 10 */ {"e8fb000000", "call 0x127", CTRL_CALL, {UNIT_RSP, END}, {UNIT_RSP, END}, 'w'},
    /* 11 */ {"c3", "ret", CTRL_RET, {UNIT_RSP, END}, {UNIT_RSP, END}, 'r'},
    /* 12 */ {"f4", "hlt", CTRL_OTHER, {END}, {END}, 0},
    /* 13 */
    {"f20f59c1",
     "mulsd xmm0, xmm1",
     CTRL_NONE,
     {UNIT_VEC_PART(0, 0), UNIT_VEC_PART(1, 0), END},
     {UNIT_VEC_PART(0, 0), END},
     0},
    /* 14 */
    {"66410f58c7",
     "addpd xmm0, xmm15",
     CTRL_NONE,
     {UNIT_VEC_PART(0, 0), UNIT_VEC_PART(15, 0), END},
     {UNIT_VEC_PART(0, 0), END},
     0},
    /* 15 */ {"ffe0", "jmp rax", CTRL_JUMP, {UNIT_RAX, END}, {END}, 0},
    /* 16 */
    {"480f4cc3",
     "cmovl rax, rbx",
     CTRL_NONE,
     {UNIT_RAX, UNIT_RBX, UNIT_SF, UNIT_OF, END},
     {UNIT_RAX, END},
     0},
    /* 17 */
    {"480f44c3", "cmove rax, rbx", CTRL_NONE, {UNIT_RAX, UNIT_RBX, ZF, END}, {UNIT_RAX, END}, 0},
    /* 18 */
    {"f3aa",
     "rep stosb byte ptr [rdi], al",
     CTRL_NONE,
     {UNIT_RCX, UNIT_RDI, UNIT_RAX, END},
     {UNIT_RCX, UNIT_RDI, END},
     'w'},
    /* 19 */
    {"f348ab",
     "rep stosq qword ptr [rdi], rax",
     CTRL_NONE,
     {UNIT_RCX, UNIT_RDI, UNIT_RAX, END},
     {UNIT_RCX, UNIT_RDI, END},
     'w'},
};
#define NCODE (sizeof(code) / sizeof(code[0]))
static struct perpi_insn insns[NCODE];

static void make_insns(void)
{
	for (size_t i = 0; i < NCODE; i++) {
		struct perpi_insn *in = &insns[i];
		in->addr = 0x1000 + 0x40 * i;
		in->id = (uint32_t)i;
		in->control = (uint8_t)code[i].ctrl;
		in->klass = i == 3 || i == 13 || i == 14 ? CLASS_FP : CLASS_INT;
		for (const char *h = code[i].hex; *h; h += 2)
			sscanf(h, "%2hhx", &in->bytes[in->len++]);
		snprintf(in->text, sizeof(in->text), "%s", code[i].text);
	}
}

/* Feeds instruction i at addr (0: its own) touching memory at mem, with
 * the table's units or those given (lists ending with END). */
static void feed_units(struct cycles *cy, size_t i, uint64_t addr, uint64_t mem, uint64_t sp,
		       const uint8_t *src, const uint8_t *dst)
{
	static struct perpi_insn moved[64];
	static size_t nmoved;
	struct perpi_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.insn = &insns[i];
	if (addr && addr != insns[i].addr) { /* the same instruction elsewhere */
		for (size_t k = 0; k < nmoved; k++)
			if (moved[k].addr == addr && !strcmp(moved[k].text, insns[i].text))
				ev.insn = &moved[k];
		if (ev.insn == &insns[i]) {
			moved[nmoved] = insns[i];
			moved[nmoved].addr = addr;
			moved[nmoved].id = (uint32_t)(NCODE + nmoved);
			ev.insn = &moved[nmoved++];
		}
	}
	ev.sp = sp ? sp : 0x7ff000;
	for (const uint8_t *u = src ? src : code[i].src; *u != END; u++)
		ev.src[ev.n_src++] = *u;
	for (const uint8_t *u = dst ? dst : code[i].dst; *u != END; u++)
		ev.dst[ev.n_dst++] = *u;
	if (code[i].mem) {
		ev.mem[0] = (struct perpi_mem_access){mem, 8, code[i].mem == 'w'};
		ev.n_mem = 1;
	}
	cycles_event(cy, &ev);
}

static void feed(struct cycles *cy, size_t i, uint64_t mem)
{
	feed_units(cy, i, 0, mem, 0, NULL, NULL);
}

static struct model *the_model(void)
{
	struct model *m = model_new("test");
	size_t r0 = model_add_resource(m, "R0", NULL), r1 = model_add_resource(m, "R1", NULL);
	size_t r2 = model_add_resource(m, "R2", NULL);
	static const char *const alu[] = {"ADD_GPR64_GPR64", "CMP_GPR64_GPR64", "IMUL_GPR64_GPR64"};
	for (size_t i = 0; i < 3; i++)
		model_set_rho(m, model_add_form(m, alu[i], 0.25), r0, 0.25);
	model_set_rho(m, model_add_form(m, "ADDSD_XMM_XMM", 0.5), r1, 0.5);
	model_set_rho(m, model_add_form(m, "MOV_GPR64_M64", 0.5), r2, 0.5);
	return m;
}

static double bypass = 1;     /* the core's FP bypass */
static double store_line = 0; /* the core's cost of a store to a new line */
static double cmov_signed = 0; /* more from the flags to a cmovl */
static double stream_store = 0; /* bytes a cycle rep stos writes past L1 */
static double l1_size = 49152, l1_ways = 12;

static struct core *the_core(unsigned window)
{
	struct core *c = core_new("test");
	static const double v[CORE_PARAM_COUNT] = {[CORE_WIDTH] = 4,
						   [CORE_RETIRE_WIDTH] = 4,
						   [CORE_WINDOW] = 64,
						   [CORE_LOAD_LATENCY] = 4,
						   [CORE_LOAD_LATENCY_VEC] = 7,
						   [CORE_FORWARD_LATENCY] = 5,
						   [CORE_FORWARD_LATENCY_VEC] = 6,
						   [CORE_RENAMED_LATENCY] = 0,
						   [CORE_MISPREDICT] = 10,
						   [CORE_TAKEN_BRANCH] = 1,
						   [CORE_L1_SIZE] = 49152,
						   [CORE_L1_WAYS] = 12,
						   [CORE_L1_LINE] = 64};
	for (size_t p = 0; p < CORE_PARAM_COUNT; p++)
		core_set_measured(c, (enum core_param)p, v[p]);
	core_set_measured(c, CORE_WINDOW, window);
	core_set_latency(c, "IMUL_GPR64_GPR64", 3);
	core_set_latency(c, "ADD_GPR64_GPR64", 1);
	core_set_latency(c, "CMP_GPR64_GPR64", 1);
	core_set_latency(c, "ADDSD_XMM_XMM", 3);
	core_set_latency(c, "MULSD_XMM_XMM", 3);
	core_set_latency(c, "ADDPD_XMM_XMM", 2);
	core_set_measured(c, CORE_FP_BYPASS, bypass);
	core_set_measured(c, CORE_STORE_LINE, store_line);
	core_set_measured(c, CORE_CMOV_SIGNED, cmov_signed);
	core_set_measured(c, CORE_STREAM_STORE, stream_store);
	core_set_measured(c, CORE_L1_SIZE, l1_size);
	core_set_measured(c, CORE_L1_WAYS, l1_ways);
	return c;
}

static const struct model *model;

/* The run's figures after the events test() feeds; *fn, if not NULL, gets
 * those of the function entered at insns[0]'s address. */
static double run(unsigned window, void (*test)(struct cycles *), struct cycles_figures *f,
		  struct cycles_figures *fn)
{
	struct core *c = the_core(window);
	struct cycles *cy = cycles_new(model, c);
	struct cycles_figures local;
	f = f ? f : &local;
	test(cy);
	cycles_finish(cy);
	cycles_total(cy, f);
	if (fn && cycles_function(cy, insns[0].addr, fn) < 0)
		check("the function is known", 0, 1);
	cycles_delete(cy);
	core_delete(c);
	return f->cycles;
}

/* A chain of 10 dependent imul (latency 3): instruction k issues at 3k,
 * the last completes at 30 and retires then: the sum of the latencies. */
static void chain(struct cycles *cy)
{
	for (int k = 0; k < 10; k++)
		feed(cy, 0, 0);
}

/* 40 addsd on 8 registers in turn (5 dependent on each register): the FP
 * adds' resource serves 2 a cycle, so instruction k issues at k/2 (its
 * source, from k - 8, completed at (k-8)/2 + 3 <= k/2) and completes at
 * k/2 + 3. Pairs retire at j + 3 and j + 3.25: the last, k = 39, at
 * 19 + 3.25 = 22.25. Palmed's bound for the same work: 40 x 0.5 = 20. */
static void independent(struct cycles *cy)
{
	for (int k = 0; k < 40; k++) {
		uint8_t reg = (uint8_t)UNIT_VEC_PART(k % 8, 0);
		uint8_t src[] = {reg, (uint8_t)UNIT_VEC_PART(15, 0), END}, dst[] = {reg, END};
		feed_units(cy, 3, 0, 0, 0, src, dst);
	}
}

/* Two chains of 6 imul, on rax then on rcx. With a window of 64 they
 * overlap: the rcx chain issues from cycle 1 (dispatched at 6/4) and ends
 * at 19; the last retires at 19.5 (after rax's at 18, a quarter of a
 * cycle each). With a window of 4, instruction k dispatches after k - 4
 * retired: the rax chain retires at 3, 6, ..., 18; the rcx chain's first
 * dispatches at 9 (after the third imul of rax), its k-th at 12, 15, 18,
 * 18.25, 18.5 and, its sources ready at 9 + 3j, completes at 12, 15, 18,
 * 21, 24, 27: 27 cycles. */
static void window(struct cycles *cy)
{
	for (int k = 0; k < 6; k++)
		feed(cy, 0, 0);
	for (int k = 0; k < 6; k++)
		feed(cy, 1, 0);
}

/* cmp rax, rbx (issue 0, ZF at 1); jne (dispatched at 0.25, issues at 1
 * when ZF is ready, resolved at 2), then add rcx, rdx. Taken, it is
 * mispredicted (a cold predictor says not taken): the add dispatches at
 * 2 + 10 = 12, completes at 13, and the run takes 13 cycles. Not taken
 * (the add at the fall-through address), it is predicted: the add issues
 * at 0 (dispatched at 0.5), completes at 1 and retires after the jne:
 * 2 + 0.25. */
static void branch_taken(struct cycles *cy)
{
	feed(cy, 4, 0);
	feed(cy, 5, 0);
	feed(cy, 2, 0);
}

static void branch_not_taken(struct cycles *cy)
{
	feed(cy, 4, 0);
	feed(cy, 5, 0);
	feed_units(cy, 2, insns[5].addr + insns[5].len, 0, 0, NULL, NULL);
}

/* imul rax, rbx (rax at 3); mov [rdi], rax (its data ready at 3, retires
 * at 3.25); a load of the same 8 bytes into rcx; add rcx, rdx.
 * - mov rcx, [rsi]: another address expression, forwarded: its address is
 *   ready at 0 (L1 would give the data at 4) but the store is in flight:
 *   3 + 5 = 8; the add completes at 9: 9 cycles.
 * - mov rcx, [rdi]: the store's own expression, renamed: 3 + 0; the add
 *   completes at 4 and retires at 4.
 * - mov rcx, [rsi] of other bytes: from L1 at 4, the add at 5: 5 cycles. */
static uint64_t load_at;
static size_t load_insn;
static void forwarding(struct cycles *cy)
{
	feed(cy, 0, 0);
	feed(cy, 6, 0x5000);
	feed(cy, load_insn, load_at);
	feed(cy, 2, 0);
}

/* 8 stores mov [rdi], rax (no Palmed resource in this model, data ready
 * at 0, latency 0) at store_stride bytes apart from 0x5000. They dispatch
 * at k/4 and may issue at floor(k/4). Without a line cost they issue at
 * 0, 0, 0, 0, 1, 1, 1, 1 and retire a quarter cycle apart from 0.25
 * (retire width 4): the last at 2. With a cost of 1 per store to another
 * line than the store before, 64 bytes apart each takes a whole cycle of
 * the line resource: store k issues at k and retires then (k >= 1), the
 * last at 7; 8 bytes apart they all share one line: only the first
 * pays, 2 again. */
static uint64_t store_stride;
static void stores(struct cycles *cy)
{
	for (uint64_t k = 0; k < 8; k++)
		feed(cy, 6, 0x5000 + k * store_stride);
}

/* 5 pairs mulsd (latency 3, a slow FP op) then addpd (2, a fast one) in
 * one chain through xmm0: the addpd waits the bypass (1) more for the
 * mulsd's result; the mulsd, slow, waits for nothing more: pair k ends at
 * 6(k + 1), the last at 30. Without the bypass, 5 x 5 = 25. A chain of
 * 5 addpd alone: 5 x 2 = 10. */
static void mul_add(struct cycles *cy)
{
	for (int k = 0; k < 5; k++) {
		feed(cy, 13, 0);
		feed(cy, 14, 0);
	}
}

static void add_chain(struct cycles *cy)
{
	for (int k = 0; k < 5; k++)
		feed(cy, 14, 0);
}

/* main calls f: call (a store of the return address, retired at 0.25,
 * taken: the front end comes back one cycle after the block began, at
 * 1); f: 3 dependent imul issued at 1, 4, 7 (done at 10), ret (its load
 * renamed from the call's store, retiring at 10.25). f's one call takes
 * from the call's retirement to the ret's: 10.25 - 0.25 = 10. */
static void function(struct cycles *cy)
{
	const uint64_t sp = 0x7ff000;
	feed_units(cy, 10, 0, sp - 8, sp, NULL, NULL);
	for (int k = 0; k < 3; k++)
		feed_units(cy, 0, 0, 0, sp - 8, NULL, NULL);
	feed_units(cy, 11, 0, sp - 8, sp - 8, NULL, NULL);
}

/* Loads of 8 bytes, stride bytes apart over span bytes, into an L1 of 48
 * KiB, 12 ways of 64-byte lines (64 sets). The first 768 lines fill the
 * empty ways (a warm start: not misses), every later new line misses:
 * - stride 64 over 128 KiB: 2048 accesses, 2048 - 768 = 1280 misses
 *   (62.5%, flagged);
 * - stride 8 over 64 KiB: 8192 accesses of 1024 lines, 256 misses
 *   (3.1%, not flagged). */
static uint64_t stride, span;
static void streaming(struct cycles *cy)
{
	for (uint64_t a = 0; a < span; a += stride)
		feed(cy, 9, 0x100000 + a);
}

/* jne at one address, taken 50 times: the cold predictor misses the
 * first (it says not taken) and then has learnt it: 1 misprediction. */
static void always_taken(struct cycles *cy)
{
	for (int k = 0; k < 50; k++) {
		feed(cy, 4, 0);
		feed(cy, 5, 0);
	}
	feed(cy, 2, 0);
}

/* ---- the run of report.sh, written as a recording ---- */

static int write_event(struct trace_writer *w, size_t i, uint64_t addr, uint64_t sp, uint64_t mem)
{
	static struct perpi_insn moved[16];
	static size_t n;
	struct perpi_event ev;
	memset(&ev, 0, sizeof(ev));
	moved[n] = insns[i];
	moved[n].addr = addr;
	moved[n].id = (uint32_t)n;
	ev.insn = &moved[n++];
	ev.sp = sp;
	for (const uint8_t *u = code[i].src; *u != END; u++)
		ev.src[ev.n_src++] = *u;
	for (const uint8_t *u = code[i].dst; *u != END; u++)
		ev.dst[ev.n_dst++] = *u;
	if (code[i].mem) {
		ev.mem[0] = (struct perpi_mem_access){mem, 8, code[i].mem == 'w'};
		ev.n_mem = 1;
	}
	return trace_writer_event(w, &ev);
}

static const char *fn_name(void *ctx, uint64_t addr, uint64_t *offset)
{
	*offset = addr - (addr >= 0x2000 ? 0x2000 : 0x1000);
	return addr >= 0x2000 ? "f" : "main";
}

/* main: call f at 0x1000 (its store at S - 8), hlt at 0x1005 after it;
 * f: imul rax, rbx at 0x2000, 0x2004 ... 0x2024, ret at 0x2028. By the
 * rules above, with the core and model of this file: the call retires at
 * 0.25 and, taken, brings the front end back at 1; the imul issue at 1,
 * 4, ..., 28 and the last completes at 31; the ret (its load renamed from
 * the call's store, ready at 0) retires at 31.25: f takes 31.25 - 0.25 =
 * 31 cycles; the hlt (no source, dispatched at 3.75, a control transfer
 * of latency 1) retires at 31.25 + 0.25 = 31.5, the run's cycles. The resource bound: 10 imul on
 * R2, 1 each: 10.0. */
/* Native figures as perpi record --measure keeps them, for report.sh to
 * find in the report: timed "f": f timed in its one call, 40 cycles
 * (min, median and total), and "g", timed but never called; the whole
 * run 41.5. timed "h": only h (3 calls, 99 cycles in all), a function
 * the trace does not have: f is not measured; the whole run 99. */
static struct measured *measured_run(const char *timed)
{
	static struct measured_figure fig[2];
	static struct measured m;
	if (!timed)
		return NULL;
	if (!strcmp(timed, "f")) {
		fig[0] = (struct measured_figure){"f", 0, 1, 0, 40, 40, 40};
		fig[1] = (struct measured_figure){"g", 0, 0, 0, 0, 0, 0};
		m = (struct measured){fig, 2, 41.5, 2, 2, MEASURED_CLOCK_TSC, 1, 0, 0, 0,
				      MEASURED_JUMP};
	} else {
		fig[0] = (struct measured_figure){"h", 0, 3, 0, 33, 33, 99};
		m = (struct measured){fig, 1, 99, 2, 2, MEASURED_CLOCK_TSC, 1, 0, 0, 0,
				      MEASURED_JUMP};
	}
	return &m;
}

static int write_files(const char *data, const char *model_path, const char *core_path,
		       const char *timed)
{
	const uint64_t S = 0x7ff000;
	struct trace_meta_entry meta[] = {{"program", "cycles-hand-made"}};
	struct trace_symbolizer sym = {fn_name, NULL, NULL};
	struct trace_writer *w = trace_writer_open_measured(data, meta, 1, &sym, measured_run(timed));
	struct trace_end end = {TRACE_END_EXITED, 0, 0};
	int rc = !w || write_event(w, 10, 0x1000, S, S - 8);
	for (int k = 0; k < 10 && !rc; k++)
		rc = write_event(w, 0, 0x2000 + 4 * (uint64_t)k, S - 8, 0);
	rc = rc || write_event(w, 11, 0x2028, S - 8, S - 8);
	rc = rc || write_event(w, 12, 0x1005, S, 0) || trace_writer_close(w, &end) < 0;
	struct model *m = model_new("host");
	model_set_rho(m, model_add_form(m, "IMUL_GPR64_GPR64", 1),
		      model_add_resource(m, "R2", NULL), 1);
	char *host = model_host_cpu();
	free(m->cpu);
	m->cpu = host;
	struct core *c = the_core(64);
	free(c->cpu);
	c->cpu = model_host_cpu();
	rc = rc || model_save(m, model_path) < 0 || core_save(c, core_path) < 0;
	if (rc)
		fprintf(stderr, "perpi: test_cycles: %s\n", perpi_error());
	model_delete(m);
	core_delete(c);
	return rc;
}

/* The stream rates through a core file: saved and loaded as set; a file
 * without them (from before they existed) loads with 0, the model's rate;
 * a negative rate is a corrupt file. */
static void core_file_streams(void)
{
	char path[4096];
	const char *dir = getenv("TMPDIR");
	/* mkstemp's template: it replaces the six X with a unique name */
	snprintf(path, sizeof(path), "%s/perpi-test-core-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		check("a temporary core file", 0, 1);
		return;
	}
	close(fd);
	struct core *c = the_core(64), *back = NULL;
	core_set_measured(c, CORE_STREAM_STORE, 28.5);
	core_set_measured(c, CORE_STREAM_COPY, 13.75);
	int ok = core_save(c, path) == 0 && core_load(path, &back) == 0;
	check("core file: stream_store kept", ok ? back->value[CORE_STREAM_STORE] : -1, 28.5);
	check("core file: stream_copy kept", ok ? back->value[CORE_STREAM_COPY] : -1, 13.75);
	core_delete(back);
	back = NULL;
	/* the same file with the two parameters taken out, then one made
	 * negative */
	for (int way = 0; way < 2; way++) {
		json_object *root = core_save(c, path) == 0 ? json_object_from_file(path) : NULL,
			    *params = NULL, *p = NULL;
		if (!root || !json_object_object_get_ex(root, "parameters", &params)) {
			check("core file: parameters", 0, 1);
			json_object_put(root);
			break;
		}
		if (way == 0) {
			json_object_object_del(params, "stream_store");
			json_object_object_del(params, "stream_copy");
		} else if (json_object_object_get_ex(params, "stream_copy", &p)) {
			json_object_object_add(p, "value", json_object_new_double(-3));
		}
		int rc = json_object_to_file(path, root);
		json_object_put(root);
		rc = rc < 0 ? -2 : core_load(path, &back);
		if (way == 0) {
			check("core file without stream rates: loads", rc, 0);
			check("core file without stream rates: 0",
			      rc == 0 ? back->value[CORE_STREAM_STORE] : -1, 0);
		} else {
			check("core file with a negative stream rate: corrupt", rc, -1);
		}
		core_delete(back);
		back = NULL;
	}
	core_delete(c);
	unlink(path);
}

/* A branch taken, taken, taken, not taken, 250 times: a bimodal counter
 * mispredicts every not-taken (62 times); global history of 4 outcomes
 * tells them apart, so after learning (a few mispredictions per table
 * that allocates) the predictor is right: at most 20 here. */
static void pattern(struct cycles *cy)
{
	for (int k = 0; k < 1000; k++) {
		feed(cy, 4, 0);
		feed(cy, 5, 0);
		if (k % 4 == 3)
			feed_units(cy, 2, insns[5].addr + insns[5].len, 0, 0, NULL, NULL);
		else
			feed(cy, 2, 0);
	}
}

/* jmp rax to 4 targets in turn, 100 times: the last target is always
 * wrong (400 mispredictions); the path of the last targets tells the next
 * one: at most 40. */
static void indirect(struct cycles *cy)
{
	for (int k = 0; k < 400; k++) {
		feed(cy, 15, 0);
		feed_units(cy, 2, 0x9000 + 0x40 * (uint64_t)(k % 4), 0, 0, NULL, NULL);
	}
}

/* jmp rax, 50 times the sequence of targets A x 20, B, A x 20, C: the 16
 * targets before B and before C are all A, so a path of 16 cannot tell
 * them apart (two mispredictions a round: 100); a path of 32 targets holds
 * the B or C before, and after learning (each table allocates on a
 * misprediction) it is right: at most 20. */
static void long_path(struct cycles *cy)
{
	for (int k = 0; k < 50; k++)
		for (int j = 0; j < 42; j++) {
			uint64_t target = j == 20 ? 0x9040 : j == 41 ? 0x9080 : 0x9000;
			feed(cy, 15, 0);
			feed_units(cy, 2, target, 0, 0, NULL, NULL);
		}
}

/* 10 times cmp rax, rbx (flags at +1) then cmovcc rax, rbx, a chain
 * through rax and the flags: a cmove takes its flags in 1 cycle, 2 a pair,
 * the last completes (and retires) at 20; a cmovl (SF and OF) with the
 * core's cmov_signed 1 takes them 1 later, 3 a pair: 30. */
static size_t cmov_insn;
static void cmp_cmov(struct cycles *cy)
{
	static const uint8_t src[] = {UNIT_RAX, UNIT_RBX, END};
	static const uint8_t flags[] = {ZF, UNIT_SF, UNIT_OF, UNIT_CF, END};
	for (int k = 0; k < 10; k++) {
		feed_units(cy, 4, 0, 0, 0, src, flags);
		feed(cy, cmov_insn, 0);
	}
}

/* Two rounds of `perpi core`'s window probe on this Zen 5, 2026-11-25
 * (cycles per iteration for fills of 16 ... 512 nops between two chains of
 * 8 sqrtsd): at 14:04, the core's other hardware thread busy, the chains
 * stop overlapping from fill 224 (222 -> 344 cycles: a window of 208 +
 * 16 = 224, half the reorder buffer); at 14:18 from 448 (236 -> 355: 432 +
 * 16 = 448, AMD's documented 448). */
static const double window_busy[32] = {155, 155, 156, 155, 154, 154, 178, 184, 192, 199, 207, 215, 222, 344, 351, 360, 368, 376, 382, 390, 398, 400, 407, 414, 419, 428, 436, 455, 464, 470, 480, 486};
static const double window_alone[32] = {160, 160, 160, 161, 161, 160, 160, 161, 161, 161, 161, 161, 161, 180, 184, 190, 192, 196, 200, 204, 210, 212, 217, 221, 224, 228, 236, 355, 359, 363, 367, 371};

/* A model whose one resource F is the front end's: a NOP loads it (a
 * quarter of a cycle), and the loads and adds take half a cycle of it. */
/* A model of REP.STOSB: R3 0.25 an iteration (its cycles alone), and
 * with strings a start of 20 cycles and 0.125 an iteration. */
static struct model *rep_model(int strings)
{
	struct model *m = the_model();
	size_t r3 = model_add_resource(m, "R3", NULL);
	model_set_rho(m, model_add_form(m, "REP.STOSB", 0.25), r3, 0.25);
	model_set_rho(m, model_add_form(m, "REP.STOSQ", 0.25), r3, 0.25);
	if (strings) {
		model_set_string(m, "REP.STOSB", 20, 0.125);
		model_set_string(m, "REP.STOSQ", 20, 0.125);
	}
	return m;
}

/* rep stosb, 8 iterations (8 events), then add rcx, rdx (reads rcx).
 * - Without strings, each iteration an instruction of 0.25 on R3 and of
 *   latency 0 (a store): iteration k dispatches at k/4 and issues at
 *   floor(k/4) (R3 takes 4 a cycle); the last at 2, rcx then ready; the
 *   add issues at 2 and completes at 3: 3 cycles.
 * - With them, one execution: the first iteration issues at 0, books
 *   (20 + 0.125) / 0.25 times its usage, 20.125 cycles of R3, and
 *   completes at 20.125; each next one 0.125 later, without a slot (21.0
 *   for the eighth: 20 + 8 x 0.125, the start and the iterations); the
 *   add issues at 21 and completes at 22: 22 cycles. */
static void rep_stosb(struct cycles *cy)
{
	for (int k = 0; k < 8; k++)
		feed(cy, 18, 0x7000 + (uint64_t)k);
	feed(cy, 2, 0);
}

/* rep stosq, 256 iterations over 2 KiB from 0x7000 (8 a line), then add
 * rcx, rdx, on an L1 of 1 KiB (8 sets of 2 ways of 64 bytes). The first
 * 16 lines fill empty ways (no miss: the simulated L1 starts warm); the
 * 129th iteration, on the 17th line, misses. With the model's start of
 * 20 and 0.125 an iteration, and a core that writes 16 bytes a cycle past
 * L1 (0.5 cycle an iteration of 8 bytes): 20 + 128 x 0.125 + 128 x 0.5 =
 * 100, and the add completes at 101. At 64 bytes a cycle (0.125: no
 * slower) or with no stream rate: 20 + 256 x 0.125 = 52, and 53. */
static void rep_stosq(struct cycles *cy)
{
	for (int k = 0; k < 256; k++)
		feed(cy, 19, 0x7000 + 8 * (uint64_t)k);
	feed(cy, 2, 0);
}

static struct model *front_model(void)
{
	struct model *m = model_new("test");
	size_t f = model_add_resource(m, "F", NULL);
	model_set_rho(m, model_add_form(m, "NOP", 0.25), f, 0.25);
	model_set_rho(m, model_add_form(m, "ADD_GPR64_GPR64", 0.5), f, 0.5);
	model_set_rho(m, model_add_form(m, "MOV_GPR64_M64", 0.5), f, 0.5);
	return m;
}

/* 100 times: two loads addressed by rcx, then add rcx, rdx (a chain, like
 * a loop's index). F takes two instructions a cycle, at dispatch, in
 * order: instruction i dispatches at floor(i/2) + (i odd) / 4, so add k
 * (i = 3k + 2) issues at floor((3k + 2) / 2) >= the chain's k + 1, and
 * rcx is ready at that + 1. In the last round (k = 99): rcx from add 98
 * (issued at 148) at 149; the loads issue at 149 and complete at 153 (L1
 * latency 4), the add at 150; retiring in order: 153, 153.25, 153.5.
 * Booked when they issue instead, the two loads that rcx releases fill F
 * in that cycle and the add waits one more: 2 cycles a round. */
static void front_end(struct cycles *cy)
{
	for (uint64_t k = 0; k < 100; k++) {
		feed(cy, 9, 0x6000 + 16 * k);
		feed(cy, 9, 0x6008 + 16 * k);
		feed(cy, 2, 0);
	}
}

/* The front end of a model where a load's usage of F (0.45) does not
 * bind it (its cycles alone, 0.5, are its load resource L's): the cycle
 * model takes a NOP's usage (0.25, one slot) instead; a cmp's (0.5, its
 * cycles) binds it and is kept. */
static struct model *slot_model(void)
{
	struct model *m = model_new("test");
	size_t f = model_add_resource(m, "F", NULL), l = model_add_resource(m, "L", NULL);
	model_set_rho(m, model_add_form(m, "NOP", 0.25), f, 0.25);
	size_t load = model_add_form(m, "MOV_GPR64_M64", 0.5);
	model_set_rho(m, load, f, 0.45);
	model_set_rho(m, load, l, 0.5);
	model_set_rho(m, model_add_form(m, "CMP_GPR64_GPR64", 0.5), f, 0.5);
	return m;
}

/* 100 times: a load (mov rcx, [rsi]) and cmp rax, rbx; no dependencies.
 * F takes 0.25 + 0.5 a round, booked at dispatch in order: round k's load
 * starts at 0.75k of F, in cycle floor(0.75k), its cmp 0.25 later. Round
 * 99: the load at 74.25 (cycle 74: dispatch and issue at 74, completes at
 * 78, L1 latency 4), the cmp at 74.5 (dispatch 74.25, issue 74, completes
 * 75); both retire after the load: 78, 78.25. With the load's 0.45 of F,
 * 0.95 a round: round 99 in cycle 94, the end at 98.25. */
static void slots(struct cycles *cy)
{
	for (uint64_t k = 0; k < 100; k++) {
		feed(cy, 7, 0x6000 + 8 * k);
		feed(cy, 4, 0);
	}
}

/* A model whose load (mov rcx, [rdi]) takes 4 whole cycles of R. */
static struct model *slow_load_model(void)
{
	struct model *m = model_new("test");
	size_t r = model_add_resource(m, "R", NULL);
	model_set_rho(m, model_add_form(m, "MOV_GPR64_M64", 4), r, 4);
	return m;
}

/* 8 times: mov [rdi], rax (no resource: issues and has its data at 0),
 * then mov rcx, [rdi], which repeats the store's address: its data comes
 * renamed from the store, at 0 (renamed latency 0), and it completes
 * then. But load k holds R for cycles 4k to 4k + 3: it issues at 4k, and
 * an instruction retires no earlier than it issues: the last load at 28,
 * the run's end. (Retiring at its completion instead, the run would end
 * at 4, the retire width's pace: faster than R allows.) */
static void renamed_loads(struct cycles *cy)
{
	for (int k = 0; k < 8; k++) {
		feed(cy, 6, 0x5000);
		feed(cy, 8, 0x5000);
	}
}

static double issued[8];

static void note_issue(void *ctx, const struct cycles_insn_times *t)
{
	(void)ctx;
	if (t->index < 8)
		issued[t->index] = t->issue;
}

/* Four addsd (R1: 0.5 each, two pipes; latency 3), dispatched in cycle 0
 * (W = 4) and steered round robin to pipes 0, 1, 0, 1: A (xmm0 += xmm15)
 * issues at 0 on pipe 0; B (xmm2 from A's xmm0) waits for A: 3, pipe 1;
 * C (xmm5 from xmm6, ready at 0) finds its pipe 0 taken by A at 0 and
 * issues at 1, though R1 has room at 0; D (xmm7 from xmm8) on pipe 1,
 * free at 0 (B holds it at 3): 0. Steered to whichever pipe is free, C
 * would issue at 0. */
static void steered(void)
{
	static const uint8_t a_src[] = {UNIT_VEC_PART(0, 0), UNIT_VEC_PART(15, 0), END};
	static const uint8_t a_dst[] = {UNIT_VEC_PART(0, 0), END};
	static const uint8_t b_src[] = {UNIT_VEC_PART(0, 0), END}, b_dst[] = {UNIT_VEC_PART(2, 0), END};
	static const uint8_t c_src[] = {UNIT_VEC_PART(6, 0), END}, c_dst[] = {UNIT_VEC_PART(5, 0), END};
	static const uint8_t d_src[] = {UNIT_VEC_PART(8, 0), END}, d_dst[] = {UNIT_VEC_PART(7, 0), END};
	struct core *c = the_core(64);
	struct cycles *cy = cycles_new(model, c);
	cycles_set_observer(cy, note_issue, NULL);
	feed_units(cy, 3, 0, 0, 0, a_src, a_dst);
	feed_units(cy, 3, 0, 0, 0, b_src, b_dst);
	feed_units(cy, 3, 0, 0, 0, c_src, c_dst);
	feed_units(cy, 3, 0, 0, 0, d_src, d_dst);
	cycles_finish(cy);
	check("steered: A issues", issued[0], 0);
	check("steered: B issues after A", issued[1], 3);
	check("steered: C waits for its pipe", issued[2], 1);
	check("steered: D on the other pipe", issued[3], 0);
	cycles_delete(cy);
	core_delete(c);
}

int main(int argc, char **argv)
{
	struct cycles_figures f, fn;
	make_insns();
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "write"))
		return write_files(argv[2], argv[3], argv[4], argc == 6 ? argv[5] : NULL);
	model = the_model();

	check("dependent chain", run(64, chain, NULL, NULL), 30);
	check("independent work", run(64, independent, &f, NULL), 22.25);
	check("independent work: all mapped", f.mapped, 40);
	check("two chains, window 64", run(64, window, NULL, NULL), 19.5);
	check("two chains, window 4", run(4, window, NULL, NULL), 27);
	check("mispredicted branch", run(64, branch_taken, &f, NULL), 13);
	check("mispredicted branch: mispredictions", f.mispredicts, 1);
	check("predicted branch", run(64, branch_not_taken, &f, NULL), 2.25);
	check("predicted branch: mispredictions", f.mispredicts, 0);

	load_insn = 7;
	load_at = 0x5000;
	check("store forwarded to a load", run(64, forwarding, NULL, NULL), 9);
	load_insn = 8;
	check("store renamed to a load", run(64, forwarding, NULL, NULL), 4);
	load_insn = 7;
	load_at = 0x6000;
	check("load from L1", run(64, forwarding, NULL, NULL), 5);
	{
		const struct model *was = model;
		struct model *slow = slow_load_model();
		model = slow;
		check("renamed loads retire after they issue", run(64, renamed_loads, NULL, NULL), 28);
		model = was;
		model_delete(slow);
	}

	check("mulsd then addpd, bypass 1", run(64, mul_add, NULL, NULL), 30);
	check("addpd chain, bypass 1", run(64, add_chain, NULL, NULL), 10);
	bypass = 0;
	check("mulsd then addpd, no bypass", run(64, mul_add, NULL, NULL), 25);
	bypass = 1;
	store_stride = 64;
	check("stores to 8 lines, no line cost", run(64, stores, NULL, NULL), 2);
	store_line = 1;
	check("stores to 8 lines, 1 cycle a line", run(64, stores, NULL, NULL), 7);
	store_stride = 8;
	check("stores to 1 line, 1 cycle a line", run(64, stores, NULL, NULL), 2);
	store_line = 0;
	check("run with a call", run(64, function, &f, &fn), 10.25);
	check("the function's cycles", fn.cycles, 10);
	check("the function's calls", fn.calls, 1);
	check("the function's instructions", fn.insns, 4);

	stride = 64;
	span = 128 * 1024;
	run(64, streaming, &f, NULL);
	check("L1 accesses, stride 64", f.l1_accesses, 2048);
	check("L1 misses, stride 64", f.l1_misses, 1280);
	check("stride 64 flagged", cycles_flagged(&f), 1);
	stride = 8;
	span = 64 * 1024;
	run(64, streaming, &f, NULL);
	check("L1 accesses, stride 8", f.l1_accesses, 8192);
	check("L1 misses, stride 8", f.l1_misses, 256);
	check("stride 8 not flagged", cycles_flagged(&f), 0);

	run(64, always_taken, &f, NULL);
	check("always taken: branches", f.branches, 50);
	check("always taken: mispredictions", f.mispredicts, 1);

	run(64, pattern, &f, NULL);
	check("TTTN: branches", f.branches, 1000);
	check_at_most("TTTN: at most 20 mispredictions", f.mispredicts, 20);
	run(64, indirect, &f, NULL);
	check("4 targets: branches", f.branches, 400);
	check_at_most("4 targets: at most 40 mispredictions", f.mispredicts, 40);

	check("window probe, sibling thread busy", core_window_of(window_busy, 32), 224);
	check("window probe, core alone", core_window_of(window_alone, 32), 448);
	check("window probe, no rise", isnan(core_window_of(window_alone, 13)), 1);

	struct model *front = front_model();
	unsigned char is_front[1];
	check("a NOP's resource is the front end's", cycles_front_resources(front, is_front), 1);
	const struct model *saved = model;
	model = front;
	check("front end taken at dispatch", run(64, front_end, NULL, NULL), 153.5);
	model = slot_model();
	check("front end: a slot for a load it does not bind", run(64, slots, NULL, NULL), 78.25);
	model_delete((struct model *)model);
	model = saved;
	model_delete(front);

	steered();

	model = rep_model(0);
	check("rep stosb x 8, an iteration an instruction", run(64, rep_stosb, NULL, NULL), 3);
	model_delete((struct model *)model);
	model = rep_model(1);
	check("rep stosb x 8, one start and 8 iterations", run(64, rep_stosb, NULL, NULL), 22);
	l1_size = 1024;
	l1_ways = 2;
	check("rep stosq past L1, no stream rate", run(64, rep_stosq, NULL, NULL), 53);
	stream_store = 16;
	check("rep stosq past L1 at 16 bytes a cycle", run(64, rep_stosq, NULL, NULL), 101);
	stream_store = 64;
	check("rep stosq past L1 at 64 bytes a cycle", run(64, rep_stosq, NULL, NULL), 53);
	stream_store = 0;
	l1_size = 49152;
	l1_ways = 12;
	core_file_streams();
	model_delete((struct model *)model);
	model = saved;

	cmov_insn = 17;
	check("cmp + cmove chain", run(64, cmp_cmov, NULL, NULL), 20);
	cmov_insn = 16;
	check("cmp + cmovl chain, cmov_signed 0", run(64, cmp_cmov, NULL, NULL), 20);
	cmov_signed = 1;
	check("cmp + cmovl chain, cmov_signed 1", run(64, cmp_cmov, NULL, NULL), 30);
	cmov_insn = 17;
	check("cmp + cmove chain, cmov_signed 1", run(64, cmp_cmov, NULL, NULL), 20);
	cmov_signed = 0;

	run(64, long_path, &f, NULL);
	check("A x 20, B, A x 20, C: branches", f.branches, 2100);
	check_at_most("A x 20, B, A x 20, C: at most 20 mispredictions", f.mispredicts, 20);

	model_delete((struct model *)model);
	if (!failures)
		printf("PASS: cycles: chains, resources, window, branches, forwarding, FP bypass, "
		       "store lines, "
		       "calls, front end, FP pipes, cmov, window probe, "
		       "L1, REP executions past L1, stream rates in the core file\n");
	return failures ? 1 : 0;
}
