/* Writes small hand-made runs as perpi.data files, so that the analyses'
 * figures can be derived by hand (tests/outputs/test_filters.sh holds the
 * derivations). usage: make_trace SCENARIO FILE
 *
 * Scenario "calls" (S = stack pointer in main; f is called twice):
 *   #0  main  mov eax, 1          move    -> rax
 *   #1  main  mov ecx, 2          move    -> rcx
 *   #2  main  call f              branch  rsp -> rsp, writes [S-8]:8
 *   #3  f     addsd xmm0, xmm1    fp      xmm0 xmm1 -> xmm0
 *   #4  f     addsd xmm0, xmm2    fp      xmm0 xmm2 -> xmm0
 *   #5  f     mulsd xmm3, xmm1    fp      xmm3 xmm1 -> xmm3
 *   #6  f     add rax, rcx        int     rax rcx -> rax, 6 status flags
 *   #7  f     ret                 branch  rsp, reads [S-8]:8 -> rsp
 *   #8-#13    the same call f, f's body and ret again
 *   #14 main  mov [rdi], rax      store   rdi rax, writes [0x601000]:8
 *   #15 main  mov rdx, [rdi]      load    rdi, reads [0x601000]:8 -> rdx
 * Scenario "pushes": four push rax (rsp rax -> rsp, writes [sp-8]:8).
 * Scenario "empty": no instruction (a region of interest never reached).
 * Source lines: main's instructions on scenario.c:10+k for the k-th static
 * instruction of main, f's on scenario.c:20 (#3, #4) and 21 (#5-#7). */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "ilp/trace_file.h"

#define S 0x7ffe0000ull
#define F 0x401100ull

struct step {
	uint64_t addr;
	const char *text;
	unsigned klass, control;
	uint8_t src[4], n_src;
	uint8_t dst[8], n_dst;
	int mem; /* 0 none; 1 write [sp-8]; 2 read [sp]; 3 write data; 4 read data */
	uint64_t sp;
};

#define X(n) UNIT_VEC_PART(n, 0)
static const struct step calls[] = {
    {0x401000, "mov eax, 1", CLASS_MOVE, CTRL_NONE, {0}, 0, {UNIT_RAX}, 1, 0, S},
    {0x401005, "mov ecx, 2", CLASS_MOVE, CTRL_NONE, {0}, 0, {UNIT_RCX}, 1, 0, S},
    {0x40100a, "call f", CLASS_BRANCH, CTRL_CALL, {UNIT_RSP}, 1, {UNIT_RSP}, 1, 1, S},
    {F + 0, "addsd xmm0, xmm1", CLASS_FP, CTRL_NONE, {X(0), X(1)}, 2, {X(0)}, 1, 0, S - 8},
    {F + 4, "addsd xmm0, xmm2", CLASS_FP, CTRL_NONE, {X(0), X(2)}, 2, {X(0)}, 1, 0, S - 8},
    {F + 8, "mulsd xmm3, xmm1", CLASS_FP, CTRL_NONE, {X(3), X(1)}, 2, {X(3)}, 1, 0, S - 8},
    {F + 12,
     "add rax, rcx",
     CLASS_INT,
     CTRL_NONE,
     {UNIT_RAX, UNIT_RCX},
     2,
     {UNIT_RAX, UNIT_CF, UNIT_PF, UNIT_AF, UNIT_ZF, UNIT_SF, UNIT_OF},
     7,
     0,
     S - 8},
    {F + 15, "ret", CLASS_BRANCH, CTRL_RET, {UNIT_RSP}, 1, {UNIT_RSP}, 1, 2, S - 8},
    {0x40100f, "call f", CLASS_BRANCH, CTRL_CALL, {UNIT_RSP}, 1, {UNIT_RSP}, 1, 1, S},
    {F + 0, "addsd xmm0, xmm1", CLASS_FP, CTRL_NONE, {X(0), X(1)}, 2, {X(0)}, 1, 0, S - 8},
    {F + 4, "addsd xmm0, xmm2", CLASS_FP, CTRL_NONE, {X(0), X(2)}, 2, {X(0)}, 1, 0, S - 8},
    {F + 8, "mulsd xmm3, xmm1", CLASS_FP, CTRL_NONE, {X(3), X(1)}, 2, {X(3)}, 1, 0, S - 8},
    {F + 12,
     "add rax, rcx",
     CLASS_INT,
     CTRL_NONE,
     {UNIT_RAX, UNIT_RCX},
     2,
     {UNIT_RAX, UNIT_CF, UNIT_PF, UNIT_AF, UNIT_ZF, UNIT_SF, UNIT_OF},
     7,
     0,
     S - 8},
    {F + 15, "ret", CLASS_BRANCH, CTRL_RET, {UNIT_RSP}, 1, {UNIT_RSP}, 1, 2, S - 8},
    {0x401014,
     "mov qword ptr [rdi], rax",
     CLASS_STORE,
     CTRL_NONE,
     {UNIT_RDI, UNIT_RAX},
     2,
     {0},
     0,
     3,
     S},
    {0x401017,
     "mov rdx, qword ptr [rdi]",
     CLASS_LOAD,
     CTRL_NONE,
     {UNIT_RDI},
     1,
     {UNIT_RDX},
     1,
     4,
     S},
};

