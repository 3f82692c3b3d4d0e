/* colsum.c: op descriptors for seed 002's "matmul -> sum" and the fused einsum
 * ij,jk->k, and their planted bugs. Both compute s(n) = sum_i (A B)(i, :).
 * Error model: docs/error-models.md, section colsum. */
#include <stdlib.h>

#include "../../abi/colsum.h"
#include "../../abi/gemm.h"
#include "ops/opkit.h"

extern const gk_op gk_matmul_colsum, gk_matmul_colsum_tf32native, gk_einsum_colsum,
    gk_einsum_colsum_lastchunk, gk_matmul_colsum_halfcount, gk_einsum_colsum_halfcount;

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int matmul_colsum_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    int64_t es = (int64_t)gv_dtype_size(c->dtype);
    *l = (gv_layout){.n_in = 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"A", m * k};
    l->in[1] = (gv_tensor_spec){"B", k * n};
    l->out[0] = (gv_tensor_spec){"s", n};
    /* the 16-bit modes' operand copies (abi/gemm.h: 2-byte halves for cublasGemmEx) first */
    l->workspace_bytes = gk_half_operands_bytes(c->mode, m, k, n, 2) + m * n * es +
                         gk_colsum_scratch_bytes(m, n, es);
    return GV_OK;
}

static int einsum_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    int64_t es = (int64_t)gv_dtype_size(c->dtype);
    *l = (gv_layout){.n_in = 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"A", m * k};
    l->in[1] = (gv_tensor_spec){"B", k * n};
    l->out[0] = (gv_tensor_spec){"s", n};
    /* s (k), then the scratch both column sums share: counters for the wider, the larger
       partials (kernels/colsum.cu) */
    l->workspace_bytes =
        k * es + gk_colsum_counters_bytes(max64(k, n)) +
        max64(gk_colsum_partials_bytes(m, k, es), gk_colsum_partials_bytes(k, n, es));
    /* the 16-bit modes' operand copies (abi/gemm.h: rounded, held in f32) first */
    l->workspace_bytes += gk_half_operands_bytes(c->mode, m, k, n, 4);
    return GV_OK;
}

/* einsum.colsum.strided: A and B with padded rows (ld = k + 3, n + 5) and all three operands
   off 16-byte boundaries (abi/layout.h); the host copies, the oracle's, stay packed. */
static int einsum_strided_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    int64_t es = (int64_t)gv_dtype_size(c->dtype);
    int rc = einsum_layout(c, l);
    l->in_place[0] = gk_place_matrix(m, k, 3, 0, gk_place_odd_offset(es, 0));
    l->in_place[1] = gk_place_matrix(k, n, 5, 0, gk_place_odd_offset(es, 1));
    l->out_place[0].offset_bytes = gk_place_odd_offset(es, 2);
    return rc;
}

static int colsum_check_shape(const gv_shape *s, char *why, size_t len)
{
    if ((double)s->d[0] * (double)s->d[1] > 4e9 || (double)s->d[1] * (double)s->d[2] > 4e9 ||
        s->d[1] > 2147483647 / 2 || s->d[2] > 2147483647 / 2) {
        snprintf(why, len, "matrices must hold fewer than 4e9 elements, dims below 2^30");
        return GV_EINVAL;
    }
    return GV_OK;
}

/* The 16-bit modes (f16, bf16) exist for f32 cases only, as gemm's: the operands are rounded
   from f32 storage (autocast's cast, kernels/half_ops.cuh). */
static bool colsum_mode_valid(gv_dtype t, gv_mode m)
{
    return !gk_half_mode(m) || t == GV_F32;
}

/* The range of the converted operands (op.h, mode_reference) in the 16-bit modes: an f32
   operand above f16's 65504 (or bf16's largest) rounds to inf, one below the least subnormal
   to zero, so a column sum that meets such an operand is the sum of the converted products
   (IEEE: an inf or a NaN reaches s_j whatever the order). matmul_colsum's f16 and bf16 modes
   also store the product in the half type before the column sum (autocast's mm returns it
   so, kernels/colsum.cu does the same): a product past the type's largest finite is inf there
   although every operand is finite (f16: 65520 and above), and s_j with it. Columns neither
   marks keep the oracle's s_j: the models allow the roundings there. The converted product is
   formed only where an operand is past the format's range or the products can reach its
   largest finite (max |A| max |B| k above half of it); the ordinary dists never do. */
