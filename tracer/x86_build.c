/* From the corrected IR to the static semantics x86_resolve uses: the
 * register-granularity rules of DESIGN.md "The ideal machine" live here,
 * once, for both decoders. */
#include <string.h>

#include "common/util.h"
#include "tracer/x86_sem.h"

struct unit_list {
	uint8_t *units, *n;
	uint64_t seen[3];
};

static void unit_add(struct unit_list *l, int unit)
{
	if (unit < 0 || unit >= UNIT_COUNT || (l->seen[unit / 64] >> (unit % 64) & 1))
		return;
	l->seen[unit / 64] |= 1ull << (unit % 64);
	l->units[(*l->n)++] = (uint8_t)unit;
}

static int vec_parts(int size)
{
	return size >= 64 ? 3 : size >= 32 ? 2 : 1;
}

static void vec_read(struct unit_list *src, const struct x86_irop *op)
{
	int mask = op->part_mask ? op->part_mask : (1 << vec_parts(op->size)) - 1;
	for (int p = 0; p < 3; p++)
		if (mask >> p & 1)
			unit_add(src, UNIT_VEC_PART(op->reg.num, p));
}

static void reg_effects(const struct x86_ir *ir, const struct x86_irop *op, struct unit_list *src,
			struct unit_list *dst)
{
	const struct x86_ireg *r = &op->reg;
	int skip_read = ir->zero_idiom && !op->implicit;
	switch (r->cls) {
	case RC_GPR:
		if ((op->access & AC_R) && !skip_read)
			unit_add(src, UNIT_GPR + r->num);
		if (op->access & AC_W) {
			if (r->size <= 2) /* merges into the old value */
				unit_add(src, UNIT_GPR + r->num);
			unit_add(dst, UNIT_GPR + r->num);
		}
		break;
	case RC_VEC:
		if ((op->access & AC_R) && !skip_read)
			vec_read(src, op);
		if (op->access & AC_W) {
			int parts = ir->enc == ENC_LEGACY ? vec_parts(op->size) : 3;
			int wmask = op->part_mask && !(op->access & AC_R) ? op->part_mask
									  : (1 << parts) - 1;
			for (int p = 0; p < 3; p++)
				if (wmask >> p & 1)
					unit_add(dst, UNIT_VEC_PART(r->num, p));
			/* Merge masking keeps the unselected elements. */
			if (ir->mask_k && !ir->mask_zero && !op->implicit)
				for (int p = 0; p < vec_parts(op->size); p++)
					unit_add(src, UNIT_VEC_PART(r->num, p));
		}
		break;
	case RC_K:
		if ((op->access & AC_R) && !skip_read)
			unit_add(src, UNIT_K + r->num);
		if (op->access & AC_W)
			unit_add(dst, UNIT_K + r->num);
		break;
	case RC_MM: /* mmN is the mantissa of R N; a write sets all of R N */
		if ((op->access & AC_R) && !skip_read)
			unit_add(src, UNIT_X87 + (r->num & 7));
		if (op->access & AC_W)
			unit_add(dst, UNIT_X87 + (r->num & 7));
		break;
	case RC_MXCSR:
	case RC_FPSW:
	case RC_FPCW: {
		int u = r->cls == RC_MXCSR ? UNIT_MXCSR : r->cls == RC_FPSW ? UNIT_FPSW : UNIT_FPCW;
		if (op->access & AC_R)
			unit_add(src, u);
		if (op->access & AC_W)
			unit_add(dst, u);
		break;
	}
	default:
		break;
	}
}

static int gpr_or_none(struct x86_ireg r)
{
	if (r.cls == RC_GPR)
		return r.num;
	return r.cls == RC_RIP ? -2 : -1;
}

