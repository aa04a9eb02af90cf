/* Generated kernels carry no read-after-write dependency between their
 * instructions. Checked independently of the generator: the loop body is
 * assembled with GNU as, decoded with Capstone (registers from
 * cs_regs_access, memory from the operands), and every read is matched with
 * the last earlier write of the same register, flags or memory byte.
 * Expected: no dependency at all for kernels whose forms only write their
 * destination; for read-modify-write forms, chains whose links are at least
 * 8 instructions apart (DESIGN.md: the write pool sized to latency x
 * throughput); kernels that must keep a dependency are flagged. Reads of a
 * register or byte last written by an instruction that read nothing the
 * body wrote (the zero idioms and setup the generator adds) start no
 * chain and are not counted, zero idioms read nothing (DESIGN.md), and
 * push/pop's RSP updates are the core's stack engine's, no chain. The text of
 * a few kernels is checked too: VEX twins, legacy-SSE initialisation,
 * zmm16-31 zeroed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "common/util.h"
#include "palmed/bench.h"
#include "palmed/bench_private.h"
#include "palmed/gen.h"
#include "palmed/kernel.h"
#include "tests/pipedream/body_util.h"

static int failures, skipped;
static csh cs;
static char dir[] = "/tmp/perpi-test-deps-XXXXXX";

/* A register's family: al, ax, eax, rax -> one id; xmm3, ymm3, zmm3 -> one. */
static int family(unsigned reg)
{
	const char *n = cs_reg_name(cs, reg);
	static const char *const g[16][4] = {
	    {"al", "ax", "eax", "rax"},	 {"cl", "cx", "ecx", "rcx"},  {"dl", "dx", "edx", "rdx"},
	    {"bl", "bx", "ebx", "rbx"},	 {"spl", "sp", "esp", "rsp"}, {"bpl", "bp", "ebp", "rbp"},
	    {"sil", "si", "esi", "rsi"}, {"dil", "di", "edi", "rdi"}};
	if (!n)
		return -1;
	for (int i = 0; i < 8; i++)
		for (int w = 0; w < 4; w++)
			if (!strcmp(n, g[i][w]))
				return i;
	if (n[0] == 'r' && n[1] >= '0' && n[1] <= '9')
		return atoi(n + 1); /* r8, r8d, r8w, r8b */
	if (strchr("xyz", n[0]) && !strncmp(n + 1, "mm", 2))
		return 16 + atoi(n + 3);
	if (n[0] == 'k' && n[1] >= '0' && n[1] <= '7' && !n[2])
		return 48 + n[1] - '0';
	if (!strcmp(n, "rflags") || !strcmp(n, "eflags") || !strcmp(n, "flags"))
		return 56;
	return 57 + (int)reg % 64; /* anything else: its own id, unlikely to collide */
}

struct writer {
	long reg[128];
	long mem[2][32768]; /* by base (r14, r15) and byte offset */
};

/* A zero idiom has no source (DESIGN.md): xor/sub/pxor... of a register
 * with itself. Capstone reports the register as read. */
static int zero_idiom(const cs_insn *insn)
{
	static const char *const m[] = {"xor", "sub", "pxor", "xorps", "xorpd", "vpxor", "vxorps"};
	const cs_x86 *x = &insn->detail->x86;
	int known = 0;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		known |= !strcmp(insn->mnemonic, m[i]);
	return known && x->op_count >= 2 && x->operands[x->op_count - 1].type == X86_OP_REG &&
	       x->operands[x->op_count - 2].type == X86_OP_REG &&
	       x->operands[x->op_count - 1].reg == x->operands[x->op_count - 2].reg;
}

/* Smallest distance between a read and the write it depends on (0: none).
 * A write by an instruction that itself read nothing the body wrote (a
 * zero idiom breaking a dependency, the setup of a string instruction)
 * starts no chain: reads of it are not counted. */
