/* go.h: the float64 CPU references (the oracle), one .c per family. Uniform shape, after
 * LAPACKE: go_<op>(sizes..., inputs with leading dimensions..., outputs...). Matrices are
 * row-major with explicit leading dimensions; sizes are int64_t. Gauges (the error model's
 * g >= |r|) come from the matching go_<op>_gauge. Each family appends its block below.
 *
 * Errors, as LAPACK's xerbla reports them. Every go_* returns
 *   0          success;
 *   -i         argument i (1-based, in the prototype's order) is invalid: the first bad one;
 *   GO_ENOMEM  a host allocation failed (far below any argument index).
 * Either failure also records a message for go_last_error(), e.g. "go_gemm: argument 5
 * (lda) is invalid" or "go_fft_c2c: out of memory" (per thread; the last failure since
 * go_clear_error() wins; "" when there was none).
 * Numerical outcomes are never errors: a singular or rank-deficient system returns 0 and
 * says so through an `info` output argument (LAPACK's info > 0), and the caller decides what
 * it means for the case. go_xerbla and go_enomem are how the oracle files record a failure:
 * each returns the code to return. */
#pragma once

#include <stdint.h>

enum { GO_ENOMEM = -1000 };
/* Loops with less work than this (elements, or elements x iterations) stay on one thread: a
   parallel region costs microseconds to start and join, far more on a loaded machine. Loops
   above it run on all cores (OpenMP) with each element's arithmetic as on one thread. */
#define GO_PAR_MIN 262144.0
int go_xerbla(const char *fn, int i, const char *arg); /* records; returns -i */
int go_enomem(const char *fn);                         /* records; returns GO_ENOMEM */
/* The arguments of an oracle over the m rows of n >= 1 elements of x (row stride ldx) into y
   (row stride ldy): 0, or go_xerbla's code for the first bad one (softmax, norms, scan). */
int go_check_rows(const char *fn, int64_t m, int64_t n, const double *x, int64_t ldx,
                  const double *y, int64_t ldy);
const char *go_last_error(void); /* "" when none since go_clear_error() */
void go_clear_error(void);

/* OpenBLAS and LAPACK on a fixed thread count (blas_threads.c). Their results depend on the
   thread count they run on (LU, QR and Cholesky split their panels by it; dot products and
   some dgemm kernels split their sums), so every oracle call into them runs on
   GO_BLAS_THREADS threads, whatever the host's cores, the worker count or OPENBLAS_NUM_THREADS:
   a reference is the same bits on a 2-core laptop and a 16-core GPU host. go_blas_enter sets
   the count and returns the caller's, go_blas_leave restores it; calls nest. Not for use
   inside a parallel region (the count is process-wide). go_blas_fixed_threads(0) lets the
   caller's count stand (bench times the CPU oracle on the threads it records); n > 0 fixes
   n. */
#define GO_BLAS_THREADS 4
void go_blas_fixed_threads(int threads);
int go_blas_threads(void); /* the count the oracle's BLAS runs on now (0: the caller's) */
int go_blas_enter(void);
void go_blas_leave(int prev);
/* One statement (a BLAS or LAPACK call, or an assignment of one's result) on the fixed count. */
#define GO_BLAS(stmt)                                                                              \
    do {                                                                                           \
        int go_blas_prev_ = go_blas_enter();                                                       \
        stmt;                                                                                      \
        go_blas_leave(go_blas_prev_);                                                              \
    } while (0)

/* vadd: c = a + b; gauge |a| + |b|. */
int go_vadd(int64_t n, const double *a, const double *b, double *c);
int go_vadd_gauge(int64_t n, const double *a, const double *b, double *g);

/* gemm: C(m x n) = A(m x k) B(k x n), OpenBLAS dgemm; gauge |A| |B|. */
int go_gemm(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
            int64_t ldb, double *c, int64_t ldc);
int go_gemm_gauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                  int64_t ldb, double *g, int64_t ldg);
/* The same gauge given C = A B from go_gemm: when no entry of A or B is negative (or NaN),
 * |A||B| is that very dgemm, so g = |C| at the cost of a copy; else go_gemm_gauge. */
int go_gemm_gauge_given(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                        const double *b, int64_t ldb, const double *c, int64_t ldc, double *g,
                        int64_t ldg);
/* The probabilistic model's spread sqrt((A o A)(B o B)): the root of the sum of squared
 * products of each dot product (docs/error-models.md). The other *_sqgauge alike. */
