/* The simulated machines' cycles, by hand on small kernels (derivations in
 * the comments), and by a second method (the minimum-makespan LP over
 * µop-to-port assignments) on random kernels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/sim.h"

static int failures;

static void expect(const char *machine, const char *spec, double want)
{
	struct kernel k;
	double got = -1, by_lp = -1;
	if (kernel_parse(spec, &k) < 0 || sim_cycles(sim_find(machine), &k, &got) < 0 ||
	    sim_cycles_lp(sim_find(machine), &k, &by_lp) < 0) {
		printf("FAIL %s %s: %s\n", machine, spec, perpi_error());
		failures++;
		kernel_done(&k);
		return;
	}
	int ok = fabs(got - want) < 1e-9 && fabs(by_lp - want) < 1e-6;
	printf("%s %s: %s = %.4f (LP %.4f), expected %.4f\n", ok ? "ok" : "FAIL", machine, spec,
	       got, by_lp, want);
	failures += !ok;
	kernel_done(&k);
}

static void expect_error(const char *machine, const char *spec, const char *needle)
{
	struct kernel k;
	double got;
	kernel_init(&k);
	if (*spec && kernel_parse(spec, &k) < 0) {
		printf("FAIL parse %s\n", spec);
		failures++;
		return;
	}
	int rc = sim_cycles(sim_find(machine), &k, &got);
	int ok = rc < 0 && strstr(perpi_error(), needle);
	printf("%s %s '%s' refused: %s\n", ok ? "ok" : "FAIL", machine, spec,
	       rc < 0 ? perpi_error() : "(accepted)");
	failures += !ok;
	kernel_done(&k);
}

static void compare_lp(const struct sim_machine *m, unsigned count)
{
	unsigned long long rng = 99;
	double worst = 0;
	for (unsigned t = 0; t < count; t++) {
		struct kernel k;
		kernel_init(&k);
		for (unsigned a = 0; a < 2 + t % 5; a++) {
			rng = rng * 6364136223846793005ULL + 1;
			const struct sim_form *f = &m->forms[(rng >> 33) % m->nforms];
			if (!f->unsupported)
				kernel_add(&k, f->name, 1 + (unsigned)((rng >> 20) % 4));
		}
		double a, b;
		if (k.n && (sim_cycles(m, &k, &a) < 0 || sim_cycles_lp(m, &k, &b) < 0)) {
			printf("FAIL %s: %s\n", m->name, perpi_error());
			failures++;
		} else if (k.n) {
			worst = fmax(worst, fabs(a - b) / a);
		}
		kernel_done(&k);
	}
	int ok = worst < 1e-6;
	printf("%s %s: Hall bound equals the makespan LP on %u kernels (worst %.2g)\n",
	       ok ? "ok" : "FAIL", m->name, count, worst);
	failures += !ok;
}

int main(void)
{
	/* ADD_A on p0|p1 alone: 1 µop over 2 ports, 1/2 cycle. */
	expect("overlap", "ADD_A", 0.5);
	/* ADD_A (p0|p1) and ADD_B (p1|p2) compete for p1: 2 µops can only use
	 * {p0,p1,p2}, 2/3 cycle; no smaller set binds more (1/2). */
	expect("overlap", "ADD_A ADD_B", 2.0 / 3);
	/* MUL only on p1: MUL^2 needs 2 cycles of p1; ADD_A^2 fits p0. */
	expect("overlap", "MUL^2 ADD_A^2", 2);
	/* MUL (p1), ADD_A, ADD_B: 3 µops confined to {p0,p1,p2}: 1 cycle. */
	expect("overlap", "MUL ADD_A ADD_B", 1);
	/* DIV: 3 µops on p0 only: 3 cycles. */
	expect("overlap", "DIV", 3);
	/* LOAD_ADD^2 LOAD: three µops on p3: 3 cycles. */
	expect("overlap", "LOAD LOAD_ADD^2", 3);
	/* Zen: ADD^6 on 4 ALUs: 1.5 cycles; 6 µops at 6 per cycle would be 1. */
	expect("zen", "ADD_GPR64_GPR64^6", 1.5);
	/* 10 µops spread over ALU (4 on 4), AGU (2 on 2), FP (2 on fp0|fp1, 2 on
	 * fp2|fp3): every port group needs 1 cycle, dispatch needs 10/6. */
	expect("zen", "ADD_GPR64_GPR64^4 MOV_GPR64_M64^2 MULSD_XMM_XMM^2 ADDSD_XMM_XMM^2", 10.0 / 6);
	/* Multiply (fp0|fp1), add (fp2|fp3), shuffle (fp1|fp2): no pair is
	 * slower than 2/3, the three need all four pipes: 3/4 cycle. */
	expect("zen", "MULSD_XMM_XMM PSHUFD_XMM_XMM_IMM8", 2.0 / 3);
	expect("zen", "ADDSD_XMM_XMM MULSD_XMM_XMM PSHUFD_XMM_XMM_IMM8", 0.75);
	/* Intel: 5 ALU µops on 4 ports (1.25) vs 4-wide dispatch (1.25). */
	expect("intel", "ADD_GPR64_GPR64^5", 1.25);
	/* A store: store data on p4 + address on p2|p3|p7; 2 stores need 2
	 * cycles of p4. */
	expect("intel", "MOV_M64_GPR64^2", 2);
	expect_error("overlap", "NOSUCH", "not in simulated machine");
	expect_error("overlap", "JMP", "control flow");
	expect_error("zen", "", "empty kernel");
	for (size_t i = 0; sim_machine_at(i); i++)
		compare_lp(sim_machine_at(i), 200);
	return failures != 0;
}
