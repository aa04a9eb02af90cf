#include "palmed/form_discover.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/gen.h"
#include "palmed/harness.h"
#include "tracer/x86_operands.h"

/* Operand patterns tried for every mnemonic; G = each GPR width, with I
 * its widest immediate and M its memory; V = XMM, YMM, ZMM with VM its
 * memory. Legacy mnemonics get G and XMM patterns, V* ones get vector and
 * mask patterns. */
static const char *const gpr_patterns[] = {
    "",	     "G",     "M",     "G_G",	"G_I8",	  "G_I",    "G_M",    "M_G",	"M_I8",
    "M_I",   "G_CL",  "G_ONE", "M_CL",	"M_ONE",  "G_G_I8", "G_G_I",  "G_SAME", "G_M_I8",
    "G_M_I", "G_G_G", "G_M_G", "G_G_M", "G_G_CL", "M_G_CL", "M_G_I8", "I8",	"I",
};
static const char *const fixed_patterns[] = {
    "GPR32_GPR8",     "GPR32_GPR16",	"GPR64_GPR8",
    "GPR64_GPR16",    "GPR64_GPR32",	"GPR16_GPR8",
    "GPR32_M8",	      "GPR32_M16",	"GPR64_M8",
    "GPR64_M16",      "GPR64_M32",	"GPR16_M8",
    "GPR64_IMM64",    "XMM_GPR32",	"XMM_GPR64",
    "GPR32_XMM",      "GPR64_XMM",	"XMM_M32",
    "XMM_M64",	      "M32_XMM",	"M64_XMM",
    "XMM_XMM_IMM8",   "XMM_M128_IMM8",	"XMM_GPR32_IMM8",
    "XMM_GPR64_IMM8", "GPR32_XMM_IMM8", "GPR64_XMM_IMM8",
    "M32_XMM_IMM8",   "XMM_M32_IMM8",	"XMM_M64_IMM8",
    "XMM_XMM_XMM",    "XMM_XMM_M128",	"XMM_XMM_XMM_IMM8",
    "XMM_XMM_M32",    "XMM_XMM_M64",	"XMM_XMM",
    "XMM_M128",	      "M128_XMM",	"GPR32_GPR32_XMM",
    "GPR64_MEM",      "GPR32_MEM",	"MEM",
    "XMM_IMM8",	      "GPR64_MEMBI",	"GPR64_MEMBIS",
    "GPR64_MEMBID",   "GPR64_MEMIS",	"GPR64_MEMRIP",
    "GPR32_MEMBI",    "GPR32_MEMBIS",	"GPR32_MEMBID",
    "GPR32_MEMIS",    "GPR32_MEMRIP",	"XMM_SAME",
};
static const char *const vec_patterns[] = {
    "V_V",	"V_VM",	      "VM_V",	  "V_V_V",     "V_V_VM",      "V_V_I8",	   "V_VM_I8",
    "V_V_V_I8", "V_V_VM_I8",  "V_V_V_V",  "V_XMM",     "V_M32",	      "V_M64",	   "V_M128",
    "V_GPR32",	"V_GPR64",    "K_V_V",	  "K_V_VM",    "K_V_V_I8",    "K_V_VM_I8", "V_K",
    "K_V",	"V_V_XMM_I8", "XMM_V_I8", "M128_V_I8", "V_V_M128_I8", "XMM_V",	   "V_V_M32",
    "V_V_M64",	"V_V_XMM",    "V_V_SAME", "GPR32_V",   "GPR64_V",
};
static const char *const vex_fixed_patterns[] = {
    "XMM_XMM_XMM_M32",
    "XMM_XMM_XMM_M64",
    "XMM_XMM_GPR32",
    "XMM_XMM_GPR64",
    "XMM_XMM_GPR32_IMM8",
    "XMM_XMM_GPR64_IMM8",
    "YMM_YMM_YMM_IMM8",
    "ZMM_ZMM_YMM_IMM8",
    "YMM_ZMM_IMM8",
    "M256_ZMM_IMM8",
    "YMM_ZMM",
    "ZMM_YMM",
    "ZMM_M256",
    "YMM_M128",
    "K_K",
    "K_K_K",
    "K_GPR32",
    "GPR32_K",
    "K_K_IMM8",
    "K_M16",
    "M16_K",
    "K_GPR64",
    "GPR64_K",
    "K_M64",
    "M64_K",
    "XMM_YMM",
    "YMM_XMM",
    "XMM_M256",
    "GPR32_GPR32_GPR32",
    "GPR64_GPR64_GPR64",
    "GPR32_GPR32_M32",
    "GPR64_GPR64_M64",
    "GPR32_M32_GPR32",
    "GPR64_M64_GPR64",
    "GPR32_GPR32_IMM8",
    "GPR64_GPR64_IMM8",
    "",
};