static void mem_effects(const struct x86_ir *ir, const struct x86_irop *op, struct x86_sem *sem,
			struct unit_list *src)
{
	if (op->base.cls == RC_GPR)
		unit_add(src, UNIT_GPR + op->base.num);
	if (op->index.cls == RC_GPR)
		unit_add(src, UNIT_GPR + op->index.num);
	if (op->index.cls == RC_VEC) {
		struct x86_irop idx = {.reg = op->index, .size = op->index.size};
		vec_read(src, &idx);
	}
	if (op->seg == RC_FS)
		unit_add(src, UNIT_FSBASE);
	if (op->seg == RC_GS)
		unit_add(src, UNIT_GSBASE);
	if (op->type != OP_MEM || !op->access || sem->n_mem >= SEM_MAX_MEM)
		return;
	struct x86_memt *m = &sem->mem[sem->n_mem++];
	m->base = (int8_t)gpr_or_none(op->base);
	m->index = (int8_t)(op->index.cls == RC_GPR ? op->index.num : -1);
	m->vsib_index = op->index.cls == RC_VEC ? op->index.num + 1 : 0;
	m->scale = op->scale ? op->scale : 1;
	m->seg = op->seg;
	m->access = op->access;
	m->addr32 = ir->addr32;
	m->index_low8 = op->index.cls == RC_GPR && op->index.size == 1;
	m->disp = op->disp;
	m->size = op->size;
	if (ir->bcast && ir->elem_size && !op->implicit) {
		const struct x86_irop *d = &ir->ops[0];
		if (ir->bcast == 1) /* embedded {1toN}: one element; 2: a whole broadcast source */
			m->size = ir->elem_size;
		m->bcast_elems =
		    (uint8_t)((d->type == OP_REG && d->reg.cls == RC_VEC ? d->size : 64) /
			      ir->elem_size);
	}
}

static void st_effects(const struct x86_irop *op, struct x86_sem *sem)
{
	if ((op->access & AC_R) && sem->n_st_src < 8)
		sem->st_src[sem->n_st_src++] = op->st_offset;
	if ((op->access & AC_W) && sem->n_st_dst < 8)
		sem->st_dst[sem->n_st_dst++] = op->st_offset;
}

static void flag_effects(const struct x86_ir *ir, struct unit_list *src, struct unit_list *dst)
{
	for (int u = UNIT_CF; u <= UNIT_DF; u++)
		if (ir->flags_read & FL(u))
			unit_add(src, u);
	/* Flags last, so SP_SHIFT_CL can drop them as a tail. */
	for (int u = UNIT_CF; u <= UNIT_DF; u++)
		if (ir->flags_write & FL(u))
			unit_add(dst, u);
}

static void build_unknown(struct x86_sem *sem)
{
	sem->special = SP_UNKNOWN;
	sem->event_flags = EVENT_UNKNOWN;
	for (int u = 0; u < UNIT_COUNT; u++)
		sem->units[u] = sem->units[UNIT_COUNT + u] = (uint8_t)u;
	sem->n_src = sem->n_dst = UNIT_COUNT;
}

static void gather_setup(const struct x86_ir *ir, struct x86_sem *sem)
{
	int data_bytes = 16, index_bytes = 16, last_vec = -1, first_vec = -1;
	for (int i = 0; i < ir->nops; i++) {
		const struct x86_irop *op = &ir->ops[i];
		if (op->type == OP_MEM && op->index.cls == RC_VEC)
			index_bytes = op->index.size;
		if (op->type == OP_REG && op->reg.cls == RC_VEC && !op->implicit) {
			if (first_vec < 0) {
				first_vec = op->reg.num;
				data_bytes = op->size;
			}
			last_vec = op->reg.num;
		}
	}
	int n_index = index_bytes / (ir->gather_index_q ? 8 : 4);
	int n_data = data_bytes / (ir->elem_size ? ir->elem_size : 4);
	sem->gather_count = (uint8_t)(n_index < n_data ? n_index : n_data);
	sem->gather_index_q = ir->gather_index_q;
	sem->gather_mask_vec = (uint8_t)(ir->enc == ENC_VEX && last_vec >= 0 ? last_vec + 1 : 0);
}

