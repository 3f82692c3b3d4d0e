/* gemm.c: op descriptors for C = A B through cuBLAS, the hand-tiled teaching kernel and the
 * register-blocked FFMA kernel, and their planted bugs (TF32 behind a pedantic label, a
 * dropped K tail, a store one ulp up, a mode not in effect) and the mode probes.
 * Error model: docs/error-models.md, section gemm. */
#include <assert.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/gemm.h"
#include "core/gen.h"
#include "ops/gemm_fp8.h"
#include "ops/opkit.h"

extern const gk_op gk_gemm_cublas, gk_gemm_cublas_tf32native, gk_gemm_tiled, gk_gemm_tiled_droptail,
    gk_gemm_tiled_ulp, gk_gemm_tiled_ignoreld, gk_gemm_regblock, gk_gemm_regblock_droptail,
    gk_gemm_cublas_tf32off, gk_gemm_cublas_emunative, gk_gemm_cublas_fp8fast,
    gk_gemm_cublas_bf16tf32, gk_gemm_cublas_emuwidth, gk_gemm_cublas_rzconv, gk_gemm_tiled_unfused,
    gk_gemm_tiled_ftz;
extern const gk_op gk_gemm_cublas_fp8noscale, gk_gemm_cublas_fp8rowtensor, gk_gemm_cublas_fp8e5m2b,
    gk_gemm_cublas_fp8blkrow;
extern const gk_op gk_gemm_batched, gk_gemm_batched_tn, gk_gemm_batched_nt, gk_gemm_batched_stride;

static int gemm_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    *l = (gv_layout){.n_in = 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"A", m * k};
    l->in[1] = (gv_tensor_spec){"B", k * n};
    l->out[0] = (gv_tensor_spec){"C", m * n};
    /* the reduced-precision modes keep converted copies of A and B (and f16acc its f16 C,
       fp8 its scales and cuBLASLt's workspace) in the workspace: abi/gemm.h */
    l->workspace_bytes = gk_gemm_workspace_bytes(c->mode, m, k, n, NULL);
    return GV_OK;
}

/* Operands as a user may pass them (abi/layout.h): every base pointer off a 16-byte boundary
   (gk_place_odd_offset) and every row padded by an odd count of elements, so no row start is
   aligned either; .transposed stores A and B transposed (A^T k x m, B^T n x k). The host copies
   stay packed: the oracle sees the same A and B. */
static void gemm_place(const gv_case *c, gv_layout *l, bool trans)
{
    int64_t m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    int64_t es = (int64_t)gv_dtype_size(c->dtype);
    l->in_place[0] = gk_place_matrix(m, k, trans ? 2 : 3, trans, gk_place_odd_offset(es, 0));
    l->in_place[1] = gk_place_matrix(k, n, trans ? 7 : 5, trans, gk_place_odd_offset(es, 1));
    l->out_place[0] = gk_place_matrix(m, n, trans ? 3 : 1, 0, gk_place_odd_offset(es, 2));
}

static int gemm_strided_layout(const gv_case *c, gv_layout *l)
{
    int rc = gemm_layout(c, l);
    gemm_place(c, l, false);
    return rc;
}

static int gemm_transposed_layout(const gv_case *c, gv_layout *l)
{
    int rc = gemm_layout(c, l);
    gemm_place(c, l, true);
    return rc;
}

/* Offsets alone, rows dense (gemm.regblock's interface takes no leading dimension). */
static int gemm_offset_layout(const gv_case *c, gv_layout *l)
{
    int rc = gemm_layout(c, l);
    int64_t es = (int64_t)gv_dtype_size(c->dtype);
    l->in_place[0].offset_bytes = gk_place_odd_offset(es, 0);
    l->in_place[1].offset_bytes = gk_place_odd_offset(es, 1);
    l->out_place[0].offset_bytes = gk_place_odd_offset(es, 2);
    return rc;
}

static int gemm_check_shape(const gv_shape *s, char *why, size_t len)
{
    for (int i = 0; i < 3; i++)
        if (s->d[i] > 2147483647 / 2) {
            snprintf(why, len, "gemm dims must be below 2^30 (cuBLAS takes int)");
            return GV_EINVAL;
        }
    if ((double)s->d[0] * (double)s->d[2] > 4e9 || (double)s->d[0] * (double)s->d[1] > 4e9 ||
        (double)s->d[1] * (double)s->d[2] > 4e9) {
        snprintf(why, len, "gemm matrices must hold fewer than 4e9 elements each");
        return GV_EINVAL;
    }
    return GV_OK;
}

static double gemm_flops(const gv_case *c)
{
    return 2.0 * (double)c->shape.d[0] * (double)c->shape.d[1] * (double)c->shape.d[2];
}

static double gemm_bytes(const gv_case *c)
{
    double m = (double)c->shape.d[0], k = (double)c->shape.d[1], n = (double)c->shape.d[2];
    return (m * k + k * n + m * n) * gv_esize(c);
}

static double gemm_depth(const gv_case *c)
{
    double k = (double)c->shape.d[1];
    if (c->mode == GV_MODE_TF32) return 4.0 + k * ldexp(1.0, -13);
    if (gv_mode_scaled(c->mode)) return gv_fp8_scaled_depth(c);
    return k;
}

/* u of the worst-case model: a scaled fp8 mode's is its accumulator's last place (14 bits,
   truncated: 2^-13), its operands' rounding being inside its reference (gemm_oracle). */
static double gemm_unit_roundoff(const gv_case *c)
{
    if (gv_mode_scaled(c->mode)) return gv_fp8_scaled_unit(c->mode);
    return gv_unit_roundoff(c->dtype, c->mode);
}

/* What a mode that rounds its inputs below the 1e-4 tier can be expected to reach: no tier,
   and why, from the mode table's numbers. */
static double gemm_expected_tier(const gv_case *c, char *why, size_t len)
{
    const gv_mode_info *mi = gv_mode_get(c->mode);
    if (mi->promises_tier) return gv_dtype_tier(c->dtype);
    if (c->mode == GV_MODE_FP8)
        snprintf(why, len,
                 "e4m3 inputs keep %d significand bits: each is off by up to 2^-%d "
                 "before any sum",
                 mi->input_bits, mi->input_bits);
    else if (gv_mode_scaled(c->mode))
        snprintf(why, len,
                 "fp8 operands (4 or 3 significand bits) and %d-bit tensor-core sums: judged "
                 "against the exact product of the quantised operands",
                 mi->acc_bits);
    else if (c->mode == GV_MODE_F16ACC)
        snprintf(why, len, "f16 inputs and f16 accumulation: u = 2^-%d on each of %lld additions",
                 mi->acc_bits, (long long)c->shape.d[1]);
    return 0.0;
}

/* The width probe: row i of A is [1, 2^-j_i, 2^-70, 0, ...] with j_i = 1 + i mod 64; the first
   two rows of B are ones but in the last two columns: column n - 2 is [0, 1, 0, ...], column
   n - 1 [0, 0, 1, 0, ...]. So C_iq = 1 + 2^-j_i exactly (in f64 while j_i <= 52) for q < n - 2,
   and C_i,n-2 = 2^-j_i for every j_i up to 64: an arithmetic that keeps w bits below a row's
   largest element gives the term back for j < w and loses it after, past f64's 53 bits too
   (fp64emu56 is judged on its 56, not let off at 53). And C_i,n-1 = 2^-70 exactly, the one
   product of its sum: native f64 keeps it, a fixed-point emulation that aligns the row to its
   largest element (1) keeps no bit of it below 70 bits. That tells native from an emulation
   whatever extra bits the emulation keeps over its name (6 on an H100, enough to make a 48-bit
   emulation keep the 53 bits of the rows). j reaches 64, past the 62 bits below 1 that `gpuval
   probe` measured fp64emu56 to keep on an H100 (row_bits 62: this probe reads 63), so the width
   is measured, not capped (it stopped at 61 before); 2^-70 stays 6 binades below the last j.
   Needs k >= 3 and n >= 3: smaller shapes are refused; all 64 j need m >= 64 rows. */
enum { WIDTH_MAX_J = 64, WIDTH_TINY = -70 };
static int width_inputs(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    double *a = p->in[0].ref, *b = p->in[1].ref;
    if (k < 3 || n < 3) return GV_EINVAL;
    for (int64_t i = 0; i < m * k; i++)
        a[i] = 0.0;
    for (int64_t i = 0; i < k * n; i++)
        b[i] = 0.0;
    for (int64_t i = 0; i < m; i++) {
        a[i * k] = 1.0;
        a[i * k + 1] = ldexp(1.0, -(int)(1 + i % WIDTH_MAX_J));
        a[i * k + 2] = ldexp(1.0, WIDTH_TINY);
    }
    for (int64_t j = 0; j < n - 2; j++) {
        b[j] = 1.0;
        b[n + j] = 1.0;
    }
    b[n + n - 2] = 1.0;
    b[2 * n + n - 1] = 1.0;
    gv_store_rounded(p, 0);
    gv_store_rounded(p, 1);
    return GV_OK;
}

