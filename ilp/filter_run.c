/* The analysis pipeline: events (from a trace reader or the tracer) through
 * the call-instance filter into one engine per analysed region; the
 * engine's steps, renumbered into the run's sequence and cut to the step
 * range, go to the observers. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/filter.h"

struct filter {
	const struct filter_options *o;
	const struct filter_observer *obs;
	size_t n_obs;
	int want_deps;
	struct insn_namer namer;    /* for --function's entries */
	struct engine *engine;	    /* the open region's, or NULL */
	uint64_t step_offset;	    /* steps of the regions closed before */
	uint64_t index_offset, fed; /* events fed to closed regions / to this one */
	/* --function: call instance tracking (matched by stack pointer) */
	int after_call, in_instance, selected;
	uint64_t entry_sp;
	struct filter_result *res;
	uint64_t range_steps_seen; /* highest step inside --steps */
	struct engine_dep *deps;   /* scratch for renumbered dependencies */
	size_t cap_deps;
};

static void forward(void *ctx, const struct engine_step_info *info)
{
	struct filter *p = ctx;
	/* Free instructions (--only, system calls) have step 0: they go to
	 * the observers too, as links of dependency chains, with no step. */
	uint64_t step = info->step ? info->step + p->step_offset : 0;
	if (step && (step < p->o->step_first || step > p->o->step_last))
		return;
	struct filter_result *r = p->res;
	if (step && (p->o->step_first || p->o->step_last != UINT64_MAX)) {
		r->totals.insns++;
		r->totals.class_insns[info->ev->insn->klass % CLASS_COUNT]++;
		if (step > p->range_steps_seen)
			p->range_steps_seen = step;
	}
	if (info->n_deps > p->cap_deps) {
		p->cap_deps = info->n_deps * 2;
		p->deps = xrealloc(p->deps, p->cap_deps * sizeof(*p->deps));
	}
	for (size_t i = 0; i < info->n_deps; i++) {
		p->deps[i] = info->deps[i];
		p->deps[i].producer += p->index_offset;
	}
	struct engine_step_info out = {info->index + p->index_offset, step, info->ev, info->n_deps,
				       p->deps};
	for (size_t i = 0; i < p->n_obs; i++)
		p->obs[i].fn(p->obs[i].ctx, &out);
}

static void open_region(struct filter *p)
{
	p->engine = engine_new(&p->o->engine);
	/* Observing costs the engine time: only when someone looks. */
	if (p->n_obs || p->o->step_first || p->o->step_last != UINT64_MAX)
		engine_add_observer(p->engine, forward, p, p->want_deps);
	p->fed = 0;
}

static void merge_functions(struct filter_result *r, const struct engine_function *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < r->n_functions && r->functions[k].entry != f[i].entry)
			k++;
		if (k == r->n_functions) {
			r->functions = xrealloc(r->functions, (k + 1) * sizeof(*r->functions));
			memset(&r->functions[k], 0, sizeof(r->functions[k]));
			r->functions[k].entry = f[i].entry;
			r->n_functions++;
		}
		r->functions[k].insns += f[i].insns;
		r->functions[k].steps += f[i].steps;
		r->functions[k].calls += f[i].calls;
	}
}

static void close_region(struct filter *p)
{
	struct engine_totals t;
	const struct engine_function *f;
	struct filter_result *r = p->res;
	engine_finish(p->engine);
	engine_totals(p->engine, &t);
	size_t n = engine_functions(p->engine, &f);
	if (p->o->function && r->n_functions + n > 0)
		merge_functions(r, f, n);
	else if (n) {
		r->functions = xmalloc(n * sizeof(*f));
		memcpy(r->functions, f, n * sizeof(*f));
		r->n_functions = n;
	}
	r->run_steps += t.steps;
	if (!p->o->step_first && p->o->step_last == UINT64_MAX) {
		r->totals.insns += t.insns;
		for (unsigned k = 0; k < CLASS_COUNT; k++)
			r->totals.class_insns[k] += t.class_insns[k];
	}
	r->totals.unknown += t.unknown;
	r->totals.syscalls += t.syscalls;
	p->step_offset += t.steps;
	p->index_offset += p->fed;
	if (p->o->function)
		engine_delete(p->engine);
	else
		r->engine = p->engine; /* the whole run's: report_text prints it */
	p->engine = NULL;
}

static int is_entry_of(struct filter *p, const struct perpi_insn *insn)
{
	uint64_t off = 0;
	const char *name = p->namer.function ? p->namer.function(p->namer.ctx, insn, &off) : NULL;
	const char *sym = p->o->function;
	if (!name || off)
		return 0;
	/* "strlen" names "strlen@libc.so.6" too */
	size_t n = strlen(sym);
	if (!strncmp(name, sym, n) && (name[n] == 0 || (name[n] == '@' && !strchr(sym, '@'))))
		return 1;
	/* A call through a PLT stub ("puts@plt", "puts@plt@libc.so.6") is a
	 * call of its target, as the report's rows count it ("puts@libc.so.6"). */
	size_t base = strcspn(sym, "@");
	return !strncmp(name, sym, base) && !strncmp(name + base, "@plt", 4) &&
	       (name[base + 4] == 0 || name[base + 4] == '@');
}

