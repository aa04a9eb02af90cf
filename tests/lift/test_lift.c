/* The Palmed model lifted to a run (palmed/lift.h), with a hand-written
 * model, on a hand-made run of real x86-64 instructions:
 *
 *   main  0x1000  e8 fb 0f 00 00   call 0x2000         [M1]  (a call ends a block)
 *         0x1005  f4               hlt                  [M2]
 *   f     0x2000  48 01 d8         add rax, rbx         [A]   loop body, 10 times
 *         0x2003  f2 0f 58 c1      addsd xmm0, xmm1     [A]
 *         0x2007  f2 0f 58 d3      addsd xmm2, xmm3     [A]
 *         0x200b  75 f3            jne 0x2000           [A]
 *         0x200d  48 0f af c3      imul rax, rbx        [B]   once, after the loop
 *         0x2011  48 0f af cb      imul rcx, rbx        [B]
 *         0x2015  48 01 d8         add rax, rbx         [B]
 *         0x2018  c3               ret                  [B]
 *
 * The model (resources and rho chosen by hand; jumps, calls, ret and hlt
 * are not in it):
 *   ADD_GPR64_GPR64   R0 0.25
 *   ADDSD_XMM_XMM     R1 0.5
 *   IMUL_GPR64_GPR64  R0 0.25, R2 1
 *   (and, for tests/lift/loop.S, MOV_GPR32_IMM32, DEC_GPR32 and
 *   XOR_GPR32_SAME, xor eax, eax: R0 0.25 each; none of them occurs here)
 *
 * cycles(block) = max over resources of the sum of rho:
 *   A = ADD + 2 ADDSD (+ jne, uncovered): R0 0.25, R1 1.0, R2 0   -> 1.0, bound by R1
 *   B = 2 IMUL + ADD (+ ret, uncovered):  R0 0.75, R1 0,   R2 2.0 -> 2.0, bound by R2
 *   M1, M2: nothing covered                                        -> 0
 * f (one call): A x10 + B x1 = 10 x 1.0 + 2.0 = 12.0 cycles;
 *   instructions 10 x 4 + 4 = 44, of them 11 control transfers (jne x10,
 *   ret), covered 10 x 3 + 3 = 33: 33 of the 33 others (100.0%);
 *   IPC = 33 / 12 = 2.75; R1 bounds 10 of the 12 cycles: bottleneck R1.
 * Whole run: 46 instructions (M1, M2 too), 13 control transfers (call and
 * hlt too), 33 covered (100.0%), 12.0 cycles.
 *
 * The same model without IMUL (unmapped, "refused for this test"): B = ADD
 * alone, R0 0.25 -> 0.25; f = 10 x 1.0 + 0.25 = 10.25 cycles, covered 31
 * of 33 (93.9%), IPC 31 / 10.25 = 3.02; uncovered: IMUL_GPR64_GPR64, 2
 * instructions, with that reason; block A uncovers nothing.
 *
 * usage: test_lift                     run the checks
 *        test_lift write DATA MODEL CPU [noimul]
 *                                      write the run as a perpi.data and
 *                                      the model (CPU "host": this one;
 *                                      noimul: without IMUL), for
 *                                      tests/lift/report.sh */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "ilp/blocks.h"
#include "ilp/trace_file.h"
#include "palmed/lift.h"

static int failures;

static void check_num(const char *what, double got, double want)
{
	if (fabs(got - want) > 1e-9) {
		printf("FAIL: %s = %g, want %g\n", what, got, want);
		failures++;
	}
}

static void check_str(const char *what, const char *got, const char *want)
{
	if (!got || strcmp(got, want)) {
		printf("FAIL: %s = %s, want %s\n", what, got ? got : "(null)", want);
		failures++;
	}
}

struct code {
	uint64_t addr;
	const char *hex;
	int ctrl;
	const char *text;
};

static const struct code code[] = {
    {0x1000, "e8fb0f0000", CTRL_CALL, "call 0x2000"},
    {0x1005, "f4", CTRL_OTHER, "hlt"},
    {0x2000, "4801d8", CTRL_NONE, "add rax, rbx"},
    {0x2003, "f20f58c1", CTRL_NONE, "addsd xmm0, xmm1"},
    {0x2007, "f20f58d3", CTRL_NONE, "addsd xmm2, xmm3"},
    {0x200b, "75f3", CTRL_COND_JUMP, "jne 0x2000"},
    {0x200d, "480fafc3", CTRL_NONE, "imul rax, rbx"},
    {0x2011, "480fafcb", CTRL_NONE, "imul rcx, rbx"},
    {0x2015, "4801d8", CTRL_NONE, "add rax, rbx"},
    {0x2018, "c3", CTRL_RET, "ret"},
};
#define NCODE (sizeof(code) / sizeof(code[0]))
static struct perpi_insn insns[NCODE];