/* The width probe's room (width_inputs); every other dist fits any shape. */
static bool gemm_dist_shape_ok(gv_dist d, const gv_shape *s, char *why, size_t len)
{
    if (d != GV_DIST_WIDTH || (s->d[1] >= 3 && s->d[2] >= 3)) return true;
    snprintf(why, len, "the width probe needs k >= 3 and n >= 3 (shape %lldx%lldx%lld)",
             (long long)s->d[0], (long long)s->d[1], (long long)s->d[2]);
    return false;
}

/* wide, in a scaled fp8 mode: magnitudes that differ by row of A, column of B and 128-block of
   K, the ranges a scale has to cover (docs/error-models.md, "Scaled fp8"). Positive values
   mu 2^(e), mu in {1.125, 1.625} (e4m3 keeps both, e5m2 neither), e = alpha_i + beta_b +
   eps (A) or gamma_j - beta_b + eps (B), eps in {0, -1, -2, -3}; the first element of every
   row-block of A and of every (K-block, column) of B is 1.75 2^(alpha_i + beta_b) (resp.
   gamma_j - beta_b), so every group's amax, for any grouping, is 1.75 times a power of two
   and every scale 448 / amax (or 57344 / amax) a power of two: the right scaling keeps each
   value that lies within 14 binades of its group's amax exactly. alpha_i = -6 (i mod 5),
   gamma_j = -6 (j mod 5), beta_b = -10 (b mod 3). So per-tensor scaling flushes the small
   rows that a row scale keeps; a scale per row of A flushes the blocks 20 binades down that
   a 1 x 128 block scale keeps; every scale 1 flushes the small values and saturates B's
   large ones; e5m2 rounds every mu down by 1/9 or 1/13. Each is a loss of a whole term
   against the exact product of the right quantisation: far outside the 2^-13 sums' model. */
static uint64_t wide_hash(uint64_t seed, uint64_t t, uint64_t i)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ull ^ (t + 1) * 0xbf58476d1ce4e5b9ull ^ i;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int scaled_wide_inputs(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    double *a = p->in[0].ref, *b = p->in[1].ref;
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            uint64_t h = wide_hash(p->c.seed, 0, (uint64_t)(i * k + l));
            int e = -6 * (int)(i % 5) - 10 * (int)((l / GK_FP8_BLOCK_K) % 3);
            double mu = l % GK_FP8_BLOCK_K == 0 ? 1.75 : (h & 1) ? 1.625 : 1.125;
            a[i * k + l] = ldexp(mu, e - (l % GK_FP8_BLOCK_K == 0 ? 0 : (int)((h >> 1) & 3)));
        }
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) {
            uint64_t h = wide_hash(p->c.seed, 1, (uint64_t)(l * n + j));
            int e = -6 * (int)(j % 5) + 10 * (int)((l / GK_FP8_BLOCK_K) % 3);
            double mu = l % GK_FP8_BLOCK_K == 0 ? 1.75 : (h & 1) ? 1.625 : 1.125;
            b[l * n + j] = ldexp(mu, e - (l % GK_FP8_BLOCK_K == 0 ? 0 : (int)((h >> 1) & 3)));
        }
    gv_store_rounded(p, 0);
    gv_store_rounded(p, 1);
    return GV_OK;
}

static int gemm_inputs(gv_problem *p)
{
    if (p->c.dist == GV_DIST_WIDTH) return width_inputs(p);
    if (p->c.dist == GV_DIST_WIDE && gv_mode_scaled(p->c.mode)) return scaled_wide_inputs(p);
    gv_fill(p, 0, p->c.dist);
    if (p->c.dist == GV_DIST_PERM2) {
        gv_gen_perm2(p->in[1].ref, p->c.shape.d[1], p->c.shape.d[2], p->c.seed, 1);
        gv_store_rounded(p, 1);
    } else {
        gv_fill(p, 1, p->c.dist);
    }
    return GV_OK;
}

/* tie: products are exact and every partial sum of up to 4096 of them lies on the 2^-11
   grid below 2^13, exact in f32 (and far inside f64). perm2: every output is a +- b of two
   entries with p-1 bits, exact in the dtype. Either way, in the dtype's own arithmetic and
   in any order; not through TF32, whose rounding of the inputs is the point. */
static bool gemm_exact(const gv_case *c)
{
    if (c->mode != GV_MODE_NATIVE) return false;
    if (c->dist == GV_DIST_PERM2) return true;
    /* tie sums stay below 2k on a 2^-11 grid: exact while 2k <= 2^(p - 11), p the dtype's
       significand bits (k <= 4096 in f32, 2^41 in f64) */
    int64_t kmax = (int64_t)1 << (gv_dtype_mantissa_bits(c->dtype) - 12);
    if (c->dist == GV_DIST_TIE) return c->shape.d[1] <= kmax;
    /* narrow: integers up to 14, products up to 196, sums exact while 196 k < 2^p */
    return c->dist == GV_DIST_NARROW &&
           196.0 * (double)c->shape.d[1] < ldexp(1.0, gv_dtype_mantissa_bits(c->dtype));
}

/* ---- mode probes: is the claimed arithmetic in effect? ------------------------------------ */

/* tie: tensor 0 holds odd multiples of 2^-11 in [1, 2), tensor 1 +-1. Inputs rounded to p <= 11
   bits lie on the 2^-(p-1) grid, and so does every sum of their products however it is
   rounded (a rounding to a coarser grid stays on it); with k odd the f32 product is an odd
   multiple of 2^-11 and lies off it. An output off the grid is one the claimed inputs cannot
   produce.

   The grid alone lets a narrower conversion through (bfloat16's 2^-7 grid lies on TF32's
   2^-10): the size of the conversion's errors tells it. Where the sums are exact (an f32
   accumulator the mode claims, k <= 4096: gemm_exact) and the reference is the exact product
   of the unrounded inputs, c_ij - r_ij = sum_l b_lj e_il with e_il the conversion's error of
   a_il; B's signs are independent of A and zero-mean, so the mean over the outputs of
   (c - r)^2 / k is the mean of e^2. A conversion to p bits moves a value of [1, 2) to one of
   its two neighbours on the 2^-(p-1) grid, by less than 2^-(p-1) = 2h with h = 2^-p: the
   rms error in units of h is below 2 for every rounding rule. For TF32 and f16 (p = 11) every
   input is a midpoint and every rounding rule moves it by exactly h (rms 1); bfloat16 under
   those labels moves them by up to 2^-8 (rms 4.6 when it rounds to nearest, 8.3 when it
   truncates: the residues 1, 5, 9, 13 of A's low bits, tests/cpu/model_probes.c).

   Outputs stored in a low-precision format (api/judge.c, "output_rounding_u" u_o) arrive as
   the point of their stored value's preimage nearest the reference, not as the stored or the
   computed value: a grid value that rounds to the stored one is then within the preimage's
   width of the point judged, at most one ulp of the format: 2 u_o |c| (1 + 2 u_o), or its
   least subnormal s_o ("output_spacing_min") near 0 (an emulation of torch's autocast
   product on the tie dist was off the grid by that projection alone). */
/* The rows of the tie probe whose every output the conversion-rounding check recomputes: its
   cost is rows x k x n multiply-adds on the host (16 x 4095 x 1024 in the catalogue). */
#define TIE_RNE_ROWS 16

/* tie, in f16 and bf16: their conversions are gpuval's own (kernels/gemm.cu: round to nearest,
   ties to even), and where the sums are exact (the input-rounding check's premise: an f32
   accumulator, k <= 4096) the claimed arithmetic has one answer, c_ij = sum_l b_lj RNE_p(a_il)
   (exact in f64 too: a grid of 2^-(p-1), below 2^13). The input-rounding rms cannot see a
   conversion that rounds another way to the same width (every tie value is a midpoint: any
   rule moves it by h), so this compares the outputs of the first rows with that sum: a
   truncating conversion moves every midpoint down, where RNE moves half of them up, and an
   output off it is one the claimed rounding cannot produce. tf32's conversion is cuBLAS's,
   which its label does not fix (`gpuval probe`'s in_round measures it). */
static void probe_tie_rne(const gv_problem *p, gv_result *r, int bits)
{
    const gv_tensor *C = &p->out[0];
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const gv_format_info *f = gv_format_get(gv_mode_get(p->c.mode)->probe_in);
    assert(f->p == bits && bits > 0);
    double max = ldexp(2.0 - ldexp(1.0, 1 - f->p), f->emax);
    int64_t rows = m < TIE_RNE_ROWS ? m : TIE_RNE_ROWS, off = 0, seen = 0;
    double *ra = malloc(sizeof *ra * (size_t)k), *sum = malloc(sizeof *sum * (size_t)n);
    if (!ra || !sum) {
        free(ra);
        free(sum);
        return; /* a measurement left out, said by its absent extra; the verdict is not a guess */
    }
    const double *a = p->in[0].ref, *b = p->in[1].ref;
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t l = 0; l < k; l++)
            ra[l] = go_round_format(a[i * k + l], f->p, f->emin, max, 0);
        for (int64_t j = 0; j < n; j++)
            sum[j] = 0.0;
        for (int64_t l = 0; l < k; l++)
            for (int64_t j = 0; j < n; j++)
                sum[j] += ra[l] * b[l * n + j];
        for (int64_t j = 0; j < n; j++) {
            double c = gv_dtype_load(p->c.dtype, C->data, i * n + j);
            if (!isfinite(c)) continue;
            seen++;
            off += c != sum[j];
        }
    }
    free(ra);
    free(sum);
    gv_result_extra(r, "probe_rne_off", (double)off);
    gv_result_check(r, "conversion rounding", (double)off, 0.0,
                    "%s not in effect: %lld of %lld outputs of the first %lld rows differ from the "
                    "sums of the inputs rounded to nearest (ties to even) to %d bits: the "
                    "conversion rounds another way",
                    gv_mode_name(p->c.mode), (long long)off, (long long)seen, (long long)rows,
                    bits);
}

