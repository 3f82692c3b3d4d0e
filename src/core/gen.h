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
/* Round x to dtype t (round to nearest even). */
double gv_round_to(double x, gv_dtype t);

#endif
