/* No hang on a helper program (common/child.h): a helper that never ends
 * is killed at its limit, and the callers that run the assembler and
 * llvm-mca (palmed predict --asm, palmed eval) report it. The expected
 * statuses are the shell's (sh -c 'exit 3' exits 3; a command not found
 * is 127, POSIX) and the limits are the test's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/child.h"
#include "common/util.h"
#include "palmed/eval.h"
#include "palmed/predict.h"

static int failures;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	failures += !ok;
}

static void check_child_run(void)
{
	char *exit3[] = {"sh", "-c", "exit 3", NULL};
	char *missing[] = {"perpi-no-such-program", NULL};
	char *forever[] = {"sleep", "30", NULL};
	char *killed[] = {"sh", "-c", "kill -9 $$", NULL};
	struct child_spec spec = {NULL, NULL, 5};
	check(child_run(exit3, &spec) == 3, "exit status 3 comes back");
	check(child_run(missing, &spec) == 127, "a program not found: 127");
	spec.timeout = 0.3;
	double t0 = perpi_now();
	int rc = child_run(forever, &spec);
	double took = perpi_now() - t0;
	check(rc < 0 && strstr(perpi_error(), "sleep did not finish in 0.3 s"),
	      "a helper past its limit is an error naming it");
	check(took >= 0.3 && took < 2, "... killed at its limit, not when it ends (30 s)");
	spec.timeout = 5;
	check(child_run(killed, &spec) < 0 && strstr(perpi_error(), "killed by signal 9"),
	      "a helper killed by a signal is an error");
}

/* A directory put first in PATH, holding `as` and `llvm-mca-19` that hang. */
static void hanging_tools(const char *dir)
{
	const char *names[] = {"as", "llvm-mca-19"};
	for (int i = 0; i < 2; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		FILE *f = fopen(path, "w");
		if (f) {
			fputs("#!/bin/sh\nexec sleep 30\n", f);
			fclose(f);
		}
		chmod(path, 0755);
		free(path);
	}
	char *path = xasprintf("%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	setenv("PERPI_CHILD_TIMEOUT", "0.5", 1);
	free(path);
}

static void check_callers(void)
{
	char dir[] = "/tmp/perpi-test-child-XXXXXX";
	if (!mkdtemp(dir)) {
		check(0, "temporary directory");
		return;
	}
	hanging_tools(dir);
	unsigned char *bytes = NULL;
	size_t len;
	double t0 = perpi_now();
	int rc = predict_assemble("add rax, rbx", 1, &bytes, &len);
	check(rc < 0 && strstr(perpi_error(), "as did not finish in 0.5 s") && perpi_now() - t0 < 2,
	      "palmed predict --asm: an assembler that hangs is killed and named");
	free(bytes);
	double ipc;
	t0 = perpi_now();
	rc = eval_mca_ipc("k_loop:\n\tadd rax, rbx\n\tdec r15\n", &ipc);
	check(rc < 0 && strstr(perpi_error(), "llvm-mca-19 did not finish in 0.5 s") &&
		  perpi_now() - t0 < 2,
	      "palmed eval: an llvm-mca that hangs is killed and named");
	/* without PERPI_CHILD_TIMEOUT: llvm-mca's own 10 s, not the helpers'
	 * 120 (an Intel Xeon's llvm-mca-19 took that on kernel after kernel) */
	unsetenv("PERPI_CHILD_TIMEOUT");
	t0 = perpi_now();
	rc = eval_mca_ipc("k_loop:\n\tadd rax, rbx\n\tdec r15\n", &ipc);
	double took = perpi_now() - t0;
	check(
	    rc < 0 && strstr(perpi_error(), "llvm-mca-19 did not finish in 10 s") && took >= 9 &&
		took < 15,
	    "palmed eval: an llvm-mca that hangs is killed at its own 10 s, not the helpers' 120");
	setenv("PERPI_CHILD_TIMEOUT", "0.5", 1);
	char *as = xasprintf("%s/as", dir), *mca = xasprintf("%s/llvm-mca-19", dir);
	unlink(as);
	unlink(mca);
	rmdir(dir);
	free(as);
	free(mca);
}

int main(void)
{
	check_child_run();
	check_callers();
	return failures ? 1 : 0;
}
