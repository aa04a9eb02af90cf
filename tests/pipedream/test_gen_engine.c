/* Generated kernels through perpi's own ideal-machine engine: the loop body
 * is assembled (GNU as), decoded and resolved by the tracer's x86 semantics
 * (tracer/x86.h) and run through the engine (ilp/engine.h), each
 * instruction once, with the stack engine on (push and pop's RSP updates
 * free, as in the core). Expected (DESIGN.md, "Measuring a kernel"):
 * kernels of forms that only write their destination put every
 * instruction at step 1, or at step 2 after a helper at step 1 (a zero
 * idiom breaking a dependency through the flags or an implicit register, a
 * division's dividend); read-modify-write forms chain through their write
 * pool, so each dependency between two instances links instructions at
 * least 8 apart; a kernel flagged for its few registers does have a
 * dependency (the flag is conservative: it counts registers, not
 * distances). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>

#include "common/util.h"
#include "ilp/engine.h"
#include "palmed/bench.h"
#include "palmed/kernel.h"
#include "tests/pipedream/body_util.h"
#include "tracer/x86.h"

static int failures;
static char dir[] = "/tmp/perpi-test-engine-XXXXXX";

struct seen {
	uint64_t max_step, n;
	uint64_t min_distance; /* 0: no dependency between two chained instructions */
	/* the step of each instruction: one at step 1 read nothing the loop
	 * wrote (a zero idiom the generator put before an instruction to break a
	 * dependency, the setup of a string instruction): an edge from it starts
	 * no chain, so it is not a dependency between two instances */
	uint64_t step[8192];
};

static void observe(void *ctx, const struct engine_step_info *info)
{
	struct seen *s = ctx;
	s->n++;
	if (info->index < 8192)
		s->step[info->index] = info->step;
	if (info->step > s->max_step)
		s->max_step = info->step;
	for (size_t i = 0; i < info->n_deps; i++) {
		uint64_t p = info->deps[i].producer, d = info->index - p;
		if (p < 8192 && s->step[p] == 1)
			continue;
		if (s->min_distance == 0 || d < s->min_distance)
			s->min_distance = d;
	}
}

static int fetch_xstate(void *ctx, struct x86_xstate *out)
{
	memset(out, 0, sizeof(*out));
	return 0;
}

static int run_engine(const unsigned char *code, size_t len, struct seen *s)
{
	struct x86_decoder *dec = x86_decoder_new();
	/* push and pop: the stack engine keeps their RSP updates out of the
	 * chains, as the core's does (DESIGN.md, --stack-engine) */
	struct engine_options eo = {.stack_engine = 1};
	struct engine *e = engine_new(&eo);
	struct user_regs_struct regs;
	memset(s, 0, sizeof(*s));
	memset(&regs, 0, sizeof(regs));
	regs.rax = regs.rbx = regs.rcx = regs.rdx = regs.rsi = regs.rdi = regs.rbp = 1;
	regs.r8 = regs.r9 = regs.r10 = regs.r11 = regs.r12 = regs.r13 = 1;
	regs.r14 = 0x100000; /* the read half, as the harness passes it */
	regs.r15 = 0x104000; /* the write half */
	regs.rsp = 0x7ff000;
	engine_add_observer(e, observe, s, 1);
	struct x86_state st = {&regs, fetch_xstate, NULL};
	int rc = 0;
	for (size_t off = 0; off < len && rc == 0;) {
		struct perpi_insn insn;
		struct perpi_event ev;
		memset(&ev, 0, sizeof(ev));
		if (x86_decode(dec, 0x400000 + off, code + off, len - off, &insn) < 0 ||
		    !insn.len || insn.decoder == DECODER_UNKNOWN ||
		    x86_resolve(&insn, &st, &ev) < 0) {
			rc = -1;
			break;
		}
		regs.rip = 0x400000 + off + insn.len;
		engine_event(e, &ev);
		off += insn.len;
	}
	engine_finish(e);
	engine_delete(e);
	x86_decoder_delete(dec);
	return rc;
}

static void check(struct bench_ctx *b, const char *spec, int rmw, int flagged)
{
	struct kernel k;
	struct seen s;
	kernel_parse(spec, &k);
	char *text = bench_kernel_asm(b, &k, 0);
	kernel_done(&k);
	size_t len;
	unsigned char *code = text ? pd_assemble_body(text, dir, &len) : NULL;
	int is_flagged = text && !strncmp(text, "# flagged", 9);
	free(text);
	if (!code || run_engine(code, len, &s) < 0) {
		printf("FAIL: %s: %s\n", spec,
		       code ? "the x86 semantics cannot resolve the body" : "no code");
		failures++;
		free(code);
		return;
	}
	free(code);
	const char *why = NULL;
	if (is_flagged != (flagged != 0))
		why = "flagged wrongly";
	else if (flagged == 1 && s.min_distance == 0)
		why = "flagged, yet the engine sees no dependency";
	else if (!flagged && !rmw && (s.max_step > 2 || s.min_distance))
		why = "an instruction depends on one that is not at step 1";
	else if (!flagged && rmw && s.min_distance && s.min_distance < 8)
		why = "a dependency closer than 8 instructions";
	printf("%s: %s (%llu instructions, last step %llu, closest dependency %llu)\n",
	       why ? "FAIL" : "ok", spec, (unsigned long long)s.n, (unsigned long long)s.max_step,
	       (unsigned long long)s.min_distance);
	if (why) {
		printf("  %s\n", why);
		failures++;
	}
}