static const char *const gpr_kind[] = {"GPR8", "GPR16", "GPR32", "GPR64"};
static const char *const gpr_mem[] = {"M8", "M16", "M32", "M64"};
static const char *const gpr_imm[] = {"IMM8", "IMM16", "IMM32", "IMM32"};
static const char *const vec_kind[] = {"XMM", "YMM", "ZMM"};
static const char *const vec_mem[] = {"M128", "M256", "M512"};

/* Expand a pattern's letters for one width. */
static void expand(const char *pattern, int w, int vector, struct strbuf *out)
{
	char tok[16];
	const char *p = pattern;
	while (*p) {
		size_t len = strcspn(p, "_");
		snprintf(tok, sizeof(tok), "%.*s", (int)len, p);
		const char *t = tok;
		if (vector && !strcmp(tok, "V"))
			t = vec_kind[w];
		else if (vector && !strcmp(tok, "VM"))
			t = vec_mem[w];
		else if (!vector && !strcmp(tok, "G"))
			t = gpr_kind[w];
		else if (!vector && !strcmp(tok, "M"))
			t = gpr_mem[w];
		else if (!vector && !strcmp(tok, "I"))
			t = gpr_imm[w];
		else if (!strcmp(tok, "I8"))
			t = "IMM8";
		strbuf_addf(out, "_%s", t);
		p += len;
		if (*p)
			p++;
	}
}

/* A list of names without repeats (an open-addressing set of indices). */
struct names {
	size_t n, cap, slots;
	char **v;
	size_t *set; /* index + 1, 0 = empty */
};

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static void names_rehash(struct names *ns)
{
	free(ns->set);
	ns->slots = ns->slots ? 2 * ns->slots : 4096;
	ns->set = xcalloc(ns->slots, sizeof(size_t));
	for (size_t i = 0; i < ns->n; i++) {
		size_t h = name_hash(ns->v[i]) & (ns->slots - 1);
		while (ns->set[h])
			h = (h + 1) & (ns->slots - 1);
		ns->set[h] = i + 1;
	}
}

static void names_add(struct names *ns, char *name)
{
	if (2 * (ns->n + 1) > ns->slots)
		names_rehash(ns);
	size_t h = name_hash(name) & (ns->slots - 1);
	for (; ns->set[h]; h = (h + 1) & (ns->slots - 1))
		if (!strcmp(ns->v[ns->set[h] - 1], name)) {
			free(name);
			return;
		}
	if (ns->n == ns->cap)
		ns->v = xrealloc(ns->v, (ns->cap = ns->cap ? 2 * ns->cap : 1024) * sizeof(char *));
	ns->set[h] = ns->n + 1;
	ns->v[ns->n++] = name;
}

static int names_has(const struct names *ns, const char *name)
{
	if (!ns->slots)
		return 0;
	for (size_t h = name_hash(name) & (ns->slots - 1); ns->set[h];
	     h = (h + 1) & (ns->slots - 1))
		if (!strcmp(ns->v[ns->set[h] - 1], name))
			return 1;
	return 0;
}

static void add_expanded(struct names *ns, const char *m, const char *pattern, int widths,
			 int vector)
{
	for (int w = 0; w < widths; w++) {
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_addf(&sb, "%s", m);
		expand(pattern, w, vector, &sb);
		names_add(ns, sb.buf);
		if (!strchr(pattern, vector ? 'V' : 'G') && !strchr(pattern, 'M') &&
		    !strchr(pattern, 'I'))
			break; /* the pattern does not depend on the width */
	}
}

/* Instructions that take a LOCK prefix (on a memory destination). */
static const char *const lockable[] = {"ADD", "ADC", "AND",  "BTC",	"BTR",	     "BTS",
				       "DEC", "INC", "NEG",  "NOT",	"OR",	     "SBB",
				       "SUB", "XOR", "XADD", "CMPXCHG", "CMPXCHG8B", "CMPXCHG16B"};

