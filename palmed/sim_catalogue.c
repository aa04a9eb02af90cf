/* The "catalogue" machine: see sim_catalogue.h. */
#include "palmed/sim_catalogue.h"

#include <stdio.h>
#include <string.h>

#include "common/util.h"

#define P(n) (1u << (n))

/* Ports: four ALUs, two load/address units, one store-data unit, four FP
 * pipes (multiplies on 0|1, adds on 2|3, shuffles on 1|2) and a
 * non-pipelined divider; six µops dispatched per cycle. */
static const char *const ports[] = {"alu0", "alu1", "alu2", "alu3", "ld0", "ld1",
				    "st",   "fp0",  "fp1",  "fp2",  "fp3", "div"};
enum {
	ALU = P(0) | P(1) | P(2) | P(3),
	ALU1 = P(1),
	ALU23 = P(2) | P(3),
	ALU01 = P(0) | P(1),
	LD = P(4) | P(5),
	ST = P(6),
	FP01 = P(7) | P(8),
	FP23 = P(9) | P(10),
	FP12 = P(8) | P(9),
	FPALL = P(7) | P(8) | P(9) | P(10),
	FP0 = P(7), /* no core form runs on fp0 alone */
	DIV = P(11),
};

/* The core: one or two forms per kind of unit. */
static const struct sim_form core_forms[] = {
    {"ADD_GPR64_GPR64", 1, {ALU}, NULL},
    {"IMUL_GPR64_GPR64", 1, {ALU1}, NULL},
    {"SHL_GPR64_IMM8", 1, {ALU23}, NULL},
    {"POPCNT_GPR64_GPR64", 1, {ALU01}, NULL},
    {"XCHG_GPR64_GPR64", 2, {ALU, ALU}, NULL},
    {"MOV_GPR64_M64", 1, {LD}, NULL},
    {"MOV_M64_GPR64", 2, {ST, LD}, NULL},
    {"ADD_GPR64_M64", 2, {LD, ALU}, NULL},
    {"MULSD_XMM_XMM", 1, {FP01}, NULL},
    {"ADDSD_XMM_XMM", 1, {FP23}, NULL},
    {"PSHUFD_XMM_XMM_IMM8", 1, {FP12}, NULL},
    {"PADDD_XMM_XMM", 1, {FPALL}, NULL},
    {"VFMADD231PD_YMM_YMM_YMM", 2, {FP01, FP01}, NULL},
    {"CVTSI2SD_XMM_GPR64", 2, {ALU, FP23}, NULL},
    {"DIVSD_XMM_XMM", 4, {DIV, DIV, DIV, DIV}, NULL},
};

/* The unit of a generated form's operation, with its share of forms. */
static const struct {
	unsigned mask, weight;
} kinds[] = {
    {ALU, 20},	{ALU1, 5},  {ALU23, 8},	 {ALU01, 6}, {FP01, 15},
    {FP23, 15}, {FP12, 10}, {FPALL, 15}, {FP0, 3},   {DIV, 3},
};

#define GENERATED 480

static unsigned long long rng = 0x5eed;

static unsigned next(unsigned bound)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng >> 33) % bound);
}

static unsigned pick_kind(void)
{
	unsigned total = 0, at;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		total += kinds[i].weight;
	at = next(total);
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (at < kinds[i].weight)
			return kinds[i].mask;
		at -= kinds[i].weight;
	}
	return ALU;
}

/* A generated form: its operation (1 µop, 2 for a 256-bit variant, 3 for
 * a microcoded one; 4 on the divider), maybe a load, a store, or one µop
 * on another unit. */
static void generate(struct sim_form *f, unsigned index, char *name, size_t size)
{
	unsigned kind = pick_kind(), roll = next(100), n = 0;
	unsigned ops = kind == DIV ? 2 + next(4) : roll < 70 ? 1 : roll < 90 ? 2 : 3;
	for (unsigned u = 0; u < ops; u++)
		f->ports[n++] = kind;
	if (next(100) < 40)
		f->ports[n++] = LD;
	if (next(100) < 10 && n + 2 <= SIM_MAX_UOPS) {
		f->ports[n++] = ST;
		f->ports[n++] = LD;
	}
	if (next(100) < 15 && n < SIM_MAX_UOPS)
		f->ports[n++] = pick_kind() == DIV ? ALU : pick_kind();
	f->nuops = n;
	snprintf(name, size, "GEN%03u_U%u", index, n);
	f->name = name;
	f->unsupported = next(100) < 2 ? "control flow cannot be benchmarked" : NULL;
}

static struct sim_form forms[ARRAY_SIZE(core_forms) + GENERATED];
static char names[GENERATED][24];
static const char *core_names[ARRAY_SIZE(core_forms)];
static struct sim_machine machine = {
    "catalogue",
    "simulated: catalogue",
    "Zen-like, 12 ports, 6-wide dispatch, 15 core and 480 generated forms",
    ARRAY_SIZE(ports),
    ports,
    6,
    forms,
    ARRAY_SIZE(forms),
    core_names,
    ARRAY_SIZE(core_names)};

const struct sim_machine *sim_catalogue(void)
{
	if (forms[0].name)
		return &machine;
	for (size_t i = 0; i < ARRAY_SIZE(core_forms); i++) {
		forms[i] = core_forms[i];
		core_names[i] = core_forms[i].name;
	}
	for (unsigned g = 0; g < GENERATED; g++)
		generate(&forms[ARRAY_SIZE(core_forms) + g], g, names[g], sizeof(names[g]));
	return &machine;
}