/* A power of two s such that the largest finite |x| of a rows x cols matrix (leading dimension
 * ld) times s lies in [1, 2): the squares of the sq-gauges are then taken of scaled values,
 * so that inputs near the overflow threshold (or deep in the subnormals) neither overflow nor
 * underflow when squared. 1 where the largest lies in [2^-300, 2^300] already (the scaling is
 * exact, but costs a copy). At most 2^1000, a finite double: below 2^-1000 the scaled largest
 * lies under 1 (the least subnormal at 2^-74), its square still normal. */
double go_pow2_scale(int64_t rows, int64_t cols, const double *x, int64_t ld);

/* The largest finite |x| of a rows x cols matrix (leading dimension ld), on every core; 0 when
 * none (oracle/gemm.c; the sums' and products' lift out of the subnormals both ask it). */
double go_max_finite_abs(int64_t rows, int64_t cols, const double *x, int64_t ld);
/* x rounded to a binary format of p significand bits (smallest normal 2^emin, largest finite
 * max_finite) to nearest, ties to even, with gradual underflow (a zero keeps x's sign); past
 * max_finite (and an infinite x) +-inf, or with saturate +-max_finite (e4m3 under cuda_fp8.h's
 * __NV_SATFINITE, which has no infinity); NaN stays NaN. The operands of a tensor-core mode as
 * its conversion leaves them (oracle/gemm.c). */
double go_round_format(double x, int p, int emin, double max_finite, int saturate);
/* C_ij = sum_l A_il B_lj in plain f64, index order, for the elements with mark[i n + j] != 0
 * (row-major m x n); the others are left as they are. For the few outputs whose operands a
 * mode's conversion made infinite, NaN or zero beside an infinity: IEEE arithmetic gives their
 * NaN and Inf in any order. */
int go_gemm_marked(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                   int64_t ldb, const unsigned char *mark, double *c, int64_t ldc);
int go_gemm_sqgauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                    int64_t ldb, double *g, int64_t ldg);

/* colsum: s(n) = sum over rows of X(m x n); gauge sum |X|. */
int go_colsum(int64_t m, int64_t n, const double *x, int64_t ldx, double *s);
int go_colsum_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g);
int go_colsum_sqgauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g);

/* matmul_colsum: s(n) = colsum(A B) computed as the seed does it: dgemm, then the sum over
 * rows. einsum_colsum: the same quantity as (1^T A) B: column sums of A, then dgemv.
 * Both share the gauge colsum(|A|) |B|. */
int go_matmul_colsum(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                     int64_t ldb, double *s);
int go_einsum_colsum(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                     int64_t ldb, double *s);
int go_colsum_product_gauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                            const double *b, int64_t ldb, double *g);
int go_colsum_product_sqgauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                              const double *b, int64_t ldb, double *g);

/* dense: seed 004's layer Y(m x n) = sigmoid(W(m x k) X(k x n) + b), b(m) added to row i,
 * sigmoid in the form stable for both signs (go_sigmoid: t = exp(-|z|), (z >= 0 ? 1 : t) /
 * (1 + t)); gauge 0.25 (|W||X| + |b|) + |Y| (Y: the oracle's output). */
double go_sigmoid(double z);
int go_dense_sigmoid(int64_t m, int64_t k, int64_t n, const double *w, int64_t ldw, const double *x,
                     int64_t ldx, const double *b, double *y, int64_t ldy);
int go_dense_sigmoid_gauge(int64_t m, int64_t k, int64_t n, const double *w, int64_t ldw,
                           const double *x, int64_t ldx, const double *b, const double *y,
                           int64_t ldy, double *g, int64_t ldg);

/* stencil (seeds 002 and 003): 5-point stencils on a row-major ny x nx grid; f and out must
 * not overlap. laplace: out = 4 f - sum of the neighbours that exist (fixed edges).
 * diffusion_fixed: steps of f <- f - 0.25 laplace(f). diffusion_periodic: steps of
 * f <- f + coeff (sum of the 4 wrapped neighbours - 4 f), 0 <= coeff <= 1/4. Gauges: laplace
 * 4|f| + sum |neighbours|; diffusion (I + A) M^(steps-1) |f| with M the step's non-negative
 * operator and A the neighbour operator (src/ops/stencil.c derives them). */
int go_stencil_laplace(int64_t ny, int64_t nx, const double *f, int64_t ldf, double *out,
                       int64_t ldo);
int go_stencil_laplace_gauge(int64_t ny, int64_t nx, const double *f, int64_t ldf, double *g,
                             int64_t ldg);
int go_diffusion_fixed(int64_t ny, int64_t nx, int64_t steps, const double *f, int64_t ldf,
                       double *out, int64_t ldo);
