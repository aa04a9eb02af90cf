/* The TUI's data model: the engine's results kept per dynamic instruction,
 * summarised once so that every key of the browser costs little. */
#include "tui/tui_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* An open call instance while the events stream in. */
struct frame {
	uint64_t ret_sp; /* RSP at the matching ret: where the return address is */
	uint64_t entry;
	uint32_t first;
};

struct tui_model {
	struct engine *engine;
	struct tui_symbols sym;

	struct tui_insn *insns;
	size_t n_insns, cap_insns;
	uint32_t *deps;
	uint8_t *dep_units; /* what each edge carries: a unit, or TUI_DEP_MEMORY */
	size_t n_deps, cap_deps;
	const struct perpi_insn **statics;
	size_t n_statics;

	struct frame *frames;
	size_t n_frames, cap_frames;
	int call_pending; /* the next event is a callee's first instruction */
	struct tui_call *calls;
	uint64_t *call_entry; /* entry address per call, until functions are known */
	size_t n_calls, cap_calls;

	/* Summaries, filled by tui_model_finish */
	struct engine_totals totals;
	struct tui_function *functions;
	size_t n_functions;
	uint64_t max_step;
	struct tui_histogram histogram; /* whole run: classes ordered by step */
	uint32_t *by_step;    /* dynamic indices ordered by step, then index */
	uint32_t *path;
	size_t n_path;
	struct tui_line *lines;
	size_t n_lines;
	struct tui_histogram **function_hist; /* per function, all calls; NULL until used */
	struct tui_histogram **call_hist;     /* per call instance; allocated on first use */
	int finished;
};

static const char *const class_names[CLASS_COUNT] = {
	"load", "store", "int", "fp", "vec", "move", "branch", "other",
};

const char *tui_model_class_name(unsigned klass)
{
	return klass < CLASS_COUNT ? class_names[klass] : "?";
}

static void grow(void **array, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	*array = xrealloc(*array, n * size);
	*cap = n;
}

static void close_call(struct tui_model *m, uint32_t last)
{
	struct frame *f = &m->frames[--m->n_frames];
	grow((void **)&m->calls, &m->cap_calls, m->n_calls + 1, sizeof(*m->calls));
	m->call_entry = xrealloc(m->call_entry, m->cap_calls * sizeof(*m->call_entry));
	m->calls[m->n_calls] = (struct tui_call){f->first, last, TUI_NONE, TUI_NONE};
	m->call_entry[m->n_calls++] = f->entry;
}

/* Call instances for the per-function histograms, delimited as the engine
 * delimits them (DESIGN.md; ilp/engine.c): an instance opens at a callee's
 * first instruction (or an event flagged as a call or signal-handler
 * entry), keyed by its RSP, and closes with the ret executed at that RSP,
 * or when RSP rises above it (longjmp, unwinding). */
static void track_calls(struct tui_model *m, uint32_t index, const struct perpi_event *ev)
{
	if (!(ev->flags & EVENT_SIGNAL_ENTRY))
		while (m->n_frames && m->frames[m->n_frames - 1].ret_sp < ev->sp)
			close_call(m, index - 1);
	if (m->call_pending || (ev->flags & (EVENT_SIGNAL_ENTRY | EVENT_CALL_ENTRY))) {
		grow((void **)&m->frames, &m->cap_frames, m->n_frames + 1, sizeof(*m->frames));
		m->frames[m->n_frames++] = (struct frame){ev->sp, ev->insn->addr, index};
	}
	m->call_pending = ev->insn->control == CTRL_CALL;
	if ((ev->flags & EVENT_CALL_TARGET) && m->n_frames &&
	    m->frames[m->n_frames - 1].ret_sp == ev->sp) /* through a PLT stub */
		m->frames[m->n_frames - 1].entry = ev->insn->addr;
	if (ev->insn->control == CTRL_RET && m->n_frames &&
	    m->frames[m->n_frames - 1].ret_sp == ev->sp)
		close_call(m, index);
}

/* An instruction not counted (a syscall, or a class left out by --only)
 * takes no step: its outputs are ready when its inputs are. For the
 * critical path it stands for its own critical producer, so the path
 * links counted instructions at consecutive steps. */
