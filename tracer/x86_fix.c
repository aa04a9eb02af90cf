/* The one table of per-mnemonic semantic fixes (DESIGN.md, "Decoding").
 *
 * Two scopes: S_CS entries correct what Capstone (4.0.2 or 5) reports
 * wrongly for what it decodes, legacy and VEX instructions (EVEX go to
 * Zydis: x86_ir.c); tests/x86/test_x86_zydis.c finds them by comparing with
 * Zydis over libc;
 * S_ALL entries are DESIGN.md rules no decoder knows (zero idioms, syscall,
 * the special registers, x87 pushes, dynamic handlers) and apply to both
 * decoders. Each entry is covered by a case in tests/x86/test_x86_sem.c. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86_fix.h"

/* One line per fix. Designated fields: see struct fix (x86_fix.h). */
#define RW (AC_R | AC_W)
static const struct fix fixes[] = {
    /* Zero and all-ones idioms (DESIGN.md): no source. */
    {"xor sub pxor xorps xorpd vpxor vpxord vpxorq vxorps vxorpd "
     "pcmpeq* psub* vpsub* pcmpgt* vpcmpgt* pandn vpandn",
     S_ALL, C_ANY, .fn = x86_fix_zero_idiom},
    {"vpcmpeq*", S_ALL, C_VEC, .fn = x86_fix_zero_idiom},
    /* The mask-register forms glibc uses (kxnorq k2,k2,k2: all ones). */
    {"kxnor? kxor?", S_ALL, C_ANY, .fn = x86_fix_zero_idiom},
    /* Stack bytes: Capstone reports RSP only. */
    {"push pushfq call", S_CS, C_ANY, .fn = x86_fix_push},
    {"pop popfq ret", S_CS, C_ANY, .fn = x86_fix_pop},
    {"leave", S_CS, C_ANY, .fn = x86_fix_leave},
    {"enter", S_CS, C_ANY, .fn = x86_fix_enter},
    {"pushfq", S_ALL, C_ANY, .flags_r = FL_ALL},
    {"popfq", S_ALL, C_ANY, .flags_w = FL_ALL},
    /* Stores reported as reads: moves whose first operand is memory. */
    {"mov* vmov* fst fstp fist fistp fisttp fnstcw fnstsw set*", S_CS, C_STORE, .mem_access = AC_W},
    {"vmaskmov* vpmaskmov* vcvtps2ph", S_CS, C_STORE, .mem_access = AC_W},
    {"stmxcsr vstmxcsr", S_CS, C_ANY, .mem_access = AC_W},
    /* lea, prefetches, clflush: address registers, no memory. */
    {"lea", S_CS, C_ANY, .fn = x86_fix_agen},
    {"prefetch* clflush clflushopt clwb", S_ALL, C_ANY, .fn = x86_fix_agen},
    {"prefetch*", S_CS, C_ANY, .no_flags_w = FL_ALL}, /* Capstone: prefetchw writes them */
    {"nop", S_ALL, C_ANY, .fn = x86_fix_no_operands},
    /* Flags. */
    {"adc sbb", S_CS, C_ANY, .flags_r = FL(UNIT_CF)},
    {"movsd movss", S_CS, C_VEC, .no_flags_r = FL(UNIT_DF)},
    /* test: OF CF cleared, SF ZF PF set, AF undefined (Capstone 5: none for test m8, r8) */
    {"test", S_CS, C_ANY, .flags_w = FL_STATUS, .fn = x86_fix_read_only},
    {"bextr", S_CS, C_ANY, .no_flags_w = FL(UNIT_DF)},
    /* ZF and CF, the others cleared: Capstone misses OF (ptest), all (vptest) */
    {"ptest vptest vtestps vtestpd", S_CS, C_ANY, .flags_w = FL_STATUS},
    /* Implicit registers. */
    {"cpuid", S_CS, C_ANY, .fn = x86_fix_gpr64},
    {"cmpxchg", S_CS, C_ANY, .fn = x86_fix_cmpxchg},
    {"cmpxchg8b cmpxchg16b", S_CS, C_ANY, .mem_access = RW},
    {"leave", S_CS, C_ANY, .reg = FIX_GPR_EXACT(UNIT_RSP, 8, AC_W)},
    {"cqo", S_CS, C_ANY, .reg = FIX_GPR_EXACT(UNIT_RAX, 8, AC_R)},
    {"cdq", S_CS, C_ANY, .reg = FIX_GPR_EXACT(UNIT_RAX, 4, AC_R)},
    {"cwd", S_CS, C_ANY, .reg = FIX_GPR_EXACT(UNIT_RAX, 2, AC_R)},
    {"rcl rcr", S_CS, C_ANY, .flags_r = FL(UNIT_CF)},
    {"vzeroupper", S_ALL, C_ANY, .fn = x86_fix_vzero, .arg = 6},
    {"vzeroall", S_ALL, C_ANY, .fn = x86_fix_vzero, .arg = 7},
    /* Destination merges. */
    {"cvtsi2sd cvtsi2ss cvtss2sd cvtsd2ss sqrtsd sqrtss roundsd "
     "roundss rcpss rsqrtss movhps movlps movhpd movlpd movhlps "
     "movlhps pinsr*",
     S_ALL, C_LEGACY, .fn = x86_fix_dest_read},
    {"movss movsd", S_ALL, C_REG, .fn = x86_fix_dest_read},
    {"cmov*", S_ALL, C_ANY, .fn = x86_fix_dest_read},
    {"pcmpistri pcmpestri pcmpistrm pcmpestrm vcomis* vucomis*", S_CS, C_ANY, .flags_w = FL_STATUS},
    {"vpcmpistri vpcmpestri vpcmpistrm vpcmpestrm", S_CS, C_ANY, .flags_w = FL_STATUS},
    /* the mask goes to xmm0 (Capstone 5 does not say so) */
    {"pcmpistrm pcmpestrm vpcmpistrm vpcmpestrm", S_CS, C_ANY, .reg = {RC_VEC, 0, 16, AC_W, 0}},
    /* maskmovdqu xmm, xmm stores to [rdi], an operand Capstone does not show */
    {"maskmovdqu vmaskmovdqu", S_CS, C_ANY, .mem = {UNIT_RDI, 16, AC_W}},
    {"maskmovq", S_CS, C_ANY, .mem = {UNIT_RDI, 8, AC_W}},
    {"lzcnt tzcnt", S_CS, C_ANY, .flags_w = FL(UNIT_CF)},
    {"comiss ucomiss vcomiss vucomiss", S_CS, C_ANY, .mem_size = 4},
    {"comisd ucomisd vcomisd vucomisd", S_CS, C_ANY, .mem_size = 8},
    {"fnstsw", S_CS, C_MEM, .mem_size = 2},
    /* SSE compares write a mask, not flags */
    {"cmp*", S_CS, C_VEC, .no_flags_w = FL_ALL},
    /* Flags Capstone 4 does not report read */
    {"cmps*", S_CS, C_NOVEC, .flags_r = FL(UNIT_DF)},
    {"scas* lods* stos*", S_CS, C_ANY, .flags_r = FL(UNIT_DF)},
    {"adcx cmc fcmovb fcmovnb", S_CS, C_ANY, .flags_r = FL(UNIT_CF)},
    {"adox", S_CS, C_ANY, .flags_r = FL(UNIT_OF)},
    {"adcx adox", S_CS, C_ANY, .fn = x86_fix_dest_read},
    {"lahf", S_CS, C_ANY, .flags_r = FL_STATUS & ~FL(UNIT_OF)},
    {"rol ror rcl rcr", S_CS, C_MEM, .mem_access = RW},
    {"extractps vextract* pextr* vpextr*", S_CS, C_STORE, .mem_access = AC_W},
    {"fcmove fcmovne", S_CS, C_ANY, .flags_r = FL(UNIT_ZF)},
    {"fcmovbe fcmovnbe", S_CS, C_ANY, .flags_r = FL(UNIT_CF) | FL(UNIT_ZF)},
    {"fcmovu fcmovnu", S_CS, C_ANY, .flags_r = FL(UNIT_PF)},
    /* Syscalls (DESIGN.md): not counted, fixed register sets. */
    {"syscall sysenter", S_ALL, C_ANY, .fn = x86_fix_syscall},
    {"int", S_ALL, C_ANY, .fn = x86_fix_int80},
    /* Special registers, which the IR does not carry as operands. */
    {"stmxcsr vstmxcsr", S_ALL, C_ANY, .reg = FIX_UNIT(RC_MXCSR, AC_R)},
    {"ldmxcsr vldmxcsr", S_ALL, C_ANY, .reg = FIX_UNIT(RC_MXCSR, AC_W)},
    {"fnstsw fstsw", S_ALL, C_ANY, .reg = FIX_UNIT(RC_FPSW, AC_R)},
    {"fnstcw", S_ALL, C_ANY, .reg = FIX_UNIT(RC_FPCW, AC_R)},
    {"fldcw", S_ALL, C_ANY, .reg = FIX_UNIT(RC_FPCW, AC_W)},
    {"fcom fcomp fcompp fucom fucomp fucompp ficom ficomp ftst fxam fprem fprem1", S_ALL, C_ANY,
     .reg = FIX_UNIT(RC_FPSW, AC_W)},
    /* x87: the stack through TOP. */
    {"fld fild fld1 fldz fldpi fldl2e fldln2 fldlg2 fldl2t fbld "
     "fxtract fptan fsincos",
     S_ALL, C_ANY, .fn = x86_fix_x87_push},
    {"fxtract fptan fsincos fscale fprem* fsin fcos f2xm1 fxch "
     "fchs fabs fsqrt frndint",
     S_ALL, C_ANY, .reg = FIX_ST(0, RW)},
    {"fbstp ficom ficomp fst fstp fpatan fyl2x* faddp fsubp "
     "fsubrp fmulp fdivp fdivrp fcomi* fucomi* fcom fcomp fucom "
     "fucomp fcompp fucompp ftst fxam",
     S_ALL, C_ANY, .reg = FIX_ST(0, AC_R)},
    {"fcmov*", S_ALL, C_ANY, .fn = x86_fix_x87_cmov},
    {"fiadd fisub fisubr fimul fidiv fidivr fadd fsub fsubr fmul "
     "fdiv fdivr",
     S_ALL, C_ANY, .fn = x86_fix_x87_arith},
    {"fscale fprem* fcompp fucompp", S_ALL, C_ANY, .reg = FIX_ST(1, AC_R)},
    {"fpatan fyl2x*", S_ALL, C_ANY, .reg = FIX_ST(1, RW)},
    {"fist fistp fisttp", S_ALL, C_MEM, .reg = FIX_ST(0, AC_R)},
    {"faddp fsubp fsubrp fmulp fdivp fdivrp fxch", S_ALL, C_ANY, .fn = x86_fix_st_ops_rw},
    /* ffree/ffreep ST(i) only tag it empty: written, not read (Capstone 4:
     * ffree reads, ffreep writes; Capstone 5: ffreep neither; Zydis: reads) */
    {"ffree ffreep", S_ALL, C_ANY, .fn = x86_fix_st_written},
    {"fcomi fcomip fucomi fucomip", S_ALL, C_ANY, .flags_w = FL_STATUS},
    /* Dynamic handlers. */
    {"shl sal shr sar rol ror rcl rcr shld shrd", S_ALL, C_ANY, .fn = x86_fix_shift},
    /* REP string instructions: RCX = 0 touches no memory (and RCX counts). */
    {"movs* cmps*", S_ALL, C_NOVEC | C_REP, .special = SP_STRING, .reg = FIX_GPR(UNIT_RCX, 8, RW)},
    {"stos* lods* scas*", S_ALL, C_REP, .special = SP_STRING, .reg = FIX_GPR(UNIT_RCX, 8, RW)},
    {"vgather* vpgather* vscatter* vpscatter*", S_ALL, C_ANY, .fn = x86_fix_gather},
    /* bt m, r: the bit offset in the register moves the address; xlat: [rbx + al]. */
    {"bt bts btr btc", S_ALL, C_MEM, .fn = x86_fix_bit_offset},
    {"xlatb xlat", S_ALL, C_ANY, .fn = x86_fix_xlat},
    /* Compress stores and expand loads touch popcount(k) contiguous elements. */
    {"vpcompress* vcompress* vpexpand* vexpand*", S_ALL, C_MEM, .compress = 1},
    /* Masked broadcasts read their one source if any element is selected. */
    {"vbroadcast* vpbroadcast*", S_ALL, C_MEM, .bcast = 2},
    {"xsave xsave64 xsavec xsavec64 xsaveopt xsaveopt64 fxsave "
     "fxsave64",
     S_ALL, C_ANY, .special = SP_XSAVE},
    {"xrstor xrstor64 fxrstor fxrstor64", S_ALL, C_ANY, .special = SP_XRSTOR},
    /* Lane-selecting instructions read exactly the lanes they select. */
    {"vextractf128 vextracti128 vextract?32x4 vextract?64x2 "
     "vextract?32x8 vextract?64x4",
     S_ALL, C_ANY, .fn = x86_fix_lane_extract},
    {"vinsertf128 vinserti128 vinsert?32x4 vinsert?64x2 vinsert?32x8 vinsert?64x4", S_ALL, C_ANY,
     .fn = x86_fix_lane_insert},
    {"vperm2f128 vperm2i128", S_ALL, C_ANY, .fn = x86_fix_lane_perm2},
    {"vpermq vpermpd", S_ALL, C_ANY, .fn = x86_fix_lane_permq},
    {"vshuf?32x4 vshuf?64x2", S_ALL, C_ANY, .fn = x86_fix_lane_shuf4},
};