static void probe_tie(const gv_problem *p, gv_result *r)
{
    const gv_tensor *C = &p->out[0];
    const gv_mode_info *mi = gv_mode_get(p->c.mode);
    int bits = mi->input_bits;
    int64_t k = p->c.shape.d[1];
    double u_out = 0.0, s_out = 0.0;
    for (int i = 0; i < r->n_extra; i++) {
        if (strcmp(r->extra[i].name, "output_rounding_u") == 0) u_out = r->extra[i].value;
        if (strcmp(r->extra[i].name, "output_spacing_min") == 0) s_out = r->extra[i].value;
    }
    double grid = ldexp(1.0, 1 - bits);
    int64_t off = 0, finite = 0;
    double sq = 0.0;
    for (int64_t i = 0; i < C->count; i++) {
        double c = gv_dtype_load(p->c.dtype, C->data, i);
        if (!isfinite(c)) continue;
        finite++;
        double scaled = ldexp(c, bits - 1);
        double e = ldexp(c - C->ref[i], bits); /* in units of h = 2^-bits */
        sq += e * e;
        if (scaled == floor(scaled)) continue;
        if (u_out > 0.0) {
            double nearest = fmin(c - floor(scaled) * grid, ceil(scaled) * grid - c);
            if (nearest <= 2.0 * u_out * fabs(c) * (1.0 + 2.0 * u_out) + s_out) continue;
        }
        off++;
    }
    gv_result_extra(r, "probe_off_grid", (double)off);
    gv_result_check(r, "mode in effect", (double)off, 0.0,
                    "%s not in effect: %lld of %lld outputs carry bits that %d-bit inputs cannot "
                    "(finer than 2^-%d)",
                    gv_mode_name(p->c.mode), (long long)off, (long long)finite, bits, bits - 1);
    /* a narrow accumulator the mode claims (f16acc) rounds the sums: no exact difference */
    int64_t kmax = (int64_t)1 << (gv_dtype_mantissa_bits(p->c.dtype) - 12);
    if (mi->acc_bits > 0 || k > kmax || finite == 0) return;
    double rms = sqrt(sq / ((double)finite * (double)k));
    gv_result_extra(r, "probe_input_err", rms);
    gv_result_check(r, "input rounding", rms, 2.0,
                    "%s not in effect: the inputs were rounded by %.2f units of 2^-%d (rms, from "
                    "%lld outputs), more than a conversion to %d bits can (below 2)",
                    gv_mode_name(p->c.mode), rms, bits, (long long)finite, bits);
    if ((p->c.mode == GV_MODE_F16 || p->c.mode == GV_MODE_BF16) && u_out == 0.0)
        probe_tie_rne(p, r, bits);
}

/* narrow: inputs exact in the narrow format (fp8 scales them by 32), products exact and every
   sum exact in f32, so an accumulation that is the f32 it claims is exact. Otherwise the
   accumulator's width is bounded from the outputs: k additions into partial sums no larger than
   the (non-negative) result, each off by less than one unit in the last of p bits, leave
   |c - r| < k 2^(1-p) |r|, so p < 1 + log2(k |r| / |c - r|) at every inexact output; the
   smallest such bound is reported (a truncating accumulator, whose errors add up, sits near
   it; one that rounds to nearest can be wider). */
static void probe_narrow(const gv_problem *p, gv_result *r)
{
    const gv_tensor *C = &p->out[0];
    int64_t k = p->c.shape.d[1];
    int64_t inexact = 0, finite = 0;
    double acc_bits = INFINITY;
    for (int64_t i = 0; i < C->count; i++) {
        double c = gv_dtype_load(p->c.dtype, C->data, i), ref = C->ref[i];
        if (!isfinite(c) || !isfinite(ref)) continue;
        finite++;
        if (c == ref) continue;
        inexact++;
        double bound = ref != 0 ? 1.0 + log2((double)k * fabs(ref) / fabs(c - ref)) : 0.0;
        if (bound < acc_bits) acc_bits = bound;
    }
    gv_result_extra(r, "probe_inexact", (double)inexact);
    gv_result_extra(r, "probe_acc_bits", acc_bits);
    const gv_mode_info *mi = gv_mode_get(p->c.mode);
    if (mi->acc_bits > 0) return; /* a narrow accumulator is claimed: measured, reported */
    gv_result_check(r, "mode in effect", (double)inexact, 0.0,
                    "%s accumulation is not the f32 it claims: %lld of %lld outputs inexact on "
                    "exact inputs and products (an accumulator of at most %.1f bits)",
                    gv_mode_name(p->c.mode), (long long)inexact, (long long)finite, acc_bits);
}

/* width: the bits kept below a row's largest element, w = 1 + the largest j_i up to which
   every row i gives 2^-j_i and 1 + 2^-j_i (where that is an f64) back exactly (the probe's
   row_bits plus one: the row's leading bit counted); native f64 and every emulation of 64 or
   more bits read 65, the most the rows show. */
static void probe_width(const gv_problem *p, gv_result *r)
{
    const gv_tensor *C = &p->out[0];
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[2];
    bool row_ok[WIDTH_MAX_J + 1];
    for (int j = 0; j <= WIDTH_MAX_J; j++)
        row_ok[j] = true;
    int64_t tiny_kept = 0;
    for (int64_t i = 0; i < m; i++) {
        tiny_kept += gv_dtype_load(p->c.dtype, C->data, i * n + n - 1) == ldexp(1.0, WIDTH_TINY);
        int j = (int)(1 + i % WIDTH_MAX_J);
        if (gv_dtype_load(p->c.dtype, C->data, i * n + n - 2) != ldexp(1.0, -j))
            row_ok[j] = false;
        if (j > 52) continue; /* 1 + 2^-j is not an f64 */
        double want = 1.0 + ldexp(1.0, -j);
        for (int64_t q = 0; q < n - 2; q++)
            if (gv_dtype_load(p->c.dtype, C->data, i * n + q) != want) row_ok[j] = false;
    }
    int kept = 0;
    while (kept < WIDTH_MAX_J && kept + 1 < m + 1 && row_ok[kept + 1])
        kept++;
    int width = kept + 1, claimed = gv_mode_get(p->c.mode)->input_bits;
    bool native = tiny_kept == m; /* every 2^-70 term kept beside its row's 1 */
    gv_result_extra(r, "probe_width_bits", width);
    gv_result_extra(r, "probe_tiny_kept", (double)tiny_kept);
    if (claimed == 0) return; /* the library's automatic width: cr_share judges it (probe) */
    gv_result_check(r, "mode in effect", native ? 1.0 : 0.0, 0.0,
                    "%s not in effect: all %lld rows keep a term 2^70 below their largest "
                    "element, as native f64 does (%d bits claimed)",
                    gv_mode_name(p->c.mode), (long long)m, claimed);
    gv_result_check(r, "emulated width", (double)(claimed - width), 0.0,
                    "%s keeps %d bits below each row's largest element, fewer than the %d it "
                    "claims",
                    gv_mode_name(p->c.mode), width, claimed);
}

static void gemm_measure(const gv_problem *p, gv_result *r)
{
    const gv_case *c = &p->c;
    /* a probe is the generator's layout: arrays a user gives under a probe's name are not */
    if (r->inputs != GV_INPUTS_GENERATED || !gv_probe_applies(c->dist, c->dtype, c->mode)) return;
    if (c->dist == GV_DIST_TIE) probe_tie(p, r);
    if (c->dist == GV_DIST_NARROW) probe_narrow(p, r);
    if (c->dist == GV_DIST_WIDTH) probe_width(p, r);
}

/* A scaled fp8 mode's reference is the f64 product of the operands as its label quantises
   them (gemm_fp8.c): the exact result of the quantised problem to dgemm's 2^-53 k, so that
   the judge measures the accumulation, not the scaling it claims. */
static int gemm_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    if (gv_mode_scaled(p->c.mode)) {
        double *da, *db;
        int rc = gv_fp8_dequantised(p->c.mode, m, k, n, p->in[0].ref, p->in[1].ref, &da, &db);
        if (rc != GV_OK) return rc;
        rc = gv_oracle_rc(go_gemm(m, k, n, da, k, db, n, p->out[0].ref, n));
        free(da);
        return rc;
    }
    return gv_oracle_rc(go_gemm(m, k, n, p->in[0].ref, k, p->in[1].ref, n, p->out[0].ref, n));
}

