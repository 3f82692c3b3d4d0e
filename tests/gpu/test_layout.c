/* test_layout.c: operands placed as users pass them (abi/layout.h), on a device.
 * gk_run itself, through a test op that copies a to c stored row by row with each one's
 * leading dimension (cudaMemcpy2DAsync) and then plants one stray write: the op must find
 * its tensors exactly at their placement's offset past a 256-byte boundary, c must come back
 * equal to a (dense and transposed placements alike), and each stray write must be a guard
 * violation naming where it went: into the padding between c's rows, into a's padding, one
 * element before c's offset base. Then the catalogue's layout variants must PASS on their
 * placed operands and the kernel that ignores lda must FAIL on them with the guards clean
 * (it only reads where it should not). vadd.aligned16, whose misaligned vector loads lose the
 * context, is run by test_faults.c in a process of its own. */
#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/judge.h"
#include "core/registry.h"
#include "core/run.h"
#include "gk.h"

typedef enum {
    STRAY_NONE,
    STRAY_OUT_PADDING,   /* one byte of the padding after c's stored row 0 */
    STRAY_IN_PADDING,    /* one byte of the padding after a's stored row 0 */
    STRAY_BEFORE_OFFSET, /* the element before c's first */
} stray_kind;

/* Set before each gk_run (one run at a time); the op records where it found its tensors. */
static struct {
    stray_kind stray;
    uintptr_t a_mod256, c_mod256;
} plan;

static int copy_rows(gk_launch *L)
{
    cudaStream_t s = (cudaStream_t)L->stream;
    size_t es = L->dtype == GV_F32 ? 4 : 8;
    const gk_place *pa = &L->in_place[0], *pc = &L->out_place[0];
    plan.a_mod256 = (uintptr_t)L->in[0] % 256;
    plan.c_mod256 = (uintptr_t)L->out[0] % 256;
    /* a and c are placed alike but for their ld: stored row r of one is stored row r of the
       other */
    size_t width = (size_t)gk_place_scols(pa) * es, height = (size_t)gk_place_srows(pa);
    cudaError_t e =
        cudaMemcpy2DAsync(L->out[0], (size_t)gk_place_ld(pc) * es, L->in[0],
                          (size_t)gk_place_ld(pa) * es, width, height, cudaMemcpyDeviceToDevice, s);
    unsigned char *a = (unsigned char *)L->in[0], *c = (unsigned char *)L->out[0];
    if (e == cudaSuccess && plan.stray == STRAY_OUT_PADDING)
        e = cudaMemsetAsync(c + width, 0, 1, s);
    if (e == cudaSuccess && plan.stray == STRAY_IN_PADDING) e = cudaMemsetAsync(a + width, 0, 1, s);
    if (e == cudaSuccess && plan.stray == STRAY_BEFORE_OFFSET)
        e = cudaMemsetAsync(c - es, 0, es, s);
    return e == cudaSuccess ? GV_OK : GV_ECUDA;
}

static const gk_op copy_rows_op = {NULL, copy_rows, NULL};

/* gk_run of copy_rows_op on a rows x cols a (values 1.5 + index) placed with pad and trans,
   c likewise with cpad; c's host copy into c_out. */
