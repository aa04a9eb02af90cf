/* Internals of the cycle model (palmed/cycles*.c), not for other modules:
 * what is known of each static instruction, the resource calendar, the
 * branch predictor and the L1 cache. */
#ifndef PERPI_CYCLES_PRIVATE_H
#define PERPI_CYCLES_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "palmed/core.h"
#include "palmed/model.h"
#include "tracer/event.h"

/* ---- static instructions (cycles_static.c) ---- */

#define CYCLES_NO_UNIT 0xff

struct cycles_static {
	uint8_t known;	      /* filled */
	uint8_t stack;	      /* push/pop/call/ret: the stack engine updates RSP */
	uint8_t indirect;     /* a jump or call through a register or memory */
	uint8_t vec_dst;      /* writes a vector register (vector load latencies) */
	uint8_t vec_src;      /* reads a vector register (what a store stores) */
	uint8_t timed;	      /* latency measured, or a plain load (op latency 0) */
	uint8_t mapped;	      /* the model maps the form */
	uint8_t fp; /* FP or vector class: 1 fast (latency < 2.5), 2 slower; 0 other */
	uint8_t addr_unit[2]; /* base and index GPR units of its memory operand */
	uint16_t nuse;	      /* resources it uses: use[first .. first + nuse) */
	uint16_t nfront;      /* the first nfront of them are the front end's */
	uint16_t bind_res;    /* the resource whose pipes it is steered to ... */
	uint8_t bind_n;	      /* ... bind_n of them; 0: not steered */
	uint32_t first_use;
	float latency;	   /* cycles from its data to its result */
	/* A REP form the model timed at two lengths (model strings[]): its
	 * start and its cycles an iteration, and the factors on its usages
	 * for an execution's first iteration (start + iteration over its
	 * cycles alone) and for the others (iteration over them); 0: none. */
	float rep_start, rep_iteration, rep_first, rep_next;
	/* its cycles an iteration past L1 (the core's stream rates: rep stos
	 * and movs), when slower than rep_iteration; 0: none */
	float rep_far;
	float flags_extra; /* more from the flags it reads (a cmov on combined flags) */
	uint64_t addr_key; /* the address expression (renaming); 0: none */
};

struct cycles_usage {
	uint16_t *res;
	float *rho;
	size_t n, cap;
	unsigned char *front; /* per resource: the front end's (cycles_front_resources) */
};

/* The static facts of insn (decoded from its bytes), given the event that
 * first ran it (for its destination units). */
void cycles_static_fill(struct cycles_static *s, const struct perpi_event *ev,
			const struct model *m, const struct core *c, struct cycles_usage *u);

/* ---- resources (cycles_sched.c) ---- */

/* Per resource, per cycle, the share used, over a ring of cycles starting
 * at floor (no booking below it). */
#define SCHED_RING 8192
struct sched {
	size_t nres;
	float *used;	/* nres x SCHED_RING */
	uint64_t *next; /* nres x SCHED_RING: a cycle >= this one that may have room */
	uint64_t *stamp; /* nres x SCHED_RING: 1 + the cycle the slot holds (else empty) */
	uint64_t floor;
};
void sched_init(struct sched *s, size_t nres);
void sched_done(struct sched *s);
/* No booking will start before cycle floor any more. */
void sched_advance(struct sched *s, uint64_t floor);
/* The first cycle >= from where every resource res[i] has room, booked
 * with rho[i] there (the excess over one cycle spills into the next ones). */
uint64_t sched_book(struct sched *s, uint64_t from, const uint16_t *res, const float *rho,
		    size_t n);

/* ---- branch prediction (cycles_branch.c) ---- */

struct bpred;
struct bpred *bpred_new(void);
void bpred_delete(struct bpred *b);
/* Each returns 1 when the predictor got the branch wrong, and learns;
 * target: where the branch went (the path history). */
int bpred_conditional(struct bpred *b, uint64_t pc, int taken, uint64_t target);
int bpred_indirect(struct bpred *b, uint64_t pc, uint64_t target);
int bpred_return(struct bpred *b, uint64_t target);
/* A call (push its return address); a direct jump or call taken. */
void bpred_call(struct bpred *b, uint64_t return_addr);
void bpred_taken(struct bpred *b, uint64_t target);

/* ---- the L1 data cache (cycles_l1.c) ---- */

struct l1;
struct l1 *l1_new(unsigned size, unsigned ways, unsigned line);
void l1_delete(struct l1 *c);
/* The lines [addr, addr + size) touches: adds them to *accesses and the
 * missed ones to *misses. */
void l1_access(struct l1 *c, uint64_t addr, uint32_t size, uint64_t *accesses, uint64_t *misses);

#endif