static void add_producer(struct tui_model *m, struct tui_insn *rec, const struct engine_dep *dep)
{
	uint64_t producer = dep->producer;
	if (producer >= m->n_insns)
		return; /* not one of ours (before the region) */
	for (size_t k = rec->deps; k < m->n_deps; k++)
		if (m->deps[k] == producer)
			return; /* one edge per producer: the first thing it carries */
	size_t cap = m->cap_deps;
	grow((void **)&m->deps, &m->cap_deps, m->n_deps + 1, sizeof(*m->deps));
	if (m->cap_deps != cap)
		m->dep_units = xrealloc(m->dep_units, m->cap_deps);
	m->dep_units[m->n_deps] = dep->kind == DEP_MEMORY || dep->what >= TUI_DEP_MEMORY
					  ? TUI_DEP_MEMORY
					  : (uint8_t)dep->what;
	m->deps[m->n_deps++] = (uint32_t)producer;
	uint32_t p = m->insns[producer].step ? (uint32_t)producer : m->insns[producer].critical;
	if (p == TUI_NONE)
		return;
	uint32_t c = rec->critical;
	if (c == TUI_NONE || m->insns[p].step > m->insns[c].step)
		rec->critical = p;
}

static void observe(void *ctx, const struct engine_step_info *info)
{
	struct tui_model *m = ctx;
	if (info->index >= TUI_NONE - 1)
		return; /* refused in tui_model_finish */
	grow((void **)&m->insns, &m->cap_insns, info->index + 1, sizeof(*m->insns));
	while (m->n_insns < info->index) /* events the engine did not show us */
		m->insns[m->n_insns++] = (struct tui_insn){TUI_NONE, 0, TUI_NONE, m->n_deps};
	struct tui_insn *rec = &m->insns[m->n_insns];
	const struct perpi_insn *insn = info->ev->insn;
	*rec = (struct tui_insn){insn->id, (uint32_t)info->step, TUI_NONE, m->n_deps};
	if (info->step > m->max_step)
		m->max_step = info->step;
	for (size_t k = 0; k < info->n_deps; k++)
		add_producer(m, rec, &info->deps[k]);
	m->n_insns++;
	if (insn->id >= m->n_statics) {
		size_t n = insn->id + 1;
		m->statics = xrealloc(m->statics, n * sizeof(*m->statics));
		memset(m->statics + m->n_statics, 0, (n - m->n_statics) * sizeof(*m->statics));
		m->n_statics = n;
	}
	m->statics[insn->id] = insn;
	track_calls(m, (uint32_t)info->index, info->ev);
}

struct tui_model *tui_model_new(const struct engine_options *opt, const struct tui_symbols *sym)
{
	struct tui_model *m = xcalloc(1, sizeof(*m));
	m->engine = engine_new(opt);
	if (sym)
		m->sym = *sym;
	engine_add_observer(m->engine, observe, m, 1);
	return m;
}

void tui_model_delete(struct tui_model *m)
{
	if (!m)
		return;
	if (m->engine)
		engine_delete(m->engine);
	for (size_t i = 0; i < m->n_functions; i++)
		free(m->functions[i].name);
	free(m->functions);
	free(m->insns);
	free(m->deps);
	free(m->dep_units);
	free(m->statics);
	free(m->frames);
	free(m->calls);
	free(m->call_entry);
	free(m->histogram.step_start);
	free(m->histogram.klass);
	for (size_t i = 0; m->function_hist && i < m->n_functions; i++)
		tui_histogram_delete(m->function_hist[i]);
	for (size_t c = 0; m->call_hist && c < m->n_calls; c++)
		tui_histogram_delete(m->call_hist[c]);
	free(m->function_hist);
	free(m->call_hist);
	free(m->by_step);
	free(m->path);
	free(m->lines);
	free(m);
}

int tui_model_event(void *ctx, const struct perpi_event *ev)
{
	struct tui_model *m = ctx;
	return engine_event(m->engine, ev);
}

/* Counting sort of the instructions by step: the histogram and the graph
 * read steps as contiguous slices. */