/* REP/REPE/REPNE string instructions, LOCK forms. */
static void prefixed_candidates(struct names *ns, const char *m)
{
	static const char *const strings[] = {"MOVS", "STOS", "LODS", "SCAS", "CMPS"};
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		if (!strncmp(m, strings[i], 4) && m[4] && strchr("BWDQ", m[4]) && !m[5]) {
			names_add(ns, xasprintf("%s.%s", i < 3 ? "REP" : "REPE", m));
			if (i >= 3)
				names_add(ns, xasprintf("REPNE.%s", m));
		}
	for (size_t i = 0; i < ARRAY_SIZE(lockable); i++)
		if (!strcmp(m, lockable[i])) {
			char *locked = xasprintf("LOCK.%s", m);
			for (size_t j = 0; j < ARRAY_SIZE(gpr_patterns); j++)
				if (gpr_patterns[j][0] == 'M')
					add_expanded(ns, locked, gpr_patterns[j], 4, 0);
			names_add(ns, xasprintf("%s_M64", locked));
			names_add(ns, xasprintf("%s_M128", locked));
			free(locked);
		}
}

static void candidates_for(struct names *ns, const char *m)
{
	int v = m[0] == 'V' || m[0] == 'K';
	prefixed_candidates(ns, m);
	if (!v) {
		for (size_t i = 0; i < ARRAY_SIZE(gpr_patterns); i++)
			add_expanded(ns, m, gpr_patterns[i], 4, 0);
		for (size_t i = 0; i < ARRAY_SIZE(fixed_patterns); i++)
			add_expanded(ns, m, fixed_patterns[i], 1, 0);
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(vec_patterns); i++)
			add_expanded(ns, m, vec_patterns[i], 3, 1);
		for (size_t i = 0; i < ARRAY_SIZE(vex_fixed_patterns); i++)
			add_expanded(ns, m, vex_fixed_patterns[i], 1, 1);
		for (size_t i = 0; i < ARRAY_SIZE(fixed_patterns); i++)
			add_expanded(ns, m, fixed_patterns[i], 1, 0);
	}
}

static void entry(struct form_catalogue *c, const char *name, const char *status,
		  const char *reason)
{
	if (c->n % 1024 == 0)
		c->e = xrealloc(c->e, (c->n + 1024) * sizeof(*c->e));
	c->e[c->n].name = xstrdup(name);
	c->e[c->n].status = status;
	c->e[c->n].reason = reason ? xstrdup(reason) : NULL;
	c->n++;
}

void form_catalogue_done(struct form_catalogue *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].name);
		free(c->e[i].reason);
	}
	free(c->e);
	memset(c, 0, sizeof(*c));
}

/* Lines of as' messages that name probe lines: mark them bad. */
static void mark_bad_lines(const char *diag, const char *stem, unsigned char *bad, size_t n_lines)
{
	for (const char *p = diag; p && *p;) {
		const char *s = strstr(p, stem);
		if (!s)
			break;
		const char *colon = strchr(s, ':');
		long line = colon ? strtol(colon + 1, NULL, 10) : 0;
		if (line >= 2 && (size_t)line - 2 < n_lines)
			bad[line - 2] = 1;
		p = strchr(s, '\n');
	}
}

/* GNU as 2.42 and later (Debian 13) assemble three-operand legacy forms
 * ("add al, bl, 5") as APX, which neither decoder knows and no CPU here
 * runs: those candidates must fail as they do with older assemblers (one
 * line, ';' separating, so that the candidates keep their line numbers). */
static const char *candidates_header(const char *dir)
{
	return harness_assemble(dir, "apx", ".arch .noapx_f\n", NULL) == 0
		   ? ".intel_syntax noprefix; .arch .noapx_f\n"
		   : ".intel_syntax noprefix\n";
}

/* Assemble every candidate, each in a slot of SLOT bytes (an instruction
 * has at most 15, so even two fit); keep those that assemble into exactly one instruction of
 * their own form (as the tracer's x86 layer reads the bytes). */
enum { SLOT = 32 };