/* The exact product where A and B sit on a grid (oracle/exact.c), for f64 cases
   (gv_exact_wanted): dgemm is itself about 2^-50.7 from it at K = 4096. */
static int gemm_exact_reference(gv_problem *p, bool *done)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    int ok = 0;
    int rc = go_gemm_exact(m, k, n, p->in[0].ref, k, p->in[1].ref, n, p->out[0].ref,
                           p->out[0].ref_lo, n, &ok);
    *done = ok == 1;
    return gv_oracle_rc(rc);
}

/* The width probe's inputs put a row's largest element against a zero of B and a term 2^70
   below it against a one: the element-wise gauge |A||B| of such an output is the small term
   alone, while a fixed-point emulation's error there is relative to the row's largest element
   (it aligns each row of A and column of B to its largest, then keeps w bits). On this
   distribution the gauge adds that arithmetic's own bound, max|a_i.| sum|b_.j| + max|b_.j|
   sum|a_i.|: the probe's checks, not the model, tell the widths apart. */
static int width_gauge_add(const gv_problem *p, double *g)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *a = p->in[0].ref, *b = p->in[1].ref;
    /* B's column maxima and sums once, then each row of A once: O(mk + kn + mn) */
    double *bmax = calloc((size_t)(2 * n), sizeof *bmax), *bsum = bmax + n;
    if (!bmax) return GV_ENOMEM;
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) {
            bmax[j] = fmax(bmax[j], fabs(b[l * n + j]));
            bsum[j] += fabs(b[l * n + j]);
        }
    for (int64_t i = 0; i < m; i++) {
        double amax = 0, asum = 0;
        for (int64_t l = 0; l < k; l++) {
            amax = fmax(amax, fabs(a[i * k + l]));
            asum += fabs(a[i * k + l]);
        }
        for (int64_t j = 0; j < n; j++)
            g[i * n + j] += amax * bsum[j] + bmax[j] * asum;
    }
    free(bmax);
    return GV_OK;
}

static int gemm_gauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    if (gv_mode_scaled(p->c.mode)) { /* |A_q||B_q|: the sums the tensor cores add */
        double *da, *db;
        int rc = gv_fp8_dequantised(p->c.mode, m, k, n, p->in[0].ref, p->in[1].ref, &da, &db);
        if (rc != GV_OK) return rc;
        rc = go_gemm_gauge_given(m, k, n, da, k, db, n, p->out[0].ref, n, p->out[0].gauge, n);
        free(da);
        return gv_oracle_rc(rc);
    }
    /* the oracle has run (gv_reference, bench): its C is the gauge on non-negative inputs */
    int rc = go_gemm_gauge_given(m, k, n, p->in[0].ref, k, p->in[1].ref, n, p->out[0].ref, n,
                                 p->out[0].gauge, n);
    if (rc == 0 && p->c.dist == GV_DIST_WIDTH) return width_gauge_add(p, p->out[0].gauge);
    return gv_oracle_rc(rc);
}

/* The probabilistic model's G = |C| + sqrt((A o A)(B o B)) (docs/error-models.md). */
static int gemm_pgauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    gv_tensor *C = &p->out[0];
    int rc = go_gemm_sqgauge(m, k, n, p->in[0].ref, k, p->in[1].ref, n, C->pgauge, n);
    for (int64_t i = 0; rc == 0 && i < m * n; i++)
        C->pgauge[i] += fabs(C->ref[i]);
    if (rc == 0 && p->c.dist == GV_DIST_WIDTH) return width_gauge_add(p, C->pgauge);
    return gv_oracle_rc(rc);
}

/* ---- the range of the converted operands (op.h, mode_reference) ----------------------- */

/* An f32 value's class as far as NaN and Inf placement go: 0 zero, 1 finite non-zero, 2 inf,
   3 NaN. */
static int value_class(double x)
{
    return isnan(x) ? 3 : isinf(x) ? 2 : x != 0.0 ? 1 : 0;
}

/* The largest finite number of format f (e4m3's 448 is its scale_to: its top significand at
   the top binade is NaN), or of dtype t for GV_FMT_OWN. */
static double format_max(const gv_format_info *f, gv_dtype t)
{
    if (f->p == 0) return gv_dtype_round(t, DBL_MAX); /* the dtype's: DBL_MAX, or FLT_MAX */
    if (f->scale_to > 0) return f->scale_to;
    return ldexp(2.0 - ldexp(1.0, 1 - f->p), f->emax);
}

/* x's tensor (n values) as the mode's conversion leaves it, into y. Formats with scale_to
   (e4m3) are scaled first, as kernels/gemm.cu does: s = scale_to / amax in f32 (1 where amax
   is 0, Inf or NaN), x s in f32, rounded saturating (__NV_SATFINITE), then multiplied by the
   descale 1 / s that cuBLASLt applies. The others round to nearest even, as the probe measured
   cuBLAS's TF32 conversion (probe/sm_90.expect, in_round RNE) and __float2half and
   __float2bfloat16 do, overflowing to inf. */
static void convert_tensor(const gv_format_info *f, const double *x, int64_t n, double *y)
{
    double max = format_max(f, GV_F32);
    if (f->scale_to > 0) {
        float amax = 0.0f;
        for (int64_t i = 0; i < n; i++) {
            float a = fabsf((float)x[i]);
            if (a > amax || isnan(a)) amax = a;
            if (isnan(a)) break;
        }
        float s = amax > 0.0f && amax <= FLT_MAX ? (float)f->scale_to / amax : 1.0f;
        double descale = (double)(1.0f / s);
        for (int64_t i = 0; i < n; i++)
            y[i] = go_round_format((double)((float)x[i] * s), f->p, f->emin, max, 1) * descale;
        return;
    }
    for (int64_t i = 0; i < n; i++)
        y[i] = go_round_format(x[i], f->p, f->emin, max, 0);
}

/* Whether a value of x[0..n) is not finite or at least lim in magnitude (all cores). */
static bool any_past(const double *x, int64_t n, double lim)
{
    bool past = false;
#pragma omp parallel for reduction(|| : past) schedule(static) if (n >= 65536)
    for (int64_t i = 0; i < n; i++)
        past = past || !(fabs(x[i]) < lim);
    return past;
}

int gv_converted_product(const gv_problem *p, int ia, int ib, const double *gauge,
                         unsigned char *mark, double *z, int64_t *marked)
{
    const gv_case *c = &p->c;
    int64_t m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    const gv_mode_info *mi = gv_mode_get(c->mode);
    const gv_format_info *fin = gv_format_get(mi->probe_in), *fout = gv_format_get(mi->probe_out);
    *marked = 0;
    if (fin->p == 0) return GV_OK; /* the operands reach the arithmetic as stored */
    assert(p->in[ia].count == m * k && p->in[ib].count == k * n);
    const double *a = p->in[ia].ref, *b = p->in[ib].ref;
    /* Nothing is marked unless an operand is not finite, one may round past the format's
       largest finite (below half of it no rounding to p bits can reach it; a scaled format
       saturates and never overflows), or a gauge comes near the output's largest finite: on
       the ordinary dists none does, and the conversion of every operand, which took 1.2 s of
       a warm check's 4096^3 tf32 case on an H100's host, is not needed to know it. */
    double lim = fin->scale_to > 0 ? INFINITY : format_max(fin, c->dtype) / 2;
    if (!any_past(a, m * k, lim) && !any_past(b, k * n, lim) &&
        !(gauge && any_past(gauge, m * n, format_max(fout, c->dtype) / 4)))
        return GV_OK;
    double *ra = malloc(sizeof *ra * (size_t)(m * k + k * n));
    /* per row of A and column of B: 1 an operand changed between finite and not, 2 one holds
       a non-finite value after the conversion, 4 one became zero */
    unsigned char *row = calloc((size_t)(m + n), 1), *col = row ? row + m : NULL;
    if (!ra || !row) {
        free(ra);
        free(row);
        return GV_ENOMEM;
    }
    double *rb = ra + m * k;
    convert_tensor(fin, a, m * k, ra);
    convert_tensor(fin, b, k * n, rb);
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            int was = value_class(a[i * k + l]), now = value_class(ra[i * k + l]);
            row[i] |= (was >= 2) != (now >= 2) ? 1 : 0;
            row[i] |= now >= 2 ? 2 : 0;
            row[i] |= was != 0 && now == 0 ? 4 : 0;
        }
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) {
            int was = value_class(b[l * n + j]), now = value_class(rb[l * n + j]);
            col[j] |= (was >= 2) != (now >= 2) ? 1 : 0;
            col[j] |= now >= 2 ? 2 : 0;
            col[j] |= was != 0 && now == 0 ? 4 : 0;
        }
    /* a sum whose gauge is within a factor 4 of the output's largest finite may overflow
       where the oracle's does not (or the reverse), its operands rounded up by up to 2^(1-p)
       each; below that neither the oracle's nor the converted sum can reach it */
    double out_max = format_max(fout, c->dtype);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            bool on = (row[i] & 1) || (col[j] & 1) || ((row[i] & 2) && (col[j] & 4)) ||
                      ((col[j] & 2) && (row[i] & 4)) ||
                      (gauge && !(gauge[i * n + j] < out_max / 4));
            mark[i * n + j] = on;
            *marked += on;
        }
    int rc = *marked ? go_gemm_marked(m, k, n, ra, k, rb, n, mark, z, n) : 0;
    /* an output format narrower than the dtype (f16acc's f16 C) overflows at its own maximum */
    if (rc == 0 && fout->p > 0)
        for (int64_t i = 0; i < m * n; i++)
            if (mark[i] && fabs(z[i]) > out_max) z[i] = copysign(INFINITY, z[i]);
    free(ra);
    free(row);
    return gv_oracle_rc(rc);
}

