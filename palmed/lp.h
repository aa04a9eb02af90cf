/* A small dense linear program on top of GLPK: optimise c.x subject to
 * lo <= A_row.x <= hi rows and column bounds. The inference, the simulated
 * port machine and the evaluation solve many tiny LPs; this keeps GLPK's
 * 1-based sparse API in one place. */
#ifndef PERPI_LP_H
#define PERPI_LP_H

#include <stddef.h>

struct lp; /* opaque; lp_new allocates, lp_delete frees */

/* ncols variables, each 0 <= x <= +inf until lp_set_bounds. */
struct lp *lp_new(size_t ncols, int maximize);
void lp_delete(struct lp *lp);
/* Appends n more columns (0 <= x <= +inf). */
void lp_add_cols(struct lp *lp, size_t n);
void lp_set_objective(struct lp *lp, size_t col, double coef);
/* hi = INFINITY for no upper bound. */
void lp_set_bounds(struct lp *lp, size_t col, double lo, double hi);
/* Adds lo <= sum_j coef[j] x_j <= hi (coef dense, ncols entries; lo may be
 * -INFINITY, hi INFINITY). */
void lp_add_row(struct lp *lp, const double *coef, double lo, double hi);
/* The same with n (column, coefficient) pairs: for wide programs. */
void lp_add_row_sparse(struct lp *lp, size_t n, const size_t *cols, const double *coef, double lo,
		       double hi);
/* Solves; x (ncols entries, may be NULL) and *objective receive the optimum.
 * Returns 0, or -1 with perpi_error() set (infeasible, unbounded). */
int lp_solve(struct lp *lp, double *x, double *objective);

#endif
