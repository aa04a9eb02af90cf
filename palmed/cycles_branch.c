/* The simulated branch predictor of the cycle model.
 *
 * Conditional branches: a TAGE predictor (Seznec and Michaud, "A case for
 * (partially) TAgged GEometric history length branch prediction", JILP
 * 2006): a bimodal table and 8 tables tagged by the branch address hashed
 * with 4 to 200 bits of global history (directions, and two bits of each
 * indirect branch's target); the longest matching history predicts, unless
 * its entry is new and weak, when the next longest does (use-alt-on-new);
 * a misprediction allocates an entry with a longer history.
 * Indirect jumps and calls: four target tables, by address, and by
 * address hashed with the targets of the last 8, 16 and 32 taken branches
 * (a path history: an interpreter's dispatch follows the bytecode's path,
 * about three taken branches a bytecode op);
 * the longest matching one predicts. Returns: a 32-entry return stack.
 * Direct jumps and calls are taken as predicted. 16K bimodal counters,
 * 16K tagged entries and 8K targets: real predictors are larger, so this
 * one errs on the side of mispredicting. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/cycles_private.h"

#define BIMODAL_BITS 14
#define TAGGED 8
#define TABLE_BITS 11
#define TAG_BITS 11
#define HIST_MAX 256 /* bits of global history kept (a ring) */
#define IND_TABLES 4
#define PATH_WORDS 4 /* of 8 taken targets each */
#define IND_BITS 11
#define RAS_SIZE 32
#define U_RESET (1u << 18) /* branches between ageing the usefulness bits */

static const unsigned hist_len[TAGGED] = {4, 7, 12, 20, 34, 57, 96, 200};
static const unsigned path_len[IND_TABLES] = {0, 8, 16, 32}; /* taken branches */

struct folded {
	uint32_t value;
	unsigned width, len; /* folds len history bits into width bits */
};

struct entry {
	uint16_t tag; /* 0: empty */
	int8_t ctr;   /* -4..3: taken when >= 0 */
	uint8_t u;    /* usefulness 0..3 */
};

struct target {
	uint16_t tag;
	uint8_t conf; /* 0..3 */
	uint64_t target;
};