/* gemm's mode_reference: C from the converted operands where they change its kind. */
static int gemm_mode_reference(const gv_problem *p, double *ref, int64_t *patched)
{
    int64_t mn = p->out[0].count;
    unsigned char *mark = malloc((size_t)mn + 1);
    double *z = malloc(sizeof *z * (size_t)mn + 1);
    int64_t marked = 0;
    int rc = mark && z ? GV_OK : GV_ENOMEM;
    *patched = 0;
    if (rc == GV_OK) rc = gv_converted_product(p, 0, 1, p->out[0].gauge, mark, z, &marked);
    for (int64_t i = 0; rc == GV_OK && marked && i < mn; i++)
        if (mark[i]) {
            bool same = z[i] == ref[i] || (isnan(z[i]) && isnan(ref[i]));
            *patched += !same;
            ref[i] = z[i];
        }
    free(mark);
    free(z);
    return rc;
}

#define GEMM_DISTS                                                                                 \
    (GV_ALL_DISTS | GV_BIT(GV_DIST_TIE) | GV_BIT(GV_DIST_PERM2) | GV_BIT(GV_DIST_WIDE) |           \
     GV_BIT(GV_DIST_NARROW) | GV_BIT(GV_DIST_WIDTH) | GV_EDGE_DISTS)

/* GEMM_COMMON with the seeds' default inputs; a variant judged on zero-mean inputs takes
   GEMM_BASE and its own default_dist */
#define GEMM_COMMON GEMM_BASE, .default_dist = GV_DIST_UNIFORM01

/* bias_dists: zero-mean inputs only; round-to-nearest sums of same-signed products drift
   toward zero (docs/error-models.md, "Bias") */
#define GEMM_BASE GEMM_HOOKS, .layout = gemm_layout

/* Everything but the layout: the layout variants (operands offset, padded, transposed) place
   the same tensors their own way */
#define GEMM_HOOKS                                                                                 \
    .family = "gemm", .dims = "m,k,n", .in_dims = "m,k;k,n", .out_dims = "m,n",                    \
    .floor_from_operands = true, .envelope = GV_ENV_PRODUCT, .dists = GEMM_DISTS, .check_shape = gemm_check_shape,             \
    .range_degree = 2, .flops = gemm_flops, .bytes = gemm_bytes, .make_inputs = gemm_inputs,       \
    .dist_shape_ok = gemm_dist_shape_ok,                                                           \
    .oracle = gemm_oracle, .gauge = gemm_gauge, .exact_reference = gemm_exact_reference,           \
    .pgauge = gemm_pgauge, .exact = gemm_exact, .depth = gemm_depth, .measure = gemm_measure,      \
    .unit_roundoff = gemm_unit_roundoff,                                                           \
    .bias_dists = GV_BIT(GV_DIST_UNIFORM11), .reference_ignores_mode = true,                       \
    .mode_reference = gemm_mode_reference,                                                         \
    .error_model = "|C-r| <= gamma_k |A||B| (Higham ASNA eq. 3.13): gauge |A||B|, depth k; "       \
                   "tf32: depth 4 + k/2^13 at u = 2^-11 (docs/error-models.md)"

/* gemm.cublas and its planted TF32 variant run the same canaries */
#define GEMM_CUBLAS_CANARIES                                                                       \
    .canaries = "uniform11:1024x4096x1024,tie:1024x4096x1024,perm2:1024x4096x1024,"                \
                "uniform11:256x16384x256,tiny:256x1024x256,huge:256x1024x256,"                     \
                "sparse-special:256x1024x256",                                                     \
    .test_canaries = "uniform11:100x37x129,uniform11:64x1024x64,tie:129x65x33,perm2:100x37x129,"   \
                     "tiny:64x256x64,huge:64x256x64,sparse-special:64x256x64",                     \
    GEMM_CUBLAS_MODE_PROBES

/* the catalogue's mode probes of gemm.cublas (gv_probe_applies says in which modes each runs),
   which the impostors under its mode labels run too, so that `check` shows they catch them */
#define GEMM_CUBLAS_MODE_PROBES                                                                    \
    .mode_probes = "tie:1024x4095x1024,narrow:1024x4096x1024,width:256x256x256,"                   \
                   "wide:640x1536x640",                                                            \
    .test_mode_probes = "tie:64x255x64,narrow:64x1024x64,width:128x64x128,wide:80x768x80"

/* the scaled fp8 modes (abi/gv_abi.h's rows, kept together) */
#define GEMM_SCALED_MODES                                                                          \
    (GV_BIT(GV_MODE_FP8E5M2) | GV_BIT(GV_MODE_FP8ROW) | GV_BIT(GV_MODE_FP8BLK))

static const gv_op gemm_cublas = {
    .name = "gemm.cublas",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "C = A B through cuBLAS (every math mode and emulation cuBLAS offers)",
    .modes = GV_BIT(GV_MODE_NATIVE) | GV_BIT(GV_MODE_TF32) | GV_CUBLAS_MODES | GV_BIT(GV_MODE_F16) |
             GV_BIT(GV_MODE_BF16) | GV_BIT(GV_MODE_F16ACC) | GV_BIT(GV_MODE_FP8) |
             GEMM_SCALED_MODES,
    .expected_tier = gemm_expected_tier,
    .shapes = "128x128x128,1000x999x1001,1537x515x263,4096x4096x4096",
    .test_shapes = "64x64x64,100x37x129,129x65x33,512x515x260",
    GEMM_CUBLAS_CANARIES,
    .takes_layouts = GK_TAKES_OFFSET | GK_TAKES_LD | GK_TAKES_TRANS,
    .device = GV_KERNEL(gk_gemm_cublas),
    GEMM_COMMON,
};

/* gemm.cublas on operands as a user passes them: lda, ldb, ldc through cuBLAS's own arguments,
   and (.transposed) A and B stored transposed, CUBLAS_OP_T. Native mode: the 16-bit and fp8
   modes convert dense copies (kernels/gemm.cu). The shapes are ragged (no dim a multiple of
   4) and so are the leading dimensions. */
#define GEMM_PLACED_COMMON                                                                         \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE),                                     \
    .shapes = "129x65x33,1000x999x1001", .test_shapes = "1x1x1,64x64x64,100x37x129,129x65x33",     \
    GEMM_HOOKS, .default_dist = GV_DIST_UNIFORM01

static const gv_op gemm_cublas_strided = {
    .name = "gemm.cublas.strided",
    .summary = "gemm.cublas with padded rows (lda = k+3, ldb = n+5, ldc = n+1) and operands off "
               "16-byte boundaries",
    .takes_layouts = GK_TAKES_OFFSET | GK_TAKES_LD | GK_TAKES_TRANS,
    .layout = gemm_strided_layout,
    .device = GV_KERNEL(gk_gemm_cublas),
    GEMM_PLACED_COMMON,
};

static const gv_op gemm_cublas_transposed = {
    .name = "gemm.cublas.transposed",
    .summary = "gemm.cublas with A and B stored transposed (CUBLAS_OP_T), padded, off 16-byte "
               "boundaries",
    .takes_layouts = GK_TAKES_OFFSET | GK_TAKES_LD | GK_TAKES_TRANS,
    .layout = gemm_transposed_layout,
    .device = GV_KERNEL(gk_gemm_cublas),
    GEMM_PLACED_COMMON,
};

static const gv_op gemm_cublas_tf32native = {
    .name = "gemm.cublas.tf32native",
    .summary = "planted bug: the native f32 call secretly runs TF32 tensor-op math",
    .planted_bug = "TF32 tensor-op math behind a pedantic label",
    .dtypes = GV_BIT(GV_F32),
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "128x128x128,1000x999x1001,1537x515x263,4096x4096x4096",
    .test_shapes = "512x515x260",
    GEMM_CUBLAS_CANARIES,
    .device = GV_KERNEL(gk_gemm_cublas_tf32native),
    GEMM_COMMON,
};

/* Modes not in effect under their labels (kernels/gemm.cu): only the mode probes can tell. */
static const gv_op gemm_cublas_tf32off = {
    .name = "gemm.cublas.tf32off",
    .summary = "planted bug: the tf32 mode runs pedantic f32 under its TF32 label",
    .planted_bug = "pedantic f32 behind a TF32 label (the tie probe's outputs are off TF32's grid)",
    .planted_in_probes = true,
    .dtypes = GV_BIT(GV_F32),
    .modes = GV_BIT(GV_MODE_TF32),
    .shapes = "1000x999x1001",
    .test_shapes = "100x37x129",
    GEMM_CUBLAS_CANARIES,
    .device = GV_KERNEL(gk_gemm_cublas_tf32off),
    GEMM_COMMON,
};

