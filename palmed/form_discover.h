/* Discovery of the forms this CPU can benchmark: candidates over mnemonics
 * and operand kinds, kept when GNU as assembles them into exactly that form
 * (checked by decoding with Capstone) and when their kernel runs in a worker
 * without faulting. */
#ifndef PERPI_FORM_DISCOVER_H
#define PERPI_FORM_DISCOVER_H

#include <stddef.h>

struct form_entry {
	char *name;	    /* a form, or a bare mnemonic for a whole unsupported one; owned */
	const char *status; /* "ok", "unsupported", "fault", "probe" (semantics unknown) */
	char *reason;	    /* why not ok; owned, NULL when ok */
};

struct form_catalogue {
	size_t n;
	struct form_entry *e; /* owned */
	size_t candidates;    /* generated, before assembling */
};

/* mnemonics: upper case, or NULL/0 for every mnemonic Capstone knows.
 * Returns 0, or -1 with perpi_error() set (no assembler...). */
int form_discover(const char *const *mnemonics, size_t n, struct form_catalogue *out,
		  void (*progress)(void *arg, size_t done, size_t total), void *arg);
/* The given forms alone, checked as form_discover checks its candidates:
 * one entry each ("ok", "unsupported", "fault", "probe"), in no set order.
 * For a short list (a built-in core) where discovering every form would
 * take long. Returns 0, or -1 with perpi_error() set. */
int form_check(const char *const *forms, size_t n, struct form_catalogue *out);
void form_catalogue_done(struct form_catalogue *c);

#endif