static void order_by_step(struct tui_model *m)
{
	size_t steps = m->max_step + 2;
	m->histogram.steps = m->max_step;
	m->histogram.insns = m->n_insns;
	m->histogram.step_start = xcalloc(steps, sizeof(*m->histogram.step_start));
	for (size_t i = 0; i < m->n_insns; i++)
		m->histogram.step_start[m->insns[i].step + 1]++;
	for (size_t s = 1; s < steps; s++)
		m->histogram.step_start[s] += m->histogram.step_start[s - 1];
	uint32_t *next = xmalloc(steps * sizeof(*next));
	memcpy(next, m->histogram.step_start, steps * sizeof(*next));
	m->by_step = xmalloc((m->n_insns + 1) * sizeof(*m->by_step));
	m->histogram.klass = xmalloc(m->n_insns + 1);
	for (size_t i = 0; i < m->n_insns; i++) {
		uint32_t at = next[m->insns[i].step]++;
		m->by_step[at] = (uint32_t)i;
		const struct perpi_insn *insn = tui_model_static(m, m->insns[i].insn);
		m->histogram.klass[at] = insn && insn->klass < CLASS_COUNT ? insn->klass : CLASS_OTHER;
	}
	free(next);
}

static void follow_critical_path(struct tui_model *m)
{
	if (!m->max_step)
		return;
	m->path = xmalloc(m->max_step * sizeof(*m->path));
	uint32_t i = m->by_step[m->histogram.step_start[m->max_step]];
	size_t n = 0;
	while (i != TUI_NONE && n < m->max_step) {
		m->path[n++] = i;
		i = m->insns[i].critical;
	}
	for (size_t k = 0; k < n / 2; k++) { /* from step 1 up */
		uint32_t t = m->path[k];
		m->path[k] = m->path[n - 1 - k];
		m->path[n - 1 - k] = t;
	}
	m->n_path = n;
}