static const gv_op gemm_cublas_emunative = {
    .name = "gemm.cublas.emunative",
    .summary = "planted bug: the f64 emulations run native DGEMM under their labels",
    .planted_bug = "native DGEMM behind the fixed-width emulation labels (the width probe's term "
                   "2^70 below its row's largest survives)",
    .planted_in_probes = true,
    .dtypes = GV_BIT(GV_F64),
    /* not the automatic fp64emu: falling back to native is what it may do */
    .modes = GV_BIT(GV_MODE_FP64EMU_32) | GV_BIT(GV_MODE_FP64EMU_40) | GV_BIT(GV_MODE_FP64EMU_48),
    .shapes = "1000x999x1001",
    .test_shapes = "100x37x129",
    GEMM_CUBLAS_CANARIES,
    .device = GV_KERNEL(gk_gemm_cublas_emunative),
    GEMM_COMMON,
};

static const gv_op gemm_cublas_fp8fast = {
    .name = "gemm.cublas.fp8fast",
    .summary = "planted bug: fp8 with cuBLASLt's fast accumulation under the promoted label",
    .planted_bug = "fast (narrow, truncating) fp8 accumulation behind the mode that claims f32 "
                   "partial sums (the narrow probe's sums come out inexact)",
    .planted_in_probes = true,
    .dtypes = GV_BIT(GV_F32),
    .modes = GV_BIT(GV_MODE_FP8),
    .shapes = "1024x1024x1024",
    .test_shapes = "64x256x64",
    GEMM_CUBLAS_CANARIES,
    .device = GV_KERNEL(gk_gemm_cublas_fp8fast),
    GEMM_COMMON,
};

/* Scaled fp8 done wrong under the scaled modes' labels (kernels/gemm.cu, abi/gemm.h's plants).
   Their default inputs are wide's scaled layout (scaled_wide_inputs), on which each loses or
   changes whole terms of the exact product of the label's quantisation: check FAILs every
   case on the model (a term lost is some 2^13 / 4 units of the sums' model;
   tests/cpu/model_fp8.c). Their modes are not in the default catalogue, so they are marked
   planted_in_probes: every mode they take is selected without --mode, and wide, their
   default, is those modes' probe (gv_probe_applies), which must FAIL. */
#define GEMM_FP8_PLANT                                                                             \
    .dtypes = GV_BIT(GV_F32), .shapes = "640x1536x640", .test_shapes = "80x768x80,160x384x96",     \
    .planted_in_probes = true, GEMM_BASE, .default_dist = GV_DIST_WIDE

static const gv_op gemm_cublas_fp8noscale = {
    .name = "gemm.cublas.fp8noscale",
    .summary = "planted bug: the scaled fp8 modes quantise with every scale 1",
    .planted_bug = "scales ignored (s = 1): small values flush to zero and large ones saturate",
    .modes = GEMM_SCALED_MODES,
    .device = GV_KERNEL(gk_gemm_cublas_fp8noscale),
    GEMM_FP8_PLANT,
};

static const gv_op gemm_cublas_fp8rowtensor = {
    .name = "gemm.cublas.fp8rowtensor",
    .summary = "planted bug: fp8row's row and column scales all taken from the tensor's amax",
    .planted_bug = "one per-tensor scale in every row's slot: rows far below the largest lose "
                   "their bits",
    .modes = GV_BIT(GV_MODE_FP8ROW),
    .device = GV_KERNEL(gk_gemm_cublas_fp8rowtensor),
    GEMM_FP8_PLANT,
};

static const gv_op gemm_cublas_fp8e5m2b = {
    .name = "gemm.cublas.fp8e5m2b",
    .summary = "planted bug: B rounded to e5m2 under the e4m3 label of fp8row and fp8blk",
    .planted_bug = "e5m2's 3 significand bits where the label says e4m3's 4 (B rounded to e5m2, "
                   "stored in e4m3)",
    .modes = GV_BIT(GV_MODE_FP8ROW) | GV_BIT(GV_MODE_FP8BLK),
    .device = GV_KERNEL(gk_gemm_cublas_fp8e5m2b),
    GEMM_FP8_PLANT,
};

static const gv_op gemm_cublas_fp8blkrow = {
    .name = "gemm.cublas.fp8blkrow",
    .summary = "planted bug: fp8blk scales each row of A and column of B once, after the whole K",
    .planted_bug = "one scale per row (outer vector) under the blockwise label: blocks far below "
                   "the row's largest lose their bits",
    .modes = GV_BIT(GV_MODE_FP8BLK),
    .device = GV_KERNEL(gk_gemm_cublas_fp8blkrow),
    GEMM_FP8_PLANT,
};

static const gv_op gemm_tiled = {
    .name = "gemm.tiled",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "C = A B, hand-written 32x32 shared-memory tiles",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "128x128x128,1000x999x1001,1537x515x263,4096x4096x4096",
    .test_shapes = "64x64x64,100x37x129,33x65x31,129x65x33,512x515x260",
    .canaries = "uniform11:1537x515x263,tie:1000x999x1001,perm2:1000x999x1001,"
                "tiny:256x1024x256,huge:256x1024x256,sparse-special:256x1024x256",
    .test_canaries = "uniform11:129x65x33,tie:33x65x31,perm2:100x37x129,tiny:64x256x64,"
                     "huge:64x256x64,sparse-special:64x256x64",
    .takes_layouts = GK_TAKES_OFFSET | GK_TAKES_LD,
    .device = GV_KERNEL(gk_gemm_tiled),
    GEMM_COMMON,
};

static const gv_op gemm_tiled_strided = {
    .name = "gemm.tiled.strided",
    .summary = "gemm.tiled with padded rows (lda = k+3, ldb = n+5, ldc = n+1) and operands off "
               "16-byte boundaries",
    .takes_layouts = GK_TAKES_OFFSET | GK_TAKES_LD,
    .layout = gemm_strided_layout,
    .device = GV_KERNEL(gk_gemm_tiled),
    GEMM_PLACED_COMMON,
};

/* A kernel that takes lda and then steps through A by k: right on every dense case, wrong as
   soon as the rows are padded (each row i read from i k instead of i lda, so row i > 0 takes
   elements of earlier rows and of the padding between them, which holds the red-zone byte). */
static const gv_op gemm_tiled_ignoreld = {
    .name = "gemm.tiled.ignoreld",
    .summary = "planted bug: the tiled kernel indexes A by its row length k, not by lda",
    .planted_bug = "ignores the leading dimension of A (uses k where lda belongs)",
    .takes_layouts = GK_TAKES_OFFSET | GK_TAKES_LD,
    .layout = gemm_strided_layout,
    .device = GV_KERNEL(gk_gemm_tiled_ignoreld),
    .dtypes = GV_BOTH_DTYPES,
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "100x37x129",
    .test_shapes = "64x64x64,100x37x129",
    GEMM_HOOKS,
    .default_dist = GV_DIST_UNIFORM01,
};

static const gv_op gemm_tiled_droptail = {
    .name = "gemm.tiled.droptail",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the tiled kernel drops the last partial K tile",
    .planted_bug = "drops the last partial K tile",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "100x37x129",
    .test_shapes = "100x37x129,33x65x31",
    .device = GV_KERNEL(gk_gemm_tiled_droptail),
    GEMM_COMMON,
};

/* The store one ulp up: every result within an ulp and a half of its sum's, so the ratio and R
   are a correct kernel's give or take 2/sqrt(k); only the bias rule sees it. It judges gemm on
   zero-mean inputs (round-to-nearest itself drifts toward zero on sums of same-signed terms),
   so those are this variant's default: |z| >= 25 at every shape and seed of
   tests/cpu/model_bias.c, which emulates it bit for bit. */
static const gv_op gemm_tiled_ulp = {
    .name = "gemm.tiled.ulp",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the tiled kernel stores each sum one ulp up (nextafter to +inf)",
    .planted_bug = "one ulp up at the store: errors lean upward",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "128x128x128,1537x515x263",
    .test_shapes = "129x65x33,100x37x129",
    .device = GV_KERNEL(gk_gemm_tiled_ulp),
    GEMM_BASE,
    .default_dist = GV_DIST_UNIFORM11,
};

/* The test shapes cover both load paths (k and n multiples of 4: 4-vectors; otherwise
   scalar), partial block tiles in m, n and k (f32 128 x 256 x 16, f64 128 x 64 x 8), K tails
   from 1 to 12, and more than one block tile in each direction. */
