/* The mapped forms checked beside the core's. The mapping reads each
 * form's usages off a few probes, each against one base kernel of the
 * core; a core resource is often a mixture of the CPU's units, and a
 * base loads only some of them, so a reading can stand for a conflict the
 * base met and other code does not (a push read on the register moves'
 * resource because a moves base held a store). Here every mapped form is
 * measured again in a few random mixes with core forms, like the training
 * kernels of the core, and in one mix per resource it uses, beside the
 * core form that uses that resource most exclusively, and a memory form
 * in one beside its register form; its usages are then
 * refitted to those mixes and its cycles alone: an L1 fit of the relative
 * errors (infer_refit.c's), the other forms' usages fixed, the target's
 * anchored to the mapping's, so that a usage moves only where the mixes
 * say so. docs/MODEL.md, "Mapped forms checked in mixes". */
#ifndef PERPI_INFER_POLISH_H
#define PERPI_INFER_POLISH_H

#include <stddef.h>

#include "palmed/infer_meter.h"
#include "palmed/model.h"

struct infer_polish_options {
	unsigned per_form; /* random mixes measured for each mapped form */
	int targeted;	   /* and one for each resource it uses, beside the core
			    * form that uses it most exclusively */
	int absent;	   /* with targeted, a vector or immediate form also beside
			    * each resource it does not use (absent_mix) */
	int twins;	   /* and a memory form one beside its register form
			    * (ADDPD_XMM_M128 beside ADDPD_XMM_XMM), if the model
			    * has it, enough of that one that its unit binds the
			    * pair (twin_copies) */
	int twin_floor;	   /* a memory form whose mix beside its register form the fit
			    * leaves short takes what the pair leaves of the register
			    * form's unit (polish_target) */
	int vex_twins;	   /* last, a VEX-128 form beside its legacy SSE form takes
			    * its usages when the pair takes the sum (vex_twins) */
	int pushes_apart;  /* last, pushes off the front end's resource when two
			    * pairs show they are apart (pushes_apart), and pops
			    * on the loads' when a pair shows it (pops_beside_loads) */
	int own;	   /* first, each resource of a cluster's own beside every
			    * core resource (own_beside_core) */
	int contain;	   /* first, a mapped form's usage of a core resource raised
			    * to what its usage of one inside it implies
			    * (contain_usages) */
	int partner_holds; /* a mix the fit leaves short also held to the resource
			    * its other forms load most (polish_target) */
	double anchor;	   /* cost of moving a usage by the form's cycles alone,
			    * in units of one mix's relative error */
	unsigned seed;
	double tol; /* usages below this share of the form's cycles are dropped */
};

struct infer_polish_stats {
	unsigned kernels;      /* mixes measured */
	unsigned twins;	       /* of those planned, memory forms beside their register form */
	unsigned own_pairs;    /* clusters' first forms measured beside core forms */
	unsigned own_shared;   /* usages of core resources the clusters' forms took there */
	unsigned containing;   /* pairs of core resources, one inside the other */
	unsigned contained;    /* usages raised by them */
	unsigned twin_floors;  /* forms given the unit of their twin or the load so */
	unsigned vex_pairs;    /* VEX forms measured beside their legacy forms */
	unsigned vex_taken;    /* of those, VEX forms given the legacy form's usages */
	int pushes_gate;       /* 1: the pairs showed pushes apart from the front end;
				* 0: not; -1: not checked */
	unsigned pushes_moved; /* push forms moved to the stores' resource so */
	unsigned pushes_raised; /* push forms given the load's address usage (a
				 * push beside loads over the longer) */
	int stores_share;      /* a push beside plain stores took the sum */
	unsigned stores_loading; /* other stores given the stores' resource too */
	int pops_gate;		 /* 1: a pop beside loads took over the longer; 0: not;
				  * -1: not checked */
	unsigned pops_raised;	 /* pop forms given the load's address usage so */
	int turn_measured;	 /* the stores-in-turn pair timed (stores_in_turn) */
	double store_turn;	 /* what it gave the model's store_turn */
	double rmw_turn;	 /* and its rmw_turn */
	unsigned load_mixes;	 /* memory forms beside the plain load (load_mix) */
	unsigned immediate_mixes; /* memory forms with an immediate beside mov r32, imm32 */
	unsigned absent_mixes;	  /* mixes beside a core resource the form does not use */
	unsigned sequenced;	  /* forms given their cycles beside a move on "sequencer" */
	unsigned forms;	       /* forms refitted */
	unsigned changed;      /* of those, forms whose usages moved */
	double before, after;  /* mean relative error of the mixes (per form) */
};

void infer_polish_options_default(struct infer_polish_options *o);

/* Measures o->per_form mixes for every form of m that is not one of
 * core[0..ncore), refits its usages (the width kept)
 * and adds the mixes to m's measurements. Returns 0, or -1 with
 * perpi_error() "interrupted" when a stop was requested (m unchanged). */
int infer_polish(struct infer_meter *mt, struct model *m, const char *const *core, size_t ncore,
		 const struct infer_polish_options *o, struct infer_polish_stats *stats);

#endif