int go_diffusion_fixed_gauge(int64_t ny, int64_t nx, int64_t steps, const double *f, int64_t ldf,
                             double *g, int64_t ldg);
int go_diffusion_periodic(int64_t ny, int64_t nx, int64_t steps, double coeff, const double *f,
                          int64_t ldf, double *out, int64_t ldo);
int go_diffusion_periodic_gauge(int64_t ny, int64_t nx, int64_t steps, double coeff,
                                const double *f, int64_t ldf, double *g, int64_t ldg);

/* solve: dense A x = b, row-major, one right-hand side. go_gesv is LAPACKE dgesv (LU with
 * partial pivoting), go_posv LAPACKE dposv (Cholesky); both leave a and b untouched, write x
 * and LAPACK's info (> 0: gesv, U(info,info) is exactly zero; posv, the leading minor of
 * order info is not positive definite; x then holds b). go_solve_cond_matrix builds an n x n
 * matrix with 2-norm condition number kappa, A = Q1 diag(s) Q2^T, s geometric from 1 to
 * 1/kappa, Q1 and Q2 the QR factors (dgeqrf + dorgqr) of the random n x n matrices g1, g2
 * (overwritten); GO_COND_SPD: A = Q1 diag(s) Q1^T, exactly symmetric, g2 unused;
 * GO_COND_GENERAL_PIVOT: as GENERAL with Q1 reflected so that a11 = 0 in exact arithmetic
 * (LU without pivoting breaks down on it). go_solve_scaled_residual is HPL's
 * ||A x - b||_inf / (u (||A||_inf ||x||_inf + ||b||_inf) n), accumulated in long double;
 * NaN when x or the residual is not finite. */
enum { GO_COND_GENERAL = 0, GO_COND_GENERAL_PIVOT = 1, GO_COND_SPD = 2 };
/* Or'ed into kind: g1 (and g2) are already orthogonal, go_solve_orthogonalise's output: the
 * QR is skipped, so callers can reuse the factors of one (n, seed) across kappas. */
enum { GO_COND_Q_GIVEN = 16 };
/* Overwrite the n x n row-major g by the Q of its QR factorisation (dgeqrf + dorgqr). */
int go_solve_orthogonalise(int64_t n, double *g);
int go_solve_cond_matrix(int64_t n, double kappa, int kind, double *g1, double *g2, double *a,
                         int64_t lda);
int go_gesv(int64_t n, const double *a, int64_t lda, const double *b, double *x, int *info);
int go_posv(int64_t n, const double *a, int64_t lda, const double *b, double *x, int *info);
int go_solve_scaled_residual(int64_t n, const double *a, int64_t lda, const double *x,
                             const double *b, double u, double *sr);

/* sin_iter: y(n) = sin applied k times to x(n), f64 glibc sin (< 1 ulp a step). */
int go_sin_iter(int64_t n, int64_t k, const double *x, double *y);

/* reduce: s = sum of x(n); gauge sum |x|. Column sums of X(m x n): s(n); gauge colsum(|X|).
 * Compensated (go_colsum); a non-finite result takes IEEE's order-free NaN/Inf value. */
int go_reduce_sum(int64_t n, const double *x, double *s);
int go_reduce_sum_gauge(int64_t n, const double *x, double *g);
int go_reduce_colsum(int64_t m, int64_t n, const double *x, int64_t ldx, double *s);
int go_reduce_colsum_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g);
/* reduce.mean: y(i) = the mean of row i of X(m x n), torch.mean(x, dim=-1) (the row's sum as
 * go_reduce_sum's, divided by n); gauge the mean of |x| a row. */
int go_reduce_mean(int64_t m, int64_t n, const double *x, int64_t ldx, double *y);
int go_reduce_mean_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g);

/* fft: batched 1-D DFTs through FFTW (f64, FFTW_ESTIMATE), unnormalised like cuFFT and
 * FFTW: forward (sign -1) y_k = sum_j x_j e^{-2 pi i jk/n}, inverse (sign +1) with e^{+...},
 * no 1/n. Complex data interleaved (re, im); ld counts complex elements for complex arrays
 * and reals for real ones; batch rows. r2c keeps the n/2 + 1 non-redundant outputs; c2r
 * reads them as the half spectrum of a real signal and writes n reals. Gauges: every output
 * element of row b gets the 2-norm of that row's exact full-length transform,
 * sqrt(n) ||x_b||_2 (Parseval), which bounds |y_i| and, times u log2(n), the error
 * (Higham ASNA 2nd ed., Theorem 24.2). */
