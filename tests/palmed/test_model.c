/* The conjunctive model's cycles on small examples worked by hand, the
 * model file round trip, and bad input: corrupt files, another CPU, forms
 * the model does not know, an empty block. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/model.h"
#include "palmed/predict.h"

static int failures;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	failures += !ok;
}

/* R0 and R1; A uses R0 fully, B half of each, C R1 fully. */
static struct model *hand_model(void)
{
	struct model *m = model_new("test cpu");
	size_t a = model_add_form(m, "A", 1), b = model_add_form(m, "B", 0.5);
	size_t c = model_add_form(m, "C", 1);
	size_t r0 = model_add_resource(m, "R0", "A"), r1 = model_add_resource(m, "R1", "C");
	model_set_rho(m, a, r0, 1);
	model_set_rho(m, b, r0, 0.5);
	model_set_rho(m, b, r1, 0.5);
	model_set_rho(m, c, r1, 1);
	model_add_unmapped(m, "JMP", "control flow cannot be benchmarked");
	model_add_measurement(m, "A B", 1.5);
	model_set_string(m, "C", 40, 0.25);
	return m;
}

/* F is the front end's (a NOP loads it); L binds LOAD alone (0.5 of its
 * 0.5 cycles), F does not (0.45); F binds CMP (0.5 of 0.5). */
static struct model *front_model(void)
{
	struct model *m = model_new("test cpu");
	size_t f = model_add_resource(m, "F", "NOP"), l = model_add_resource(m, "L", "LOAD");
	model_set_rho(m, model_add_form(m, "NOP", 0.25), f, 0.25);
	size_t load = model_add_form(m, "LOAD", 0.5);
	model_set_rho(m, load, f, 0.45);
	model_set_rho(m, load, l, 0.5);
	model_set_rho(m, model_add_form(m, "CMP", 0.5), f, 0.5);
	size_t store = model_add_form(m, "STORE", 0.5);
	model_set_rho(m, store, f, 0.47);
	model_set_rho(m, store, l, 0.1);
	return m;
}