static const gv_op gemm_regblock = {
    .name = "gemm.regblock",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "C = A B, hand-written register-blocked FFMA (f32: 128x256x16 block tiles, 8x16 "
               "thread tiles; f64: 128x64x8, 8x8, cp.async)",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "128x128x128,1000x999x1001,1537x515x263,4096x4096x4096",
    .test_shapes = "1x1x1,64x64x64,100x37x129,33x65x31,129x65x33,256x260x132,257x12x300,"
                   "512x515x260,300x1024x516",
    .canaries = "uniform11:1537x515x263,tie:1000x999x1001,perm2:1000x999x1001,"
                "uniform11:1024x1024x1024,tiny:256x1024x256,huge:256x1024x256,"
                "sparse-special:256x1024x256",
    .test_canaries = "uniform11:129x65x33,tie:33x65x31,perm2:100x37x129,uniform11:256x260x132,"
                     "tiny:64x256x64,huge:64x256x64,sparse-special:64x256x64",
    .takes_layouts = GK_TAKES_OFFSET,
    .device = GV_KERNEL(gk_gemm_regblock),
    GEMM_COMMON,
};

/* Offsets only: its rows are dense (no leading dimension in its interface); off 16-byte
   boundaries rb_vec_ok sends every case down the guarded scalar path. */
static const gv_op gemm_regblock_offset = {
    .name = "gemm.regblock.offset",
    .summary = "gemm.regblock with operands off 16-byte boundaries (the scalar load path)",
    .takes_layouts = GK_TAKES_OFFSET,
    .layout = gemm_offset_layout,
    .device = GV_KERNEL(gk_gemm_regblock),
    .dtypes = GV_BOTH_DTYPES,
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "128x128x128,1000x999x1001",
    .test_shapes = "1x1x1,64x64x64,256x260x132,257x12x300",
    GEMM_HOOKS,
    .default_dist = GV_DIST_UNIFORM01,
};

static const gv_op gemm_regblock_droptail = {
    .name = "gemm.regblock.droptail",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the register-blocked kernel drops the last partial K slice",
    .planted_bug = "drops the last partial K slice (k % 16 != 0 in f32, k % 8 in f64)",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "100x37x129",
    .test_shapes = "100x37x129,256x260x132,33x65x31",
    .device = GV_KERNEL(gk_gemm_regblock_droptail),
    GEMM_COMMON,
};

/* Impostors for `gpuval probe` (src/probe/): another arithmetic under a mode's label, each a
   feature of the probe's fingerprint that must FAIL against the architecture's expectations
   (probe/sm_90.expect). check may pass them: their errors stay inside some mode's model; the
   cuBLAS ones run their labels' mode probes in check, which catch bf16tf32 (the tie probe's
   input rounding) and emuwidth (the width probe); rzconv and emuauto FAIL check through the
   mode fingerprint it runs after the cases (src/probe/probe_check.h). */
static int gemm_bf16ws_layout(const gv_case *c, gv_layout *l)
{
    int rc = gemm_layout(c, l);
    l->workspace_bytes =
        gk_gemm_workspace_bytes(GV_MODE_BF16, c->shape.d[0], c->shape.d[1], c->shape.d[2], NULL);
    return rc;
}

#define GEMM_PROBE_PLANT                                                                           \
    .planted_for_probe = true, .shapes = "128x128x128", .test_shapes = "64x64x64"

/* a cuBLAS impostor under another mode's label also runs the catalogue's mode probes of that
   mode: bf16 under tf32 FAILs the tie probe's input rounding, a 32-bit emulation under the
   40/48/56-bit labels the width probe's width (check, not only probe) */
#define GEMM_CUBLAS_PROBE_PLANT GEMM_PROBE_PLANT, GEMM_CUBLAS_MODE_PROBES

static const gv_op gemm_cublas_bf16tf32 = {
    .name = "gemm.cublas.bf16tf32",
    .summary = "planted for probe: the tf32 mode converts its operands to bfloat16",
    .planted_bug = "bfloat16 operands (8 bits) behind a TF32 label (11): probe's in_bits FAILs",
    .dtypes = GV_BIT(GV_F32),
    .modes = GV_BIT(GV_MODE_TF32),
    .layout = gemm_bf16ws_layout,
    .device = GV_KERNEL(gk_gemm_cublas_bf16tf32),
    GEMM_CUBLAS_PROBE_PLANT,
    GEMM_HOOKS,
    .default_dist = GV_DIST_UNIFORM01,
};

static const gv_op gemm_cublas_emuwidth = {
    .name = "gemm.cublas.emuwidth",
    .summary = "planted for probe: the 40, 48 and 56-bit f64 emulations run with 32 bits",
    .planted_bug = "the fixed-point emulation at 32 mantissa bits behind the 40, 48 and 56-bit "
                   "labels: probe's row_bits FAILs",
    .dtypes = GV_BIT(GV_F64),
    .modes = GV_BIT(GV_MODE_FP64EMU_40) | GV_BIT(GV_MODE_FP64EMU_48) | GV_BIT(GV_MODE_FP64EMU_56),
    .device = GV_KERNEL(gk_gemm_cublas_emuwidth),
    GEMM_CUBLAS_PROBE_PLANT,
    GEMM_COMMON,
};

static const gv_op gemm_cublas_emuauto = {
    .name = "gemm.cublas.emuauto",
    .summary = "planted for probe: the automatic f64 emulation falls back to native DGEMM",
    .planted_bug = "native DGEMM behind the automatic fixed-point emulation's label: probe's "
                   "cr_share FAILs",
    .dtypes = GV_BIT(GV_F64),
    .modes = GV_BIT(GV_MODE_FP64EMU),
    .device = GV_KERNEL(gk_gemm_cublas_emunative),
    GEMM_CUBLAS_PROBE_PLANT,
    GEMM_COMMON,
};

static const gv_op gemm_cublas_rzconv = {
    .name = "gemm.cublas.rzconv",
    .summary = "planted for probe: the f16 and bf16 modes convert their operands toward zero",
    .planted_bug = "operands truncated (round toward zero) where the modes round to nearest: "
                   "probe's in_round FAILs",
    .dtypes = GV_BIT(GV_F32),
    .modes = GV_BIT(GV_MODE_F16) | GV_BIT(GV_MODE_BF16) | GV_BIT(GV_MODE_F16ACC),
    .device = GV_KERNEL(gk_gemm_cublas_rzconv),
    GEMM_CUBLAS_PROBE_PLANT,
    GEMM_COMMON,
};

static const gv_op gemm_tiled_unfused = {
    .name = "gemm.tiled.unfused",
    .summary = "planted for probe: gemm.tiled with the product rounded before the sum (no FMA)",
    .planted_bug = "a multiply and an add behind the native label, which promises fused "
                   "multiply-adds: probe's products FAILs",
    .dtypes = GV_BOTH_DTYPES,
    .modes = GV_BIT(GV_MODE_NATIVE),
    .device = GV_KERNEL(gk_gemm_tiled_unfused),
    GEMM_PROBE_PLANT,
    GEMM_COMMON,
};

static const gv_op gemm_tiled_ftz = {
    .name = "gemm.tiled.ftz",
    .summary = "planted for probe: gemm.tiled in f32 with fma.rn.ftz (subnormals flushed)",
    .planted_bug = "subnormal inputs and results flushed to zero behind the native label, which "
                   "promises IEEE subnormals: probe's subnormal_in and subnormal_out FAIL",
    .dtypes = GV_BIT(GV_F32),
    .modes = GV_BIT(GV_MODE_NATIVE),
    .device = GV_KERNEL(gk_gemm_tiled_ftz),
    GEMM_PROBE_PLANT,
    GEMM_COMMON,
};

/* ---- gemm.batched: C_q = op(A_q) op(B_q), strided batched through cuBLAS ------------------ */

/* Dims b,m,k,n (the shape batch x m x k x n; GV_MAX_DIMS is 4 and dims are numbers, so the
   transposes are the op's name: gemm.batched is NN, .tn takes A stored k x m per batch, .nt B
   stored n x k, as torch.bmm(a.transpose(1, 2), b) and torch.bmm(a, b.transpose(1, 2)) read
   them). Every matrix packed row-major, batch after batch (strides m k, k n, m n). The model is
   gemm's per batch element (gauge |op(A_q)||op(B_q)|, depth k; tf32: 4 + k/2^13 at 2^-11), and
   so is the probabilistic one. */
static int batched_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->nd != 4) {
        snprintf(why, len, "gemm.batched takes batch x m x k x n");
        return GV_EINVAL;
    }
    for (int i = 0; i < 4; i++)
        if (s->d[i] > 2147483647 / 2) {
            snprintf(why, len, "gemm.batched dims must be below 2^30 (cuBLAS takes int)");
            return GV_EINVAL;
        }
    double b = (double)s->d[0], m = (double)s->d[1], k = (double)s->d[2], n = (double)s->d[3];
    if (b * m * n > 4e9 || b * m * k > 4e9 || b * k * n > 4e9) {
        snprintf(why, len, "gemm.batched tensors must hold fewer than 4e9 elements each");
        return GV_EINVAL;
    }
    return GV_OK;
}

/* The gemm family's per-product facts, for one batch element's m x k x n */
static gv_case batched_one(const gv_case *c)
{
    gv_case one = *c;
    one.shape = (gv_shape){3, {c->shape.d[1], c->shape.d[2], c->shape.d[3]}};
    return one;
}

static int batched_layout(const gv_case *c, gv_layout *l)
{
    int64_t b = c->shape.d[0], m = c->shape.d[1], k = c->shape.d[2], n = c->shape.d[3];
    *l = (gv_layout){.n_in = 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"A", b * m * k};
    l->in[1] = (gv_tensor_spec){"B", b * k * n};
    l->out[0] = (gv_tensor_spec){"C", b * m * n};
    return GV_OK;
}