static long min_dependency_distance(const unsigned char *code, size_t len, long *n_insns)
{
	static struct writer w;
	static unsigned char root[8192];
	memset(&w, 0xff, sizeof(w)); /* -1: never written */
	cs_insn *insn = cs_malloc(cs);
	const uint8_t *p = code;
	size_t size = len;
	uint64_t addr = 0;
	long i = 0, min = 0;
	while (cs_disasm_iter(cs, &p, &size, &addr, insn)) {
		cs_regs rr, rw;
		uint8_t nr, nw;
		if (cs_regs_access(cs, insn, rr, &nr, rw, &nw) != CS_ERR_OK) {
			min = -2;
			break;
		}
		long dist = 0, any = 0;
		if (zero_idiom(insn))
			nr = 0;
		for (int k = 0; k < nr; k++) {
			int fam = family(rr[k]);
			/* push and pop update RSP through the core's stack engine, no
			 * chain (DESIGN.md, --stack-engine); nothing else uses RSP */
			if (fam < 0 || fam == 4 || w.reg[fam] < 0)
				continue;
			any = 1;
			if (!(w.reg[fam] < 8192 && root[w.reg[fam]]) &&
			    (dist == 0 || i - w.reg[fam] < dist))
				dist = i - w.reg[fam];
		}
		const cs_x86 *x = &insn->detail->x86;
		for (int k = 0; k < x->op_count; k++) {
			const cs_x86_op *op = &x->operands[k];
			if (op->type != X86_OP_MEM || strcmp(insn->mnemonic, "lea") == 0)
				continue;
			int base = family(op->mem.base) == 14 ? 0 : 1;
			for (long b = op->mem.disp; b < op->mem.disp + op->size && b < 32768; b++) {
				long wr = w.mem[base][b];
				if (!(op->access & CS_AC_READ) || wr < 0)
					continue;
				any = 1;
				if (!(wr < 8192 && root[wr]) && (dist == 0 || i - wr < dist))
					dist = i - wr;
			}
		}
		for (int k = 0; k < x->op_count; k++) {
			const cs_x86_op *op = &x->operands[k];
			if (op->type == X86_OP_MEM && (op->access & CS_AC_WRITE)) {
				int base = family(op->mem.base) == 14 ? 0 : 1;
				for (long b = op->mem.disp;
				     b < op->mem.disp + op->size && b < 32768; b++)
					w.mem[base][b] = i;
			}
		}
		for (int k = 0; k < nw; k++) {
			int fam = family(rw[k]);
			if (fam >= 0)
				w.reg[fam] = i;
		}
		if (dist && (min == 0 || dist < min))
			min = dist;
		if (i < 8192)
			root[i] = !any;
		i++;
	}
	cs_free(insn, 1);
	*n_insns = i;
	return min;
}

/* The longest register dependency chain (in instructions) when the loop
 * body runs `passes` times, memory and flags left out: it stops growing
 * with the passes unless some register carries a chain from one iteration
 * to the next. */
static long longest_chain(const unsigned char *code, size_t len, int passes)
{
	long depth[57] = {0}, longest = 0;
	cs_insn *insn = cs_malloc(cs);
	for (int pass = 0; pass < passes; pass++) {
		const uint8_t *p = code;
		size_t size = len;
		uint64_t addr = 0;
		while (cs_disasm_iter(cs, &p, &size, &addr, insn)) {
			cs_regs rr, rw;
			uint8_t nr, nw;
			long d = 0;
			if (cs_regs_access(cs, insn, rr, &nr, rw, &nw) != CS_ERR_OK)
				return -1;
			for (int k = 0; k < nr && !zero_idiom(insn); k++) {
				int fam = family(rr[k]);
				if (fam >= 0 && fam != 4 && fam < 56 && depth[fam] > d)
					d = depth[fam];
			}
			for (int k = 0; k < nw; k++) {
				int fam = family(rw[k]);
				if (fam >= 0 && fam != 4 && fam < 56)
					depth[fam] = d + 1;
			}
			if (d + 1 > longest)
				longest = d + 1;
		}
	}
	cs_free(insn, 1);
	return longest;
}

/* A read-modify-write form beside plain writes of its class must not chain
 * on itself from one iteration of the loop to the next (the write pool as
 * large as the writes per copy made every add of ADD^8 IMUL LEA MOV write
 * one register in every copy: imul's latency, 3.00 cycles where the
 * throughput is 2.29); recurrent: a kernel of read-modify-writes alone,
 * whose chains no pool can break (the check's own control). */
