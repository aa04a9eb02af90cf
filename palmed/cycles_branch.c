/* The simulated branch predictor of the cycle model. Conditional branches:
 * a TAGE predictor (Seznec and Michaud, "A case for (partially) TAgged
 * GEometric history length branch prediction", JILP 2006): a bimodal table
 * and four tables tagged by the branch address hashed with 8 to 130 bits
 * of global history; the longest matching history predicts, a
 * misprediction allocates an entry with a longer history. Indirect jumps
 * and calls: a target cache indexed by address and history. Returns: a
 * 32-entry return stack. Direct jumps and calls are taken as predicted
 * (their target is in the instruction). Sizes are modest (about 8 KiB of
 * state); real predictors are larger, so this one errs on the side of
 * mispredicting. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/cycles_private.h"

#define BIMODAL_BITS 14
#define TAGGED 4
#define TABLE_BITS 11
#define TAG_BITS 9
#define HIST_MAX 256 /* bits of global history kept (a ring) */
#define INDIRECT_BITS 12
#define RAS_SIZE 32
#define U_RESET (1u << 18) /* branches between ageing the usefulness bits */

static const unsigned hist_len[TAGGED] = {8, 20, 50, 130};

struct folded {
	uint32_t value;
	unsigned width, len; /* folds len history bits into width bits */
};

struct entry {
	uint16_t tag;
	int8_t ctr; /* -4..3: taken when >= 0 */
	uint8_t u;  /* usefulness 0..3 */
};

struct bpred {
	uint8_t bimodal[1 << BIMODAL_BITS]; /* 2-bit counters: taken when >= 2 */
	struct entry table[TAGGED][1 << TABLE_BITS];
	uint8_t hist[HIST_MAX]; /* ring of outcomes, hist[pos] the newest */
	unsigned pos;
	struct folded idx[TAGGED], tag[TAGGED][2];
	uint64_t indirect[1 << INDIRECT_BITS];
	uint64_t ras[RAS_SIZE];
	unsigned ras_top; /* entries pushed, modulo wraps */
	unsigned count;
};

struct bpred *bpred_new(void)
{
	struct bpred *b = xcalloc(1, sizeof(*b));
	memset(b->bimodal, 1, sizeof(b->bimodal));
	for (unsigned t = 0; t < TAGGED; t++) {
		b->idx[t] = (struct folded){0, TABLE_BITS, hist_len[t]};
		b->tag[t][0] = (struct folded){0, TAG_BITS, hist_len[t]};
		b->tag[t][1] = (struct folded){0, TAG_BITS - 1, hist_len[t]};
	}
	return b;
}

void bpred_delete(struct bpred *b)
{
	free(b);
}

/* The folded history after bit new entered and the bit len old left. */
static void fold(struct folded *f, unsigned new_bit, unsigned old_bit)
{
	f->value = (f->value << 1) | new_bit;
	f->value ^= old_bit << (f->len % f->width);
	f->value ^= f->value >> f->width;
	f->value &= (1u << f->width) - 1;
}

static void push_history(struct bpred *b, int taken)
{
	b->pos = (b->pos + 1) % HIST_MAX;
	b->hist[b->pos] = (uint8_t)taken;
	for (unsigned t = 0; t < TAGGED; t++) {
		unsigned old = b->hist[(b->pos + HIST_MAX - hist_len[t]) % HIST_MAX];
		fold(&b->idx[t], (unsigned)taken, old);
		fold(&b->tag[t][0], (unsigned)taken, old);
		fold(&b->tag[t][1], (unsigned)taken, old);
	}
}

static unsigned index_of(const struct bpred *b, unsigned t, uint64_t pc)
{
	uint64_t h = pc ^ (pc >> TABLE_BITS) ^ (pc >> (2 * TABLE_BITS + t));
	return (unsigned)((h ^ b->idx[t].value) & ((1u << TABLE_BITS) - 1));
}

static uint16_t tag_of(const struct bpred *b, unsigned t, uint64_t pc)
{
	uint64_t h = pc ^ (pc >> 7) ^ b->tag[t][0].value ^ ((uint64_t)b->tag[t][1].value << 1);
	return (uint16_t)((h & ((1u << TAG_BITS) - 1)) | (1u << TAG_BITS)); /* 0: empty */
}

static void age(struct bpred *b)
{
	if (++b->count % U_RESET)
		return;
	for (unsigned t = 0; t < TAGGED; t++)
		for (unsigned i = 0; i < (1u << TABLE_BITS); i++)
			b->table[t][i].u >>= 1;
}

/* On a misprediction, an entry in one longer table whose usefulness is 0. */
static void allocate(struct bpred *b, int provider, uint64_t pc, int taken)
{
	int first = provider + 1;
	for (int t = first; t < TAGGED; t++) {
		struct entry *e = &b->table[t][index_of(b, (unsigned)t, pc)];
		if (e->u == 0) {
			e->tag = tag_of(b, (unsigned)t, pc);
			e->ctr = taken ? 0 : -1;
			return;
		}
	}
	for (int t = first; t < TAGGED; t++) {
		struct entry *e = &b->table[t][index_of(b, (unsigned)t, pc)];
		if (e->u)
			e->u--;
	}
}

static void counter(int8_t *c, int taken, int lo, int hi)
{
	if (taken && *c < hi)
		(*c)++;
	else if (!taken && *c > lo)
		(*c)--;
}

int bpred_conditional(struct bpred *b, uint64_t pc, int taken)
{
	int provider = -1, alt = -1;
	struct entry *pe = NULL;
	for (int t = TAGGED - 1; t >= 0; t--) {
		struct entry *e = &b->table[t][index_of(b, (unsigned)t, pc)];
		if (e->tag != tag_of(b, (unsigned)t, pc))
			continue;
		if (provider < 0) {
			provider = t;
			pe = e;
		} else if (alt < 0) {
			alt = t;
		}
	}
	uint8_t *bim = &b->bimodal[pc & ((1u << BIMODAL_BITS) - 1)];
	int bim_pred = *bim >= 2;
	int alt_pred = alt >= 0 ? b->table[alt][index_of(b, (unsigned)alt, pc)].ctr >= 0 : bim_pred;
	int pred = pe ? pe->ctr >= 0 : bim_pred;
	if (pe) {
		if (pred != alt_pred)
			pe->u = (uint8_t)(pred == taken ? (pe->u < 3 ? pe->u + 1 : 3)
							: (pe->u ? pe->u - 1 : 0));
		counter(&pe->ctr, taken, -4, 3);
	} else {
		int8_t c = (int8_t)*bim;
		counter(&c, taken, 0, 3);
		*bim = (uint8_t)c;
	}
	if (pred != taken && provider < TAGGED - 1)
		allocate(b, provider, pc, taken);
	age(b);
	push_history(b, taken);
	return pred != taken;
}

int bpred_indirect(struct bpred *b, uint64_t pc, uint64_t target)
{
	unsigned i = (unsigned)((pc ^ (pc >> INDIRECT_BITS) ^ b->idx[1].value) &
				((1u << INDIRECT_BITS) - 1));
	int wrong = b->indirect[i] != target;
	b->indirect[i] = target;
	return wrong;
}

void bpred_call(struct bpred *b, uint64_t return_addr)
{
	b->ras[b->ras_top++ % RAS_SIZE] = return_addr;
}

int bpred_return(struct bpred *b, uint64_t target)
{
	if (!b->ras_top)
		return 1;
	uint64_t predicted = b->ras[--b->ras_top % RAS_SIZE];
	return predicted != target;
}