int go_fft_c2c(int64_t n, int64_t batch, int sign, const double *x, int64_t ldx, double *y,
               int64_t ldy);
int go_fft_r2c(int64_t n, int64_t batch, const double *x, int64_t ldx, double *y, int64_t ldy);
int go_fft_c2r(int64_t n, int64_t batch, const double *x, int64_t ldx, double *y, int64_t ldy);
int go_fft_c2c_gauge(int64_t n, int64_t batch, const double *x, int64_t ldx, double *g,
                     int64_t ldg);
int go_fft_r2c_gauge(int64_t n, int64_t batch, const double *x, int64_t ldx, double *g,
                     int64_t ldg);
int go_fft_c2r_gauge(int64_t n, int64_t batch, const double *x, int64_t ldx, double *g,
                     int64_t ldg);

/* lsmr: ridge least squares min ||A x - b||^2 + lambda^2 ||x||^2 with A (m x n) in CSR
 * (0-based int32 row_ptr[m + 1], col_idx[nnz], vals[nnz]).
 * go_lsmr_ridge: x by dense Householder QR (LAPACKE dgels) of [A; lambda I] x = [b; 0];
 *   info > 0 (possible only with lambda = 0): rank deficient, R(info,info) = 0, x unwritten.
 * go_lsmr_ridge_residuals: norms[GO_LSMR_NORM_*] of any x: ||b - A x||, ||x||,
 *   ||A^T (b - A x) - lambda^2 x|| and the stacked residual sqrt(||b - Ax||^2 + lambda^2
 *   ||x||^2), in f64 with long double sums.
 * (The CPU LSMR that replays the device's recurrences is a test tool: tests/cpu/lsmr_ref.h.) */
enum { GO_LSMR_NORM_R = 0, GO_LSMR_NORM_X, GO_LSMR_NORM_G, GO_LSMR_NORM_RBAR, GO_LSMR_NNORMS };
int go_lsmr_ridge(int64_t m, int64_t n, const int32_t *row_ptr, const int32_t *col_idx,
                  const double *vals, const double *b, double lambda, double *x, int *info);
int go_lsmr_ridge_residuals(int64_t m, int64_t n, const int32_t *row_ptr, const int32_t *col_idx,
                            const double *vals, const double *b, double lambda, const double *x,
                            double *norms);

/* exact (oracle/exact.c): dot products and sums of inputs on a fixed-point grid, computed in
 * integers and rounded once: hi is the correctly rounded f64 result and lo the correctly
 * rounded remainder (exact - hi). Where a row or column is off the grid (a value not finite, or
 * one so small beside its neighbours that the span passes 62 bits), *done is 0 and nothing is
 * written: the caller keeps its floating-point reference. gemm: C = A B; colsum: the column
 * sums of X(m x n); colsum_product: the column sums of A B, sum_k (sum_i a_ik) b_kj. */
int go_gemm_exact(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                  int64_t ldb, double *hi, double *lo, int64_t ldc, int *done);
int go_colsum_exact(int64_t m, int64_t n, const double *x, int64_t ldx, double *hi, double *lo,
                    int *done);
int go_colsum_product_exact(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                            const double *b, int64_t ldb, double *hi, double *lo, int *done);

/* mathfn (oracle/mathfn.c): y(n) = f(x(n)) for f in sin, exp, the sigmoid 1 / (1 + exp(-x)),
 * computed wider than f64 and rounded once. go_mathfn: y the f64 result rounded to nearest and
 * lo (may be NULL) the remainder, from __float128 (libquadmath), else long double;
 * go_mathfn_ref_bits: that type's significand bits (113, or 64 on x86 without libquadmath).
 * go_mathfn_odd: from long double, y rounded to odd at 53 bits, so that rounding y to f32 gives
 * the correctly rounded f32 result. */
enum { GO_MATH_SIN = 0, GO_MATH_EXP, GO_MATH_SIGMOID, GO_MATH_NFN };
int go_mathfn(int fn, int64_t n, const double *x, double *y, double *lo);
int go_mathfn_odd(int fn, int64_t n, const double *x, double *y);
int go_mathfn_ref_bits(void);
/* v rounded to odd at f64's 53 bits (go_mathfn_odd's last step): exact values unchanged, others
 * truncated toward zero with the last significand bit then set. */
double go_round_to_odd(long double v);

