/* gen.h: the counter-based input generator. A value depends only on (seed, tensor, index),
 * so inputs are bit-identical on every machine, thread count and size split. */
#ifndef GV_GEN_H
#define GV_GEN_H

#include "core/gv.h"

/* Fills and copies of fewer elements stay on one thread (oracle/go.h's GO_PAR_MIN, why). */
#define GV_PAR_MIN 262144

/* 64 random bits for (seed, tensor, index). */
uint64_t gv_gen_bits(uint64_t seed, uint64_t tensor, uint64_t index);
/* Uniform double in [0,1) with 53 random bits. */
double gv_gen_unit(uint64_t seed, uint64_t tensor, uint64_t index);
/* One value of distribution d, in f64, before rounding to a storage dtype. */
double gv_gen_value(gv_dist d, uint64_t seed, uint64_t tensor, uint64_t index);
/* Fill out[0..n) with dist d rounded to dtype t (values stay in f64). */
void gv_gen_fill(double *out, int64_t n, gv_dist d, gv_dtype t, uint64_t seed, uint64_t tensor);
/* out[k] = element start + k of gv_gen_fill's tensor, for k in [0, n), on the calling thread:
 * a range of a fill, to be followed by other work on it while it is in cache. */
void gv_gen_fill_at(double *out, int64_t start, int64_t n, gv_dist d, gv_dtype t, uint64_t seed,
                    uint64_t tensor);
/* A rows x cols row-major matrix with two entries +-1 in every column (one when rows = 1),
 * at rows drawn from (seed, tensor, column), zeros elsewhere: perm2's second operand. */
void gv_gen_perm2(double *out, int64_t rows, int64_t cols, uint64_t seed, uint64_t tensor);
/* Where the edge distributions put their values, for one tensor of one case:
 *   tiny, huge   +-m 2^e, m in [1, 2) with the dtype's p significant bits, e uniform over
 *                [top - width + 1, top];
 *   sparse-special  a special (NaN, +Inf, -Inf or -0, one in four each) at an index with
 *                probability special_rate, the same indices in every tensor of the case.
 * gv_dist_window derives them from the dtype's range, the op's range_degree (op.h) and the
 * terms an output sums (its order-free depth, else its depth), so that (docs/error-models.md,
 * "The edges"):
 *   tiny   degree 1: e over [emin - p + 1, emin + 1], subnormal inputs and just-normal ones, so
 *          that element-wise results are subnormal and sums pass through the subnormals;
 *          degree 2: products over [emin - p, emin + 2] with zero-mean sums of d of them near
 *          2^emin (top lowered by log2(d) / 4 an operand);
 *   huge   depth 1, degree 1: e over [emax - 3, emax], so that a + b overflows where IEEE says;
 *          otherwise every sum of d terms (degree 2: products) in any order stays below
 *          2^(emax - 1): an infinity in the output is then never the arithmetic's, always an
 *          intermediate of the kernel's own that overflowed;
 *   sparse-special  min(1/64, max(1/(4 d), 4/count)): an output meets a special among its
 *          inputs about once in four (most outputs stay finite, so placement is judged element
 *          by element), and a tensor holds at least about four. */
typedef struct gv_dist_window {
    int top, width;
    double special_rate;
} gv_dist_window;
void gv_dist_window_of(const gv_case *c, gv_dist d, int64_t count, gv_dist_window *w);
/* gv_gen_fill_at for the window's distribution (any other d: gv_gen_fill_at itself). */
void gv_gen_fill_window(double *out, int64_t start, int64_t n, gv_dist d, gv_dtype t, uint64_t seed,
                        uint64_t tensor, const gv_dist_window *w);
/* Whether d needs a window (tiny, huge, sparse-special). */
bool gv_dist_windowed(gv_dist d);

/* Round x to dtype t (round to nearest even). */
double gv_round_to(double x, gv_dtype t);

#endif
