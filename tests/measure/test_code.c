/* perpi measure's code generation (tracer/measure_code.c): how a
 * function's entry is taken over, and its first instructions moved next
 * to the stub with their meaning kept. Expected bytes come from the
 * encodings of the Intel SDM, vol. 2 (E9 cd: jmp rel32; 0F 8x cd: jcc
 * rel32; E8 cd: call rel32; ModRM 00 rrr 101: [rip + disp32]; 0F 31
 * rdtsc; B9 id: mov ecx, imm32; 0F 33 rdpmc; CC int3), the displacements
 * worked out by hand below. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tracer/measure_code.h"
#include "tracer/x86.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static int padding_yes(void *ctx, uint64_t from, uint64_t to)
{
	return 1;
}

static int padding_no(void *ctx, uint64_t from, uint64_t to)
{
	return 0;
}

static int32_t rel32_at(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

#define ENTRY 0x401000ull
#define PAGE 0x400000ull /* the code page, 4 KiB below the function */

/* Plans and places f; returns the patch. */
static struct code_patch place(struct x86_decoder *dec, struct code_page *c,
			       const struct code_function *f, int want, int *rc)
{
	struct code_patch p;
	*rc = code_plan_entry(dec, f, want, &p);
	if (*rc == 0)
		*rc = code_add_probe(c, dec, STUB_CALL, CAL_PROBES, f, &p);
	return p;
}

/* Moves a function that starts with a load of [rip + disp] (its disp32
 * at byte disp_at, the instruction len bytes, then ret) and checks the
 * copy: the bytes before the displacement kept, the load still reading
 * ENTRY + len + disp, then a jmp back to ENTRY + len. Returns the patch. */
static struct code_patch moved_load(struct x86_decoder *dec, const char *what,
				    const uint8_t *code, size_t size, size_t len, size_t disp_at,
				    int32_t disp)
{
	struct code_function f = {"f", ENTRY, code, size, size, padding_no, NULL};
	struct code_page c;
	code_page_init(&c, PAGE, 0x7f0000000000ull, 0, 0);
	int rc;
	struct code_patch p = place(dec, &c, &f, ENTRY_JUMP, &rc);
	CHECK(rc == 0, "%s: %s", what, perpi_error());
	CHECK(p.kind == ENTRY_JUMP && p.moved == len && p.len == len, "%s: moved %zu", what,
	      p.moved);
	/* the copy sits right after the stub, at p.stub's displaced code */
	const uint8_t *copy = c.buf + (c.len - p.displaced_len);
	uint64_t at = PAGE + (c.len - p.displaced_len);
	CHECK(!memcmp(copy, code, disp_at), "%s: the load's prefixes, opcode and ModRM kept",
	      what);
	CHECK((int64_t)(at + len) + rel32_at(copy + disp_at) == (int64_t)(ENTRY + len) + disp,
	      "%s: the load reads %#llx", what,
	      (unsigned long long)(at + len + rel32_at(copy + disp_at)));
	CHECK(copy[len] == 0xe9 && at + len + 5 + rel32_at(copy + len + 1) == ENTRY + len,
	      "%s: jump back", what);
	code_page_done(&c);
	return p;
}

/* mov rax, [rip + 0x100] (48 8B 05 00 01 00 00, 7 bytes) then ret: the
 * moved load must still read ENTRY + 7 + 0x100. */
static void test_rip_relative(struct x86_decoder *dec)
{
	static const uint8_t code[] = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3};
	struct code_patch p = moved_load(dec, "rip-relative", code, sizeof(code), 7, 3, 0x100);
	/* the entry: jmp rel32 to the stub, the 2 displaced bytes left int3 */
	CHECK(p.bytes[0] == 0xe9 && ENTRY + 5 + rel32_at(p.bytes + 1) == p.stub, "entry jump");
	CHECK(p.bytes[5] == 0xcc && p.bytes[6] == 0xcc, "dead bytes");
}

/* vbroadcastsd zmm2, [rip + 0x3266] (EVEX: 62 F2 FD 48, opcode 19, ModRM
 * 15, disp32; 10 bytes) then ret: -O3 -march=native's first instruction
 * of bench/kernels' horner, which Zydis decodes; the moved load must still
 * read ENTRY + 10 + 0x3266. */
static void test_rip_relative_evex(struct x86_decoder *dec)
{
	static const uint8_t code[] = {0x62, 0xf2, 0xfd, 0x48, 0x19, 0x15,
				       0x66, 0x32, 0x00, 0x00, 0xc3};
	moved_load(dec, "rip-relative EVEX", code, sizeof(code), 10, 6, 0x3266);
}

/* test rsi, rsi (48 85 F6); jle +0x1b (7E 1B): Sum's entry. The jle
 * becomes 0F 8E rel32 aimed at ENTRY + 5 + 0x1b. */