/* softmax (oracle/softmax.c): row-wise over the last dimension of x(m x n), row-major, in long
 * double with compensated sums, rounded once: go_softmax_rows y = exp(x - M) / sum exp(x - M)
 * (M the row's largest); go_softmax_log y = (x - M) - log(sum exp(x - M)); go_norm_layer
 * y = (x - mean) / sqrt(var + eps), var the biased variance; go_norm_rms
 * y = x / sqrt(mean(x^2) + eps); go_norm_l2 y = x / sqrt(sum x^2); go_norm_l1mean
 * y = x / mean |x| (KernelBench's "L1 norm"). Gauges (docs/error-models.md, section softmax), each
 * g >= |y|, given y from the matching oracle and the kernel's depth D (and for layer norm the
 * dtype's u, its subnormal spacing 2 eta and the depth of its sums):
 *   softmax:     y_j (1 + (h_j + A_i) / D), h_j = go_softmax_arg_units(x_j - M),
 *                A_i = sum_k y_k h_k;
 *   log-softmax: max(|y_j|, 1 + (h_j + A_i + 3 L_i + |y_j|) / D), L_i = log sum exp(x - M);
 *   layer norm:  max(|y_j|, (((d_s + 2) m1 + |x_j - mean| + 2 eta / u) / sd
 *                + |y_j| (d_s / 2 + 10 + second order)) / D), m1 = mean |x|, sd = sqrt(var + eps).
 * RMS norm's gauge is |y| itself (src/ops/softmax.c). go_softmax_arg_units(t): the largest power
 * of two not above |t| (0 for t = 0 or not finite), which bounds half an ulp of a rounded t in
 * units of the dtype's unit roundoff. */
int go_softmax_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy);
int go_softmax_log(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy);
int go_norm_layer(int64_t m, int64_t n, const double *x, int64_t ldx, double eps, double *y,
                  int64_t ldy);
int go_norm_rms(int64_t m, int64_t n, const double *x, int64_t ldx, double eps, double *y,
                int64_t ldy);
int go_norm_l2(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy);
int go_norm_l1mean(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy);
double go_softmax_arg_units(double t);
int go_softmax_rows_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, const double *y,
                          int64_t ldy, double depth, double *g, int64_t ldg);
int go_softmax_log_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, const double *y,
                         int64_t ldy, double depth, double *g, int64_t ldg);
int go_norm_layer_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double eps,
                        const double *y, int64_t ldy, double u, double spacing, double depth,
                        double sum_depth, double *g, int64_t ldg);

/* scan (oracle/scan.c): y(i, j) = sum_{k <= j} x(i, k), the inclusive prefix sums along each
 * row of x(m x n), row-major, by a compensated running sum in long double, rounded once; the
 * gauge g(i, j) = sum_{k <= j} |x(i, k)| (docs/error-models.md, section scan). */
int go_scan_cumsum(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy);
int go_scan_cumsum_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g,
                         int64_t ldg);
/* y(i, j) = prod_{k <= j} x(i, k) (scan.cumprod), a running product in long double rounded
 * once a prefix; the gauge from that y: g(i, j) = (j + 1) |y(i, j)| (docs/error-models.md,
 * section scan.cumprod). */
int go_scan_cumprod(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy);
int go_scan_cumprod_gauge(int64_t m, int64_t n, const double *y, int64_t ldy, double *g,
                          int64_t ldg);

/* argmax (oracle/argmax.c): idx(i) = the first j of row i of x(m x n), row-major, whose value
 * is the row's largest, a NaN counting as larger than every number (torch.argmax: the first
 * NaN where the row has one; -0 and +0 are equal), stored as a double. Exact: no arithmetic. */
int go_argmax_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *idx);
/* go_argmin_rows: the same with the row's smallest (torch.argmin: a NaN still wins, the first
 * index on a tie). */
int go_argmin_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *idx);
/* go_max_rows, go_min_rows: y(i) = the value at go_argmax_rows' (go_argmin_rows') index: the
 * row's max (min), NaN where the row holds one (torch.amax, torch.amin). Exact. */
int go_max_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *y);
int go_min_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *y);

/* bnorm (oracle/bnorm.c): y = training-mode batch norm of the NCHW tensor x (nb images, nc
 * channels, hw values a plane, packed): each channel's nb hw values normalised by their mean
 * and biased variance, as go_norm_layer normalises a row; the gauge as go_norm_layer_gauge's
 * of the channel rows (docs/error-models.md, section norm.batch). */
int go_norm_batch(int64_t nb, int64_t nc, int64_t hw, const double *x, double eps, double *y);
int go_norm_batch_gauge(int64_t nb, int64_t nc, int64_t hw, const double *x, double eps,
                        const double *y, double u, double spacing, double depth, double sum_depth,
                        double *g);