struct bpred {
	uint8_t bimodal[1 << BIMODAL_BITS]; /* 2-bit counters: taken when >= 2 */
	struct entry table[TAGGED][1 << TABLE_BITS];
	uint8_t hist[HIST_MAX]; /* ring of outcomes, hist[pos] the newest */
	unsigned pos;
	struct folded idx[TAGGED], tag[TAGGED][2];
	int use_alt; /* -8..7: >= 0 trusts the alternate over a new weak entry */
	struct target ind[IND_TABLES][1 << IND_BITS];
	uint64_t path[PATH_WORDS]; /* the last 8 PATH_WORDS taken targets, 8 bits each */
	uint64_t ras[RAS_SIZE];
	unsigned ras_top; /* entries pushed, modulo wraps */
	unsigned count;
	uint32_t rng;
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
	b->rng = 0x2545F491u;
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

static void push_history(struct bpred *b, unsigned bit)
{
	b->pos = (b->pos + 1) % HIST_MAX;
	b->hist[b->pos] = (uint8_t)bit;
	for (unsigned t = 0; t < TAGGED; t++) {
		unsigned old = b->hist[(b->pos + HIST_MAX - hist_len[t]) % HIST_MAX];
		fold(&b->idx[t], bit, old);
		fold(&b->tag[t][0], bit, old);
		fold(&b->tag[t][1], bit, old);
	}
}

static unsigned index_of(const struct bpred *b, unsigned t, uint64_t pc)
{
	uint64_t h = pc ^ (pc >> TABLE_BITS) ^ (pc >> (2 * TABLE_BITS + t));
	return (unsigned)((h ^ b->idx[t].value ^ (b->path[0] & 0xf) * t) &
			  ((1u << TABLE_BITS) - 1));
}

static uint16_t tag_of(const struct bpred *b, unsigned t, uint64_t pc)
{
	uint64_t h = pc ^ (pc >> 7) ^ b->tag[t][0].value ^ ((uint64_t)b->tag[t][1].value << 1);
	return (uint16_t)((h & ((1u << TAG_BITS) - 1)) | (1u << TAG_BITS)); /* 0: empty */
}

static uint32_t next_random(struct bpred *b)
{
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 17;
	b->rng ^= b->rng << 5;
	return b->rng;
}

static void age(struct bpred *b)
{
	if (++b->count % U_RESET)
		return;
	for (unsigned t = 0; t < TAGGED; t++)
		for (unsigned i = 0; i < (1u << TABLE_BITS); i++)
			b->table[t][i].u >>= 1;
}

/* On a misprediction, an entry in a longer table whose usefulness is 0
 * (starting one or two tables above the provider, at random, so that
 * entries spread over the lengths); none free: they all age a little. */
static void allocate(struct bpred *b, int provider, uint64_t pc, int taken)
{
	int first = provider + 1 + (int)(next_random(b) & 1);
	if (first >= TAGGED)
		first = provider + 1;
	for (int t = first; t < TAGGED; t++) {
		struct entry *e = &b->table[t][index_of(b, (unsigned)t, pc)];
		if (e->u == 0) {
			e->tag = tag_of(b, (unsigned)t, pc);
			e->ctr = taken ? 0 : -1;
			return;
		}
	}
	for (int t = provider + 1; t < TAGGED; t++) {
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

/* A taken branch's target enters the path history. */
static void push_path(struct bpred *b, uint64_t target)
{
	for (unsigned w = PATH_WORDS - 1; w > 0; w--)
		b->path[w] = (b->path[w] << 8) | (b->path[w - 1] >> 56);
	b->path[0] = (b->path[0] << 8) ^ ((target >> 2) & 0xff) ^ ((target >> 10) & 0xff);
}

/* The provider's prediction, or the alternate's while the provider's
 * entry is new and weak and such entries have been wrong more often. */
struct lookup {
	int provider, alt;
	struct entry *pe;
	int provider_pred, alt_pred, weak_new;
};

static int predict(struct bpred *b, uint64_t pc, struct lookup *l)
{
	l->provider = l->alt = -1;
	l->pe = NULL;
	for (int t = TAGGED - 1; t >= 0; t--) {
		struct entry *e = &b->table[t][index_of(b, (unsigned)t, pc)];
		if (e->tag != tag_of(b, (unsigned)t, pc))
			continue;
		if (l->provider < 0) {
			l->provider = t;
			l->pe = e;
		} else if (l->alt < 0) {
			l->alt = t;
		}
	}
	int bim = b->bimodal[pc & ((1u << BIMODAL_BITS) - 1)] >= 2;
	l->alt_pred =
	    l->alt >= 0 ? b->table[l->alt][index_of(b, (unsigned)l->alt, pc)].ctr >= 0 : bim;
	if (!l->pe)
		return l->alt_pred;
	l->provider_pred = l->pe->ctr >= 0;
	l->weak_new = (l->pe->ctr == 0 || l->pe->ctr == -1) && l->pe->u == 0;
	return l->weak_new && b->use_alt >= 0 ? l->alt_pred : l->provider_pred;
}

int bpred_conditional(struct bpred *b, uint64_t pc, int taken, uint64_t target)
{
	struct lookup l;
	int pred = predict(b, pc, &l);
	if (l.pe) {
		if (l.weak_new && l.provider_pred != l.alt_pred) {
			int8_t u = (int8_t)b->use_alt;
			counter(&u, l.alt_pred == taken, -8, 7);
			b->use_alt = u;
		}
		if (l.provider_pred != l.alt_pred)
			l.pe->u =
			    (uint8_t)(l.provider_pred == taken ? (l.pe->u < 3 ? l.pe->u + 1 : 3)
							       : (l.pe->u ? l.pe->u - 1 : 0));
		counter(&l.pe->ctr, taken, -4, 3);
	} else {
		uint8_t *bim = &b->bimodal[pc & ((1u << BIMODAL_BITS) - 1)];
		int8_t c = (int8_t)*bim;
		counter(&c, taken, 0, 3);
		*bim = (uint8_t)c;
	}
	if (pred != taken && l.provider < TAGGED - 1)
		allocate(b, l.provider, pc, taken);
	age(b);
	push_history(b, (unsigned)taken);
	if (taken)
		push_path(b, target);
	return pred != taken;
}

/* splitmix64's finaliser: every bit of x reaches every bit of the result */
static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static unsigned target_index(const struct bpred *b, unsigned t, uint64_t pc, uint16_t *tag)
{
	uint64_t h = pc ^ (pc >> IND_BITS);
	for (unsigned w = 0; w < path_len[t] / 8 && w < PATH_WORDS; w++)
		h ^= mix(b->path[w] ^ 0x9E3779B97F4A7C15ull * w);
	*tag = (uint16_t)(((h >> IND_BITS) & 0x7fff) | 0x8000);
	return (unsigned)(h & ((1u << IND_BITS) - 1));
}

int bpred_indirect(struct bpred *b, uint64_t pc, uint64_t target)
{
	struct target *e[IND_TABLES];
	uint16_t tags[IND_TABLES];
	int provider = 0;
	for (unsigned t = 0; t < IND_TABLES; t++) {
		e[t] = &b->ind[t][target_index(b, t, pc, &tags[t])];
		if (t && e[t]->tag == tags[t])
			provider = (int)t;
	}
	struct target *p = e[provider];
	int wrong = p->target != target;
	if (!wrong && p->conf < 3)
		p->conf++;
	else if (wrong && p->conf)
		p->conf--;
	else if (wrong)
		p->target = target;
	for (unsigned t = (unsigned)provider + 1; wrong && t < IND_TABLES; t++)
		*e[t] = (struct target){tags[t], 0, target};
	push_history(b, (unsigned)(target >> 2) & 1);
	push_history(b, (unsigned)(target >> 3) & 1);
	push_path(b, target);
	return wrong;
}

void bpred_taken(struct bpred *b, uint64_t target)
{
	push_path(b, target);
}

void bpred_call(struct bpred *b, uint64_t return_addr)
{
	b->ras[b->ras_top++ % RAS_SIZE] = return_addr;
}

int bpred_return(struct bpred *b, uint64_t target)
{
	push_path(b, target);
	if (!b->ras_top)
		return 1;
	uint64_t predicted = b->ras[--b->ras_top % RAS_SIZE];
	return predicted != target;
}