static double batched_flops(const gv_case *c)
{
    gv_case one = batched_one(c);
    return (double)c->shape.d[0] * gemm_flops(&one);
}

static double batched_bytes(const gv_case *c)
{
    gv_case one = batched_one(c);
    return (double)c->shape.d[0] * gemm_bytes(&one);
}

static double batched_depth(const gv_case *c)
{
    gv_case one = batched_one(c);
    return gemm_depth(&one);
}

static double batched_expected_tier(const gv_case *c, char *why, size_t len)
{
    gv_case one = batched_one(c);
    return gemm_expected_tier(&one, why, len);
}

static int batched_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    gv_fill(p, 1, p->c.dist);
    return GV_OK;
}

static int batched_run(gv_problem *p, int what, int trans, double *out)
{
    const int64_t *d = p->c.shape.d;
    return gv_oracle_rc(
        go_gemm_batched(what, trans, d[0], d[1], d[2], d[3], p->in[0].ref, p->in[1].ref, out));
}

/* G = |C| + sqrt((A o A)(B o B)) per batch element (docs/error-models.md) */
static int batched_pgauge(gv_problem *p, int trans)
{
    gv_tensor *C = &p->out[0];
    int rc = batched_run(p, GO_GEMM_SQGAUGE, trans, C->pgauge);
    for (int64_t i = 0; rc == GV_OK && i < C->count; i++)
        C->pgauge[i] += fabs(C->ref[i]);
    return rc;
}

/* One set of hooks a transpose: ops of a family with the same hooks share cached references
   (gv_reference_name), and each transpose's reference is its own. */
#define BATCHED_HOOKS(t, TRANS)                                                                    \
    static int batched_##t##_oracle(gv_problem *p)                                                 \
    {                                                                                              \
        return batched_run(p, GO_GEMM_VALUE, TRANS, p->out[0].ref);                                \
    }                                                                                              \
    static int batched_##t##_gauge(gv_problem *p)                                                  \
    {                                                                                              \
        return batched_run(p, GO_GEMM_GAUGE, TRANS, p->out[0].gauge);                              \
    }                                                                                              \
    static int batched_##t##_pgauge(gv_problem *p)                                                 \
    {                                                                                              \
        return batched_pgauge(p, TRANS);                                                           \
    }
BATCHED_HOOKS(nn, 0)
BATCHED_HOOKS(tn, GO_GEMM_TRANS_A)
BATCHED_HOOKS(nt, GO_GEMM_TRANS_B)

/* one batch's op(A) and op(B) packed (go_gemm_batched), and go_gemm's lifted copies */
static double batched_scratch_bytes(const gv_case *c)
{
    double m = (double)c->shape.d[1], k = (double)c->shape.d[2], n = (double)c->shape.d[3];
    return 2.0 * (m * k + k * n) * sizeof(double);
}

/* cuBLAS's strided batched S/Dgemm honours the handle's math mode (native: pedantic; default;
   TF32 tensor ops); the emulations and the 16-bit and fp8 modes are gemm.cublas's alone. */
#define BATCHED_MODES (GV_BIT(GV_MODE_NATIVE) | GV_BIT(GV_MODE_DEFAULT) | GV_BIT(GV_MODE_TF32))

/* Finite inputs: gemm's probes (tie, perm2, width, narrow) lay out one m x k x n product, and
   the edge dists' lift of the subnormals is go_gemm's per batch already but untested here. */
#define BATCHED_DISTS (GV_FINITE_DISTS | GV_BIT(GV_DIST_WIDE))

#define BATCHED_COMMON                                                                             \
    .family = "gemm", .dims = "b,m,k,n", .out_dims = "b,m,n", .dtypes = GV_BOTH_DTYPES,            \
    .dists = BATCHED_DISTS, .default_dist = GV_DIST_UNIFORM01, .check_shape = batched_check_shape, \
    .layout = batched_layout, .flops = batched_flops, .bytes = batched_bytes,                      \
    .make_inputs = batched_inputs, .depth = batched_depth, .expected_tier = batched_expected_tier, \
    .oracle_scratch_bytes = batched_scratch_bytes, .range_degree = 2,                              \
    .bias_dists = GV_BIT(GV_DIST_UNIFORM11), .reference_ignores_mode = true,                       \
    .error_model = "per batch element, gemm's: |C_q-r| <= gamma_k |op(A_q)||op(B_q)| (Higham "     \
                   "ASNA eq. 3.13): gauge |op(A)||op(B)|, depth k; tf32: depth 4 + k/2^13 at "     \
                   "u = 2^-11 (docs/error-models.md, gemm.batched)"

/* The catalogue's and the tests' shapes, and a native zero-mean canary at k = 4096 (as every op
   with a TF32 mode carries: reduced precision under a native label shows there) */
#define BATCHED_SHAPES                                                                             \
    .shapes = "16x128x128x128,8x1000x999x1001,512x64x64x64",                                       \
    .test_shapes = "1x1x1x1,3x64x64x64,5x100x37x129,2x129x65x33",                                  \
    .canaries = "uniform11:4x256x4096x256", .test_canaries = "uniform11:2x64x4096x64"

static const gv_op gemm_batched = {
    .name = "gemm.batched",
    .summary = "C_q = A_q B_q for each batch q: cuBLAS strided batched S/Dgemm (torch.bmm)",
    .in_dims = "b,m,k;b,k,n",
    .modes = BATCHED_MODES,
    BATCHED_SHAPES,
    .device = GV_KERNEL(gk_gemm_batched),
    .oracle = batched_nn_oracle,
    .gauge = batched_nn_gauge,
    .pgauge = batched_nn_pgauge,
    BATCHED_COMMON,
};

static const gv_op gemm_batched_tn = {
    .name = "gemm.batched.tn",
    .summary = "C_q = A_q^T B_q, A stored k x m per batch (CUBLAS_OP_T): bmm(a.transpose(1,2), b)",
    .in_dims = "b,k,m;b,k,n",
    .modes = BATCHED_MODES,
    BATCHED_SHAPES,
    .device = GV_KERNEL(gk_gemm_batched_tn),
    .oracle = batched_tn_oracle,
    .gauge = batched_tn_gauge,
    .pgauge = batched_tn_pgauge,
    BATCHED_COMMON,
};

static const gv_op gemm_batched_nt = {
    .name = "gemm.batched.nt",
    .summary = "C_q = A_q B_q^T, B stored n x k per batch (CUBLAS_OP_T): bmm(a, b.transpose(1,2))",
    .in_dims = "b,m,k;b,n,k",
    .modes = BATCHED_MODES,
    BATCHED_SHAPES,
    .device = GV_KERNEL(gk_gemm_batched_nt),
    .oracle = batched_nt_oracle,
    .gauge = batched_nt_gauge,
    .pgauge = batched_nt_pgauge,
    BATCHED_COMMON,
};

/* Batch q > 0 reads batch q - 1's B (B's stride off by one batch): every output of those
   batches is another product, O(sqrt k) away on uniform01 inputs. Needs batch >= 2. */
static const gv_op gemm_batched_stride = {
    .name = "gemm.batched.stride",
    .summary = "planted bug: batch q reads batch q-1's B (the B stride off by one batch)",
    .planted_bug = "B's batch stride off by one: batches 1.. multiply the previous batch's B",
    .in_dims = "b,m,k;b,k,n",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "16x128x128x128",
    .test_shapes = "3x64x64x64,2x129x65x33",
    .device = GV_KERNEL(gk_gemm_batched_stride),
    .oracle = batched_nn_oracle,
    .gauge = batched_nn_gauge,
    .pgauge = batched_nn_pgauge,
    BATCHED_COMMON,
};

const gv_op *const gv_family_gemm[] = {&gemm_cublas,
                                       &gemm_cublas_strided,
                                       &gemm_cublas_transposed,
                                       &gemm_cublas_tf32native,
                                       &gemm_cublas_tf32off,
                                       &gemm_cublas_emunative,
                                       &gemm_cublas_fp8fast,
                                       &gemm_cublas_fp8noscale,
                                       &gemm_cublas_fp8rowtensor,
                                       &gemm_cublas_fp8e5m2b,
                                       &gemm_cublas_fp8blkrow,
                                       &gemm_tiled,
                                       &gemm_tiled_strided,
                                       &gemm_tiled_ignoreld,
                                       &gemm_tiled_droptail,
                                       &gemm_tiled_ulp,
                                       &gemm_regblock,
                                       &gemm_regblock_offset,
                                       &gemm_regblock_droptail,
                                       &gemm_cublas_bf16tf32,
                                       &gemm_cublas_emuwidth,
                                       &gemm_cublas_emuauto,
                                       &gemm_cublas_rzconv,
                                       &gemm_tiled_unfused,
                                       &gemm_tiled_ftz,
                                       &gemm_batched,
                                       &gemm_batched_tn,
                                       &gemm_batched_nt,
                                       &gemm_batched_stride,
                                       NULL};