static void make_insns(void)
{
	for (size_t i = 0; i < NCODE; i++) {
		struct perpi_insn *in = &insns[i];
		in->addr = code[i].addr;
		in->id = (uint32_t)i;
		in->control = (uint8_t)code[i].ctrl;
		in->klass = CLASS_INT;
		for (const char *h = code[i].hex; *h; h += 2)
			sscanf(h, "%2hhx", &in->bytes[in->len++]);
		snprintf(in->text, sizeof(in->text), "%s", code[i].text);
	}
}

/* The run: call f; f: A x 10 (jne taken 9 times), B; hlt. */
static int run(perpi_event_fn fn, void *ctx)
{
	static struct perpi_event ev;
	static const int order[] = {0, -1, 6, 7, 8, 9, 1};
	const uint64_t S = 0x7ff000;
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		memset(&ev, 0, sizeof(ev));
		if (order[k] < 0) { /* the loop */
			for (int it = 0; it < 10; it++)
				for (int i = 2; i <= 5; i++) {
					ev.insn = &insns[i];
					ev.sp = S - 8;
					if (fn(ctx, &ev))
						return -1;
				}
			continue;
		}
		ev.insn = &insns[order[k]];
		ev.sp = order[k] >= 2 ? S - 8 : S;
		if (fn(ctx, &ev))
			return -1;
	}
	return 0;
}

static int write_model(const char *path, const char *cpu, int noimul)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f,
		"{\"format\": \"perpi-palmed-model\", \"version\": 1, \"cpu\": \"%s\",\n"
		" \"benchmarks\": 0,\n"
		" \"resources\": [{\"name\": \"R0\"}, {\"name\": \"R1\"}, {\"name\": \"R2\"}],\n"
		" \"forms\": [\n"
		"  {\"form\": \"ADDSD_XMM_XMM\", \"cycles\": 0.5, \"usage\": {\"R1\": 0.5}},\n"
		"  {\"form\": \"ADD_GPR64_GPR64\", \"cycles\": 0.25, \"usage\": {\"R0\": 0.25}},\n"
		"%s"
		"  {\"form\": \"MOV_GPR32_IMM32\", \"cycles\": 0.25, \"usage\": {\"R0\": 0.25}},\n"
		"  {\"form\": \"DEC_GPR32\", \"cycles\": 0.25, \"usage\": {\"R0\": 0.25}},\n"
		"  {\"form\": \"XOR_GPR32_SAME\", \"cycles\": 0.25, \"usage\": {\"R0\": 0.25}}],\n"
		" \"unmapped\": [%s], \"measurements\": []}\n",
		cpu,
		noimul ? ""
		       : "  {\"form\": \"IMUL_GPR64_GPR64\", \"cycles\": 1, "
			 "\"usage\": {\"R0\": 0.25, \"R2\": 1}},\n",
		noimul ? "{\"form\": \"IMUL_GPR64_GPR64\", \"reason\": \"refused for this test\"}"
		       : "");
	return fclose(f);
}

static const char *fn_name(void *ctx, uint64_t addr, uint64_t *offset)
{
	*offset = addr - (addr >= 0x2000 ? 0x2000 : 0x1000);
	return addr >= 0x2000 ? "f" : "main";
}

static int write_files(const char *data, const char *model, const char *cpu, int noimul)
{
	char *host = model_host_cpu();
	struct trace_meta_entry meta[] = {{"program", "lift-hand-made"}};
	struct trace_symbolizer sym = {fn_name, NULL, NULL};
	struct trace_writer *w = trace_writer_open(data, meta, 1, &sym);
	struct trace_end end = {TRACE_END_EXITED, 0, 0};
	int rc = !w || run(trace_writer_event, w) < 0 || trace_writer_close(w, &end) < 0 ||
		 write_model(model, strcmp(cpu, "host") ? cpu : host, noimul) < 0;
	if (rc)
		fprintf(stderr, "perpi: test_lift: %s\n", perpi_error());
	free(host);
	return rc;
}