static int run_placed(gv_dtype t, int64_t rows, int64_t cols, int64_t pad, int64_t cpad, int trans,
                      stray_kind stray, double *c_out, int64_t *offsets)
{
    int64_t n = rows * cols, es = (int64_t)gv_dtype_size(t);
    void *a = malloc((size_t)(n * es)), *c = malloc((size_t)(n * es));
    for (int64_t i = 0; i < n; i++) {
        if (t == GV_F32)
            ((float *)a)[i] = (float)(1.5 + (double)i);
        else
            ((double *)a)[i] = 1.5 + (double)i;
    }
    gk_launch L;
    memset(&L, 0, sizeof L);
    L.dtype = t;
    L.mode = GV_MODE_NATIVE;
    L.nd = 2;
    L.dims[0] = rows;
    L.dims[1] = cols;
    L.n_in = 1;
    L.n_out = 1;
    L.in_count[0] = L.out_count[0] = n;
    L.in_name[0] = "a";
    L.out_name[0] = "c";
    offsets[0] = gk_place_odd_offset(es, 0);
    offsets[1] = gk_place_odd_offset(es, 2);
    L.in_place[0] = gk_place_matrix(rows, cols, pad, trans, offsets[0]);
    L.out_place[0] = gk_place_matrix(rows, cols, cpad, trans, offsets[1]);
    gk_host_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = a;
    io.out[0] = c;
    plan.stray = stray;
    plan.a_mod256 = plan.c_mod256 = 999;
    gk_clear_error();
    int rc = gk_run(&copy_rows_op, &L, &io);
    for (int64_t i = 0; i < n; i++)
        c_out[i] = t == GV_F32 ? (double)((float *)c)[i] : ((double *)c)[i];
    free(a);
    free(c);
    return rc;
}

static void skip_without_device(void)
{
    if (gk_device_count() < 1) cr_skip_test("no CUDA device");
}

Test(gpu_layout, placed_tensors_arrive_at_their_offsets_and_come_back, .timeout = 120)
{
    skip_without_device();
    for (int t = GV_F32; t <= GV_F64; t++)
        for (int trans = 0; trans < 2; trans++) {
            const int64_t rows = 37, cols = 65;
            double *c = malloc(sizeof *c * rows * cols);
            int64_t off[2];
            int rc = run_placed((gv_dtype)t, rows, cols, 3, 5, trans, STRAY_NONE, c, off);
            cr_assert_eq(rc, GV_OK, "%s trans %d: %s", gv_dtype_name((gv_dtype)t), trans,
                         gk_last_error());
            cr_expect_eq(plan.a_mod256, (uintptr_t)off[0], "a at its offset past 256 bytes");
            cr_expect_eq(plan.c_mod256, (uintptr_t)off[1], "c at its offset past 256 bytes");
            for (int64_t i = 0; i < rows * cols; i++)
                cr_assert_eq(c[i], 1.5 + (double)i, "%s trans %d: c[%lld] = %g",
                             gv_dtype_name((gv_dtype)t), trans, (long long)i, c[i]);
            free(c);
        }
}

Test(gpu_layout, a_write_into_the_output_padding_is_a_guard_violation, .timeout = 120)
{
    skip_without_device();
    for (int t = GV_F32; t <= GV_F64; t++) {
        double c[12 * 7];
        int64_t off[2];
        int rc = run_placed((gv_dtype)t, 12, 7, 2, 3, 0, STRAY_OUT_PADDING, c, off);
        cr_expect_eq(rc, GV_EGUARD, "%s: rc %d (%s)", gv_dtype_name((gv_dtype)t), rc,
                     gk_last_error());
        /* the stray byte is the first after stored row 0's 7 elements; ld 7 + 3 */
        cr_expect(strstr(gk_last_error(), "wrote 1 bytes into the padding between the rows of "
                                          "output 0 (c) (ld 10, rows of 7), first after stored "
                                          "row 0, at element 7 of its ld") != NULL,
                  "%s", gk_last_error());
        /* the elements themselves were written right: only the guard fails */
        for (int i = 0; i < 12 * 7; i++)
            cr_expect_eq(c[i], 1.5 + i);
    }
}

Test(gpu_layout, a_write_into_an_input_padding_is_a_guard_violation, .timeout = 120)
{
    skip_without_device();
    for (int t = GV_F32; t <= GV_F64; t++) {
        double c[12 * 7];
        int64_t off[2];
        int rc = run_placed((gv_dtype)t, 12, 7, 2, 3, 0, STRAY_IN_PADDING, c, off);
        cr_expect_eq(rc, GV_EGUARD, "%s: rc %d (%s)", gv_dtype_name((gv_dtype)t), rc,
                     gk_last_error());
        /* a's image: 11 rows of ld 9 and one of 7, 106 stored elements; one of them changed */
        cr_expect(strstr(gk_last_error(), "input 0 (a) changed: 1 of its 106 stored elements "
                                          "differ, first in the padding after stored row 0 "
                                          "(ld 9)") != NULL,
                  "%s", gk_last_error());
    }
}

