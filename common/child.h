/* Helper programs perpi runs and waits for (the assembler, the linker,
 * objcopy, llvm-mca): each under a time limit, so that no command hangs on
 * one. The traced program and the benchmark worker are watched by their
 * own modules (tracer/, palmed/harness*). */
#ifndef PERPI_CHILD_H
#define PERPI_CHILD_H

/* Seconds a helper may run, unless PERPI_CHILD_TIMEOUT (seconds, > 0) says
 * otherwise (the tests set it low). */
#define CHILD_TIMEOUT 120.0

struct child_spec {
	/* Files its stdout and stderr go to (created or truncated); NULL:
	 * /dev/null. Both may name one file. */
	const char *stdout_path, *stderr_path;
	double timeout; /* seconds; 0: child_timeout() */
};

/* Runs argv (argv[0] looked up in PATH) and waits at most the limit; past
 * it the helper is killed. A signal perpi catches meanwhile (Ctrl-C under
 * `palmed build`) does not abandon the helper: it reaches it too (same
 * process group), or the limit ends it. Returns the helper's exit status
 * (0-255; 127: it could not be started), or -1 with perpi_error() set if
 * it was killed by a signal or ran past the limit ("NAME did not finish in
 * N s"). */
int child_run(char *const argv[], const struct child_spec *spec);

/* The limit in seconds: PERPI_CHILD_TIMEOUT, else CHILD_TIMEOUT. */
double child_timeout(void);

#endif