/* --function: feeds only the events of SYM's call instances, an engine per
 * instance. An instance runs from the callee's first instruction to the
 * ret that pops its return address (same stack pointer), or until the
 * stack is unwound past it (longjmp). */
static int instance_event(void *ctx, const struct perpi_event *ev)
{
	struct filter *p = ctx;
	int after_call = p->after_call;
	p->after_call = ev->insn->control == CTRL_CALL;
	if (p->in_instance && ev->sp > p->entry_sp) {
		p->in_instance = 0;
		if (p->engine)
			close_region(p);
	}
	if (!p->in_instance) {
		if (!(after_call || ev->flags & EVENT_CALL_ENTRY) || !is_entry_of(p, ev->insn))
			return 0;
		p->in_instance = 1;
		p->entry_sp = ev->sp;
		p->res->instances++;
		p->selected = !p->o->call || p->o->call == p->res->instances;
		if (p->selected)
			open_region(p);
	}
	if (p->engine) {
		engine_event(p->engine, ev);
		p->fed++;
	}
	if (ev->insn->control == CTRL_RET && ev->sp == p->entry_sp) {
		p->in_instance = 0;
		if (p->engine)
			close_region(p);
	}
	return 0;
}

static int whole_event(void *ctx, const struct perpi_event *ev)
{
	struct filter *p = ctx;
	p->fed++;
	return engine_event(p->engine, ev);
}

static int check_result(struct filter *p)
{
	const struct filter_options *o = p->o;
	struct filter_result *r = p->res;
	if (o->function && !r->instances)
		return perpi_set_error("--function %s: never called in the analysed run",
				       o->function);
	if (o->call && o->call > r->instances)
		return perpi_set_error(
		    "--call %llu: %s has %llu call instance%s", (unsigned long long)o->call,
		    o->function, (unsigned long long)r->instances, r->instances == 1 ? "" : "s");
	if (o->step_first || o->step_last != UINT64_MAX) {
		if (o->step_first > r->run_steps)
			return perpi_set_error("--steps: empty step range: it starts at step %llu, "
					       "the analysed run has %llu steps",
					       (unsigned long long)o->step_first,
					       (unsigned long long)r->run_steps);
		uint64_t last = o->step_last < r->run_steps ? o->step_last : r->run_steps;
		r->totals.steps = last - (o->step_first ? o->step_first : 1) + 1;
	} else {
		r->totals.steps = r->run_steps;
	}
	return 0;
}

struct filter *filter_new(const struct filter_options *o, const struct filter_observer *obs,
			  size_t n_obs, const struct insn_namer *namer, struct filter_result *out)
{
	memset(out, 0, sizeof(*out));
	struct filter *p = xcalloc(1, sizeof(*p));
	*p = (struct filter){.o = o, .obs = obs, .n_obs = n_obs, .res = out};
	if (namer)
		p->namer = *namer;
	for (size_t i = 0; i < n_obs; i++)
		p->want_deps |= obs[i].want_deps;
	if (!o->function)
		open_region(p);
	return p;
}

int filter_event(void *filter, const struct perpi_event *ev)
{
	struct filter *p = filter;
	return p->o->function ? instance_event(p, ev) : whole_event(p, ev);
}

int filter_finish(struct filter *p)
{
	int rc = 0;
	if (p->o->call && !p->o->function)
		rc = perpi_set_error("--call N needs --function SYM");
	if (p->engine)
		close_region(p);
	if (rc == 0)
		rc = check_result(p);
	free(p->deps);
	free(p);
	return rc;
}

int filter_run(const struct filter_options *o, const struct filter_observer *obs, size_t n_obs,
	       struct filter_result *out, struct trace_reader **reader)
{
	*reader = trace_reader_open(o->input);
	if (!*reader) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	struct insn_namer namer = filter_trace_namer(*reader);
	struct filter *p = filter_new(o, obs, n_obs, &namer, out);
	int rc = trace_reader_replay(*reader, filter_event, p);
	if (filter_finish(p) < 0 && rc >= 0) {
		rc = -1;
		if (o->function && !out->instances)
			perpi_set_error(
			    trace_reader_has_function(*reader, o->function)
				? "--function %s: %s never called it in the traced region"
				: "--function %s: no function of that name in %s "
				  "('perpi report -i %s' lists the functions)",
			    o->function, o->input, o->input);
	}
	if (rc < 0) {
		filter_result_done(out);
		trace_reader_close(*reader);
		*reader = NULL;
		return -1;
	}
	if (trace_reader_end(*reader))
		out->end = *trace_reader_end(*reader);
	out->n_meta = trace_reader_meta_all(*reader, &out->meta);
	return 0;
}

void filter_result_done(struct filter_result *res)
{
	if (res->engine)
		engine_delete(res->engine);
	res->engine = NULL;
	free(res->functions);
	res->functions = NULL;
	res->n_functions = 0;
}
