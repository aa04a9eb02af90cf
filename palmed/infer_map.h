/* Palmed's mapping stage (DESIGN.md, "Building a model", step 5): every
 * form outside the core is placed on the core's resources by measuring it
 * against kernels that saturate them.
 *
 * The core model gives, for a group S of resources, a kernel of core forms
 * (a base) that loads every resource of S to the same cycles T and every
 * other resource to at most (1 - margin) T. Adding m instances of form i,
 * with m c(i) kept below margin x T, cannot make any resource outside S
 * the bottleneck, so the cycles added are m max over r in S of rho(i,r):
 * zero tells at once that i uses none of S (a group test), a positive
 * reading is an upper bound for each of them, and the groups that read
 * positive are probed again resource by resource. Most forms use few
 * resources, so a form costs about one probe per group instead of one per
 * resource. What a form alone takes that no core resource explains
 * becomes a resource of its own (rho = its cycles alone, always true).
 * docs/MODEL.md tells what this costs in accuracy. */
#ifndef PERPI_INFER_MAP_H
#define PERPI_INFER_MAP_H

#include <stddef.h>

#include "palmed/infer_meter.h"
#include "palmed/model.h"

struct infer_map_options {
	double tol;	     /* relative noise of one measurement */
	double min_margin;   /* a base's margin over every resource outside its group */
	unsigned max_base;   /* instructions in a base kernel, at most */
	int exhaustive;	     /* probe every resource alone, as Palmed does (to measure
			      * what the groups cost) */
	unsigned max_probes; /* more groups than this: template mode (24) */
	int no_split;	     /* leave the core's resources whole (infer_map_split.c) */
	int no_locked;	     /* leave the locked forms on the resources the mapping gave
			      * them (infer_map_own.c, map_locked) */
	int no_siblings;     /* probe every form, even one that runs as a core form of
			      * its shape does (infer_map_sibling.c) */
	unsigned long planned_after; /* kernels the stages after the mapping expect
				      * (for the progress line's time left) */
	int width;		     /* a probe's cycles the machine's width explains are not its
				      * base's (infer_map.c, read_probe) */
};

void infer_map_options_default(struct infer_map_options *o, double tol);

struct infer_map_stats {
	unsigned forms;		 /* forms to map */
	unsigned singles;	 /* of those, measured alone */
	unsigned groups;	 /* groups of resources probed */
	unsigned groups_apart;	 /* of those, probed resource by resource: their base
				  * could not be measured, or too small a margin */
	unsigned bases;		 /* base kernels measured (groups and single resources) */
	unsigned bad_bases;	 /* of those, refused or slower than the core's model
				  * says: made again without one of their forms each */
	unsigned rebased;	 /* of those, replaced by one the model times right */
	unsigned probes;	 /* probe kernels measured */
	unsigned refined;	 /* of those, resource by resource after a positive group */
	unsigned core_resources; /* of the core model */
	unsigned own;		 /* forms bounded alone by no core resource */
	unsigned own_resources;	 /* the resources those forms were given */
	unsigned core_own;	 /* core forms the core's resources leave short alone,
				  * bounded like those (short_core_forms) */
	unsigned unreliable;	 /* readings where the form alone outweighed the base */
	unsigned benchmarks;	 /* kernels measured in all */
	unsigned with_helpers;	 /* forms mapped with their helpers, then the helpers'
				  * usages taken off (infer_map_helpers.c) */
	unsigned beside_helpers; /* probes read beside more helpers than their form's alone
				  * (zero idioms breaking flags), their cycles taken off */
	unsigned split_pairs;	 /* pairs of mapped forms measured to split resources */
	unsigned split_resources; /* copies of core resources made for them */
	unsigned split_forms;	 /* forms moved to those copies */
	unsigned siblings;	 /* forms that run as a core form of their shape, given its
				  * usages (infer_map_sibling.c) */
	unsigned sibling_pairs;	 /* pairs measured to find them */
	unsigned siblings_apart; /* memory forms whose pair with a core memory form of
				  * another operation took the sum, left to the probes:
				  * their register forms run on other units */
	unsigned locked;	 /* locked forms on one resource together (map_locked) */
	unsigned locked_pairs;	 /* pairs measured to find them */
	unsigned strings;	 /* REP forms given a start and an iteration's cycles */
	unsigned string_pairs;	 /* REP forms timed at two lengths */
	unsigned twins;		 /* indexed memory forms given their unindexed form's
				  * usages, scaled (map_twins) */
	int template_mode;	 /* probed against a few resources, the usages combinations of
				  * the core forms' (infer_map_template.c) */
};

/* Maps forms (any order; those m already maps are skipped) onto the
 * resources of the core model m, measuring through mt, and adds them to m
 * (forms, usages, own resources, unmapped forms with their reasons, every
 * measurement). Returns 0, or -1 with perpi_error() set ("interrupted"
 * after a stop request: m is then incomplete). */
int infer_map(struct infer_meter *mt, struct model *m, const char *const *forms, size_t nforms,
	      const struct infer_map_options *o, struct infer_map_stats *stats);

#endif