/* The same run with the model without IMUL (the comment at the top). */
static void check_noimul(const char *path, const struct blocks *b)
{
	struct model *m;
	struct lift_figures f;
	struct lift_uncovered *u;
	char *host = model_host_cpu();
	if (write_model(path, host, 1) < 0 || model_load(path, &m) < 0) {
		printf("FAIL: the model without IMUL: %s\n", perpi_error());
		failures++;
		free(host);
		return;
	}
	unlink(path);
	free(host);
	struct lift *l = lift_new(m, b);
	lift_function(l, 0x2000, &f);
	check_num("no IMUL: f cycles", f.cycles, 10.25);
	check_num("no IMUL: f covered", f.covered, 31);
	check_num("no IMUL: f coverage", lift_coverage(&f), 31.0 / 33);
	size_t n = lift_uncovered_forms(l, LIFT_FUNCTION, 0x2000, &u);
	check_num("no IMUL: f uncovered forms", n, 1);
	if (n == 1) {
		check_str("no IMUL: the form", u[0].form, "IMUL_GPR64_GPR64");
		check_num("no IMUL: its instructions", u[0].count, 2);
		check_str("no IMUL: why", u[0].reason, "refused for this test");
	}
	free(u);
	check_num("no IMUL: block A uncovered", lift_uncovered_forms(l, LIFT_BLOCK, 2, &u), 0);
	free(u);
	lift_delete(l);
	model_delete(m);
}

/* A REP string instruction: one dynamic instruction per iteration
 * (DESIGN.md), and the model's REP forms cost an iteration:
 *
 *   0x3000  f3 aa      rep stosb        [R]  8 iterations each time
 *   0x3002  48 01 d8   add rax, rbx     [R]
 *   0x3005  75 f9      jne 0x3000       [R]  taken once: R twice
 *   0x3007  f4         hlt
 *
 * Model: REP.STOSB R1 0.25 an iteration, ADD_GPR64_GPR64 R0 0.25. R's
 * kernel is REP.STOSB^8 ADD: R1 2.0, R0 0.25 -> 2.0 cycles an occurrence,
 * 4.0 over the run; its 18 non-control instructions (16 iterations, 2 adds)
 * covered: IPC 18 / 4 = 4.5 (with the rep counted once, 0.25 cycles an
 * occurrence: IPC 36).
 *
 * With the form timed at two lengths (strings: a start of 30 cycles, then
 * 0.0625 an iteration), one execution of 8 iterations takes 30 + 8 x
 * 0.0625 = 30.5 cycles: R 30.5 an occurrence (R1), 61 over the run, IPC
 * 18 / 61. */
static void check_rep(int strings)
{
	static const struct code rc[] = {
	    {0x3000, "f3aa", CTRL_NONE, "rep stosb"},
	    {0x3002, "4801d8", CTRL_NONE, "add rax, rbx"},
	    {0x3005, "75f9", CTRL_COND_JUMP, "jne 0x3000"},
	    {0x3007, "f4", CTRL_OTHER, "hlt"},
	};
	static struct perpi_insn ri[4];
	for (size_t i = 0; i < 4; i++) {
		ri[i] = (struct perpi_insn){.addr = rc[i].addr,
					    .id = (uint32_t)i,
					    .control = (uint8_t)rc[i].ctrl,
					    .klass = CLASS_INT};
		for (const char *h = rc[i].hex; *h; h += 2)
			sscanf(h, "%2hhx", &ri[i].bytes[ri[i].len++]);
		snprintf(ri[i].text, sizeof(ri[i].text), "%s", rc[i].text);
	}
	char path[] = "/tmp/perpi-lift-rep-XXXXXX";
	int fd = mkstemp(path);
	char *host = model_host_cpu();
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	struct model *m = NULL;
	if (f) {
		fprintf(
		    f,
		    "{\"format\": \"perpi-palmed-model\", \"version\": 1, \"cpu\": \"%s\",\n"
		    " \"benchmarks\": 0, \"resources\": [{\"name\": \"R0\"}, {\"name\": \"R1\"}],\n"
		    " \"forms\": [\n"
		    "  {\"form\": \"REP.STOSB\", \"cycles\": 0.25, \"usage\": {\"R1\": 0.25}},\n"
		    "  {\"form\": \"ADD_GPR64_GPR64\", \"cycles\": 0.25, \"usage\": {\"R0\": "
		    "0.25}}],\n"
		    " \"unmapped\": [], \"measurements\": []%s}\n",
		    host,
		    strings ? ",\n \"strings\": [{\"form\": \"REP.STOSB\", \"start\": 30, "
			      "\"iteration\": 0.0625}]"
			    : "");
		fclose(f);
	}
	free(host);
	if (!f || model_load(path, &m) < 0) {
		printf("FAIL: the REP model: %s\n", perpi_error());
		failures++;
		unlink(path);
		return;
	}
	unlink(path);
	struct blocks *b = blocks_new();
	struct perpi_event ev;
	for (int occ = 0; occ < 2; occ++) {
		for (int it = 0; it < 8; it++) {
			memset(&ev, 0, sizeof(ev));
			ev.insn = &ri[0];
			ev.sp = 0x7ff000;
			blocks_event(b, &ev);
		}
		for (int i = 1; i <= 2; i++) {
			memset(&ev, 0, sizeof(ev));
			ev.insn = &ri[i];
			ev.sp = 0x7ff000;
			blocks_event(b, &ev);
		}
	}
	memset(&ev, 0, sizeof(ev));
	ev.insn = &ri[3];
	ev.sp = 0x7ff000;
	blocks_event(b, &ev);
	blocks_finish(b);
	const struct block *blk;
	check_num("REP: blocks", blocks_list(b, &blk), 2);
	struct lift *l = lift_new(m, b);
	struct lift_figures fig;
	check_num("REP: R occurrences", blk[0].occurrences, 2);
	check_num("REP: R cycles/occurrence", lift_block(l, 0)->cycles, strings ? 30.5 : 2.0);
	lift_total(l, &fig);
	check_num("REP: run cycles", fig.cycles, strings ? 61.0 : 4.0);
	check_num("REP: run instructions", fig.insns, 21);
	check_num("REP: run covered", fig.covered, 18);
	check_num("REP: run IPC", fig.covered / fig.cycles, strings ? 18.0 / 61 : 4.5);
	lift_delete(l);
	blocks_delete(b);
	model_delete(m);
}

