/* cli_judge_order.c: `gpuval judge --order` and `--arch` end to end, through the real binary
 * on .npy files written here (docs/cli.md, judge; docs/error-models.md, "One sum, and a
 * declared order" and "Tensor-core modes on given inputs").
 *
 * One f32 sum of 10^6 uniform [0, 1) values, its outputs computed here by reduce.sum's kernel
 * emulated literally (kernels/reduce.cu: tiles of 2048 by 256 threads x 8, warp shuffles, the
 * tiles' sums by the same tree; independent of the envelope's own replay), in round-to-nearest
 * and with every addition rounding toward zero (fesetround), and by a sequential chain:
 *   - the RZ tree FAILs declared `--order tree`, naming round-toward-zero, and PASSes
 *     undeclared, the row saying that one sum in any order cannot show it;
 *   - the RN tree PASSes declared `tree`; a sequential RN sum PASSes undeclared;
 *   - a sequential chain rounding toward zero FAILs undeclared;
 *   - an unknown order or architecture is a usage error (exit 2).
 * And a 32 x 1024 x 32 product under `--mode tf32`: TF32 operands with an f32 chain PASS on
 * sm_90's and sm_80's models; bf16 operands FAIL naming bf16 tensor cores. */
#include <criterion/criterion.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/npy.h"
#include "testkit.h"

enum { N = 1000000 };

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* __shfl_down_sync(v, off): lane l gets lane l + off's value, its own past 31; every lane adds */
static void shfl_down_add(float *lane, int off)
{
    float got[32];
    for (int l = 0; l < 32; l++)
        got[l] = l + off < 32 ? lane[l + off] : lane[l];
    for (int l = 0; l < 32; l++)
        lane[l] = lane[l] + got[l];
}

/* one tile of 2048 from x[start..n), read as 0 past n */
static float tile(const float *x, int64_t start, int64_t n)
{
    float a[256], w[32] = {0};
    for (int t = 0; t < 256; t++) {
        float v[8];
        for (int j = 0; j < 8; j++) {
            int64_t i = start + t + (int64_t)j * 256;
            v[j] = i < n ? x[i] : 0.0f;
        }
        a[t] = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
    }
    for (int wp = 0; wp < 8; wp++) {
        for (int off = 16; off > 0; off >>= 1)
            shfl_down_add(a + 32 * wp, off);
        w[wp] = a[32 * wp];
    }
    for (int off = 4; off > 0; off >>= 1)
        shfl_down_add(w, off);
    return w[0];
}

/* reduce.sum's tree over x[0..n), level after level; every addition toward zero where rz */
static float tree_sum(const float *x, int64_t n, bool rz)
{
    int saved = fegetround();
    if (rz) fesetround(FE_TOWARDZERO);
    int64_t blocks = (n + 2047) / 2048;
    float *part = calloc((size_t)blocks, sizeof *part);
    cr_assert_not_null(part);
    for (int64_t b = 0; b < blocks; b++)
        part[b] = tile(x, b * 2048, n);
    while (blocks > 1) {
        int64_t up = (blocks + 2047) / 2048;
        for (int64_t b = 0; b < up; b++)
            part[b] = tile(part, b * 2048, blocks);
        blocks = up;
    }
    float s = part[0];
    free(part);
    fesetround(saved);
    return s;
}

static float seq_sum(const float *x, int64_t n, bool rz)
{
    int saved = fegetround();
    if (rz) fesetround(FE_TOWARDZERO);
    float s = 0.0f;
    for (int64_t i = 0; i < n; i++)
        s = s + x[i];
    fesetround(saved);
    return s;
}

typedef struct scratch {
    char dir[256], x[300];
} scratch;

static void write_input(scratch *s, float *x)
{
    gv_test_scratch_dir(s->dir, sizeof s->dir, "order");
    snprintf(s->x, sizeof s->x, "%s/x.npy", s->dir);
    uint64_t seed = 2026;
    for (int64_t i = 0; i < N; i++)
        x[i] = (float)((double)(mix(&seed) >> 11) * 0x1p-53);
    int64_t n = N;
    cr_assert_eq(gv_npy_write(s->x, GV_NPY_F32, 1, &n, x), 0);
}

/* gpuval judge on reduce.sum with output v and the extra options; the exit code, the output */
static int judge_sum(const scratch *s, const char *tag, float v, const char *opts, char *out,
                     size_t len)
{
    char path[320], args[1024];
    snprintf(path, sizeof path, "%s/%s.npy", s->dir, tag);
    int64_t one = 1;
    cr_assert_eq(gv_npy_write(path, GV_NPY_F32, 1, &one, &v), 0);
    snprintf(args, sizeof args, "judge --op reduce.sum --size %d --inputs '%s' --outputs '%s' %s",
             N, s->x, path, opts);
    return gv_test_run_cli(args, out, len);
}