/* loss (oracle/loss.c): l(i) = log sum_j exp(x(i, j)) - x(i, t(i)), the cross-entropy of each
 * row of the logits x(m x n), row-major, against the integer targets t (m of them, stored as
 * doubles; one outside [0, n) or not an integer gives NaN), in long double with a compensated
 * sum of exp(x - M), rounded once. Gauge (docs/error-models.md, section loss), given l from
 * go_loss_xent, exp's error E in units of u, the kernel's sum depth d_s and its depth D:
 * g(i) = max(l(i), (A_i + E + d_s + 2 l(i) + 2 log S_i) / D), A_i = sum_j y_j h_j as for the
 * softmax (go_softmax_arg_units). */
int go_loss_xent(int64_t m, int64_t n, const double *x, int64_t ldx, const double *t, double *l);
/* (long double)v bit for bit, without the x87 load of a subnormal double (a microcode assist on
 * many x86 cores): what the loss's exp arguments are widened with. */
long double go_widen(double v);
int go_loss_xent_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, const double *t,
                       const double *l, double exp_units, double sum_depth, double depth,
                       double *g);
/* Both at once, each row's exp values computed once: l as go_loss_xent's, g as
   go_loss_xent_gauge's from that l, the same bits (arguments numbered as the gauge's). */
int go_loss_xent_with_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, const double *t,
                            double *l, double exp_units, double sum_depth, double depth,
                            double *g);
/* The losses of two m x n tensors reduced to one value (oracle/loss.c): GO_PAIR_MSE
 * mean((x - y)^2), GO_PAIR_L1 mean|x - y|, GO_PAIR_SMOOTH_L1 the mean of torch's smooth L1 with
 * beta, GO_PAIR_KL kl_div(x, y, reduction='batchmean') = sum(xlogy(y, y) - y x) / m; the gauge
 * |r| (non-negative terms) or, for the KL, sum(|y log y| + |y x|) / m. */
enum { GO_PAIR_MSE = 0, GO_PAIR_L1 = 1, GO_PAIR_SMOOTH_L1 = 2, GO_PAIR_KL = 3 };
int go_loss_pair(int kind, int64_t m, int64_t n, const double *x, const double *y, double beta,
                 double *out);
int go_loss_pair_gauge(int kind, int64_t m, int64_t n, const double *x, const double *y,
                       double beta, double *g);

/* pool (oracle/pool.c): 2-D pooling of nc planes of h x w (NCHW, row-major planes), window
 * k x k, stride k, no padding, into (nc, h / k, w / k): go_pool_max2d the window's largest
 * value (NaN where the window holds one), go_pool_avg2d its mean (long double sum, rounded
 * once); go_pool_avg2d_gauge the window's mean of |x| (docs/error-models.md, section pool). */
int go_pool_max2d(int64_t nc, int64_t h, int64_t w, int64_t k, const double *x, double *y);
int go_pool_avg2d(int64_t nc, int64_t h, int64_t w, int64_t k, const double *x, double *y);
int go_pool_avg2d_gauge(int64_t nc, int64_t h, int64_t w, int64_t k, const double *x, double *g);
/* 1-D (sz = {l}) and 3-D (sz = {d, h, w}) pooling, window k a side, stride k, no padding,
 * out (nc, l / k) or (nc, d / k, h / k, w / k): max, mean and the mean of |x| as above. */
int go_pool_max1d(int64_t nc, const int64_t *sz, int64_t k, const double *x, double *y);
int go_pool_avg1d(int64_t nc, const int64_t *sz, int64_t k, const double *x, double *y);
int go_pool_avg1d_gauge(int64_t nc, const int64_t *sz, int64_t k, const double *x, double *g);
int go_pool_max3d(int64_t nc, const int64_t *sz, int64_t k, const double *x, double *y);
int go_pool_avg3d(int64_t nc, const int64_t *sz, int64_t k, const double *x, double *y);
int go_pool_avg3d_gauge(int64_t nc, const int64_t *sz, int64_t k, const double *x, double *g);
/* poolpad (oracle/poolpad.c): pooling of nc rows, planes or volumes (rank 1, 2, 3; sz the
 * rank's sides) with window k, stride s, zero padding p (2p <= k) and dilation dil along every
 * side, PyTorch's output sides go_poolpad_out(n, ...) (ceil_mode False): go_poolpad_max the
 * largest of the window's elements inside the input (NaN where one is), go_poolpad_avg their
 * sum over k^rank (count_include_pad=True), go_poolpad_avg_gauge the sum of |x| over k^rank
 * (docs/error-models.md, section poolpad). */