int main(int argc, char **argv)
{
	make_insns();
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "write"))
		return write_files(argv[2], argv[3], argv[4], argc == 6);

	char path[] = "/tmp/perpi-lift-model-XXXXXX";
	int fd = mkstemp(path);
	char *host = model_host_cpu();
	struct model *m;
	if (fd < 0 || write_model(path, host, 0) < 0 || model_load(path, &m) < 0) {
		printf("FAIL: the hand-written model: %s\n", perpi_error());
		return 1;
	}
	close(fd);
	free(host);

	struct blocks *b = blocks_new();
	run(blocks_event, b);
	blocks_finish(b);
	const struct block *blk;
	size_t n = blocks_list(b, &blk);
	check_num("blocks", n, 4); /* M1, M2, A, B by address: 0x1000 0x1005 0x2000 0x200d */
	struct lift *l = lift_new(m, b);

	/* The forms Capstone names, and the model's per-block cycles. */
	const struct lift_block *a = lift_block(l, 2), *bb = lift_block(l, 3);
	check_num("A address", blk[2].addr, 0x2000);
	check_num("A occurrences", blk[2].occurrences, 10);
	check_str("A form 0", a->forms[0], "ADD_GPR64_GPR64");
	check_str("A form 1", a->forms[1], "ADDSD_XMM_XMM");
	check_str("B form 0", bb->forms[0], "IMUL_GPR64_GPR64");
	check_num("A cycles/occurrence", a->cycles, 1.0);
	check_num("A bottlenecks", a->nbottlenecks, 1);
	check_str("A bottleneck", m->res[a->bottlenecks[0]].name, "R1");
	check_num("B cycles/occurrence", bb->cycles, 2.0);
	check_str("B bottleneck", m->res[bb->bottlenecks[0]].name, "R2");
	check_num("M1 cycles", lift_block(l, 0)->cycles, 0);

	struct lift_figures f;
	lift_block_figures(l, 2, &f);
	check_num("A cycles over the run", f.cycles, 10.0);
	check_num("A covered", f.covered, 30);

	lift_function(l, 0x2000, &f);
	check_num("f cycles", f.cycles, 12.0);
	check_num("f instructions", f.insns, 44);
	check_num("f covered", f.covered, 33);
	check_num("f IPC", f.covered / f.cycles, 2.75);
	check_str("f bottleneck", f.bottleneck >= 0 ? m->res[f.bottleneck].name : NULL, "R1");

	check_num("f control transfers", f.control, 11);
	check_num("f coverage", lift_coverage(&f), 1.0);

	lift_total(l, &f);
	check_num("run cycles", f.cycles, 12.0);
	check_num("run instructions", f.insns, 46);
	check_num("run covered", f.covered, 33);
	check_num("run control transfers", f.control, 13);
	check_num("run coverage", lift_coverage(&f), 1.0);
	struct lift_uncovered *u;
	check_num("run uncovered forms", lift_uncovered_forms(l, LIFT_RUN, 0, &u), 0);
	free(u);

	lift_delete(l);
	model_delete(m);
	check_noimul(path, b);
	blocks_delete(b);
	check_rep(0);
	check_rep(1);
	if (!failures)
		printf("PASS: lift: hand-written model, blocks and function figures\n");
	return failures ? 1 : 0;
}