Test(gpu_layout, a_write_before_the_offset_base_is_a_guard_violation, .timeout = 120)
{
    skip_without_device();
    for (int t = GV_F32; t <= GV_F64; t++) {
        double c[12 * 7];
        int64_t off[2];
        int64_t es = (int64_t)gv_dtype_size((gv_dtype)t);
        int rc = run_placed((gv_dtype)t, 12, 7, 0, 0, 0, STRAY_BEFORE_OFFSET, c, off);
        cr_expect_eq(rc, GV_EGUARD, "%s: rc %d (%s)", gv_dtype_name((gv_dtype)t), rc,
                     gk_last_error());
        char want[160];
        snprintf(want, sizeof want,
                 "wrote %lld bytes before the start of output 0 (c), first at offset -%lld from "
                 "its start",
                 (long long)es, (long long)es);
        cr_expect(strstr(gk_last_error(), want) != NULL, "want \"%s\", got %s", want,
                  gk_last_error());
    }
}

/* One case of op at shape, judged end to end. */
static gv_result run_op(const char *name, gv_dtype t, const char *shape)
{
    const gv_op *op = gv_op_find(name);
    cr_assert_not_null(op, "%s", name);
    gv_shape s;
    char err[128];
    cr_assert_eq(gv_size_spec_parse(shape, &s, 1, err, sizeof err), 1, "%s", err);
    gv_case c = {op, t, GV_MODE_NATIVE, op->default_dist, s, 7};
    gv_result r;
    cr_assert_eq(gv_run_case(&c, &r), GV_OK, "%s: harness failed", name);
    return r;
}

Test(gpu_layout, correct_kernels_pass_on_placed_operands, .timeout = 300)
{
    skip_without_device();
    const struct {
        const char *op, *shape;
    } cases[] = {
        {"gemm.cublas.strided", "100x37x129"},
        {"gemm.cublas.transposed", "100x37x129"},
        {"gemm.cublas.strided", "1x1x1"},
        {"gemm.cublas.transposed", "129x65x33"},
        {"gemm.tiled.strided", "100x37x129"},
        {"gemm.regblock.offset", "256x260x132"},
        {"einsum.colsum.strided", "300x257x129"},
        {"vadd.offset", "100003"},
        {"vadd.offset", "1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int t = GV_F32; t <= GV_F64; t++) {
            gv_result r = run_op(cases[i].op, (gv_dtype)t, cases[i].shape);
            cr_expect_eq(r.verdict, GV_PASS, "%s %s %s: %s (%s), ratio %.3g", cases[i].op,
                         gv_dtype_name((gv_dtype)t), cases[i].shape, gv_verdict_name(r.verdict),
                         r.reason, r.m.ratio);
        }
}

Test(gpu_layout, a_kernel_that_ignores_lda_fails_on_padded_rows, .timeout = 300)
{
    skip_without_device();
    for (int t = GV_F32; t <= GV_F64; t++) {
        gv_result r = run_op("gemm.tiled.ignoreld", (gv_dtype)t, "100x37x129");
        cr_expect_eq(r.verdict, GV_FAIL, "%s: %s (%s)", gv_dtype_name((gv_dtype)t),
                     gv_verdict_name(r.verdict), r.reason);
        /* it reads the wrong elements and writes the right ones: a numerical FAIL, no guard */
        cr_expect_eq(r.guard[0], '\0', "%s", r.guard);
        /* the same kernel on the same shape with dense operands is gemm.tiled's, which
           passes: the failure is the leading dimension's */
        gv_result d = run_op("gemm.tiled", (gv_dtype)t, "100x37x129");
        cr_expect_eq(d.verdict, GV_PASS, "%s", d.reason);
    }
}