/* The kernel's loop body (latency: its chain), assembled; its text into
 * *text (NULL: freed). NULL when it cannot be generated or assembled. */
static unsigned char *body_of(struct bench_ctx *b, const char *spec, int latency, char **text,
			      size_t *len)
{
	struct kernel k;
	kernel_parse(spec, &k);
	char *t = bench_kernel_asm(b, &k, latency);
	kernel_done(&k);
	unsigned char *code = t ? pd_assemble_body(t, dir, len) : NULL;
	if (text)
		*text = t;
	else
		free(t);
	return code;
}

static void check_recurrence(struct bench_ctx *b, const char *spec, int recurrent)
{
	size_t len;
	unsigned char *code = body_of(b, spec, 0, NULL, &len);
	if (!code) {
		printf("FAIL: %s: no body\n", spec);
		failures++;
		return;
	}
	long three = longest_chain(code, len, 3), six = longest_chain(code, len, 6);
	free(code);
	if ((six > three) != recurrent) {
		printf("FAIL: %s: longest chain %ld instructions over 3 passes, %ld over 6\n", spec,
		       three, six);
		failures++;
	} else {
		printf("ok: %s: longest chain %ld over 3 passes, %ld over 6\n", spec, three, six);
	}
}

/* The latency kernel of an LEA form (Pipedream's chain): every lea reads
 * what the one before wrote, through the address's base (Zen 5: a
 * 3-component LEA takes 2 cycles from its base, 1 from its index), so the
 * longest chain over 3 passes of the body is 3 x its leas; and the base is
 * neither rbp nor r13, which take a displacement byte and make [b + i] a
 * 3-component address. */
static void check_lea_chain(struct bench_ctx *b, const char *spec)
{
	char *text;
	size_t len;
	unsigned char *code = body_of(b, spec, 1, &text, &len);
	long leas = 0;
	for (const char *t = text; t && (t = strstr(t, "\tlea ")); t++)
		leas++;
	int odd_base = text && (strstr(text, "[rbp") || strstr(text, "[r13"));
	long three = code ? longest_chain(code, len, 3) : -1;
	if (!code || !leas || three < 3 * leas || odd_base) {
		printf("FAIL: latency %s: %ld leas, longest chain %ld over 3 passes%s%s\n", spec,
		       leas, three, odd_base ? ", based on rbp or r13" : "",
		       text ? "" : perpi_error());
		failures++;
	} else {
		printf("ok: latency %s: a chain of %ld over 3 passes\n", spec, three);
	}
	free(code);
	free(text);
}

/* rmw: the kernel has read-modify-write forms (chains allowed, links >= 8);
 * flagged: 1 the generator must flag a dependency it cannot avoid, 2 flag
 * the kernel for another reason (SSE/AVX transitions). */
static void check(struct bench_ctx *b, const char *spec, int rmw, int flagged)
{
	struct kernel k;
	kernel_parse(spec, &k);
	char *text = bench_kernel_asm(b, &k, 0);
	kernel_done(&k);
	if (!text) {
		printf("FAIL: %s: %s\n", spec, perpi_error());
		failures++;
		return;
	}
	int is_flagged = !strncmp(text, "# flagged", 9);
	size_t len;
	unsigned char *code = pd_assemble_body(text, dir, &len);
	free(text);
	if (!code) {
		printf("FAIL: %s: body does not assemble\n", spec);
		failures++;
		return;
	}
	long n, d = min_dependency_distance(code, len, &n);
	free(code);
	if (is_flagged != (flagged != 0)) {
		printf("FAIL: %s: flagged %d, want %d\n", spec, is_flagged, flagged);
		failures++;
	} else if (n < 200 || d == -2) {
		printf("SKIP: %s: Capstone decodes %ld instructions of the body\n", spec, n);
		skipped++;
	} else if (flagged) {
		printf("ok: %s (flagged)\n", spec);
	} else if (!rmw && d != 0) {
		printf("FAIL: %s: a dependency %ld instructions apart\n", spec, d);
		failures++;
	} else if (rmw && d != 0 && d < 8) {
		printf("FAIL: %s: a chain with links %ld instructions apart\n", spec, d);
		failures++;
	} else {
		printf("ok: %s (%ld instructions, closest dependency %ld)\n", spec, n, d);
	}
}