static int filter_assembling(const char *dir, struct names *cand, struct names *ok)
{
	const char *header = candidates_header(dir);
	unsigned char *bad = xcalloc(cand->n + 1, 1);
	struct form *forms = xcalloc(cand->n + 1, sizeof(*forms));
	for (size_t i = 0; i < cand->n; i++)
		if (form_parse(cand->v[i], &forms[i]) < 0 || form_unsupported_reason(&forms[i]))
			bad[i] = 1;
	int rc = -1;
	for (int pass = 0; pass < 3 && rc < 0; pass++) {
		struct strbuf s;
		strbuf_init(&s);
		strbuf_addf(&s, "%s", header);
		for (size_t i = 0; i < cand->n; i++)
			if (bad[i]) {
				strbuf_addf(&s, "\n");
			} else { /* each at its own SLOT bytes: an instance that
				  * decodes otherwise cannot shift the others */
				strbuf_addf(&s, ".balign %d, 0xcc;", SLOT);
				gen_sample_instance(&forms[i], &s);
			}
		char *diag = NULL;
		rc = harness_assemble(dir, "cand", s.buf, &diag);
		if (rc < 0 && diag)
			mark_bad_lines(diag, "cand.s", bad, cand->n);
		free(diag);
		strbuf_done(&s);
	}
	if (rc < 0) {
		free(bad);
		free(forms);
		return -1;
	}
	char *obj = xasprintf("%s/cand.o", dir);
	uint8_t *bytes;
	size_t len, off = 0;
	rc = harness_text_bytes(obj, &bytes, &len);
	free(obj);
	for (size_t i = 0; rc == 0 && i < cand->n && off < len; i++) {
		if (bad[i])
			continue;
		struct form f;
		char name[FORM_NAME_MAX];
		unsigned n;
		size_t at = off;
		off += SLOT;
		if (form_from_bytes(bytes + at, len - at, &f, &n) < 0 || n > SLOT)
			continue; /* no decoder reads it, or two instructions */
		if (at + n < len && at + n < off && bytes[at + n] != 0xcc)
			continue; /* more than one instruction */
		form_print(&f, name, sizeof(name));
		if (!strcmp(name, cand->v[i]))
			names_add(ok, xstrdup(name));
	}
	if (rc == 0)
		free(bytes);
	free(bad);
	free(forms);
	return rc;
}

/* The linked check kernels run once each: entries "fault" or "ok". */
static int run_checks(const char *dir, const struct names *ok, struct form_catalogue *c,
		      struct harness_job *jobs, const size_t *which, size_t n_jobs)
{
	struct harness_output *out = xcalloc(n_jobs + 1, sizeof(*out));
	struct harness_config hc = {.measures = 1, .max_attempts = 1, .cpu = -1, .check_only = 1};
	char *so = xasprintf("%s/check.so", dir);
	int rc = harness_run(so, jobs, n_jobs, &hc, out, NULL, NULL);
	for (size_t j = 0; j < n_jobs && rc == 0; j++) {
		size_t i = which[j];
		if (out[j].status < 0)
			entry(c, ok->v[i], "fault", out[j].error);
		else
			entry(c, ok->v[i], "ok", NULL);
		harness_output_done(&out[j]);
	}
	free(so);
	free(out);
	return rc;
}

/* Run each form's kernel once in a worker: does it fault on this CPU? */
static int check_running(const char *dir, struct names *ok, struct form_catalogue *c)
{
	struct gen_form_info *infos = xcalloc(ok->n + 1, sizeof(*infos));
	int *status = xcalloc(ok->n + 1, sizeof(int));
	char **errors = xcalloc(ok->n + 1, sizeof(char *));
	struct harness_job *jobs = xcalloc(ok->n + 1, sizeof(*jobs));
	size_t *which = xcalloc(ok->n + 1, sizeof(size_t)), n_jobs = 0;
	char(*symbols)[24] = xcalloc(ok->n + 1, sizeof(*symbols));
	struct gen_params gp = {.unroll_size = 4};
	__builtin_cpu_init();
	gp.avx = __builtin_cpu_supports("avx");
	gp.avx512 = __builtin_cpu_supports("avx512f");
	gen_probe_forms((const char *const *)ok->v, ok->n, dir, infos, status, errors);
	struct strbuf s;
	strbuf_init(&s);
	strbuf_addf(&s, ".intel_syntax noprefix\n");
	for (size_t i = 0; i < ok->n; i++) {
		struct kernel k;
		struct gen_info gi;
		const struct gen_form_info *info = &infos[i];
		if (status[i] < 0) {
			entry(c, ok->v[i], "probe", errors[i]);
			continue;
		}
		kernel_init(&k);
		kernel_add(&k, ok->v[i], 1);
		snprintf(symbols[n_jobs], sizeof(symbols[0]), "perpi_f%zu", n_jobs);
		if (gen_kernel(&k, &info, &gp, symbols[n_jobs], &s, &gi) < 0) {
			entry(c, ok->v[i], "probe", perpi_error());
		} else {
			jobs[n_jobs] = (struct harness_job){
			    .symbol = symbols[n_jobs], .turns = 1, .divisor = 1};
			which[n_jobs++] = i;
		}
		kernel_done(&k);
	}
	int rc = harness_assemble(dir, "check", s.buf, NULL);
	strbuf_done(&s);
	if (rc == 0)
		rc = harness_link(dir, "check");
	if (rc == 0)
		rc = run_checks(dir, ok, c, jobs, which, n_jobs);
	for (size_t i = 0; i < ok->n; i++)
		free(errors[i]);
	free(errors);
	free(status);
	free(infos);
	free(jobs);
	free(which);
	free(symbols);
	return rc;
}