static int compare_lines(const void *a, const void *b)
{
	const struct tui_line *x = a, *y = b;
	if (x->file != y->file) {
		if (!x->file || !y->file)
			return x->file ? -1 : 1;
		int c = strcmp(x->file, y->file);
		if (c)
			return c;
	}
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (!x->file && x->addr != y->addr) /* no line: one entry per instruction */
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static int compare_line_counts(const void *a, const void *b)
{
	const struct tui_line *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return compare_lines(a, b);
}

/* Count the path per static instruction first (the path is C long, the
 * static instructions few), then ask for each one's line once. */
static void summarise_critical_lines(struct tui_model *m)
{
	uint64_t *per_insn = xcalloc(m->n_statics + 1, sizeof(*per_insn));
	for (size_t k = 0; k < m->n_path; k++)
		if (m->insns[m->path[k]].insn < m->n_statics)
			per_insn[m->insns[m->path[k]].insn]++;
	struct tui_line *all = xcalloc(m->n_statics + 1, sizeof(*all));
	size_t n_all = 0;
	for (size_t id = 0; id < m->n_statics; id++) {
		const struct perpi_insn *insn = m->statics[id];
		if (!per_insn[id] || !insn)
			continue;
		struct tui_line *l = &all[n_all++];
		l->addr = insn->addr;
		l->count = per_insn[id];
		if (!m->sym.line || m->sym.line(m->sym.ctx, l->addr, &l->file, &l->line))
			l->file = NULL, l->line = 0;
	}
	free(per_insn);
	qsort(all, n_all, sizeof(*all), compare_lines);
	size_t n = 0;
	for (size_t k = 0; k < n_all; k++) {
		if (n && !compare_lines(&all[n - 1], &all[k])) {
			all[n - 1].count += all[k].count;
			if (all[k].addr < all[n - 1].addr)
				all[n - 1].addr = all[k].addr;
		} else {
			all[n++] = all[k];
		}
	}
	qsort(all, n, sizeof(*all), compare_line_counts);
	m->lines = all;
	m->n_lines = n;
}

static int compare_entries(const void *a, const void *b)
{
	const struct tui_function *x = a, *y = b;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static const char *function_name(const struct tui_model *m, uint64_t entry)
{
	return m->sym.function ? m->sym.function(m->sym.ctx, entry) : NULL;
}

/* The engine's per-function figures, named, each linked to its call
 * instances (kept in the order they started). */
static void collect_functions(struct tui_model *m)
{
	const struct engine_function *ef;
	size_t n = engine_functions(m->engine, &ef);
	m->functions = xcalloc(n + 1, sizeof(*m->functions));
	for (size_t i = 0; i < n; i++) {
		struct tui_function *f = &m->functions[i];
		const char *name = function_name(m, ef[i].entry);
		f->name = name ? xstrdup(name) : xasprintf("0x%" PRIx64, ef[i].entry);
		f->entry = ef[i].entry;
		f->insns = ef[i].insns;
		f->steps = ef[i].steps;
		f->calls = ef[i].calls;
		f->ilp = f->steps ? (double)f->insns / (double)f->steps : 0;
		f->first_call = TUI_NONE;
	}
	qsort(m->functions, n, sizeof(*m->functions), compare_entries);
	m->n_functions = n;
	uint32_t *last = xmalloc((n + 1) * sizeof(*last));
	for (size_t c = 0; c < m->n_calls; c++) {
		struct tui_function key = {.entry = m->call_entry[c]};
		struct tui_function *f =
			bsearch(&key, m->functions, n, sizeof(*m->functions), compare_entries);
		if (!f)
			continue;
		uint32_t fi = (uint32_t)(f - m->functions);
		m->calls[c].function = fi;
		if (f->first_call == TUI_NONE)
			f->first_call = (uint32_t)c;
		else
			m->calls[last[fi]].next = (uint32_t)c;
		last[fi] = (uint32_t)c;
	}
	free(last);
}

/* Instructions in all the calls of function f (nested calls of a recursive
 * function count once per level, as its histogram overlays them). */
static uint64_t function_span(const struct tui_model *m, uint32_t f)
{
	uint64_t n = 0;
	for (uint32_t c = m->functions[f].first_call; c != TUI_NONE; c = m->calls[c].next)
		n += m->calls[c].last - m->calls[c].first + 1;
	return n;
}

static const struct tui_model *span_model;
static int by_span(const void *a, const void *b)
{
	uint64_t x = function_span(span_model, *(const uint32_t *)a);
	uint64_t y = function_span(span_model, *(const uint32_t *)b);
	return (x < y) - (x > y);
}

/* The histograms that would take a long pass on opening (a pass costs about
 * 10 ms per 10^6 instructions), computed once now, largest first, within
 * a budget of twice the run's instructions. */
static void precompute_histograms(struct tui_model *m)
{
	m->function_hist = xcalloc(m->n_functions + 1, sizeof(*m->function_hist));
	uint32_t *order = xmalloc((m->n_functions + 1) * sizeof(*order));
	size_t n = 0;
	for (uint32_t f = 0; f < m->n_functions; f++)
		if (function_span(m, f) >= TUI_PRECOMPUTE_INSNS)
			order[n++] = f;
	span_model = m;
	qsort(order, n, sizeof(*order), by_span);
	uint64_t budget = 2 * (uint64_t)m->n_insns;
	for (size_t k = 0; k < n; k++) {
		uint64_t span = function_span(m, order[k]);
		if (span > budget)
			continue;
		budget -= span;
		m->function_hist[order[k]] = tui_model_function_histogram(m, order[k], TUI_NONE);
	}
	free(order);
}

const struct tui_histogram *tui_model_cached_histogram(struct tui_model *m, uint32_t function,
						       uint32_t call)
{
	if (function >= m->n_functions)
		return NULL;
	uint32_t only = m->functions[function].first_call;
	if (call != TUI_NONE && (call != only || m->calls[only].next != TUI_NONE)) {
		if (call >= m->n_calls)
			return NULL;
		if (!m->call_hist)
			m->call_hist = xcalloc(m->n_calls + 1, sizeof(*m->call_hist));
		if (!m->call_hist[call])
			m->call_hist[call] = tui_model_function_histogram(m, function, call);
		return m->call_hist[call];
	}
	if (!m->function_hist) /* before tui_model_finish */
		return NULL;
	if (!m->function_hist[function])
		m->function_hist[function] = tui_model_function_histogram(m, function, TUI_NONE);
	return m->function_hist[function];
}

static int compare_calls(const void *a, const void *b)
{
	const struct tui_call *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

int tui_model_finish(struct tui_model *m)
{
	if (m->finished)
		return 0;
	m->finished = 1;
	engine_finish(m->engine);
	engine_totals(m->engine, &m->totals);
	if (m->totals.insns >= TUI_NONE - 1 || m->n_deps >= TUI_NONE)
		return perpi_set_error("the run has %" PRIu64 " instructions; perpi tui browses "
				       "at most %u", m->totals.insns, TUI_NONE - 2);
	while (m->n_frames)
		close_call(m, m->n_insns ? (uint32_t)m->n_insns - 1 : 0);
	/* Sort calls by start (with their entries) so a function's calls are in order. */
	struct {
		struct tui_call call;
		uint64_t entry;
	} *tmp = xmalloc((m->n_calls + 1) * sizeof(*tmp));
	for (size_t c = 0; c < m->n_calls; c++)
		tmp[c].call = m->calls[c], tmp[c].entry = m->call_entry[c];
	qsort(tmp, m->n_calls, sizeof(*tmp), compare_calls);
	for (size_t c = 0; c < m->n_calls; c++)
		m->calls[c] = tmp[c].call, m->call_entry[c] = tmp[c].entry;
	free(tmp);
	collect_functions(m);
	order_by_step(m);
	follow_critical_path(m);
	summarise_critical_lines(m);
	precompute_histograms(m);
	return 0;
}

void tui_model_totals(const struct tui_model *m, struct engine_totals *out)
{
	*out = m->totals;
}

size_t tui_model_functions(const struct tui_model *m, const struct tui_function **out)
{
	*out = m->functions;
	return m->n_functions;
}

const struct tui_call *tui_model_call(const struct tui_model *m, uint32_t index)
{
	return index < m->n_calls ? &m->calls[index] : NULL;
}

size_t tui_model_insn_count(const struct tui_model *m)
{
	return m->n_insns;
}

const struct tui_insn *tui_model_insn(const struct tui_model *m, uint32_t index)
{
	return index < m->n_insns ? &m->insns[index] : NULL;
}

const struct perpi_insn *tui_model_static(const struct tui_model *m, uint32_t id)
{
	return id < m->n_statics ? m->statics[id] : NULL;
}

size_t tui_model_producers(const struct tui_model *m, uint32_t index, const uint32_t **out)
{
	if (index >= m->n_insns)
		return 0;
	size_t end = index + 1 < m->n_insns ? m->insns[index + 1].deps : m->n_deps;
	*out = m->deps + m->insns[index].deps;
	return end - m->insns[index].deps;
}

unsigned tui_model_producer_unit(const struct tui_model *m, uint32_t index, size_t k)
{
	const uint32_t *p;
	if (k >= tui_model_producers(m, index, &p))
		return TUI_DEP_MEMORY;
	return m->dep_units[m->insns[index].deps + k];
}

size_t tui_model_at_step(const struct tui_model *m, uint64_t step, const uint32_t **out)
{
	if (step > m->max_step || !m->histogram.step_start)
		return 0;
	*out = m->by_step + m->histogram.step_start[step];
	return m->histogram.step_start[step + 1] - m->histogram.step_start[step];
}

const struct tui_histogram *tui_model_histogram(const struct tui_model *m)
{
	return &m->histogram;
}

void tui_model_bin(const struct tui_model *m, uint64_t from, uint64_t to, struct tui_bin *out)
{
	tui_histogram_bin(&m->histogram, from, to, out);
}

/* A producer before first is ready at step 0, so an instruction's step is
 * 1 + the highest step of its producers inside the range (DESIGN.md,
 * per-function analysis). The producers are the engine's, so this is the
 * engine's algorithm restricted to the range, not a second semantics. */
uint64_t tui_model_isolated_steps(const struct tui_model *m, uint32_t first, uint32_t last, uint32_t *step)
{
	uint64_t top = 0;
	const struct tui_insn *insns = m->insns;
	for (uint32_t i = first; i <= last && i < m->n_insns; i++) {
		size_t end = i + 1 < m->n_insns ? insns[i + 1].deps : m->n_deps;
		uint32_t c = 0;
		for (size_t k = insns[i].deps; k < end; k++) {
			uint32_t p = m->deps[k];
			if (p >= first && step[p - first] > c)
				c = step[p - first];
		}
		c += insns[i].step != 0;
		step[i - first] = c;
		if (c > top)
			top = c;
	}
	return top;
}

/* The class of each static instruction, for loops over many instructions. */
static uint8_t *static_classes(const struct tui_model *m)
{
	uint8_t *k = xmalloc(m->n_statics + 1);
	for (size_t id = 0; id < m->n_statics; id++)
		k[id] = m->statics[id] && m->statics[id]->klass < CLASS_COUNT ? m->statics[id]->klass
									       : CLASS_OTHER;
	return k;
}

static uint32_t next_call(const struct tui_model *m, uint32_t c, uint32_t only)
{
	return only != TUI_NONE ? TUI_NONE : m->calls[c].next;
}

/* A counting sort by isolated step: the steps of all the calls' counted
 * instructions first (kept in one array), then their classes in place. */
struct tui_histogram *tui_model_function_histogram(const struct tui_model *m, uint32_t function,
						  uint32_t call)
{
	struct tui_histogram *h = xcalloc(1, sizeof(*h));
	uint32_t first = call != TUI_NONE ? call
			 : function < m->n_functions ? m->functions[function].first_call
						     : TUI_NONE;
	size_t total = 0, cap = 2;
	for (uint32_t c = first; c != TUI_NONE; c = next_call(m, c, call))
		total += m->calls[c].last - m->calls[c].first + 1;
	uint32_t *step = xmalloc((total + 1) * sizeof(*step));
	uint32_t *count = xcalloc(cap, sizeof(*count));
	size_t at = 0;
	for (uint32_t c = first; c != TUI_NONE; c = next_call(m, c, call)) {
		const struct tui_call *mc = &m->calls[c];
		uint64_t top = tui_model_isolated_steps(m, mc->first, mc->last, step + at);
		if (top + 2 > cap) {
			count = xrealloc(count, (top + 2) * sizeof(*count));
			memset(count + cap, 0, (top + 2 - cap) * sizeof(*count));
			cap = top + 2;
		}
		for (uint32_t i = mc->first; i <= mc->last; i++, at++)
			if (m->insns[i].step)
				count[step[at] + 1]++;
		if (top > h->steps)
			h->steps = top;
	}
	h->step_start = count; /* prefix sums: where each step's instructions start */
	for (size_t s = 1; s < cap; s++)
		count[s] += count[s - 1];
	h->insns = count[cap - 1];
	uint32_t *next = xmalloc(cap * sizeof(*next));
	memcpy(next, count, cap * sizeof(*next));
	uint8_t *klass = static_classes(m);
	h->klass = xmalloc(h->insns + 1);
	at = 0;
	for (uint32_t c = first; c != TUI_NONE; c = next_call(m, c, call))
		for (uint32_t i = m->calls[c].first; i <= m->calls[c].last; i++, at++)
			if (m->insns[i].step)
				h->klass[next[step[at]]++] = klass[m->insns[i].insn];
	free(klass);
	free(next);
	free(step);
	return h;
}

void tui_histogram_delete(struct tui_histogram *h)
{
	if (!h)
		return;
	free(h->step_start);
	free(h->klass);
	free(h);
}

void tui_histogram_bin(const struct tui_histogram *h, uint64_t from, uint64_t to,
		       struct tui_bin *out)
{
	memset(out, 0, sizeof(*out));
	out->first_step = from;
	out->last_step = to;
	if (!h->step_start || from > h->steps || from > to)
		return;
	if (to > h->steps)
		to = h->steps;
	for (uint32_t k = h->step_start[from]; k < h->step_start[to + 1]; k++)
		out->count[h->klass[k]]++;
	out->total = h->step_start[to + 1] - h->step_start[from];
}

const struct tui_symbols *tui_model_symbols(const struct tui_model *m)
{
	return &m->sym;
}

size_t tui_model_critical_path(const struct tui_model *m, const uint32_t **out)
{
	*out = m->path;
	return m->n_path;
}

size_t tui_model_critical_lines(const struct tui_model *m, const struct tui_line **out)
{
	*out = m->lines;
	return m->n_lines;
}

size_t tui_model_consumers(const struct tui_model *m, uint32_t index, uint64_t max_step, uint32_t **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	if (index >= m->n_insns)
		return 0;
	if (max_step > m->max_step)
		max_step = m->max_step;
	for (uint64_t s = m->insns[index].step + 1; s <= max_step; s++) {
		const uint32_t *at;
		size_t n_at = tui_model_at_step(m, s, &at);
		for (size_t j = 0; j < n_at; j++) {
			const uint32_t *p;
			size_t np = tui_model_producers(m, at[j], &p);
			for (size_t k = 0; k < np; k++)
				if (p[k] == index) {
					grow((void **)out, &cap, n + 1, sizeof(**out));
					(*out)[n++] = at[j];
					break;
				}
		}
	}
	return n;
}