/* The generated loop body (whole: the function) holds want and not
 * unwanted (e.g. the VEX twin of a legacy-SSE form beside VEX ones, and not
 * the legacy form). */
static void check_text(struct bench_ctx *b, const char *spec, int whole, const char *want,
		       const char *unwanted)
{
	struct kernel k;
	kernel_parse(spec, &k);
	char *text = bench_kernel_asm(b, &k, 0);
	kernel_done(&k);
	const char *body = text && !whole ? strstr(text, "_loop:") : text;
	if (!body || !strstr(body, want) || (unwanted && strstr(body, unwanted))) {
		printf("FAIL: %s: the body %s '%s'%s%s\n", spec, body ? "lacks" : "is missing",
		       want, unwanted ? " or holds " : "", unwanted ? unwanted : "");
		failures++;
	} else {
		printf("ok: %s holds '%s'\n", spec, want);
	}
	free(text);
}

/* A kernel's non-temporal stores (movnt*, vmovnt*) and its other stores
 * never write one cache line of the write half (r15): packed together,
 * MOVNTI_M64_GPR64^4 MOVQ_M64_XMM^5 took about 600 cycles a store on a
 * Zen 4 and disturbed the probes after it. Read off the body's text. */
static void check_lines_apart(struct bench_ctx *b, const char *spec)
{
	struct kernel k;
	kernel_parse(spec, &k);
	char *text = bench_kernel_asm(b, &k, 0);
	kernel_done(&k);
	unsigned char line[GEN_HALF_BYTES / 64] = {0}; /* bit 0 plain, bit 1 non-temporal */
	unsigned nt = 0, plain = 0, shared = 0;
	const char *p = text ? strstr(text, "_loop:") : NULL;
	while (p && (p = strchr(p, '\n'))) {
		p++;
		const char *at = strstr(p, "[r15 + "), *end = strchr(p, '\n');
		if (!at || (end && at > end))
			continue;
		while (*p == '\t' || *p == ' ')
			p++;
		int is_nt = !strncmp(p, "movnt", 5) || !strncmp(p, "vmovnt", 6);
		unsigned long off = strtoul(at + 7, NULL, 10);
		if (off / 64 < sizeof(line)) {
			line[off / 64] |= is_nt ? 2 : 1;
			shared += line[off / 64] == 3;
		}
		*(is_nt ? &nt : &plain) += 1;
	}
	if (!text || !nt || !plain || shared) {
		printf("FAIL: %s: %u non-temporal and %u plain stores, %u of them on a line of "
		       "both\n",
		       spec, nt, plain, shared);
		failures++;
	} else {
		printf("ok: %s: %u non-temporal stores, %u plain, no line of both\n", spec, nt,
		       plain);
	}
	free(text);
}

/* The helpers a kernel found in the database gets (gen_kernel_helpers,
 * from the kernel's plan alone) are those generating it adds (gen_kernel);
 * want, by hand: a division's divisor set by a move and rdx zeroed, a
 * carry reader's flags broken by a zero idiom, nothing for a plain add. */
static void check_helpers(struct bench_ctx *b, const char *spec, const char *want)
{
	struct kernel k;
	kernel_parse(spec, &k);
	const struct gen_form_info **infos = xcalloc(k.n + 1, sizeof(*infos));
	struct gen_params gp = {.unroll_size = 64,
				.avx = __builtin_cpu_supports("avx"),
				.avx512 = __builtin_cpu_supports("avx512f")};
	struct gen_info full, plan;
	struct strbuf s;
	strbuf_init(&s);
	int ok = bench_probe_kernels(b, &k, 1) == 0 && bench_kernel_infos(b, &k, infos) == 0 &&
		 gen_kernel(&k, infos, &gp, "perpi_kernel", &s, &full) == 0 &&
		 gen_kernel_helpers(&k, infos, 0, &plan) == 0;
	if (!ok || strcmp(full.helpers, plan.helpers) || (want && strcmp(plan.helpers, want))) {
		printf("FAIL: %s: helpers '%s' from the plan, '%s' generated, want '%s'%s%s\n",
		       spec, ok ? plan.helpers : "", ok ? full.helpers : "",
		       want ? want : "(as generated)", ok ? "" : ": ", ok ? "" : perpi_error());
		failures++;
	} else {
		printf("ok: %s: helpers '%s'\n", spec, plan.helpers);
	}
	strbuf_done(&s);
	free(infos);
	kernel_done(&k);
}

