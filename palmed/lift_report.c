/* The Palmed resource bound in perpi's reports: see lift_report.h. */
#include "palmed/lift_report.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/trace_file.h"

int lift_report_new(const char *model_path, struct lift_report **out)
{
	struct lift_report *lr = xcalloc(1, sizeof(*lr));
	lr->model_path = model_path ? xstrdup(model_path) : model_default_path();
	FILE *f = model_path ? NULL : fopen(lr->model_path, "r");
	if (model_path || f) {
		if (f)
			fclose(f);
		if (model_load(lr->model_path, &lr->model) < 0) {
			if (model_path) {
				lift_report_delete(lr);
				*out = NULL;
				return -1;
			}
			/* A damaged default model must not stop the report. */
			perpi_warn("ignoring the default model: %s", perpi_error());
			lr->model = NULL;
		} else {
			model_check_cpu(lr->model);
		}
	} else if (errno != ENOENT) {
		perpi_warn("cannot read the model %s: %s", lr->model_path, strerror(errno));
	}
	lr->blocks = blocks_new();
	cycles_report_new(NULL, lr->model, &lr->cycles); /* the default core: never fails */
	*out = lr;
	return 0;
}

int lift_report_set_core(struct lift_report *lr, const char *path)
{
	struct cycles_report *cr;
	if (cycles_report_new(path, lr->model, &cr) < 0)
		return -1;
	cycles_report_delete(lr->cycles);
	lr->cycles = cr;
	return 0;
}

void lift_report_set_measured(struct lift_report *lr, const struct measured *m,
			      const char *(*name)(void *ctx, uint64_t entry), void *ctx)
{
	cycles_report_set_measured(lr->cycles, m, name, ctx);
}

int lift_report_has_columns(const struct lift_report *lr)
{
	return lr->lift || lr->cycles->measured;
}

void lift_report_delete(struct lift_report *lr)
{
	if (!lr)
		return;
	lift_delete(lr->lift);
	cycles_report_delete(lr->cycles);
	blocks_delete(lr->blocks);
	model_delete(lr->model);
	free(lr->model_path);
	free(lr);
}

int lift_report_event(void *ctx, const struct perpi_event *ev)
{
	struct lift_report *lr = ctx;
	cycles_report_event(lr->cycles, ev);
	return blocks_event(lr->blocks, ev);
}

void lift_report_observe(void *ctx, const struct engine_step_info *info)
{
	struct lift_report *lr = ctx;
	cycles_report_event(lr->cycles, info->ev);
	blocks_event(lr->blocks, info->ev);
}

void lift_report_finish(struct lift_report *lr)
{
	blocks_finish(lr->blocks);
	cycles_report_finish(lr->cycles);
	if (lr->model)
		lr->lift = lift_new(lr->model, lr->blocks);
}

int lift_report_block_ilp(struct lift_report *lr, const char *path)
{
	struct trace_reader *r = trace_reader_open(path);
	if (!r)
		return -1;
	int rc = trace_reader_replay(r, blocks_ilp_event, lr->blocks);
	blocks_ilp_finish(lr->blocks);
	trace_reader_close(r);
	return rc < 0 ? -1 : 0;
}

void lift_report_hint(FILE *out, const struct lift_report *lr)
{
	if (lr->model) { /* the resource bound is there; the predicted cycles? */
		cycles_report_hint(out, lr->cycles);
		return;
	}
	fprintf(out,
		"perpi: no Palmed model of this CPU at %s; for resource-bound cycles, "
		"'perpi record PROGRAM' then 'perpi palmed build --from perpi.data'\n",
		lr->model_path);
}

/* "CDQE x12, DIV_GPR64 x3, +2 more": the uncovered forms of a scope. */
static void uncovered_names(const struct lift_report *lr, enum lift_scope scope, uint64_t id,
			    size_t most, char *buf, size_t size)
{
	struct lift_uncovered *u;
	size_t n = lift_uncovered_forms(lr->lift, scope, id, &u), used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < n && k < most && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s x%" PRIu64, k ? ", " : "",
					 u[k].form ? u[k].form : "(undecodable)", u[k].count);
	if (n > most && used < size)
		snprintf(buf + used, size - used, ", +%zu more", n - most);
	free(u);
}