static int colsum_reference_as(const gv_problem *p, double *ref, int64_t *patched,
                               bool half_product)
{
    const gv_case *c = &p->c;
    int64_t m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    const gv_format_info *f = gv_format_get(gv_mode_get(c->mode)->probe_in);
    unsigned char *mark = malloc((size_t)(m * n) + 1);
    double *z = malloc(sizeof *z * (size_t)(m * n) + 1);
    int64_t marked = 0;
    int rc = mark && z ? GV_OK : GV_ENOMEM;
    *patched = 0;
    if (rc == GV_OK) rc = gv_converted_product(p, 0, 1, NULL, mark, z, &marked);
    double max = f->p > 0 ? ldexp(2.0 - ldexp(1.0, 1 - f->p), f->emax) : INFINITY;
    bool product_range = false;
    if (rc == GV_OK && half_product && gk_half_mode(c->mode)) {
        double amax = 0.0, bmax = 0.0;
        for (int64_t i = 0; i < m * k; i++)
            amax = fmax(amax, fabs(p->in[0].ref[i]));
        for (int64_t i = 0; i < k * n; i++)
            bmax = fmax(bmax, fabs(p->in[1].ref[i]));
        /* amax bmax k bounds every |z_ij| of the converted operands to within their rounding
           (2^(1-p) each): half the largest finite leaves room for it */
        product_range = !(amax * bmax * (double)k < max / 2);
    }
    double *ra = NULL;
    unsigned char *col = NULL; /* per column: gv_converted_product marked some row of it */
    if (rc == GV_OK && (marked || product_range)) {
        ra = malloc(sizeof *ra * (size_t)(m * k + k * n) + 1);
        col = calloc((size_t)n + 1, 1);
        if (!ra || !col) rc = GV_ENOMEM;
        for (int64_t i = 0; rc == GV_OK && i < m * k; i++)
            ra[i] = go_round_format(p->in[0].ref[i], f->p, f->emin, max, 0);
        for (int64_t i = 0; rc == GV_OK && i < k * n; i++)
            ra[m * k + i] = go_round_format(p->in[1].ref[i], f->p, f->emin, max, 0);
        /* a marked column is recomputed whole: every row of it from the converted operands */
        for (int64_t j = 0; rc == GV_OK && j < n; j++) {
            for (int64_t i = 0; i < m && !col[j]; i++)
                col[j] = mark[i * n + j];
            for (int64_t i = 0; i < m; i++)
                mark[i * n + j] = col[j] || product_range;
        }
        if (rc == GV_OK)
            rc = gv_oracle_rc(go_gemm_marked(m, k, n, ra, k, ra + m * k, n, mark, z, n));
        for (int64_t j = 0; rc == GV_OK && j < n; j++) {
            if (!mark[j]) continue;
            double sum = 0.0;
            bool past = false; /* a product the half type stores as inf */
            for (int64_t i = 0; i < m; i++) {
                double zij = z[i * n + j];
                if (product_range && isfinite(zij) && fabs(zij) > max) {
                    double h = go_round_format(zij, f->p, f->emin, max, 0);
                    if (isinf(h)) {
                        zij = h;
                        past = true;
                    }
                }
                sum += zij;
            }
            /* a column that only the products' range put here keeps the oracle's s_j unless
               a product overflowed: its finite sum differs from the oracle's by roundings */
            if (!col[j] && !past) continue;
            *patched += !(sum == ref[j] || (isnan(sum) && isnan(ref[j])));
            ref[j] = sum;
        }
    }
    free(col);
    free(ra);
    free(mark);
    free(z);
    return rc;
}

static int matmul_colsum_mode_reference(const gv_problem *p, double *ref, int64_t *patched)
{
    return colsum_reference_as(p, ref, patched, true);
}

static int einsum_mode_reference(const gv_problem *p, double *ref, int64_t *patched)
{
    return colsum_reference_as(p, ref, patched, false);
}

static double matmul_colsum_flops(const gv_case *c)
{
    double m = (double)c->shape.d[0], k = (double)c->shape.d[1], n = (double)c->shape.d[2];
    return 2.0 * m * k * n + m * n;
}

static double einsum_flops(const gv_case *c)
{
    double m = (double)c->shape.d[0], k = (double)c->shape.d[1], n = (double)c->shape.d[2];
    return m * k + 2.0 * k * n;
}

/* Fewest bytes: read A and B once, write s. (The matmul path also writes and re-reads the
   m x n product; that is its cost, not the problem's.) */
static double colsum_bytes(const gv_case *c)
{
    double m = (double)c->shape.d[0], k = (double)c->shape.d[1], n = (double)c->shape.d[2];
    return (m * k + k * n + n) * gv_esize(c);
}

