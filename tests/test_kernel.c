/* Kernel specs: parsing, canonical order, multiplicities, bad input.
 * Expected strings are written out by hand from the inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/kernel.h"

static int failures;

static void expect_canonical(const char *spec, const char *want, unsigned size)
{
	struct kernel k;
	if (kernel_parse(spec, &k) < 0) {
		printf("FAIL: '%s' rejected: %s\n", spec, perpi_error());
		failures++;
		return;
	}
	char *got = kernel_to_string(&k);
	if (strcmp(got, want) || kernel_size(&k) != size) {
		printf("FAIL: '%s' -> '%s' (size %u), want '%s' (size %u)\n", spec, got,
		       kernel_size(&k), want, size);
		failures++;
	}
	free(got);
	kernel_done(&k);
}

static void expect_error(const char *spec)
{
	struct kernel k;
	if (kernel_parse(spec, &k) == 0) {
		printf("FAIL: '%s' accepted\n", spec);
		failures++;
		kernel_done(&k);
	}
}

int main(void)
{
	expect_canonical("ADDSD_XMM_XMM^2 IMUL_GPR64_GPR64 MOV_GPR64_M64^3",
			 "ADDSD_XMM_XMM^2 IMUL_GPR64_GPR64 MOV_GPR64_M64^3", 6);
	/* order and repetition do not matter: B + B^2 = B^3, sorted by name */
	expect_canonical("  B  A B^2 ", "A B^3", 4);
	expect_canonical("X^1", "X", 1);
	expect_error("");
	expect_error("   ");
	expect_error("A^0");
	expect_error("A^");
	expect_error("A^2x");
	expect_error("A-B");
	printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