void x86_sem_build(const struct x86_ir *ir, struct x86_sem *sem)
{
	memset(sem, 0, sizeof(*sem));
	if (ir->special == SP_UNKNOWN) {
		build_unknown(sem);
		return;
	}
	uint8_t src_units[UNIT_COUNT], dst_units[UNIT_COUNT];
	struct unit_list src = {src_units, &sem->n_src, {0}}, dst = {dst_units, &sem->n_dst, {0}};
	sem->special = ir->special;
	sem->event_flags = ir->event_flags;
	sem->mask_k = ir->mask_k;
	sem->elem_size = ir->elem_size;
	for (int i = 0; i < ir->nops; i++) {
		const struct x86_irop *op = &ir->ops[i];
		if (op->type == OP_REG && op->reg.cls == RC_ST)
			st_effects(op, sem);
		else if (op->type == OP_REG)
			reg_effects(ir, op, &src, &dst);
		else if (op->type == OP_MEM || op->type == OP_AGEN)
			mem_effects(ir, op, sem, &src);
	}
	if (ir->mask_k)
		unit_add(&src, UNIT_K + ir->mask_k);
	flag_effects(ir, &src, &dst);
	if (sem->special == SP_NONE && ir->mask_k && sem->n_mem && ir->elem_size)
		sem->special = SP_MASKED;
	if (sem->special == SP_NONE && (sem->n_st_src || sem->n_st_dst))
		sem->special = SP_X87;
	if (sem->special == SP_SHIFT_CL) {
		sem->flags_dyn = ir->flags_write;
		sem->shift_mask = ir->shift_mask;
	}
	if (sem->special == SP_GATHER)
		gather_setup(ir, sem);
	sem->xsave_kind = ir->xsave_kind;
	sem->compress = ir->compress;
	sem->bit_reg = ir->bit_reg;
	sem->bit_size = ir->bit_size;
	memcpy(sem->units, src_units, sem->n_src);
	memcpy(sem->units + sem->n_src, dst_units, sem->n_dst);
	sem->needs_xstate =
	    sem->special == SP_X87 || sem->special == SP_MASKED || sem->special == SP_GATHER;
}

/* ---- histogram class and control flow ---- */

static int has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int ends_with(const char *s, const char *e)
{
	size_t ls = strlen(s), le = strlen(e);
	return ls >= le && strcmp(s + ls - le, e) == 0;
}

static int control_of(const char *m, const struct x86_ir *ir)
{
	static const char *const cond[] = {"jrcxz", "jecxz", "loop", "loope", "loopne"};
	if (!strcmp(m, "jmp") || !strcmp(m, "ljmp"))
		return CTRL_JUMP;
	for (size_t i = 0; i < ARRAY_SIZE(cond); i++)
		if (!strcmp(m, cond[i]))
			return CTRL_COND_JUMP;
	if (m[0] == 'j')
		return CTRL_COND_JUMP;
	if (!strcmp(m, "call") || !strcmp(m, "lcall"))
		return CTRL_CALL;
	if (!strcmp(m, "ret") || !strcmp(m, "retf") || has_prefix(m, "iret"))
		return CTRL_RET;
	if (!strcmp(m, "syscall") || !strcmp(m, "sysenter"))
		return CTRL_SYSCALL;
	if (!strcmp(m, "int")) /* int 0x80 was made a syscall by the fix table */
		return ir->event_flags & EVENT_NOT_COUNTED ? CTRL_SYSCALL : CTRL_OTHER;
	if (!strcmp(m, "int3") || !strcmp(m, "ud2") || !strcmp(m, "ud1") || !strcmp(m, "ud0") ||
	    !strcmp(m, "hlt") || !strcmp(m, "into") || !strcmp(m, "int1") || !strcmp(m, "sysret"))
		return CTRL_OTHER;
	return CTRL_NONE;
}

/* Register moves, loads and stores: the class then comes from the operands. */
static int is_move(const char *m)
{
	static const char *const exact[] = {
	    "mov",
	    "movabs",
	    "movzx",
	    "movsx",
	    "movsxd",
	    "movd",
	    "movq",
	    "movbe",
	    "xchg",
	    "push",
	    "pop",
	    "movnti",
	    "movntdq",
	    "movntdqa",
	    "movntps",
	    "movntpd",
	    "lddqu",
	    "fld",
	    "fst",
	    "fstp",
	    "fild",
	    "fist",
	    "fistp",
	    "fisttp",
	    "fxch",
	    "movddup",
	    "movsldup",
	    "movshdup",
	    "vmovddup",
	    "vmovsldup",
	    "vmovshdup",
	    "vpbroadcastb",
	    "vpbroadcastw",
	    "vpbroadcastd",
	    "vpbroadcastq",
	    "vbroadcastss",
	    "vbroadcastsd",
	    "vbroadcasti128",
	    "vbroadcastf128",
	    "kmovb",
	    "kmovw",
	    "kmovd",
	    "kmovq",
	};
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (!strcmp(m, exact[i]))
			return 1;
	if (has_prefix(m, "cmov"))
		return 1;
	static const char *const stems[] = {"movap", "movup", "movdq", "movs", "movh", "movl"};
	const char *b = m[0] == 'v' ? m + 1 : m;
	for (size_t i = 0; i < ARRAY_SIZE(stems); i++)
		if (has_prefix(b, stems[i]) && strcmp(b, "movsb") && strcmp(b, "movsw") &&
		    strcmp(b, "movsq") && strcmp(b, "movmskps") && strcmp(b, "movmskpd"))
			return 1;
	return !strcmp(b, "movd") || !strcmp(b, "movq") || !strcmp(b, "movss") ||
	       !strcmp(b, "movsd");
}