static double matmul_colsum_depth(const gv_case *c)
{
    double d = (double)c->shape.d[1] + (double)gk_colsum_depth(c->shape.d[0]);
    if (c->mode == GV_MODE_TF32) return 4.0 + d * ldexp(1.0, -13);
    return d;
}

static double einsum_depth(const gv_case *c)
{
    return (double)(gk_colsum_depth(c->shape.d[0]) + gk_colsum_depth(c->shape.d[1]) + 1);
}

/* In any order (a user's kernel judged as these, judge_as): the product's k terms, then a sum
   of m rows, each in any order (ASNA eq. 3.13, eq. 4.4), in place of the chunked depth of
   gpuval's column sum; einsum: the column sums of A (m), the sum over k, the product. */
static double matmul_colsum_order_free_depth(const gv_case *c)
{
    double d = (double)c->shape.d[1] + (double)c->shape.d[0];
    if (c->mode == GV_MODE_TF32) return 4.0 + d * ldexp(1.0, -13);
    return d;
}

/* s_j = sum_i sum_l a_il b_lj: m k products an output in the order A B then column sums */
static double colsum_product_underflow_terms(const gv_case *c)
{
    return (double)c->shape.d[0] * (double)c->shape.d[1];
}

static double einsum_order_free_depth(const gv_case *c)
{
    return (double)c->shape.d[0] + (double)c->shape.d[1] + 1.0;
}

/* The oracle sums its column sums of A compensated, then dgemv's k terms. matmul_colsum
   shares it: s = colsum(A B) = (1^T A) B exactly, and the reassociated sum costs O(mk + kn)
   instead of the m k n of forming A B (7e11 flops at 10000x5000x7000: seconds of CPU a case),
   with an error no larger (tests/cpu/oracle_colsum.c checks both against long double). */
static double einsum_oracle_depth(const gv_case *c)
{
    return (double)c->shape.d[1] + 2.0;
}

static int colsum_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    gv_fill(p, 1, p->c.dist);
    return GV_OK;
}

static int colsum_gauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    return gv_oracle_rc(
        go_colsum_product_gauge(m, k, n, p->in[0].ref, k, p->in[1].ref, n, p->out[0].gauge));
}

/* The probabilistic model's G = |s| + sqrt(colsum(A o A)(B o B)): both paths sum the same
   m k products per output, through the product's k terms and the m rows (or the reverse). */
static int colsum_pgauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    gv_tensor *s = &p->out[0];
    int rc = go_colsum_product_sqgauge(m, k, n, p->in[0].ref, k, p->in[1].ref, n, s->pgauge);
    for (int64_t j = 0; rc == 0 && j < n; j++)
        s->pgauge[j] += fabs(s->ref[j]);
    return gv_oracle_rc(rc);
}

/* The exact column sums of A B where both sit on a grid (oracle/exact.c), for f64 cases. */
static int colsum_exact_reference(gv_problem *p, bool *done)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    int ok = 0;
    int rc = go_colsum_product_exact(m, k, n, p->in[0].ref, k, p->in[1].ref, n, p->out[0].ref,
                                     p->out[0].ref_lo, &ok);
    *done = ok == 1;
    return gv_oracle_rc(rc);
}

static int einsum_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    int rc = go_einsum_colsum(m, k, n, p->in[0].ref, k, p->in[1].ref, n, p->out[0].ref);
    return gv_oracle_rc(rc);
}

#define COLSUM_COMMON                                                                              \
    .family = "colsum", .dims = "m,k,n", .in_dims = "m,k;k,n", .out_dims = "n",                    \
    .dists = GV_ALL_DISTS | GV_BIT(GV_DIST_TIE) | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS,            \
    .range_degree = 2, .underflow_terms = colsum_product_underflow_terms,                          \
    .default_dist = GV_DIST_UNIFORM01, .check_shape = colsum_check_shape, .bytes = colsum_bytes,   \
    .exact_reference = colsum_exact_reference, .make_inputs = colsum_inputs,                       \
    .gauge = colsum_gauge, .pgauge = colsum_pgauge, .reference_ignores_mode = true,                \
    .mode_valid = colsum_mode_valid

/* The 16-bit modes (f32 cases): the operands rounded to f16 or bf16, the sums in f32, as
   torch.autocast runs A @ B and einsum (kernels/half_ops.cuh). The worst-case model keeps the
   depth at the mode's unit (2^-11, 2^-8): the operands' two roundings, autocast's rounding of
   its half-type intermediate (the product A B before .sum(0), einsum's column sums of A) and
   the f32 sums all fit in depth x u with depth >= 3; a half-type output's own rounding is the
   judge's (docs/error-models.md, "Low-precision outputs"). */