static int pattern_match(const char *p, size_t len, const char *m)
{
	for (size_t i = 0; i < len; i++, m++) {
		if (p[i] == '*')
			return 1;
		if (p[i] != *m && !(p[i] == '?' && *m))
			return 0;
	}
	return *m == 0;
}

static int mnemonic_match(const char *list, const char *m)
{
	while (*list) {
		size_t len = strcspn(list, " ");
		if (pattern_match(list, len, m))
			return 1;
		list += len;
		list += strspn(list, " ");
	}
	return 0;
}

static unsigned long fix_hits[ARRAY_SIZE(fixes)];

size_t x86_fix_count(void)
{
	return ARRAY_SIZE(fixes);
}

unsigned long x86_fix_hits(size_t i, const char **mnemonic, int *capstone_only)
{
	*mnemonic = fixes[i].mnemonics;
	*capstone_only = fixes[i].scope == S_CS;
	return fix_hits[i];
}

/* Which entries a mnemonic matches, cached: matching ~80 pattern lists per
 * decode costs microseconds. Static, like the table (decoding is not
 * multi-threaded). */
#define MATCH_CACHE 4096
#define MATCH_WORDS ((ARRAY_SIZE(fixes) + 63) / 64)
static struct {
	char mnemonic[32];
	uint64_t match[MATCH_WORDS];
} match_cache[MATCH_CACHE];