static int is_fp(const char *m, const struct x86_ir *ir)
{
	static const char *const stems[] = {
	    "add",     "sub",	 "mul",	     "div",    "sqrt",	 "min",	     "max",	 "cmp",
	    "cvt",     "fmadd",	 "fmsub",    "fnmadd", "fnmsub", "fmaddsub", "fmsubadd", "rcp",
	    "rsqrt",   "round",	 "dp",	     "comi",   "ucomi",	 "hadd",     "hsub",	 "getexp",
	    "getmant", "scalef", "rndscale", "range",  "reduce", "fixupimm",
	};
	if (m[0] == 'f' && strcmp(m, "femms"))
		return 1; /* x87 */
	const char *b = m[0] == 'v' ? m + 1 : m;
	int fp_suffix = ends_with(m, "ps") || ends_with(m, "pd") || ends_with(m, "ss") ||
			ends_with(m, "sd") || ends_with(m, "ph") || ends_with(m, "sh");
	if (has_prefix(b, "cvt") || has_prefix(b, "fmadd") || has_prefix(b, "fmsub") ||
	    has_prefix(b, "fnm") || has_prefix(b, "comis") || has_prefix(b, "ucomis"))
		return 1;
	if (!fp_suffix || b[0] == 'p')
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(stems); i++)
		if (has_prefix(b, stems[i]))
			return 1;
	return 0;
}

void x86_classify(const struct x86_ir *ir, uint8_t *klass, uint8_t *control)
{
	const char *m = ir->mnemonic;
	int ctl = control_of(m, ir), mem_r = 0, mem_w = 0, vec = 0;
	*control = (uint8_t)ctl;
	if (ctl == CTRL_JUMP || ctl == CTRL_COND_JUMP || ctl == CTRL_CALL || ctl == CTRL_RET) {
		*klass = CLASS_BRANCH;
		return;
	}
	for (int i = 0; i < ir->nops; i++) {
		const struct x86_irop *op = &ir->ops[i];
		if (op->type == OP_MEM && !op->implicit) {
			mem_r |= op->access & AC_R;
			mem_w |= op->access & AC_W;
		}
		if (op->type == OP_REG && (op->reg.cls == RC_VEC || op->reg.cls == RC_K))
			vec = 1;
	}
	if (!strcmp(m, "push") || has_prefix(m, "stos") || (has_prefix(m, "movs") && !vec))
		*klass = CLASS_STORE;
	else if (!strcmp(m, "pop") || has_prefix(m, "lods"))
		*klass = CLASS_LOAD;
	else if (is_move(m))
		*klass = mem_w ? CLASS_STORE : mem_r ? CLASS_LOAD : CLASS_MOVE;
	else if (is_fp(m, ir))
		*klass = CLASS_FP;
	else if (vec)
		*klass = CLASS_VEC;
	else if (ir->special == SP_XSAVE || ir->special == SP_XRSTOR || ctl != CTRL_NONE ||
		 has_prefix(m, "nop") || has_prefix(m, "prefetch") || has_prefix(m, "endbr") ||
		 strstr(m, "fence") || !strcmp(m, "cpuid") || has_prefix(m, "rdtsc") ||
		 !strcmp(m, "pause") || !strcmp(m, "xgetbv") || has_prefix(m, "clflush"))
		*klass = CLASS_OTHER;
	else
		*klass = CLASS_INT;
}
