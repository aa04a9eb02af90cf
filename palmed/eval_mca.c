/* llvm-mca as a second predictor for `perpi palmed eval`: the same loop
 * body the benchmark runner generates (bench_kernel_asm), without its loop
 * control, simulated by llvm-mca-19 for the host CPU (-mcpu=native). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/child.h"
#include "common/util.h"
#include "palmed/eval.h"

#define MCA "llvm-mca-19"
/* Seconds llvm-mca may take for one kernel (or PERPI_CHILD_TIMEOUT where
 * lower): a kernel takes it well under a second, but on an Intel Xeon
 * (family 6 model 207) it ran into the helpers' 120 s on kernels of
 * AVX-512 FP16 forms, one after another, and an evaluation of 300 kernels
 * would have taken hours. Such a kernel is left out of llvm-mca's row. */
#define MCA_TIMEOUT 10.0

int eval_mca_available(void)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL;
	int found = 0;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *file = xasprintf("%s/%s", dir, MCA);
		found = access(file, X_OK) == 0;
		free(file);
	}
	free(copy);
	return found;
}

/* The unrolled body: the lines between the loop label and its counter. */
static char *loop_body(const char *asm_text)
{
	const char *start = strstr(asm_text, "_loop:\n"), *end;
	if (!start)
		return NULL;
	start += strlen("_loop:\n");
	end = strstr(start, "\tdec ");
	if (!end)
		return NULL;
	return xasprintf(".intel_syntax noprefix\n%.*s", (int)(end - start), start);
}

/* llvm-mca under a time limit (common/child.h): its exit status, or -1
 * with perpi_error() set (killed, or past the limit). */
static int run_mca(const char *src, const char *out)
{
	char *argv[] = {MCA, "-mcpu=native", "-iterations=100", (char *)src, NULL};
	double limit = child_timeout();
	struct child_spec spec = {out, NULL, limit < MCA_TIMEOUT ? limit : MCA_TIMEOUT};
	return child_run(argv, &spec);
}

int eval_mca_ipc(const char *asm_text, double *ipc)
{
	char *body = loop_body(asm_text);
	if (!body)
		return perpi_set_error("llvm-mca: no loop in the generated kernel");
	char src[] = "/tmp/perpi-mca-XXXXXX", out[] = "/tmp/perpi-mca-out-XXXXXX";
	int fd = mkstemp(src), fd2 = mkstemp(out), rc = -1, st = 1;
	if (fd >= 0 && fd2 >= 0 && write(fd, body, strlen(body)) == (ssize_t)strlen(body)) {
		close(fd);
		fd = -1;
		if ((st = run_mca(src, out)) == 0) {
			FILE *f = fopen(out, "r");
			char line[256];
			while (f && fgets(line, sizeof(line), f))
				if (sscanf(line, "IPC: %lf", ipc) == 1)
					rc = 0;
			if (f)
				fclose(f);
		}
	}
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	unlink(src);
	unlink(out);
	free(body);
	if (rc == 0 || st < 0) /* st < 0: why is set (e.g. its time limit) */
		return rc;
	return perpi_set_error("llvm-mca failed on the kernel");
}