int main(void)
{
	if (!mkdtemp(dir) || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 99;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	struct bench_options o;
	bench_options_default(&o);
	struct bench_ctx *b = bench_new(&o, NULL);
	check_lea_chain(b, "LEA_GPR64_MEM");
	check_lea_chain(b, "LEA_GPR64_MEMBI");
	check_lea_chain(b, "LEA_GPR64_MEMBIS");
	check_lea_chain(b, "LEA_GPR64_MEMBID");
	check_lea_chain(b, "LEA_GPR32_MEMBID");
	check_lea_chain(b, "LEA_GPR64_MEMIS");
	check(b, "MOV_GPR64_GPR64", 0, 0);
	check(b, "IMUL_GPR64_GPR64_IMM8", 0, 0);
	check(b, "LEA_GPR64_MEM", 0, 0);
	check(b, "MOVZX_GPR32_GPR8", 0, 0);
	check(b, "MOV_GPR64_M64", 0, 0);
	check(b, "MOV_M64_GPR64", 0, 0);
	check(b, "ADD_M64_GPR64", 0, 0);
	check(b, "MOV_M64_GPR64 MOV_GPR64_M64 MOVAPS_XMM_M128 VMOVAPS_M256_YMM", 0, 0);
	check(b, "VADDPD_YMM_YMM_YMM", 0, 0);
	check(b, "VADDPD_YMM_YMM_YMM MOV_GPR32_GPR32 MOVAPS_XMM_M128", 0, 0);
	check(b, "ADD_GPR64_GPR64", 1, 0);
	check(b, "ADD_GPR8_GPR8", 1, 0);
	check(b, "ADD_GPR64_IMM8", 1, 0);
	check(b, "SHL_GPR64_CL", 1, 0);
	check(b, "ADDSD_XMM_XMM", 1, 0);
	check(b, "VFMADD231PD_YMM_YMM_YMM", 1, 0);
	check(b, "ADDSD_XMM_XMM^2 IMUL_GPR64_GPR64 MOV_GPR64_M64^3", 1, 0);
	/* dependencies broken by a zero idiom before each instance: the flags
	 * (adc, a flag reader beside a writer) and implicit registers (mul, cdqe,
	 * cmpxchg), a division's dividend set, the stack kept balanced */
	check_recurrence(b, "ADD_GPR64_GPR64^8 IMUL_GPR64_GPR64 LEA_GPR64_MEM MOV_GPR64_GPR64", 0);
	check_recurrence(b, "ADD_GPR64_GPR64^9 MOV_GPR64_GPR64", 0);
	check_recurrence(b, "ADDSD_XMM_XMM^13 MOVAPS_XMM_XMM^2", 0);
	check_recurrence(b, "ADD_GPR64_GPR64", 1);
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
	check_text(b, "ADDSD_XMM_XMM VADDPD_YMM_YMM_YMM", 0, "\tvaddsd xmm", "\taddsd");
	/* a scalar result merged into a destination the decoders call written
	 * only: the twin repeats it as the first source (vsqrtsd x, x, y), as
	 * the legacy form keeps its upper half; flagged before (no twin) */
	check(b, "SQRTSD_XMM_XMM VADDPD_YMM_YMM_YMM", 1, 0);
	check_text(b, "SQRTSD_XMM_XMM VADDPD_YMM_YMM_YMM", 0, "\tvsqrtsd xmm", "\tsqrtsd");
	check_text(b, "CVTSS2SD_XMM_XMM VADDPD_YMM_YMM_YMM", 0, "\tvcvtss2sd xmm", "\tcvtss2sd");
	check_text(b, "ROUNDSD_XMM_XMM_IMM8 VADDPD_YMM_YMM_YMM", 0, "\tvroundsd xmm", "\troundsd");
	/* read-modify-writes of memory a cache line apart (on Zen 5 byte RMWs
	 * of one qword ran 28 cycles each, a chain through memory; real code's
	 * RMWs store to another line than the last store 76-100% of the
	 * time): the write half starts at r15 + 2048, the second instance at
	 * 2112, none at 2049 or 2056; plain byte stores stay packed (2049), as
	 * code writes arrays */
	check_text(b, "SUB_M8_IMM8", 0, "byte ptr [r15 + 2112]", "byte ptr [r15 + 2049]");
	check_text(b, "SUB_M8_IMM8", 0, "byte ptr [r15 + 2112]", "byte ptr [r15 + 2056]");
	check_text(b, "MOV_M8_GPR8", 0, "byte ptr [r15 + 2049]", NULL);
	/* non-temporal stores on lines of their own beside plain stores; alone
	 * they keep the stores' packing from r15 + 2048 */
	check_lines_apart(b, "MOVNTI_M64_GPR64^4 MOVQ_M64_XMM^5");
	check_lines_apart(b, "MOVAPS_M128_XMM^5 MOVNTI_M32_GPR32^4");
	check_lines_apart(b, "MOVNTDQ_M128_XMM ADD_M64_IMM8^2 MOV_M32_IMM32^4 VMOVNTPD_M256_YMM");
	check_text(b, "MOVNTI_M64_GPR64^4", 0, "qword ptr [r15 + 2056]", NULL);
	/* a string instruction's implicit registers stay out of the pools
	 * (Zydis lists no rsi/rdi for cmps and scas: a mapping's probes of
	 * CMPSB beside a GPR writer wrote rsi and faulted) */
	check_text(b, "CMPSB MOV_GPR64_GPR64^2", 0, "\tcmpsb", "mov rsi,");
	check_text(b, "CMPSB MOV_GPR64_GPR64^2", 0, "\tcmpsb", "mov rdi,");
	check_text(b, "SCASB MOV_GPR64_GPR64^2", 0, "\tscasb", "mov rdi,");
	check_text(b, "STOSB MOV_GPR64_GPR64^2", 0, "\tstosb", "mov rax,");
	/* a vector register written implicitly stays out of the pools:
	 * pcmpestrm's xmm0 (as the first source, every instance read the last
	 * one's result: 7 cycles each on a Zen 4, 3 apart) */
	check(b, "PCMPESTRM_XMM_XMM_IMM8", 0, 0);
	check(b, "VPCMPISTRM_XMM_M128_IMM8 ADDPS_XMM_XMM^2", 1, 0);
	/* legacy SSE alone is left legacy, its registers set without VEX */
	check_text(b, "ADDSD_XMM_XMM", 0, "\taddsd xmm", "vaddsd");
	check_text(b, "ADDSD_XMM_XMM", 1, "\tmovups xmm", "vmovups");
	/* zmm16-31 used: zeroed before the function returns (the generator
	 * rotates over all 32 only where the CPU has AVX-512: not a Zen 3) */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		check_text(b, "VPADDD_ZMM_ZMM_ZMM^3", 1, "vpxord xmm31, xmm31, xmm31", NULL);
	else
		printf("skipped: VPADDD_ZMM_ZMM_ZMM^3 (no AVX-512 here)\n");
	/* flagged: SSE without a VEX form beside VEX (transitions); a kernel
	 * whose implicit registers leave fewer than 8 to rotate a chain over */
	check(b, "SHA1MSG1_XMM_XMM VADDPD_YMM_YMM_YMM", 0, 2);
	check(b, "ADD_GPR64_GPR64 DIV_GPR64 MOVSQ CMOVE_GPR64_GPR64 MUL_GPR32", 1, 1);
	check_helpers(b, "ADD_GPR64_GPR64", "");
	check_helpers(b, "ADC_GPR64_GPR64", "XOR_GPR32_SAME");
	check_helpers(b, "DIV_GPR64", "MOV_GPR32_IMM32 XOR_GPR32_SAME");
	check_helpers(b, "DIV_GPR64 IDIV_GPR32 ADC_GPR8_GPR8^2 MUL_GPR64 CDQE SETE_GPR8", NULL);
	check_helpers(b, "PUSH_GPR64 POP_GPR64 CMPXCHG_M64_GPR64 SHL_GPR64_CL ADD_GPR64_IMM8",
		      NULL);
	bench_delete(b);
	cs_close(&cs);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
	}
	if (failures)
		printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