#define COLSUM_HALF_MODES (GV_BIT(GV_MODE_F16) | GV_BIT(GV_MODE_BF16))

/* matmul_colsum and its planted variant: the same product, canaries and hooks. Each output is
   its own column's product and sum: independent errors, judged for bias on zero-mean inputs
   (docs/error-models.md, "Bias"). */
#define MATMUL_COLSUM_COMMON                                                                       \
    .layout = matmul_colsum_layout, .flops = matmul_colsum_flops, .oracle = einsum_oracle,         \
    .oracle_depth = einsum_oracle_depth, .depth = matmul_colsum_depth,                             \
    .order_free_depth = matmul_colsum_order_free_depth, .bias_dists = GV_BIT(GV_DIST_UNIFORM11),   \
    .mode_reference = matmul_colsum_mode_reference

/* The fused einsum's arithmetic (its flops, oracle and depths), the same for einsum.colsum and
   each of its variants; their layouts and mode references are their own. */
#define EINSUM_COLSUM_COMMON                                                                       \
    .flops = einsum_flops, .oracle = einsum_oracle, .depth = einsum_depth,                         \
    .order_free_depth = einsum_order_free_depth, .oracle_depth = einsum_oracle_depth

/* the zero-mean canaries; matmul_colsum adds the edges, which its planted TF32 variant is not
   made to fail (where products underflow, the model's underflow term is loose enough for it) */
#define MATMUL_COLSUM_CANARIES      "uniform11:1000x500x700,uniform11:10000x5000x7000"
#define MATMUL_COLSUM_TEST_CANARIES "uniform11:300x257x129,uniform11:64x1024x64"

static const gv_op matmul_colsum = {
    .name = "matmul_colsum",
    .canaries = MATMUL_COLSUM_CANARIES ",tiny:300x257x129,huge:300x257x129,"
                                       "sparse-special:300x257x129",
    .test_canaries = MATMUL_COLSUM_TEST_CANARIES ",tiny:300x257x129,huge:300x257x129,"
                                                 "sparse-special:300x257x129",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "s = sum over rows of A B: cuBLAS product, then column sum (seed 002)",
    .modes = GV_BIT(GV_MODE_NATIVE) | GV_BIT(GV_MODE_TF32) | GV_CUBLAS_MODES | COLSUM_HALF_MODES,
    .shapes = "1000x500x700,500x1000x300,10000x5000x7000",
    .test_shapes = "64x48x32,300x257x129,257x515x129,1000x500x700",
    /* the m x n product (device scratch only) holds 65536 x 32771 = 2^31 + 131072 elements;
       k = 8 keeps A, B and the oracle small */
    .large_shapes = "65536x8x32771",
    /* the column sum's fused last blocks (kernels/colsum.cuh) over a 100 x 32769 product: 3
       chunks, 257 (f32) or 129 (f64) column groups of small blocks (core/repeat.h) */
    .repeat_canaries = "uniform01:100x64x32769:10",
    MATMUL_COLSUM_COMMON,
    .error_model = "gauge colsum(|A|)|B|, depth k + colsum_depth(m); tf32: depth "
                   "4 + (k + colsum_depth(m))/2^13 at u = 2^-11 (docs/error-models.md)",
    .device = GV_KERNEL(gk_matmul_colsum),
    COLSUM_COMMON,
};

static const gv_op matmul_colsum_tf32native = {
    .name = "matmul_colsum.tf32native",
    .dtypes = GV_BIT(GV_F32),
    .summary = "planted bug: the native f32 product secretly runs TF32 tensor-op math",
    .planted_bug = "TF32 tensor-op math behind a pedantic label",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "64x48x32",
    .test_shapes = "64x48x32",
    .canaries = MATMUL_COLSUM_CANARIES,
    .test_canaries = MATMUL_COLSUM_TEST_CANARIES,
    MATMUL_COLSUM_COMMON,
    .error_model = "as matmul_colsum",
    .device = GV_KERNEL(gk_matmul_colsum_tf32native),
    COLSUM_COMMON,
};

