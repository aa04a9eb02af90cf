/* Small helpers every module uses: allocation that dies on failure, error
 * messages in the "perpi: what failed: why" form, and a growable string. */
#ifndef PERPI_UTIL_H
#define PERPI_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation failure is the one error we do not propagate: it dies here. */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Functions return a status and set a message; entry points print it.
 * perpi_error() keeps the last message (one buffer per thread). */
int perpi_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *perpi_error(void);

/* Messages on stderr: "perpi: ...". warn_once-style dedup is the caller's. */
void perpi_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void perpi_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Set by -q / by entry points; when non-zero perpi_warn stays silent. */
extern int perpi_quiet;

struct strbuf {
	char *buf; /* NUL-terminated, owned */
	size_t len, cap;
};
void strbuf_init(struct strbuf *sb);
void strbuf_done(struct strbuf *sb);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_add(struct strbuf *sb, const char *s, size_t n);

/* Monotonic time in seconds. */
double perpi_now(void);

#endif