void lift_report_header(FILE *out, const struct lift_report *lr)
{
	if (lr->model && lr->model->ncores)
		fprintf(out,
			"# Palmed model: %s (%zu cores; the first's %zu resources, %zu forms); "
			"bound: the mean of the cores' resource bounds, bottleneck: the first's\n",
			lr->model_path, lr->model->ncores + 1, lr->model->nres, lr->model->nforms);
	else if (lr->model)
		fprintf(out, "# Palmed model: %s (%zu resources, %zu forms); bound: its resource bound\n",
			lr->model_path, lr->model->nres, lr->model->nforms);
	if (lr->model && lr->lift) {
		struct lift_figures f;
		struct lift_uncovered *u;
		lift_total(lr->lift, &f);
		fprintf(out,
			"# covered: %" PRIu64 " of the %" PRIu64 " instructions that are not control "
			"transfers (%.1f%%); the %" PRIu64 " control transfers cannot be benchmarked\n",
			f.covered, f.insns - f.control, 100 * lift_coverage(&f), f.control);
		size_t n = lift_uncovered_forms(lr->lift, LIFT_RUN, 0, &u);
		for (size_t k = 0; k < n; k++)
			fprintf(out, "# uncovered: %s, %" PRIu64 " instruction%s: %s\n",
				u[k].form ? u[k].form : "(undecodable)", u[k].count,
				u[k].count == 1 ? "" : "s", u[k].reason);
		free(u);
	}
	cycles_report_header(out, lr->cycles);
}

static void figures_of(const struct lift_report *lr, uint64_t entry, int whole_run,
		       struct lift_figures *f)
{
	if (whole_run)
		lift_total(lr->lift, f);
	else
		lift_function(lr->lift, entry, f);
}

void lift_report_columns(void *ctx, uint64_t entry, int whole_run, char *buf, size_t size)
{
	const struct lift_report *lr = ctx;
	struct lift_figures f;
	char ipc[32] = "-";
	size_t used;
	if (!lr->lift) { /* no model: the native cycles alone, if any */
		cycles_report_columns(lr->cycles, entry, whole_run, buf, size);
		used = strlen(buf);
		if (used >= 4 && !strcmp(buf + used - 4, " :: "))
			buf[used - 4] = '\0';
		if (!buf[0])
			snprintf(buf, size, "-");
		return;
	}
	figures_of(lr, entry, whole_run, &f);
	if (f.cycles > 0)
		snprintf(ipc, sizeof(ipc), "%.2f", f.covered / f.cycles);
	cycles_report_columns(lr->cycles, entry, whole_run, buf, size);
	used = strlen(buf);
	snprintf(buf + used, size - used,
		 "bound [%.1f] :: IPC [%s] :: bottleneck [%s] :: covered [%.1f%%]", f.cycles, ipc,
		 f.bottleneck >= 0 ? lr->model->res[f.bottleneck].name : "-", 100 * lift_coverage(&f));
	char names[160];
	uncovered_names(lr, whole_run ? LIFT_RUN : LIFT_FUNCTION, entry, 3, names, sizeof(names));
	used = strlen(buf);
	if (names[0] && used < size)
		snprintf(buf + used, size - used, " :: uncovered [%s]", names);
}

/* "R0+R3": the resources a block is bound by. */
static void bottleneck_names(const struct lift_report *lr, size_t block, char *buf, size_t size)
{
	const struct lift_block *lb = lr->lift ? lift_block(lr->lift, block) : NULL;
	size_t used = 0;
	snprintf(buf, size, "-");
	for (size_t k = 0; lb && k < lb->nbottlenecks && used < size; k++)
		used += snprintf(buf + used, size - used, "%s%s", k ? "+" : "",
				 lr->model->res[lb->bottlenecks[k]].name);
}

struct ranked {
	size_t block;
	double weight;
};

static int by_weight(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return (x->block > y->block) - (x->block < y->block);
}