static void test_jcc(struct x86_decoder *dec)
{
	uint8_t code[64] = {0x48, 0x85, 0xf6, 0x7e, 0x1b};
	memset(code + 5, 0x90, sizeof(code) - 6);
	code[63] = 0xc3;
	struct code_function f = {"f", ENTRY, code, sizeof(code), sizeof(code), padding_no, NULL};
	struct code_page c;
	code_page_init(&c, PAGE, 0x7f0000000000ull, 0, 0);
	int rc;
	struct code_patch p = place(dec, &c, &f, ENTRY_JUMP, &rc);
	CHECK(rc == 0 && p.moved == 5, "jcc: %s", perpi_error());
	const uint8_t *copy = c.buf + (c.len - p.displaced_len);
	uint64_t at = PAGE + (c.len - p.displaced_len);
	CHECK(!memcmp(copy, code, 3), "test kept");
	CHECK(copy[3] == 0x0f && copy[4] == 0x8e, "jle rel32");
	CHECK(at + 9 + rel32_at(copy + 5) == ENTRY + 5 + 0x1b, "jle target");
	code_page_done(&c);
}

/* A jump back into the first 5 bytes: no jump fits, a breakpoint (CC)
 * moves the first instruction only; a loop head at the entry: refused. */
static void test_plans(struct x86_decoder *dec)
{
	/* xor eax, eax (31 C0); inc eax (FF C0); cmp eax, 9 (83 F8 09);
	 * jne -7 (75 F9): back to ENTRY + 2; ret */
	static const uint8_t loop[] = {0x31, 0xc0, 0xff, 0xc0, 0x83, 0xf8, 0x09, 0x75, 0xf9, 0xc3};
	struct code_function f = {"f", ENTRY, loop, sizeof(loop), sizeof(loop), padding_no, NULL};
	struct code_patch p;
	CHECK(code_plan_entry(dec, &f, ENTRY_JUMP, &p) == 0, "%s", perpi_error());
	CHECK(p.kind == ENTRY_BREAKPOINT && p.moved == 2 && strstr(p.why, "lands in its first"),
	      "a jump into the entry: kind %d, moved %zu (%s)", p.kind, p.moved, p.why);
	/* dec rdi (48 FF CF); jnz -5 (75 FB): back to the entry itself */
	static const uint8_t head[] = {0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3};
	struct code_function g = {"g", ENTRY, head, sizeof(head), sizeof(head), padding_no, NULL};
	CHECK(code_plan_entry(dec, &g, ENTRY_JUMP, &p) < 0 &&
		  strstr(perpi_error(), "back to its first instruction"),
	      "a loop head at the entry: %s", perpi_error());
	/* a lone ret: a jump fits only over padding */
	static const uint8_t ret[] = {0xc3, 0x66, 0x90, 0x0f, 0x1f, 0x00};
	struct code_function h = {"h", ENTRY, ret, 1, sizeof(ret), padding_yes, NULL};
	CHECK(code_plan_entry(dec, &h, ENTRY_JUMP, &p) == 0 && p.kind == ENTRY_JUMP && p.moved == 1,
	      "ret + padding: kind %d moved %zu", p.kind, p.moved);
	h.padding_ok = padding_no;
	CHECK(code_plan_entry(dec, &h, ENTRY_JUMP, &p) == 0 && p.kind == ENTRY_BREAKPOINT,
	      "ret + another function: kind %d", p.kind);
	CHECK(code_plan_entry(dec, &f, ENTRY_BREAKPOINT, &p) == 0 && p.kind == ENTRY_BREAKPOINT,
	      "breakpoint asked");
}

/* The clock read: rdtsc, or mov ecx, N; rdpmc with the cycle counter. */
static void test_clock(struct x86_decoder *dec)
{
	static const uint8_t code[] = {0x48, 0x85, 0xf6, 0x7e, 0x00, 0xc3};
	struct code_function f = {"f", ENTRY, code, sizeof(code), sizeof(code), padding_no, NULL};
	for (int counter = 0; counter < 2; counter++) {
		struct code_page c;
		code_page_init(&c, PAGE, 0x7f0000000000ull, counter, 0x40000001u);
		int rc;
		struct code_patch p = place(dec, &c, &f, ENTRY_JUMP, &rc);
		const uint8_t *stub = c.buf + (p.stub - PAGE), *end = c.buf + c.len;
		static const uint8_t tsc[] = {0x0f, 0x31},
				     pmc[] = {0xb9, 0x01, 0x00, 0x00, 0x40, 0x0f, 0x33};
		int n_tsc = 0, n_pmc = 0;
		for (const uint8_t *b = stub; b + 7 <= end; b++) {
			n_tsc += !memcmp(b, tsc, 2);
			n_pmc += !memcmp(b, pmc, 7);
		}
		/* two reads per call: at the entry and at the return */
		CHECK(rc == 0 && n_tsc == (counter ? 0 : 2) && n_pmc == (counter ? 2 : 0),
		      "counter %d: %d rdtsc, %d rdpmc", counter, n_tsc, n_pmc);
		code_page_done(&c);
	}
}

int main(void)
{
	struct x86_decoder *dec = x86_decoder_new();
	test_rip_relative(dec);
	test_rip_relative_evex(dec);
	test_jcc(dec);
	test_plans(dec);
	test_clock(dec);
	x86_decoder_delete(dec);
	if (!failures)
		printf("PASS: measure code generation\n");
	return failures ? 1 : 0;
}