static void predict(const struct model *m, const char *spec, double cycles, double ipc,
		    const char *bottlenecks)
{
	struct kernel k;
	struct prediction p;
	char what[256], got[64] = "";
	if (kernel_parse(spec, &k) < 0 || model_predict(m, &k, &p) < 0) {
		printf("FAIL %s: %s\n", spec, perpi_error());
		failures++;
		return;
	}
	for (size_t i = 0; i < p.nbottlenecks; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "," : "",
			 m->res[p.bottlenecks[i]].name);
	snprintf(what, sizeof(what), "%s: %.4f cycles, IPC %.4f, bottleneck %s", spec, p.cycles,
		 p.ipc, got);
	check(fabs(p.cycles - cycles) < 1e-9 && fabs(p.ipc - ipc) < 1e-9 &&
		  !strcmp(got, bottlenecks),
	      what);
	prediction_done(&p);
	kernel_done(&k);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void expect_load_error(const char *text, const char *needle)
{
	struct model *m;
	char what[256];
	write_file("test_model_bad.json", text);
	int rc = model_load("test_model_bad.json", &m);
	snprintf(what, sizeof(what), "corrupt model refused (%s): %s", needle,
		 rc < 0 ? perpi_error() : "accepted");
	check(rc < 0 && strstr(perpi_error(), needle) &&
		  strstr(perpi_error(), "test_model_bad.json"),
	      what);
	if (rc == 0)
		model_delete(m);
	remove("test_model_bad.json");
}

int main(void)
{
	struct model *m = hand_model(), *loaded;
	/* A^2 B C^3: R0 = 2*1 + 0.5 = 2.5, R1 = 0.5 + 3*1 = 3.5; 6 instructions
	 * in 3.5 cycles. */
	predict(m, "A^2 B C^3", 3.5, 6 / 3.5, "R1");
	/* A B^2: R0 = 1 + 2*0.5 = 2, R1 = 2*0.5 = 1: 3 instructions in 2. */
	predict(m, "A B^2", 2, 1.5, "R0");
	/* A C: both resources carry 1: both are bottlenecks, IPC 2. */
	predict(m, "A C", 1, 2, "R0,R1");
	/* B^4: 2 on each resource. */
	predict(m, "B^4", 2, 2, "R0,R1");

	/* The cycle predictor's front-end slot (model_rho_slot): LOAD takes
	 * one slot of F, a NOP's 0.25, not its 0.45; STORE's largest usage,
	 * 0.47 of F, binds it alone though under 0.95 of its 0.5 cycles:
	 * whole (a Zen 3 model said a store alone took a third of its time). */
	struct model *fm = front_model();
	long ld = model_form_index(fm, "LOAD"), st = model_form_index(fm, "STORE");
	check(model_rho_slot(fm, (size_t)ld, 0) == 0.25 && model_rho_slot(fm, (size_t)ld, 1) == 0.5 &&
		  model_rho_slot(fm, (size_t)model_form_index(fm, "CMP"), 0) == 0.5 &&
		  model_rho_slot(fm, (size_t)st, 0) == 0.47,
	      "the cycle predictor: a front-end usage that does not bind its form, a NOP's");
	/* Palmed's predictions count every usage whole: LOAD CMP loads F
	 * with 0.45 + 0.5 = 0.95, L with 0.5; LOAD^2 F 0.9, L 1; CMP^2 F 1;
	 * STORE F 0.47; LOAD STORE F 0.45 + 0.47 = 0.92, L 0.6. */
	predict(fm, "LOAD CMP", 0.95, 2 / 0.95, "F");
	predict(fm, "LOAD^2", 1, 2, "L");
	predict(fm, "CMP^2", 1, 2, "F");
	predict(fm, "STORE", 0.47, 1 / 0.47, "F");
	predict(fm, "LOAD STORE", 0.92, 2 / 0.92, "F");
	model_delete(fm);

	/* A NOP's spurious usage is not a front end: NOP binds F (0.25 of
	 * its 0.25 cycles) and loads the vector pipes' V for 0.17 (68%, as
	 * the Zen 4's model 8 had it: 0.057 of 0.084); VPROR binds V (1 of
	 * 1). F is the front end, V is not, and VPROR's usage of V stays
	 * whole; the mapping's split still leaves V alone (a NOP loads it for
	 * half its cycles or more). */
	struct model *vm = model_new("test cpu");
	size_t vf = model_add_resource(vm, "F", "NOP"), vv = model_add_resource(vm, "V", "VPROR");
	size_t vnop = model_add_form(vm, "NOP", 0.25), vpror = model_add_form(vm, "VPROR", 1);
	model_set_rho(vm, vnop, vf, 0.25);
	model_set_rho(vm, vnop, vv, 0.17);
	model_set_rho(vm, vpror, vv, 1);
	check(model_front_end(vm, vf) && !model_front_end(vm, vv) &&
		  model_rho_slot(vm, vpror, vv) == 1 && model_nop_loads(vm, vv) &&
		  model_nop_loads(vm, vf),
	      "a NOP's usage short of binding it is not the front end");
	model_delete(vm);

	/* Stores to other lines in turn (model.c's store_turn_bound): S the
	 * stores' resource; a plain store and a push 0.5 of it, a
	 * read-modify-write 1.0; store_turn 0.5. By hand, from the rule: a
	 * plain stores beside b pushes (a <= b) take a + max(a, b/2) line
	 * switches' worth, r read-modify-writes beside x other stores r + x
	 * (x <= r) or r + max(r, x/2); the bound is the stores' half cycles
	 * (a read-modify-write's whole one) and half of what is past them.
	 * MOV PUSH: 1.0 + 0.5 (2 - 1) = 1.5; MOV^2 PUSH^2: 2 + 0.5 (4 - 2) =
	 * 3.0; ADD_M MOV^3: 2.5 + 0.5 (2.5 - 2.5) = 2.5, as S says (S binds);
	 * ADD_M^2 MOV: 2.5 + 0.5 (3 - 2.5) = 2.75; MOV^2 and PUSH^2 alone keep
	 * to their lines: S's 1.0. Without store_turn, MOV PUSH is S's 1.0. */
	struct model *sm = model_new("test cpu");
	size_t ss = model_add_resource(sm, "S", "MOV_M64_GPR64");
	model_set_rho(sm, model_add_form(sm, "MOV_M64_GPR64", 0.5), ss, 0.5);
	model_set_rho(sm, model_add_form(sm, "PUSH_GPR64", 0.5), ss, 0.5);
	model_set_rho(sm, model_add_form(sm, "ADD_M64_IMM8", 1), ss, 1);
	model_sort(sm);
	predict(sm, "MOV_M64_GPR64 PUSH_GPR64", 1, 2, "S");
	sm->store_turn = 0.5;
	predict(sm, "MOV_M64_GPR64 PUSH_GPR64", 1.5, 2 / 1.5, "");
	predict(sm, "MOV_M64_GPR64^2 PUSH_GPR64^2", 3, 4 / 3.0, "");
	predict(sm, "ADD_M64_IMM8 MOV_M64_GPR64^3", 2.5, 4 / 2.5, "S");
	predict(sm, "ADD_M64_IMM8^2 MOV_M64_GPR64", 2.75, 3 / 2.75, "");
	predict(sm, "MOV_M64_GPR64^2", 1, 2, "S");
	predict(sm, "PUSH_GPR64^2", 1, 2, "S");
	/* rmw_turn 0.5 with store_turn 0 (as the Zen 5's): only read-modify-
	 * writes beside as many plain stores or fewer are bound, at their
	 * whole cycle each, the stores' half and half of the other half.
	 * ADD_M MOV: 1.5 + 0.5 x 0.5 = 1.75; ADD_M^2 MOV: 2.5 + 0.25 = 2.75;
	 * ADD_M MOV^2 (more plain stores): S's 2.0; ADD_M^2 PUSH (no plain
	 * store): S's 2.5; ADD_M PUSH MOV: 2.0 + 0.25 = 2.25 (the push keeps
	 * to its half cycle); MOV PUSH: S's 1.0. */
	sm->store_turn = 0;
	sm->rmw_turn = 0.5;
	predict(sm, "ADD_M64_IMM8 MOV_M64_GPR64", 1.75, 2 / 1.75, "");
	predict(sm, "ADD_M64_IMM8^2 MOV_M64_GPR64", 2.75, 3 / 2.75, "");
	predict(sm, "ADD_M64_IMM8 MOV_M64_GPR64^2", 2, 3 / 2.0, "S");
	predict(sm, "ADD_M64_IMM8^2 PUSH_GPR64", 2.5, 3 / 2.5, "S");
	predict(sm, "ADD_M64_IMM8 PUSH_GPR64 MOV_M64_GPR64", 2.25, 3 / 2.25, "");
	predict(sm, "MOV_M64_GPR64 PUSH_GPR64", 1, 2, "S");
	/* kept in the file, and a bad value refused */
	sm->store_turn = 0.5;
	struct model *sl = NULL;
	check(model_save(sm, "test_model_turn.json") == 0 &&
		  model_load("test_model_turn.json", &sl) == 0 && sl->store_turn == 0.5 &&
		  sl->rmw_turn == 0.5,
	      "store_turn and rmw_turn saved and loaded");
	if (sl)
		model_delete(sl);
	remove("test_model_turn.json");
	remove("test_model_turn.json.measurements");
	model_delete(sm);
	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 2, \"cpu\": \"x\", "
			  "\"benchmarks\": 1, \"store_turn\": -1, \"resources\": [], \"forms\": "
			  "[]}",
			  "store_turn");
	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 2, \"cpu\": \"x\", "
			  "\"benchmarks\": 1, \"rmw_turn\": \"half\", \"resources\": [], "
			  "\"forms\": []}",
			  "rmw_turn");

	/* An indexed memory form the model does not map is predicted with its
	 * unindexed form (model_form_lookup); one it maps, with its own.
	 * R0: CMP_M8_GPR8 0.5, its indexed twin 1.0 (by hand). */
	struct model *xm = model_new("test cpu");
	size_t xr = model_add_resource(xm, "R0", "CMP_M8_GPR8");
	model_set_rho(xm, model_add_form(xm, "CMP_M8_GPR8", 0.5), xr, 0.5);
	model_set_rho(xm, model_add_form(xm, "MOV_GPR64_M64", 0.5), xr, 0.5);
	model_set_rho(xm, model_add_form(xm, "MOV_GPR64_M64X", 1), xr, 1);
	model_sort(xm);
	check(model_form_lookup(xm, "CMP_M8X_GPR8") == model_form_index(xm, "CMP_M8_GPR8") &&
		  model_form_index(xm, "CMP_M8X_GPR8") < 0 &&
		  model_form_lookup(xm, "MOV_GPR64_M64X") == model_form_index(xm, "MOV_GPR64_M64X") &&
		  model_form_lookup(xm, "ADD_M8X_GPR8") < 0,
	      "an indexed form unmapped: its unindexed form; mapped: itself");
	predict(xm, "CMP_M8X_GPR8^2", 1, 2, "R0");
	predict(xm, "MOV_GPR64_M64X^2", 2, 1, "R0");
	{ /* the bottleneck names the kernel's form and the one it is predicted as */
		struct kernel k;
		struct prediction p;
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		kernel_parse("CMP_M8X_GPR8 MOV_GPR64_M64X", &k);
		if (model_predict(xm, &k, &p) == 0) {
			predict_print(xm, &k, &p, f);
			prediction_done(&p);
		}
		fclose(f);
		check(text && strstr(text, "R0: CMP_M8X_GPR8 (as CMP_M8_GPR8) 1 x 0.5, "
					   "MOV_GPR64_M64X 1 x 1\n"),
		      "a bottleneck lists an indexed form the model lacks as its unindexed form");
		free(text);
		kernel_done(&k);
	}
	model_delete(xm);

	struct kernel k;
	struct prediction p;
	kernel_parse("A X^3", &k);
	check(model_predict(m, &k, &p) == 0 && p.cycles == 1 && p.covered == 1 && p.total == 4 &&
		  p.nuncovered == 1 && !strcmp(p.uncovered[0], "X"),
	      "A X^3: X uncovered, A alone 1 cycle, 1 of 4 instructions covered");
	prediction_done(&p);
	kernel_done(&k);
	kernel_parse("X Y", &k);
	check(model_predict(m, &k, &p) < 0 && strstr(perpi_error(), "X"),
	      "a block of unknown forms only is an error naming the form");
	/* palmed/model.h: on failure the prediction owns nothing */
	check(!p.uncovered && !p.nuncovered && !p.bottlenecks,
	      "a failed prediction holds nothing to free");
	kernel_done(&k);
	kernel_init(&k);
	check(model_predict(m, &k, &p) < 0 && strstr(perpi_error(), "empty"),
	      "an empty block is an error");

	check(model_save(m, "test_model_rt.json") == 0 &&
		  model_load("test_model_rt.json", &loaded) == 0,
	      "save and load");
	predict(loaded, "A^2 B C^3", 3.5, 6 / 3.5, "R1");
	check(loaded->nmeas == 0 && loaded->meas_count == 1 && model_load_measurements(loaded) == 0,
	      "the measurements are read when asked for, from the file beside the model");
	check(!strcmp(loaded->cpu, "test cpu") && loaded->nmeas == 1 &&
		  loaded->meas[0].cycles == 1.5 &&
		  !strcmp(model_unmapped_reason(loaded, "JMP"),
			  "control flow cannot be benchmarked") &&
		  !strcmp(loaded->res[1].kernel, "C"),
	      "cpu, measurements, unmapped reasons and saturating kernels survive the round trip");
	check(model_check_cpu(loaded) == 1, "a model from another CPU is flagged");
	/* C timed at two lengths: 40 cycles to start, 0.25 an iteration; one
	 * execution of 80 iterations takes 40 + 20 = 60 cycles, 0.75 an
	 * iteration against C's 1 alone; A has none */
	long ci = model_form_index(loaded, "C"), ai = model_form_index(loaded, "A");
	check(ci >= 0 && ai >= 0 && fabs(model_string_scale(loaded, (size_t)ci, 80) - 0.75) < 1e-12 &&
		  model_string_scale(loaded, (size_t)ai, 80) == 1,
	      "a form's start and iteration survive the round trip and scale one execution");
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		model_show(loaded, f);
		fclose(f);
		check(text && strstr(text, "  C                            start   40.000, 0.2500 an "
					   "iteration\n"),
		      "perpi palmed show lists a form's start and iteration");
		free(text);
	}
	check(model_measured(loaded, "A B") == 1 && model_measured(loaded, "A") == 0,
	      "a measured kernel is known as one");
	model_delete(loaded);
	FILE *f = fopen("test_model_rt.json.measurements", "w");
	fprintf(f, "# perpi-palmed-measurements 1: cycles per iteration, kernel\n1.5 A\n");
	fclose(f);
	check(model_load("test_model_rt.json", &loaded) == 0 &&
		  model_load_measurements(loaded) < 0 &&
		  strstr(perpi_error(), "corrupt measurements"),
	      "a corrupt file of measurements is an error naming it");
	model_delete(loaded);
	remove("test_model_rt.json");
	remove("test_model_rt.json.measurements");

	/* A further core (model.cores): S0 and S1; A uses S0 for 2 cycles, B
	 * S0 for 0.25 and S1 for 1; C is not mapped. A^2 B: the first core's
	 * R0 = 2 + 0.5 = 2.5, R1 = 0.5; the second's S0 = 4 + 0.25 = 4.25, S1
	 * = 1; the mean 3.375 cycles for 3 instructions, the bottleneck the
	 * first's. A C: the second core lacks C, so the first's 1 alone. */
	{
		struct model *two = hand_model(), *c2 = model_new("test cpu"), *back;
		size_t s0 = model_add_resource(c2, "S0", NULL),
		       s1 = model_add_resource(c2, "S1", NULL);
		size_t a2 = model_add_form(c2, "A", 2), b2 = model_add_form(c2, "B", 1);
		model_set_rho(c2, a2, s0, 2);
		model_set_rho(c2, b2, s0, 0.25);
		model_set_rho(c2, b2, s1, 1);
		model_add_core(two, c2);
		predict(two, "A^2 B", 3.375, 3 / 3.375, "R0");
		predict(two, "A C", 1, 2, "R0,R1");
		struct kernel k2;
		struct prediction p2;
		kernel_parse("A^2 B", &k2);
		check(model_predict(two, &k2, &p2) == 0 && p2.ncore_cycles == 2 &&
			  p2.core_cycles[0] == 2.5 && p2.core_cycles[1] == 4.25,
		      "a model of two cores gives each core's cycles");
		prediction_done(&p2);
		check(model_save(two, "test_model_cores.json") == 0 &&
			  model_load("test_model_cores.json", &back) == 0 && back->ncores == 1 &&
			  back->cores[0]->nres == 2 && back->cores[0]->nforms == 2,
		      "a further core survives the round trip");
		if (back) {
			predict(back, "A^2 B", 3.375, 3 / 3.375, "R0");
			model_delete(back);
		}
		kernel_done(&k2);
		model_delete(two);
		remove("test_model_cores.json");
		remove("test_model_cores.json.measurements");
	}

	char *host = model_host_cpu();
	free(m->cpu);
	m->cpu = host;
	check(model_check_cpu(m) == 0, "a model from this CPU is not flagged");
	model_delete(m);

	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 1, \"cpu\"",
			  "cannot read model");
	expect_load_error("{\"format\": \"something-else\"}", "not a perpi Palmed model");
	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 7}", "version 7");
	/* found by fuzz/fuzz_model: a count past unsigned, and a fraction */
	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 1, \"cpu\": \"x\", "
			  "\"benchmarks\": 6.66667e12}",
			  "'benchmarks' is 6.66667e+12, not a count");
	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 1, \"cpu\": \"x\", "
			  "\"benchmarks\": 2.5}",
			  "'benchmarks' is 2.5, not a count");
	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 1, \"cpu\": \"x\", "
			  "\"benchmarks\": 1, \"resources\": [{\"name\": \"R0\"}], \"forms\": "
			  "[{\"form\": \"A\", \"cycles\": 1, \"usage\": {\"R9\": 1}}]}",
			  "unknown resource R9");
	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 1, \"cpu\": \"x\", "
			  "\"benchmarks\": 1, \"resources\": [{\"name\": \"R0\"}], \"forms\": "
			  "[{\"form\": \"A\", \"cycles\": 1, \"usage\": {\"R0\": -2}}]}",
			  "bad usage");
	expect_load_error("[1, 2]", "not a JSON object");
	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 2, \"cpu\": \"x\", "
			  "\"benchmarks\": 1, \"resources\": [{\"name\": \"R0\"}], \"forms\": "
			  "[{\"form\": \"A\", \"cycles\": 1, \"usage\": {\"R0\": 1}}], "
			  "\"unmapped\": [], \"measurements_file\": \"m\", \"measurement_count\": 0, "
			  "\"strings\": [{\"form\": \"B\", \"start\": 1, \"iteration\": 1}]}",
			  "form B is not in the model");
	expect_load_error("{\"format\": \"perpi-palmed-model\", \"version\": 2, \"cpu\": \"x\", "
			  "\"benchmarks\": 1, \"resources\": [{\"name\": \"R0\"}], \"forms\": "
			  "[{\"form\": \"A\", \"cycles\": 1, \"usage\": {\"R0\": 1}}], "
			  "\"unmapped\": [], \"measurements_file\": \"m\", \"measurement_count\": 0, "
			  "\"strings\": [{\"form\": \"A\", \"start\": -3, \"iteration\": 1}]}",
			  "strings entry 0");
	expect_load_error(
	    "{\"format\": \"perpi-palmed-model\", \"version\": 2, \"cpu\": \"x\", "
	    "\"benchmarks\": 1, \"resources\": [{\"name\": \"R0\"}], \"forms\": "
	    "[{\"form\": \"A\", \"cycles\": 1, \"usage\": {\"R0\": 1}}], "
	    "\"unmapped\": [], \"measurements_file\": \"m\", \"measurement_count\": 0, "
	    "\"cores\": [{\"resources\": [{\"name\": \"S0\"}], \"forms\": "
	    "[{\"form\": \"A\", \"cycles\": 1, \"usage\": {\"R0\": 1}}]}]}",
	    "unknown resource R0 (cores entry 0)");
	expect_load_error(
	    "{\"format\": \"perpi-palmed-model\", \"version\": 2, \"cpu\": \"x\", "
	    "\"benchmarks\": 1, \"resources\": [{\"name\": \"R0\"}], \"forms\": "
	    "[{\"form\": \"A\", \"cycles\": 1, \"usage\": {\"R0\": 1}}], "
	    "\"unmapped\": [], \"measurements_file\": \"m\", \"measurement_count\": 0, "
	    "\"cores\": [3]}",
	    "cores entry 0 is not an object");
	return failures != 0;
}