/* Blocks by resource-bound cycles, else by dynamic instructions. */
static struct ranked *rank_blocks(const struct lift_report *lr, size_t *n)
{
	const struct block *blk;
	*n = blocks_list(lr->blocks, &blk);
	struct ranked *r = xmalloc((*n + 1) * sizeof(*r));
	for (size_t i = 0; i < *n; i++) {
		const struct lift_block *lb = lr->lift ? lift_block(lr->lift, i) : NULL;
		r[i].block = i;
		r[i].weight = lb ? blk[i].occurrences * lb->cycles : (double)blk[i].insns_executed;
	}
	qsort(r, *n, sizeof(*r), by_weight);
	return r;
}

static const char *function_of(const struct insn_namer *namer, const struct perpi_insn *insn)
{
	uint64_t off;
	const char *name =
	    namer && namer->function ? namer->function(namer->ctx, insn, &off) : NULL;
	return name ? name : "?";
}

void lift_report_blocks(FILE *out, const struct lift_report *lr, const struct insn_namer *namer,
			size_t top)
{
	const struct block *blk;
	size_t n;
	struct ranked *r = rank_blocks(lr, &n);
	blocks_list(lr->blocks, &blk);
	fprintf(out, "%zu basic blocks, %s first\n", n,
		lr->lift ? "most resource-bound cycles" : "most instructions executed");
	fprintf(out, "%-18s %-24s %12s %6s %6s %10s %14s %-17s %8s  %s\n", "address", "function",
		"occurrences", "insns", "ILP", "cycles/occ", "cycles", "bottleneck", "covered",
		lr->lift ? "uncovered" : "");
	for (size_t k = 0; k < n && k < top; k++) {
		size_t i = r[k].block;
		char addr[24], bn[64], per[24] = "-", total[24] = "-", cov[16] = "-", ilp[24] = "-";
		char names[96] = "";
		if (blk[i].steps)
			snprintf(ilp, sizeof(ilp), "%.2f",
				 (double)blk[i].insns_executed / blk[i].steps);
		snprintf(addr, sizeof(addr), "0x%" PRIx64, blk[i].addr);
		bottleneck_names(lr, i, bn, sizeof(bn));
		if (lr->lift) {
			struct lift_figures f;
			lift_block_figures(lr->lift, i, &f);
			snprintf(per, sizeof(per), "%.2f", lift_block(lr->lift, i)->cycles);
			snprintf(total, sizeof(total), "%.1f", f.cycles);
			snprintf(cov, sizeof(cov), "%.1f%%", 100 * lift_coverage(&f));
			uncovered_names(lr, LIFT_BLOCK, i, 2, names, sizeof(names));
		}
		fprintf(out, "%-18s %-24s %12" PRIu64 " %6zu %6s %10s %14s %-17s %8s  %s\n", addr,
			function_of(namer, blk[i].insns[0]), blk[i].occurrences, blk[i].n, ilp, per,
			total, bn, cov, names);
	}
	if (n > top)
		fprintf(out, "(%zu more; --blocks=N shows N)\n", n - top);
	free(r);
}

static json_object *json_uncovered(const struct lift_report *lr, enum lift_scope scope, uint64_t id)
{
	struct lift_uncovered *u;
	size_t n = lift_uncovered_forms(lr->lift, scope, id, &u);
	json_object *a = json_object_new_array();
	for (size_t k = 0; k < n; k++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "form",
				       u[k].form ? json_object_new_string(u[k].form) : NULL);
		json_object_object_add(o, "instructions",
				       json_object_new_int64((int64_t)u[k].count));
		json_object_object_add(o, "reason", json_object_new_string(u[k].reason));
		json_object_array_add(a, o);
	}
	free(u);
	return a;
}

static json_object *json_figures(const struct lift_report *lr, const struct lift_figures *f,
				 enum lift_scope scope, uint64_t id)
{
	json_object *j = json_object_new_object();
	json_object_object_add(j, "cycles", json_object_new_double(f->cycles));
	json_object_object_add(
	    j, "ipc", f->cycles > 0 ? json_object_new_double(f->covered / f->cycles) : NULL);
	json_object_object_add(
	    j, "bottleneck",
	    f->bottleneck >= 0 ? json_object_new_string(lr->model->res[f->bottleneck].name) : NULL);
	json_object_object_add(j, "instructions", json_object_new_int64((int64_t)f->insns));
	json_object_object_add(j, "control", json_object_new_int64((int64_t)f->control));
	json_object_object_add(j, "covered", json_object_new_int64((int64_t)f->covered));
	json_object_object_add(j, "coverage", json_object_new_double(lift_coverage(f)));
	json_object_object_add(j, "uncovered", json_uncovered(lr, scope, id));
	return j;
}