/* lossred (oracle/lossred.c): losses reduced to one value over a batch. go_loss_xent_mean the
 * mean of loss.xent's rows (x m x n, t m integer targets); go_loss_hinge mean(max(1 - p_ij t_j,
 * 0)) over m x n (t n values, broadcast along the rows); go_loss_triplet the mean over rows of
 * max(||a - p + eps|| - ||a - q + eps|| + margin, 0). Gauges: docs/error-models.md, section
 * lossred. */
int go_loss_xent_mean(int64_t m, int64_t n, const double *x, const double *t, double *out);
int go_loss_xent_mean_gauge(int64_t m, int64_t n, const double *x, const double *t,
                            double exp_units, double sum_depth, double row_depth, double *g);
int go_loss_hinge(int64_t m, int64_t n, const double *p, const double *t, double *out);
int go_loss_triplet(int64_t m, int64_t n, const double *a, const double *p, const double *q,
                    double eps, double margin, double *out);
int go_loss_triplet_gauge(int64_t m, int64_t n, const double *a, const double *p,
                          const double *q, double eps, double margin, double row_sum_depth,
                          double mean_units, double depth, double *g);
int64_t go_poolpad_out(int64_t n, int64_t k, int64_t s, int64_t p, int64_t dil);
int go_poolpad_max(int rank, int64_t nc, const int64_t *sz, int64_t k, int64_t s, int64_t p,
                   int64_t dil, const double *x, double *y);
int go_poolpad_avg(int rank, int64_t nc, const int64_t *sz, int64_t k, int64_t s, int64_t p,
                   int64_t dil, const double *x, double *y);
int go_poolpad_avg_gauge(int rank, int64_t nc, const int64_t *sz, int64_t k, int64_t s,
                         int64_t p, int64_t dil, const double *x, double *g);

/* act (oracle/act.c): y(n) = f(x(n)) element-wise for the activations as PyTorch defines them:
 * GO_ACT_GELU x/2 (1 + erf(x / sqrt 2)), GO_ACT_GELU_TANH x/2 (1 + tanh(sqrt(2/pi) (x +
 * 0.044715 x^3))), GO_ACT_SILU x / (1 + exp(-x)), GO_ACT_TANH tanh x, GO_ACT_RELU max(x, 0),
 * GO_ACT_LEAKY_RELU x or 0.01 x, GO_ACT_HARDTANH clamp(x, -1, 1), GO_ACT_SOFTSIGN x / (1 + |x|),
 * GO_ACT_ELU x or expm1(x), GO_ACT_SELU scale (x or alpha expm1(x)), GO_ACT_HARDSIGMOID
 * clamp(x + 3, 0, 6) / 6, GO_ACT_SOFTPLUS x above 20, else log1p(exp(x)) (abi/act.h's
 * constants); in long double, in forms that do not cancel (1 + erf(t) = erfc(-t), expm1,
 * log1p), rounded once. go_act_eval: one element, before the rounding to f64. The gauge is the
 * op's (src/ops/act.c: docs/error-models.md, section act). */
enum {
    GO_ACT_GELU = 0,
    GO_ACT_GELU_TANH,
    GO_ACT_SILU,
    GO_ACT_TANH,
    GO_ACT_RELU,
    GO_ACT_LEAKY_RELU,
    GO_ACT_HARDTANH,
    GO_ACT_SOFTSIGN,
    GO_ACT_ELU,
    GO_ACT_SELU,
    GO_ACT_HARDSIGMOID,
    GO_ACT_SOFTPLUS,
    GO_ACT_NFN
};
int go_act(int fn, int64_t n, const double *x, double *y);
long double go_act_eval(int fn, long double x);

/* gemm.batched (oracle/gemm.c): C_q = op(A_q) op(B_q) for q < batch, every matrix packed
 * row-major one after another (C_q m x n at c + q m n); op(A) = A stored m x k, or with
 * GO_GEMM_TRANS_A A^T of an A stored k x m; op(B) = B stored k x n, or with GO_GEMM_TRANS_B
 * B^T of a B stored n x k. what: GO_GEMM_VALUE the product (go_gemm), GO_GEMM_GAUGE
 * |op(A)||op(B)| (go_gemm_gauge), GO_GEMM_SQGAUGE sqrt((op(A) o op(A))(op(B) o op(B)))
 * (go_gemm_sqgauge), each on one batch's operands packed into op form. */
enum { GO_GEMM_VALUE = 0, GO_GEMM_GAUGE = 1, GO_GEMM_SQGAUGE = 2 };
enum { GO_GEMM_TRANS_A = 1, GO_GEMM_TRANS_B = 2 };
int go_gemm_batched(int what, int trans, int64_t batch, int64_t m, int64_t k, int64_t n,
                    const double *a, const double *b, double *c);