static const uint64_t *matching_fixes(const char *m)
{
	uint32_t h = 2166136261u;
	for (const char *p = m; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	for (uint32_t probe = 0; probe < MATCH_CACHE; probe++) {
		__typeof__(match_cache[0]) *e = &match_cache[(h + probe) % MATCH_CACHE];
		if (e->mnemonic[0] && strcmp(e->mnemonic, m))
			continue;
		if (!e->mnemonic[0]) {
			snprintf(e->mnemonic, sizeof(e->mnemonic), "%s", m);
			for (size_t i = 0; i < ARRAY_SIZE(fixes); i++)
				if (mnemonic_match(fixes[i].mnemonics, m))
					e->match[i / 64] |= 1ull << (i % 64);
		}
		return e->match;
	}
	return NULL; /* full: match without the cache */
}

void x86_fix_apply(struct x86_ir *ir)
{
	const uint64_t *match = matching_fixes(ir->mnemonic);
	for (size_t i = 0; i < ARRAY_SIZE(fixes); i++) {
		const struct fix *f = &fixes[i];
		if (match ? !(match[i / 64] >> (i % 64) & 1)
			  : !mnemonic_match(f->mnemonics, ir->mnemonic))
			continue;
		if (f->scope == S_CS && (ir->decoder != DECODER_CAPSTONE || ir->no_fixes))
			continue;
		if (!x86_fix_cond(ir, f->cond))
			continue;
		fix_hits[i]++;
		x86_fix_data(ir, f);
	}
	x86_fix_defaults(ir);
}