int main(void)
{
	if (!mkdtemp(dir))
		return 99;
	struct bench_options o;
	bench_options_default(&o);
	struct bench_ctx *b = bench_new(&o, NULL);
	/* An empty kernel (the mapping built one for a resource no core form
	 * loaded, in a build without the final fit) is an error, not a
	 * division by zero in the unrolling. */
	struct kernel empty;
	kernel_init(&empty);
	char *none = bench_kernel_asm(b, &empty, 0);
	if (none || !strstr(perpi_error(), "empty")) {
		printf("FAIL: an empty kernel generated: %s\n", none ? none : perpi_error());
		failures++;
	} else {
		printf("ok: an empty kernel: %s\n", perpi_error());
	}
	free(none);
	/* every register class and memory kind: GPR, vector (SSE, VEX), mask,
	 * loads, stores, read-modify-write memory, address generation */
	check(b, "MOV_GPR64_GPR64", 0, 0);
	check(b, "IMUL_GPR64_GPR64_IMM8", 0, 0);
	check(b, "LEA_GPR64_MEM", 0, 0);
	check(b, "MOVZX_GPR32_GPR8", 0, 0);
	check(b, "MOV_GPR64_M64", 0, 0);
	check(b, "MOV_M64_GPR64", 0, 0);
	check(b, "ADD_M64_GPR64", 0, 0);
	check(b, "MOV_M64_GPR64 MOV_GPR64_M64 MOVAPS_XMM_M128 VMOVAPS_M256_YMM", 0, 0);
	check(b, "VADDPD_YMM_YMM_YMM", 0, 0);
	check(b, "VADDPD_ZMM_ZMM_ZMM VPADDD_XMM_XMM_M128", 0, 0);
	check(b, "KANDW_K_K_K", 0, 0);
	check(b, "ADD_GPR64_GPR64", 1, 0);
	check(b, "ADD_GPR8_GPR8", 1, 0);
	check(b, "SHL_GPR64_CL", 1, 0);
	check(b, "ADDSD_XMM_XMM", 1, 0);
	check(b, "VFMADD231PD_YMM_YMM_YMM", 1, 0);
	check(b, "VPTERNLOGD_ZMM_ZMM_ZMM_IMM8", 1, 0);
	check(b, "ADDSD_XMM_XMM^2 IMUL_GPR64_GPR64 MOV_GPR64_M64^3", 1, 0);
	/* dependencies broken by a zero idiom before each instance: the flags
	 * (adc, a flag reader beside a writer) and implicit registers (mul, cdqe,
	 * cmpxchg), a division's dividend set, the stack kept balanced */
	check(b, "ADC_GPR64_GPR64", 1, 0);
	check(b, "MUL_GPR64", 0, 0);
	check(b, "CMOVE_GPR64_GPR64 ADD_GPR64_GPR64", 1, 0);
	check(b, "SETE_GPR8 CMP_GPR64_GPR64", 1, 0);
	check(b, "CDQE", 0, 0);
	check(b, "DIV_GPR64 IDIV_GPR32", 0, 0);
	check(b, "PUSH_GPR64 POP_GPR64 PUSH_IMM8", 0, 0);
	check(b, "LOCK.ADD_M64_GPR64 LOCK.CMPXCHG_M32_GPR32", 0, 0);
	check(b, "XCHG_M32_GPR32", 1, 0);
	/* split forms: zero idioms and LEA's address shapes */
	check(b, "XOR_GPR32_SAME PXOR_XMM_SAME VPXOR_YMM_YMM_SAME", 0, 0);
	check(b,
	      "LEA_GPR64_MEMBI LEA_GPR64_MEMBIS LEA_GPR64_MEMBID LEA_GPR64_MEMIS LEA_GPR64_MEMRIP",
	      0, 0);
	/* legacy SSE beside VEX: its VEX twin (vaddsd x, x, y keeps addsd's chain) */
	check(b, "ADDSD_XMM_XMM VADDPD_YMM_YMM_YMM", 1, 0);
	/* flagged: SSE without a VEX form beside VEX (transitions); a kernel
	 * whose implicit registers leave fewer than 8 to rotate a chain over */
	check(b, "SHA1MSG1_XMM_XMM VADDPD_YMM_YMM_YMM", 0, 2);
	check(b, "ADD_GPR64_GPR64 DIV_GPR64 MOVSQ CMOVE_GPR64_GPR64 MUL_GPR32", 1, 1);
	bench_delete(b);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
	}
	if (failures)
		printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