/* conv (oracle/conv.c): y (n x o x oh x ow) = the direct convolution of the NCHW x (n x c x h x
 * w) by wt (o x c x kh x kw), stride and zero padding ph, pw, plus bias (o), as PyTorch's
 * conv2d (no flip), oh and ow gk_conv_out_side's (abi/conv.h); long double sums rounded once.
 * go_conv_gauge: sum |x||w| + |bias| (docs/error-models.md, section conv). */
int go_conv(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh, int64_t kw,
            int64_t stride, int64_t ph, int64_t pw, const double *x, const double *wt,
            const double *bias, double *y);
int go_conv_gauge(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh, int64_t kw,
                  int64_t stride, int64_t ph, int64_t pw, const double *x, const double *wt,
                  const double *bias, double *g);
/* go_conv3d: the same over an NCDHW volume x (n x c x d x h x w) by wt (o x c x kd x kh x kw),
 * stride and zero padding pd, ph, pw, into y (n x o x od x oh x ow); bias may be NULL (no bias:
 * conv3d(bias=False)). go_conv is its d = kd = 1, pd = 0 case with a bias. go_conv3d_gauge:
 * sum |x||w| (+ |bias|). */
int go_conv3d(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o, int64_t kd,
              int64_t kh, int64_t kw, int64_t stride, int64_t pd, int64_t ph, int64_t pw,
              const double *x, const double *wt, const double *bias, double *y);
int go_conv3d_gauge(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o, int64_t kd,
                    int64_t kh, int64_t kw, int64_t stride, int64_t pd, int64_t ph, int64_t pw,
                    const double *x, const double *wt, const double *bias, double *g);
/* go_conv3d_ex: go_conv3d with torch's dilation (taps dil apart; out side floor((in + 2 p -
 * dil (k - 1) - 1) / stride) + 1) and groups (c and o multiples of it; wt o x c/groups x kd x kh x
 * kw; output channel oc reads the input channels of group oc / (o / groups)); a padding up to
 * dil (k - 1). go_conv3d is its dil = groups = 1 case. go_conv3d_ex_gauge: sum |x||w| + |bias|. */
int go_conv3d_ex(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o, int64_t kd,
                 int64_t kh, int64_t kw, int64_t stride, int64_t dil, int64_t groups, int64_t pd,
                 int64_t ph, int64_t pw, const double *x, const double *wt, const double *bias,
                 double *y);
int go_conv3d_ex_gauge(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o, int64_t kd,
                       int64_t kh, int64_t kw, int64_t stride, int64_t dil, int64_t groups,
                       int64_t pd, int64_t ph, int64_t pw, const double *x, const double *wt,
                       const double *bias, double *g);
/* go_conv3d_transposed: ConvTranspose3d (2d, 1d: d = kd = 1, h = kh = 1) at stride 1, padding 0,
 * from its definition, y(b, oc, k, i, j) = bias(oc) + sum x(b, ci, k - z, i - a, j - e)
 * wt(ci, oc, z, a, e), wt c x o x kd x kh x kw (PyTorch's (in, out) order), bias NULL for
 * none, y n x o x (d + kd - 1) x (h + kh - 1) x (w + kw - 1); _gauge: the terms' |.| summed. */
int go_conv3d_transposed(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o,
                         int64_t kd, int64_t kh, int64_t kw, const double *x, const double *wt,
                         const double *bias, double *y);
int go_conv3d_transposed_gauge(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o,
                               int64_t kd, int64_t kh, int64_t kw, const double *x,
                               const double *wt, const double *bias, double *g);

/* attn (oracle/attn.c): y = softmax(Q K^T / sqrt(d) [+ causal mask: key j <= query i]) V for
 * Q, K, V, y of b x h x s x d (row-major), as PyTorch's scaled_dot_product_attention without
 * dropout; each query row in long double, rounded once. go_attn_sdpa_gauge: the error model's
 * gauge given y, the dtype's u, exp's error E in units of u, the subnormal spacing and the depth
 * D (docs/error-models.md, section attn). */
int go_attn_sdpa(int64_t b, int64_t h, int64_t s, int64_t d, int causal, const double *q,
                 const double *k, const double *v, double *y);
int go_attn_sdpa_gauge(int64_t b, int64_t h, int64_t s, int64_t d, int causal, const double *q,
                       const double *k, const double *v, const double *y, double u,
                       double exp_units, double spacing, double depth, double *g);