static const gv_op einsum_colsum = {
    .name = "einsum.colsum",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "einsum ij,jk->k fused: column sums of A, then s^T B; no m x n product",
    .modes = GV_BIT(GV_MODE_NATIVE) | COLSUM_HALF_MODES,
    .shapes = "1000x500x700,500x1000x300,10000x5000x7000",
    .test_shapes = "64x48x32,300x257x129,257x515x129,1000x500x700",
    /* A is (2^25 + 1) x 64 = 2^31 + 64 elements; B is 64 x 64 */
    .large_shapes = "33554433x64x64",
    .canaries = "uniform11:1000x500x700,tiny:300x257x129,huge:300x257x129,"
                "sparse-special:300x257x129",
    .test_canaries = "uniform11:300x257x129,tiny:300x257x129,huge:300x257x129,"
                     "sparse-special:300x257x129",
    /* the second column sum's fused last blocks over B (100 x 32769), as matmul_colsum's */
    .repeat_canaries = "uniform01:100x100x32769:10",
    /* no bias_dists: every output's error carries the rounding of the one vector of column
       sums of A that all outputs share, so the errors are not independent (a correct H100 run
       on uniform [0,1) inputs leans at z = -4.4 over 700 outputs): the bias is reported only */
    .layout = einsum_layout,
    .mode_reference = einsum_mode_reference,
    EINSUM_COLSUM_COMMON,
    .error_model = "gauge colsum(|A|)|B|, depth colsum_depth(m) + colsum_depth(k) + 1 "
                   "(docs/error-models.md)",
    .takes_layouts = GK_TAKES_OFFSET | GK_TAKES_LD,
    .device = GV_KERNEL(gk_einsum_colsum),
    COLSUM_COMMON,
};

/* einsum.colsum on operands as a user passes them: the column sums read A and B through their
   leading dimensions, one element at a time (no pointer is 16-byte aligned, no ld a multiple
   of the vector width). */
static const gv_op einsum_colsum_strided = {
    .name = "einsum.colsum.strided",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "einsum.colsum with padded rows (lda = k+3, ldb = n+5) and operands off 16-byte "
               "boundaries",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "300x257x129,1000x500x700",
    .test_shapes = "1x1x1,64x48x32,300x257x129,257x515x129",
    .layout = einsum_strided_layout,
    EINSUM_COLSUM_COMMON,
    .error_model = "as einsum.colsum",
    .takes_layouts = GK_TAKES_OFFSET | GK_TAKES_LD,
    .device = GV_KERNEL(gk_einsum_colsum),
    COLSUM_COMMON,
};

static const gv_op einsum_colsum_lastchunk = {
    .name = "einsum.colsum.lastchunk",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the column sum of A skips its last row chunk",
    .planted_bug = "reduction tail dropped",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "300x257x129",
    .test_shapes = "300x257x129,1000x500x700",
    .layout = einsum_layout,
    .mode_reference = einsum_mode_reference,
    EINSUM_COLSUM_COMMON,
    .error_model = "as einsum.colsum",
    .device = GV_KERNEL(gk_einsum_colsum_lastchunk),
    COLSUM_COMMON,
};

/* A conversion launch copied from A's and left with A's count: B's copy is converted over m k
   elements only, the rest of it is whatever the workspace held. Shapes with n > m (B larger
   than A) show it. */
static const gv_op matmul_colsum_halfcount = {
    .name = "matmul_colsum.halfcount",
    .dtypes = GV_BIT(GV_F32),
    .summary = "planted bug: the 16-bit modes convert B over A's element count (m k, not k n)",
    .planted_bug = "B's half-type copy converted over A's element count: its tail is stale",
    .modes = COLSUM_HALF_MODES,
    .shapes = "300x257x1000",
    .test_shapes = "33x70x129,300x257x1000",
    MATMUL_COLSUM_COMMON,
    .error_model = "as matmul_colsum",
    .device = GV_KERNEL(gk_matmul_colsum_halfcount),
    COLSUM_COMMON,
};

static const gv_op einsum_colsum_halfcount = {
    .name = "einsum.colsum.halfcount",
    .dtypes = GV_BIT(GV_F32),
    .summary = "planted bug: the 16-bit modes round B over A's element count (m k, not k n)",
    .planted_bug = "B's rounded copy made over A's element count: its tail is stale",
    .modes = COLSUM_HALF_MODES,
    .shapes = "300x257x1000",
    .test_shapes = "33x70x129,300x257x1000",
    .layout = einsum_layout,
    .mode_reference = einsum_mode_reference,
    EINSUM_COLSUM_COMMON,
    .error_model = "as einsum.colsum",
    .device = GV_KERNEL(gk_einsum_colsum_halfcount),
    COLSUM_COMMON,
};

const gv_op *const gv_family_colsum[] = {&matmul_colsum,           &matmul_colsum_tf32native,
                                         &einsum_colsum,           &einsum_colsum_strided,
                                         &einsum_colsum_lastchunk, &matmul_colsum_halfcount,
                                         &einsum_colsum_halfcount, NULL};