static const struct step pushes[] = {
    {0x401000, "push rax", CLASS_STORE, CTRL_NONE, {UNIT_RSP, UNIT_RAX}, 2, {UNIT_RSP}, 1, 1, S},
    {0x401001,
     "push rax",
     CLASS_STORE,
     CTRL_NONE,
     {UNIT_RSP, UNIT_RAX},
     2,
     {UNIT_RSP},
     1,
     1,
     S - 8},
    {0x401002,
     "push rax",
     CLASS_STORE,
     CTRL_NONE,
     {UNIT_RSP, UNIT_RAX},
     2,
     {UNIT_RSP},
     1,
     1,
     S - 16},
    {0x401003,
     "push rax",
     CLASS_STORE,
     CTRL_NONE,
     {UNIT_RSP, UNIT_RAX},
     2,
     {UNIT_RSP},
     1,
     1,
     S - 24},
};

static const char *function(void *ctx, uint64_t addr, uint64_t *offset)
{
	*offset = addr - (addr >= F ? F : 0x401000);
	return addr >= F ? "f" : "main";
}

static int source_line(void *ctx, uint64_t addr, const char **file, unsigned *line)
{
	static const uint64_t main_addrs[] = {0x401000, 0x401005, 0x40100a,
					      0x40100f, 0x401014, 0x401017};
	*file = "/src/scenario.c";
	if (addr >= F) {
		*line = addr - F < 8 ? 20 : 21;
		return 0;
	}
	for (unsigned k = 0; k < ARRAY_SIZE(main_addrs); k++)
		if (main_addrs[k] == addr)
			*line = 10 + k;
	return 0;
}

/* Static instruction ids: by address, in order of first appearance. */
static struct perpi_insn insns[32];
static unsigned n_insns;

static const struct perpi_insn *insn_of(const struct step *s)
{
	for (unsigned i = 0; i < n_insns; i++)
		if (insns[i].addr == s->addr)
			return &insns[i];
	struct perpi_insn *in = &insns[n_insns];
	memset(in, 0, sizeof(*in));
	in->addr = s->addr;
	in->id = n_insns++;
	/* Real encodings where --latency needs the form (ADDSD_XMM_XMM...). */
	static const struct {
		const char *text;
		uint8_t bytes[4];
	} enc[] = {{"addsd xmm0, xmm1", {0xf2, 0x0f, 0x58, 0xc1}},
		   {"addsd xmm0, xmm2", {0xf2, 0x0f, 0x58, 0xc2}},
		   {"mulsd xmm3, xmm1", {0xf2, 0x0f, 0x59, 0xd9}}};
	in->len = 4;
	for (unsigned k = 0; k < ARRAY_SIZE(enc); k++)
		if (!strcmp(enc[k].text, s->text))
			memcpy(in->bytes, enc[k].bytes, 4);
	in->klass = s->klass;
	in->control = s->control;
	in->decoder = DECODER_CAPSTONE;
	snprintf(in->text, sizeof(in->text), "%s", s->text);
	return in;
}

int main(int argc, char **argv)
{
	if (argc != 3 ||
	    (strcmp(argv[1], "calls") && strcmp(argv[1], "pushes") && strcmp(argv[1], "empty"))) {
		fprintf(stderr, "usage: make_trace calls|pushes|empty FILE\n");
		return 2;
	}
	int is_calls = !strcmp(argv[1], "calls");
	const struct step *run = is_calls ? calls : pushes;
	size_t n = is_calls ? ARRAY_SIZE(calls) : ARRAY_SIZE(pushes);
	if (!strcmp(argv[1], "empty"))
		n = 0;
	const struct trace_meta_entry meta[] = {
	    {"program", "scenario"},
	    {"argv", is_calls ? "scenario calls" : "scenario pushes"},
	    {"cpu", "hand-made"},
	    {"date", "2026-01-01T00:00:00Z"}};
	const struct trace_symbolizer sym = {function, source_line, NULL};
	struct trace_writer *w = trace_writer_open(argv[2], meta, ARRAY_SIZE(meta), &sym);
	if (!w) {
		fprintf(stderr, "make_trace: %s\n", perpi_error());
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct step *s = &run[i];
		struct perpi_event ev = {.insn = insn_of(s), .sp = s->sp};
		ev.n_src = s->n_src;
		ev.n_dst = s->n_dst;
		memcpy(ev.src, s->src, s->n_src);
		memcpy(ev.dst, s->dst, s->n_dst);
		if (s->mem) {
			ev.n_mem = 1;
			ev.mem[0].size = 8;
			ev.mem[0].write = s->mem == 1 || s->mem == 3;
			ev.mem[0].addr = s->mem == 1 ? s->sp - 8 : s->mem == 2 ? s->sp : 0x601000;
		}
		trace_writer_event(w, &ev);
	}
	struct trace_end end = {TRACE_END_EXITED, 0, 0};
	if (trace_writer_close(w, &end) < 0) {
		fprintf(stderr, "make_trace: %s\n", perpi_error());
		return 1;
	}
	return 0;
}