json_object *lift_report_json_figures(const struct lift_report *lr, uint64_t entry, int whole_run)
{
	struct lift_figures f;
	if (!lr || !lr->lift)
		return NULL;
	figures_of(lr, entry, whole_run, &f);
	return json_figures(lr, &f, whole_run ? LIFT_RUN : LIFT_FUNCTION, entry);
}

static json_object *json_block(const struct lift_report *lr, const struct insn_namer *namer,
			       size_t i)
{
	const struct block *blk;
	blocks_list(lr->blocks, &blk);
	json_object *j = json_object_new_object();
	char addr[24];
	snprintf(addr, sizeof(addr), "0x%" PRIx64, blk[i].addr);
	json_object_object_add(j, "address", json_object_new_string(addr));
	json_object_object_add(j, "function",
			       json_object_new_string(function_of(namer, blk[i].insns[0])));
	json_object_object_add(j, "occurrences",
			       json_object_new_int64((int64_t)blk[i].occurrences));
	json_object_object_add(j, "static_instructions", json_object_new_int64((int64_t)blk[i].n));
	if (blk[i].steps)
		json_object_object_add(
		    j, "ilp", json_object_new_double((double)blk[i].insns_executed / blk[i].steps));
	if (lr->lift) {
		const struct lift_block *lb = lift_block(lr->lift, i);
		struct lift_figures f;
		json_object *forms = json_object_new_array(), *bn = json_object_new_array();
		lift_block_figures(lr->lift, i, &f);
		json_object_object_add(j, "cycles_per_occurrence",
				       json_object_new_double(lb->cycles));
		json_object_object_add(j, "palmed", json_figures(lr, &f, LIFT_BLOCK, i));
		for (size_t k = 0; k < lb->nbottlenecks; k++)
			json_object_array_add(
			    bn, json_object_new_string(lr->model->res[lb->bottlenecks[k]].name));
		json_object_object_add(j, "bottlenecks", bn);
		for (size_t k = 0; k < blk[i].n; k++)
			json_object_array_add(
			    forms, lb->forms[k] ? json_object_new_string(lb->forms[k]) : NULL);
		json_object_object_add(j, "forms", forms);
	} else {
		json_object_object_add(j, "instructions",
				       json_object_new_int64((int64_t)blk[i].insns_executed));
	}
	return j;
}

void lift_report_json_members(void *ctx, json_object *j, uint64_t entry, int whole_run)
{
	const struct lift_report *lr = ctx;
	struct lift_figures f;
	double bound = -1;
	if (lr->lift) {
		figures_of(lr, entry, whole_run, &f);
		bound = f.cycles;
	}
	cycles_report_json(lr->cycles, j, entry, whole_run, bound);
}

json_object *lift_report_json_root(const struct lift_report *lr, const struct insn_namer *namer,
				   size_t top)
{
	json_object *j = json_object_new_object();
	json_object_object_add(j, "model",
			       lr->model ? json_object_new_string(lr->model_path) : NULL);
	if (!lr->model) {
		json_object_object_add(
		    j, "hint",
		    json_object_new_string("build a model with 'perpi palmed build "
					   "--from perpi.data'"));
	} else {
		json_object_object_add(j, "cpu", json_object_new_string(lr->model->cpu));
		json_object_object_add(j, "resources",
				       json_object_new_int64((int64_t)lr->model->nres));
	}
	size_t n;
	struct ranked *r = rank_blocks(lr, &n);
	json_object *a = json_object_new_array();
	for (size_t k = 0; k < n && k < top; k++)
		json_object_array_add(a, json_block(lr, namer, r[k].block));
	free(r);
	json_object_object_add(j, "block_count", json_object_new_int64((int64_t)n));
	json_object_object_add(j, "blocks", a);
	return j;
}