Test(cli_judge_order, sums, .timeout = 300)
{
    float *x = malloc(sizeof *x * N);
    cr_assert_not_null(x);
    scratch s;
    write_input(&s, x);
    const float rz_tree = tree_sum(x, N, true), rn_tree = tree_sum(x, N, false);
    const float rn_seq = seq_sum(x, N, false), rz_seq = seq_sum(x, N, true);
    cr_assert_neq(rz_tree, rn_tree, "the RZ tree must differ from the RN one here");
    char out[8192];

    int rc = judge_sum(&s, "rz_tree", rz_tree, "--order tree", out, sizeof out);
    cr_expect_eq(rc, 1, "the RZ tree declared tree: exit %d\n%s", rc, out);
    cr_expect(strstr(out, "FAIL") && strstr(out, "round-toward-zero"), "%s", out);
    cr_expect(strstr(out, "tree order") != NULL, "the row names the declared order:\n%s", out);

    rc = judge_sum(&s, "rz_tree_any", rz_tree, "", out, sizeof out);
    cr_expect_eq(rc, 0, "the RZ tree undeclared: exit %d\n%s", rc, out);
    cr_expect(strstr(out, "cannot show a tree rounding toward zero") != NULL,
              "the row says what it cannot see:\n%s", out);

    rc = judge_sum(&s, "rn_tree", rn_tree, "--order tree", out, sizeof out);
    cr_expect_eq(rc, 0, "the RN tree declared tree: exit %d\n%s", rc, out);

    rc = judge_sum(&s, "rn_seq", rn_seq, "", out, sizeof out);
    cr_expect_eq(rc, 0, "a sequential RN sum undeclared: exit %d\n%s", rc, out);

    rc = judge_sum(&s, "rz_seq", rz_seq, "", out, sizeof out);
    cr_expect_eq(rc, 1, "a sequential RZ chain undeclared: exit %d\n%s", rc, out);
    cr_expect(strstr(out, "round-toward-zero") != NULL, "%s", out);

    rc = judge_sum(&s, "bad", rn_seq, "--order spiral", out, sizeof out);
    cr_expect_eq(rc, 2, "an unknown order: exit %d\n%s", rc, out);
    rc = judge_sum(&s, "bad_arch", rn_seq, "--arch sm_99", out, sizeof out);
    cr_expect_eq(rc, 2, "an unknown architecture: exit %d\n%s", rc, out);
    gv_test_remove_dir(s.dir);
    free(x);
}

/* x to p significant bits, to nearest even (the values here are normal in every format) */
static float round_bits(float x, int p)
{
    if (x == 0.0f) return x;
    int e;
    frexp(x, &e);
    return (float)ldexp(nearbyint(ldexp(x, p - e)), e - p);
}

Test(cli_judge_order, tf32_arch, .timeout = 300)
{
    enum { M = 32, K = 1024, NN = 32 };
    static float a[M * K], b[K * NN], c[M * NN];
    uint64_t seed = 7;
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(2.0 * (double)(mix(&seed) >> 11) * 0x1p-53 - 1.0);
    for (int i = 0; i < K * NN; i++)
        b[i] = (float)(2.0 * (double)(mix(&seed) >> 11) * 0x1p-53 - 1.0);
    char dir[256], pa[300], pb[300], pc[300], args[1400], out[8192];
    gv_test_scratch_dir(dir, sizeof dir, "arch");
    snprintf(pa, sizeof pa, "%s/A.npy", dir);
    snprintf(pb, sizeof pb, "%s/B.npy", dir);
    snprintf(pc, sizeof pc, "%s/C.npy", dir);
    int64_t sa[2] = {M, K}, sb[2] = {K, NN}, sc[2] = {M, NN};
    cr_assert_eq(gv_npy_write(pa, GV_NPY_F32, 2, sa, a), 0);
    cr_assert_eq(gv_npy_write(pb, GV_NPY_F32, 2, sb, b), 0);
    static const int bits[2] = {11, 8}; /* tf32 operands, then bf16 operands */
    for (int q = 0; q < 2; q++) {
        for (int i = 0; i < M; i++)
            for (int j = 0; j < NN; j++) {
                float acc = 0.0f;
                for (int l = 0; l < K; l++)
                    acc = fmaf(round_bits(a[i * K + l], bits[q]),
                               round_bits(b[l * NN + j], bits[q]), acc);
                c[i * NN + j] = acc;
            }
        cr_assert_eq(gv_npy_write(pc, GV_NPY_F32, 2, sc, c), 0);
        static const char *const archs[2] = {"", "--arch sm_80"};
        for (int s = 0; s < 2; s++) {
            snprintf(args, sizeof args,
                     "judge --op gemm.cublas --mode tf32 --inputs '%s,%s' --outputs '%s' %s", pa,
                     pb, pc, archs[s]);
            int rc = gv_test_run_cli(args, out, sizeof out);
            if (q == 0) {
                cr_expect_eq(rc, 0, "tf32 operands, f32 chain %s: exit %d\n%s", archs[s], rc, out);
                cr_expect(strstr(out, s ? "sm_80's model" : "sm_90's model") != NULL, "%s", out);
            } else {
                cr_expect_eq(rc, 1, "bf16 operands under tf32 %s: exit %d\n%s", archs[s], rc, out);
                cr_expect(strstr(out, "consistent with bf16 tensor cores") != NULL, "%s", out);
            }
        }
    }
    gv_test_remove_dir(dir);
}
