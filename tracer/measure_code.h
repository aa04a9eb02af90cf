/* The code perpi measure puts into a measured program: the timing stubs
 * (templates of tracer/measure_stub.S, patched), the displaced first
 * instructions of each timed function (relocated), and what is written
 * over the function's entry. Pure computation: tracer/measure.c writes
 * the result into the program. */
#ifndef PERPI_MEASURE_CODE_H
#define PERPI_MEASURE_CODE_H

#include <stddef.h>
#include <stdint.h>

struct x86_decoder;

/* Calibration probes, numbered before the program's own. */
enum {
	CAL_PROBE_FUNC,	 /* a function of CAL_CHAIN dependent adds */
	CAL_PROBE_START, /* a region's start and stop, the same chain between them */
	CAL_PROBE_STOP,
	CAL_PROBE_OUTER, /* a function whose body is one timed CAL_PROBE_FUNC call */
	CAL_PROBE_PLAIN, /* ... one untimed call of the same chain */
	CAL_PROBES
};

/* How a function's entry is taken over. */
enum {
	ENTRY_JUMP,	  /* a jump to the stub over its first instructions */
	ENTRY_BREAKPOINT, /* an int3: perpi sends the program to the stub */
	ENTRY_CALL_SITES  /* its entry untouched: the direct calls of it go to the stub */
};

/* What its stub does. */
enum {
	STUB_CALL,	 /* times each call, from its entry to its return */
	STUB_MARK_START, /* a region starts at its entry */
	STUB_MARK_STOP	 /* a region ends at its entry */
};

/* What is known of a function to time, at its run-time address. */
struct code_function {
	const char *name;
	uint64_t entry;
	const uint8_t *bytes; /* its code, and what follows it */
	size_t size;	      /* of the function (its ELF symbol) */
	size_t avail;	      /* bytes readable at entry (>= size) */
	/* whether [entry + size, entry + n) may be overwritten: padding up to
	 * the next function, nothing else starts there */
	int (*padding_ok)(void *ctx, uint64_t from, uint64_t to);
	void *ctx;
};

/* One function's entry, planned. */
struct code_patch {
	int kind;		     /* ENTRY_JUMP or ENTRY_BREAKPOINT */
	uint8_t bytes[16], orig[16]; /* what is written at entry; what was there */
	size_t len;
	uint8_t displaced[64]; /* relocated first instructions + jmp back, */
	size_t displaced_len;  /* once placed (code_add_probe) */
	size_t moved;	       /* bytes of the original instructions moved */
	uint64_t stub;	       /* the probe's entry stub */
	char why[160];	       /* when a jump could not be used */
};

/* Decide how to take over f's entry (want: ENTRY_JUMP, falling back to a
 * breakpoint where a jump cannot be placed, with p->why saying why; or
 * ENTRY_BREAKPOINT) and which first instructions move. 0, or -1 with
 * perpi_error() set when the function cannot be timed at all. */
int code_plan_entry(struct x86_decoder *dec, const struct code_function *f, int want,
		    struct code_patch *p);

/* Plans p for ENTRY_CALL_SITES (nothing moved, nothing written at the
 * entry: the stub ends with a jump to it). */
void code_plan_call_sites(const struct code_function *f, struct code_patch *p);

/* The direct calls and jumps (E8/E9 rel32) to target among the
 * instructions of [addr, addr + size) (bytes): the address where each
 * ends (its rel32 is the 4 bytes before), at most max of them in out.
 * Returns how many there are. */
size_t code_call_sites(struct x86_decoder *dec, uint64_t addr, const uint8_t *bytes, size_t size,
		       uint64_t target, uint64_t *out, size_t max);

/* The code page being built. */
struct code_page {
	uint8_t *buf; /* owned */
	size_t len, cap;
	uint64_t base;	    /* run-time address of buf[0] */
	uint64_t data;	    /* run-time address of the data area */
	int cycles_counter; /* read "rdpmc" (counter counter_index) instead of rdtsc */
	uint32_t counter_index;
	uint64_t exit, misc; /* where the templates went */
};

/* The bytes (whole pages) a page with n_probes program probes needs. */
size_t code_page_size(size_t n_probes);

/* Lays out the shared exit and the helpers. */
void code_page_init(struct code_page *c, uint64_t base, uint64_t data, int cycles_counter,
		    uint32_t counter_index);
void code_page_done(struct code_page *c);

/* Adds probe number id's stub (kind: STUB_*); p's displaced instructions
 * are relocated right after it and p->bytes (the jump at the entry) aimed
 * at it. 0, or -1 with perpi_error() (a displacement out of reach). */
int code_add_probe(struct code_page *c, struct x86_decoder *dec, int kind, uint32_t id,
		   const struct code_function *f, struct code_patch *p);

/* The five calibration probes; call after code_page_init, before the
 * program's probes (they take numbers 0..CAL_PROBES-1). A record of a
 * mark (a region's start or stop) has RC_BEGIN == RC_END, 0 while it is
 * being written. */
int code_add_calibration(struct code_page *c);

/* Addresses in the program of the helpers. */
uint64_t code_syscall_gadget(const struct code_page *c);  /* syscall; int3 */
uint64_t code_calibrate_entry(const struct code_page *c); /* rdi = turns; ends at an int3 */
uint64_t code_calibrate_done(const struct code_page *c);  /* RIP after that int3 */
uint64_t code_buffer_full(const struct code_page *c);	  /* RIP after the full-buffer int3 */
uint64_t code_lost_return(const struct code_page *c);	  /* the ud2 of a lost return */

#endif