/* "rep movsb" -> "REP.MOVSB", the way forms spell mnemonics; malloc'd. */
static char *mnemonic_name(const char *m)
{
	char *v = xstrdup(m);
	for (char *p = v; *p; p++)
		*p = *p == ' ' ? '.' : (char)toupper((unsigned char)*p);
	return v;
}

static void all_mnemonics(struct names *ms)
{
	char **v;
	size_t n = x86_operands_mnemonics(&v);
	for (size_t i = 0; i < n; i++) {
		names_add(ms, mnemonic_name(v[i]));
		free(v[i]);
	}
	free(v);
}

static void names_done(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	free(ns->set);
}

/* The candidates assembled in a scratch directory, those that assemble as
 * themselves run once (check_running's entries into out); ok gets the
 * ones that assembled. progress: steps 2 and 3 of 3, or NULL. */
static int assemble_and_run(struct names *cand, struct names *ok, struct form_catalogue *out,
			    void (*progress)(void *arg, size_t done, size_t total), void *arg)
{
	char *dir = harness_make_dir();
	int rc = dir ? filter_assembling(dir, cand, ok) : -1;
	if (progress)
		progress(arg, 2, 3);
	if (rc == 0 && ok->n)
		rc = check_running(dir, ok, out);
	if (progress)
		progress(arg, 3, 3);
	if (dir) {
		harness_remove_dir(dir);
		free(dir);
	}
	return rc;
}

/* Each candidate with memory operands, addressed with an index too (M8X...:
 * form.h); filter_assembling keeps the twins that assemble as such. */
static void indexed_candidates(struct names *cand)
{
	size_t n = cand->n;
	for (size_t i = 0; i < n; i++) {
		char name[FORM_NAME_MAX];
		if (form_name_indexed(cand->v[i], name, sizeof(name)))
			names_add(cand, xstrdup(name));
	}
}

int form_discover(const char *const *mnemonics, size_t n, struct form_catalogue *out,
		  void (*progress)(void *arg, size_t done, size_t total), void *arg)
{
	struct names ms = {0}, cand = {0}, ok = {0};
	memset(out, 0, sizeof(*out));
	if (mnemonics && n)
		for (size_t i = 0; i < n; i++)
			names_add(&ms, mnemonic_name(mnemonics[i]));
	else
		all_mnemonics(&ms);
	for (size_t i = 0; i < ms.n; i++) {
		struct form bare = {.n = 0};
		snprintf(bare.mnemonic, sizeof(bare.mnemonic), "%s", ms.v[i]);
		const char *why = form_unsupported_reason(&bare);
		if (why)
			entry(out, ms.v[i], "unsupported", why);
		else
			candidates_for(&cand, ms.v[i]);
	}
	indexed_candidates(&cand);
	out->candidates = cand.n;
	if (progress)
		progress(arg, 1, 3);
	int rc = assemble_and_run(&cand, &ok, out, progress, arg);
	names_done(&ms);
	names_done(&cand);
	names_done(&ok);
	return rc;
}

int form_check(const char *const *forms, size_t n, struct form_catalogue *out)
{
	struct names cand = {0}, ok = {0};
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		names_add(&cand, xstrdup(forms[i]));
	out->candidates = cand.n;
	int rc = assemble_and_run(&cand, &ok, out, NULL, NULL);
	for (size_t i = 0; rc == 0 && i < cand.n; i++)
		if (!names_has(&ok, cand.v[i]))
			entry(out, cand.v[i], "unsupported",
			      "GNU as does not assemble an instance of it into this form");
	names_done(&cand);
	names_done(&ok);
	return rc;
}
