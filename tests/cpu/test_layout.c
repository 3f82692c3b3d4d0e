/* test_layout.c: operands placed as users pass them (abi/layout.h), without a device: the
 * image arithmetic (span, positions, validity per dtype), the host image gk_run uploads and
 * downloads (pack, unpack, the poisoned output, the padding check), the descriptors' facts
 * (which ops take which layouts, that every layout variant places within them, that the
 * planted layout bugs are marked so), the device bytes a placed case asks for, and what
 * `gpuval list -v` says. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/problem.h"
#include "core/registry.h"
#include "layout.h"
#include "testkit.h"

/* ---- the image arithmetic ---------------------------------------------------------------- */

Test(layout, dense_placement_is_the_buffer_of_before)
{
    gk_place zero = {0};
    cr_expect(gk_place_dense(&zero));
    cr_expect(gk_place_valid(&zero, 1000, 4));
    cr_expect_eq(gk_place_span(&zero, 1000), 1000);
    cr_expect_eq(gk_place_ld_or(&zero, 37), 37, "a dense tensor keeps the op's own row length");
    /* a matrix whose ld is its row length, at offset 0, is dense too */
    gk_place m = gk_place_matrix(5, 7, 0, 0, 0);
    cr_expect(gk_place_dense(&m));
    cr_expect_eq(gk_place_span(&m, 35), 35);
}

Test(layout, span_is_rows_minus_one_lds_plus_a_row)
{
    for (int trans = 0; trans < 2; trans++)
        for (int64_t rows = 1; rows <= 6; rows++)
            for (int64_t cols = 1; cols <= 6; cols++)
                for (int64_t pad = 0; pad <= 3; pad++) {
                    gk_place p = gk_place_matrix(rows, cols, pad, trans, 0);
                    int64_t srows = trans ? cols : rows, scols = trans ? rows : cols;
                    cr_assert(gk_place_valid(&p, rows * cols, 4));
                    cr_expect_eq(gk_place_ld(&p), scols + pad);
                    cr_expect_eq(gk_place_span(&p, rows * cols),
                                 (srows - 1) * (scols + pad) + scols, "%lldx%lld pad %lld trans %d",
                                 (long long)rows, (long long)cols, (long long)pad, trans);
                    /* every element at its own position inside the span, none in the padding */
                    char *hit = calloc((size_t)gk_place_span(&p, rows * cols), 1);
                    for (int64_t i = 0; i < rows; i++)
                        for (int64_t j = 0; j < cols; j++) {
                            int64_t q = gk_place_pos(&p, i, j);
                            cr_assert(q >= 0 && q < gk_place_span(&p, rows * cols));
                            cr_expect_lt(q % gk_place_ld(&p), scols, "element in the padding");
                            cr_expect_eq(hit[q]++, 0, "two elements at one position");
                        }
                    free(hit);
                }
}

Test(layout, offsets_allowed_per_dtype)
{
    /* a base pointer must stay a legal address of its dtype: f32 at +4 is, f64 at +4 is not */
    gk_place p = {.offset_bytes = 4};
    cr_expect(gk_place_valid(&p, 10, 4), "f32 at +4 bytes");
    cr_expect_not(gk_place_valid(&p, 10, 8), "f64 at +4 bytes is no legal double address");
    p.offset_bytes = 8;
    cr_expect(gk_place_valid(&p, 10, 4));
    cr_expect(gk_place_valid(&p, 10, 8));
    p.offset_bytes = 256;
    cr_expect_not(gk_place_valid(&p, 10, 4), "offsets lie below the 256-byte alignment");
    p.offset_bytes = -4;
    cr_expect_not(gk_place_valid(&p, 10, 4));
    /* the offsets the layout variants use: off every 16-byte boundary, legal for the dtype */
    for (int t = 0; t < 6; t++) {
        for (int64_t es = 4; es <= 8; es += 4) {
            int64_t off = gk_place_odd_offset(es, t);
            cr_expect_neq(off % 16, 0, "es %lld tensor %d: offset %lld", (long long)es, t,
                          (long long)off);
            cr_expect_eq(off % es, 0);
            gk_place q = {.offset_bytes = off};
            cr_expect(gk_place_valid(&q, 3, es));
        }
    }
    cr_expect_eq(gk_place_odd_offset(8, 0), 8, "f64: one element");
    cr_expect_eq(gk_place_odd_offset(4, 0), 4, "f32: one element");
    cr_expect_eq(gk_place_odd_offset(4, 1), 8, "f32: 8 bytes");
}

Test(layout, invalid_matrix_placements)
{
    gk_place p = gk_place_matrix(4, 5, 2, 0, 0);
    cr_expect(gk_place_valid(&p, 20, 4));
    cr_expect_not(gk_place_valid(&p, 21, 4), "rows x cols must be the tensor's count");
    p.ld = 4; /* below the row of 5 */
    cr_expect_not(gk_place_valid(&p, 20, 4));
    gk_place t = gk_place_matrix(4, 5, 0, 1, 0); /* stored 5 x 4 */
    cr_expect_eq(gk_place_ld(&t), 4);
    t.ld = 4;
    cr_expect(gk_place_valid(&t, 20, 4), "a transpose's ld is at least its stored row (rows)");
    t.ld = 3;
    cr_expect_not(gk_place_valid(&t, 20, 4));
    gk_place flat = {.ld = 3};
    cr_expect_not(gk_place_valid(&flat, 20, 4), "an ld without a matrix");
}

/* ---- the host images gk_run moves ------------------------------------------------------- */

static void check_roundtrip(int64_t rows, int64_t cols, int64_t pad, int trans, int64_t es)
{
    gk_place p = gk_place_matrix(rows, cols, pad, trans, es);
    int64_t count = rows * cols, span = gk_place_span(&p, count);
    unsigned char *dense = malloc((size_t)(count * es)), *img = malloc((size_t)(span * es));
    unsigned char *back = malloc((size_t)(count * es));
    for (int64_t b = 0; b < count * es; b++)
        dense[b] = (unsigned char)(b * 7 + 1); /* never the pad byte 0xA5 at an element's start */
    gk_place_pack(&p, count, es, GV_REDZONE_BYTE, dense, img);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            cr_assert_eq(
                memcmp(img + gk_place_pos(&p, i, j) * es, dense + (i * cols + j) * es, (size_t)es),
                0, "element (%lld, %lld) not where its placement puts it", (long long)i,
                (long long)j);
    int64_t row = 0, col = 0;
    cr_expect_eq(gk_place_padding_changed(&p, count, es, GV_REDZONE_BYTE, img, &row, &col), 0,
                 "pack leaves every padding byte the guard byte");
    memset(back, 0, (size_t)(count * es));
    gk_place_unpack(&p, count, es, img, back);
    cr_expect_eq(memcmp(back, dense, (size_t)(count * es)), 0, "unpack(pack(x)) == x");
    free(dense);
    free(img);
    free(back);
}

Test(layout, pack_then_unpack_gives_the_tensor_back)
{
    for (int trans = 0; trans < 2; trans++)
        for (int64_t es = 4; es <= 8; es += 4) {
            check_roundtrip(1, 1, 0, trans, es);
            check_roundtrip(1, 9, 3, trans, es);
            check_roundtrip(9, 1, 2, trans, es);
            check_roundtrip(37, 65, 3, trans, es);
            check_roundtrip(64, 64, 0, trans, es);
        }
}

Test(layout, output_image_is_poison_with_guarded_padding)
{
    const int64_t rows = 3, cols = 4, pad = 2, es = 4;
    gk_place p = gk_place_matrix(rows, cols, pad, 0, 4);
    int64_t span = gk_place_span(&p, rows * cols);
    cr_assert_eq(span, (rows - 1) * (cols + pad) + cols);
    unsigned char *img = malloc((size_t)(span * es));
    gk_place_fill(&p, rows * cols, es, GV_POISON_BYTE, GV_REDZONE_BYTE, img);
    for (int64_t q = 0; q < span; q++) {
        bool used = q % (cols + pad) < cols;
        for (int64_t b = 0; b < es; b++)
            cr_expect_eq(img[q * es + b], used ? GV_POISON_BYTE : GV_REDZONE_BYTE,
                         "position %lld byte %lld", (long long)q, (long long)b);
    }
    int64_t row = 0, col = 0;
    cr_expect_eq(gk_place_padding_changed(&p, rows * cols, es, GV_REDZONE_BYTE, img, &row, &col),
                 0);
    cr_expect_eq(row, -1);
    /* a kernel that writes used elements only leaves the padding alone */
    for (int64_t i = 0; i < rows; i++)
        memset(img + i * (cols + pad) * es, 0, (size_t)(cols * es));
    cr_expect_eq(gk_place_padding_changed(&p, rows * cols, es, GV_REDZONE_BYTE, img, &row, &col),
                 0);
    /* one that steps by cols (ignoring ld) writes into the padding after row 0: the first
       such byte is element `cols` of stored row 0's ld; 3 bytes of one element, then a whole
       element after row 1 */
    img[(0 * (cols + pad) + cols) * es + 1] = 0;
    img[(0 * (cols + pad) + cols) * es + 2] = 0;
    img[(0 * (cols + pad) + cols + 1) * es + 3] = 0;
    memset(img + (1 * (cols + pad) + cols + 1) * es, 0, (size_t)es);
    cr_expect_eq(gk_place_padding_changed(&p, rows * cols, es, GV_REDZONE_BYTE, img, &row, &col),
                 3 + es);
    cr_expect_eq(row, 0);
    cr_expect_eq(col, cols);
    free(img);
}

/* ---- the descriptors -------------------------------------------------------------------- */

static unsigned placed_layouts(const gk_place *p, int64_t count)
{
    unsigned used = 0;
    if (p->offset_bytes) used |= GK_TAKES_OFFSET;
    if (gk_place_is_matrix(p) && gk_place_ld(p) != gk_place_scols(p)) used |= GK_TAKES_LD;
    if (gk_place_is_matrix(p) && p->trans) used |= GK_TAKES_TRANS;
    (void)count;
    return used;
}

/* Every op's layout, at every test shape and dtype: placements the device layer can make, and
   (planted bugs aside) only of the kinds the op's interface declares. */
Test(layout, every_layout_places_within_what_its_op_takes)
{
    int placed_ops = 0;
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        const gv_op *op = *opp;
        gv_shape shapes[32];
        char err[256];
        int ns = gv_size_spec_parse(op->test_shapes ? op->test_shapes : op->shapes, shapes, 32, err,
                                    sizeof err);
        cr_assert_gt(ns, 0, "%s: %s", op->name, err);
        bool placed = false;
        for (int t = 0; t < GV_NDTYPES; t++) {
            if (!(op->dtypes & (1u << t))) continue;
            int64_t es = (int64_t)gv_dtype_size((gv_dtype)t);
            for (int s = 0; s < ns; s++) {
                gv_case c = {op, (gv_dtype)t, GV_MODE_NATIVE, op->default_dist, shapes[s], 1};
                if (!(op->modes & (1u << GV_MODE_NATIVE))) {
                    for (int m = 0; m < GV_NMODES; m++)
                        if (op->modes & (1u << m)) c.mode = (gv_mode)m;
                }
                gv_layout l;
                memset(&l, 0, sizeof l);
                if (!gv_shape_ok(op, &c.shape, err, sizeof err)) continue;
                cr_assert_eq(op->layout(&c, &l), GV_OK, "%s", op->name);
                unsigned used = 0;
                for (int i = 0; i < l.n_in; i++) {
                    cr_expect(gk_place_valid(&l.in_place[i], l.in[i].count, es),
                              "%s: input %d's placement", op->name, i);
                    used |= placed_layouts(&l.in_place[i], l.in[i].count);
                }
                for (int i = 0; i < l.n_out; i++) {
                    cr_expect(gk_place_valid(&l.out_place[i], l.out[i].count, es),
                              "%s: output %d's placement", op->name, i);
                    used |= placed_layouts(&l.out_place[i], l.out[i].count);
                }
                if (used) placed = true;
                if (!op->planted_bug)
                    cr_expect_eq(used & ~op->takes_layouts, 0u,
                                 "%s places operands its interface does not take (%#x of %#x)",
                                 op->name, used, op->takes_layouts);
            }
        }
        placed_ops += placed;
    }
    /* vadd.offset, gemm.cublas.strided and .transposed, gemm.tiled.strided and .ignoreld,
       gemm.regblock.offset, einsum.colsum.strided, vadd.aligned16 */
    cr_expect_geq(placed_ops, 8, "%d ops place their operands", placed_ops);
}

Test(layout, interfaces_declared)
{
    const struct {
        const char *op;
        unsigned takes;
    } want[] = {
        {"gemm.cublas", GK_TAKES_OFFSET | GK_TAKES_LD | GK_TAKES_TRANS},
        {"gemm.cublas.strided", GK_TAKES_OFFSET | GK_TAKES_LD | GK_TAKES_TRANS},
        {"gemm.cublas.transposed", GK_TAKES_OFFSET | GK_TAKES_LD | GK_TAKES_TRANS},
        {"gemm.tiled", GK_TAKES_OFFSET | GK_TAKES_LD},
        {"gemm.regblock", GK_TAKES_OFFSET},
        {"einsum.colsum", GK_TAKES_OFFSET | GK_TAKES_LD},
        {"vadd", GK_TAKES_OFFSET},
        {"vadd.offset", GK_TAKES_OFFSET},
        {"vadd.aligned16", 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const gv_op *op = gv_op_find(want[i].op);
        cr_assert_not_null(op, "%s is registered", want[i].op);
        cr_expect_eq(op->takes_layouts, want[i].takes, "%s takes %#x", want[i].op,
                     op->takes_layouts);
    }
}

Test(layout, variants_run_the_kernel_they_vary)
{
    const char *pairs[][2] = {
        {"gemm.cublas.strided", "gemm.cublas"},     {"gemm.cublas.transposed", "gemm.cublas"},
        {"gemm.tiled.strided", "gemm.tiled"},       {"gemm.regblock.offset", "gemm.regblock"},
        {"einsum.colsum.strided", "einsum.colsum"}, {"vadd.offset", "vadd"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const gv_op *v = gv_op_find(pairs[i][0]), *base = gv_op_find(pairs[i][1]);
        cr_assert(v && base, "%s, %s", pairs[i][0], pairs[i][1]);
        cr_expect_eq(v->device, base->device, "%s runs %s's kernel", v->name, base->name);
        cr_expect_null(v->planted_bug, "%s is a catalogue op, not a planted bug", v->name);
        cr_expect_eq(v->oracle, base->oracle, "%s: the same oracle on the same packed inputs",
                     v->name);
        cr_expect_str_eq(v->family, base->family);
    }
}

Test(layout, planted_layout_bugs)
{
    const gv_op *ld = gv_op_find("gemm.tiled.ignoreld");
    cr_assert_not_null(ld);
    cr_expect_not_null(ld->planted_bug);
    cr_expect_not(ld->planted_fault, "a wrong result: a FAIL of one run, judged by test_registry");
    /* its cases pad A's rows: the bug has something to ignore */
    gv_shape shapes[8];
    char err[128];
    cr_assert_gt(gv_size_spec_parse(ld->test_shapes, shapes, 8, err, sizeof err), 0, "%s", err);
    gv_shape s = shapes[0];
    gv_case c = {ld, GV_F32, GV_MODE_NATIVE, ld->default_dist, s, 1};
    gv_layout l;
    memset(&l, 0, sizeof l);
    cr_assert_eq(ld->layout(&c, &l), GV_OK);
    cr_expect_gt(gk_place_ld(&l.in_place[0]), s.d[1], "lda > k");

    const gv_op *al = gv_op_find("vadd.aligned16");
    cr_assert_not_null(al);
    cr_expect_not_null(al->planted_bug);
    cr_expect(al->planted_fault, "a misaligned vector load loses the context: an ERROR, "
                                 "run by tests/gpu/test_faults.c in a process of its own");
    for (int t = GV_F32; t <= GV_F64; t++) {
        c = (gv_case){al, (gv_dtype)t, GV_MODE_NATIVE, al->default_dist, s, 1};
        c.shape.nd = 1;
        c.shape.d[0] = 1001;
        memset(&l, 0, sizeof l);
        cr_assert_eq(al->layout(&c, &l), GV_OK);
        for (int i = 0; i < 2; i++)
            cr_expect_neq(l.in_place[i].offset_bytes % 16, 0, "input %d off 16 bytes", i);
        cr_expect_neq(l.out_place[0].offset_bytes % 16, 0);
    }
}

/* ---- what a placed case asks of the device --------------------------------------------- */

Test(layout, device_bytes_count_padding_and_offsets)
{
    const gv_op *dense = gv_op_find("gemm.cublas"), *strided = gv_op_find("gemm.cublas.strided");
    cr_assert(dense && strided);
    for (int t = GV_F32; t <= GV_F64; t++) {
        gv_shape s = {3, {100, 37, 129}};
        gv_case cd = {dense, (gv_dtype)t, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 1};
        gv_case cs = cd;
        cs.op = strided;
        gv_problem pd, ps;
        cr_assert_eq(gv_problem_init(&pd, &cd), GV_OK);
        cr_assert_eq(gv_problem_init(&ps, &cs), GV_OK);
        int64_t es = (int64_t)gv_dtype_size((gv_dtype)t), extra = 0;
        for (int i = 0; i < ps.l.n_in; i++)
            extra += (gk_place_span(&ps.l.in_place[i], ps.l.in[i].count) - ps.l.in[i].count) * es +
                     ps.l.in_place[i].offset_bytes;
        for (int i = 0; i < ps.l.n_out; i++)
            extra +=
                (gk_place_span(&ps.l.out_place[i], ps.l.out[i].count) - ps.l.out[i].count) * es +
                ps.l.out_place[i].offset_bytes;
        /* 99 paddings of 3 in A, 36 of 5 in B, 99 of 1 in C: derived from the layout above */
        cr_expect_eq(extra, (99 * 3 + 36 * 5 + 99 * 1) * es + gk_place_odd_offset(es, 0) +
                                gk_place_odd_offset(es, 1) + gk_place_odd_offset(es, 2));
        cr_expect_eq(gv_device_bytes(&ps) - gv_device_bytes(&pd), extra);
        /* the host copies, the oracle's, are the same packed tensors */
        for (int i = 0; i < 2; i++) {
            cr_expect_eq(ps.in[i].count, pd.in[i].count);
            cr_expect_eq(memcmp(ps.in[i].ref, pd.in[i].ref, (size_t)pd.in[i].count * 8), 0);
        }
        gk_launch L;
        gk_host_io io;
        gv_problem_launch(&ps, &L, &io);
        cr_expect_eq(memcmp(&L.in_place[0], &ps.l.in_place[0], sizeof L.in_place[0]), 0,
                     "the launch carries the placement");
        cr_expect_eq(L.out_place[0].ld, 129 + 1);
        gv_problem_free(&pd);
        gv_problem_free(&ps);
    }
}

/* ---- gpuval list -v --------------------------------------------------------------------- */

/* The line after `op`'s row that starts with "operands: ", into buf. */
static bool operands_line(const char *out, const char *op, char *buf, size_t len)
{
    size_t n = strlen(op);
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, op, n) != 0 || l[n] != ' ') continue;
        for (const char *q = strchr(l, '\n'); q && q[1] == ' '; q = strchr(q + 1, '\n')) {
            const char *t = q + 1;
            while (*t == ' ')
                t++;
            if (strncmp(t, "operands: ", 10) == 0) {
                const char *e = strchr(t, '\n');
                snprintf(buf, len, "%.*s", (int)(e ? e - t - 10 : (long)strlen(t) - 10), t + 10);
                return true;
            }
        }
        return false;
    }
    return false;
}

Test(layout, list_verbose_says_which_layouts_each_op_takes)
{
    static char out[1 << 18];
    int rc = gv_test_run_cli("list -v --all", out, sizeof out);
    cr_assert_eq(rc, 0, "%s", out);
    char line[128];
    cr_assert(operands_line(out, "gemm.cublas", line, sizeof line), "%s", out);
    cr_expect_str_eq(line, "offset, leading dimension, transposes");
    cr_assert(operands_line(out, "gemm.tiled", line, sizeof line));
    cr_expect_str_eq(line, "offset, leading dimension");
    cr_assert(operands_line(out, "vadd", line, sizeof line));
    cr_expect_str_eq(line, "offset");
    cr_assert(operands_line(out, "vadd.aligned16", line, sizeof line));
    cr_expect_str_eq(line, "contiguous, aligned only");
    /* every op row has its line, from the descriptor */
    char buf[64];
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        cr_expect(operands_line(out, (*opp)->name, line, sizeof line), "%s: no operands line",
                  (*opp)->name);
        cr_expect_str_eq(line, gk_takes_layouts_text((*opp)->takes_layouts, buf, sizeof buf), "%s",
                         (*opp)->name);
    }
    char t[64];
    cr_expect_str_eq(gk_takes_layouts_text(GK_TAKES_LD | GK_TAKES_TRANS, t, sizeof t),
                     "leading dimension, transposes");
    cr_expect_str_eq(gk_takes_layouts_text(GK_TAKES_OFFSET | GK_TAKES_TRANS, t, sizeof t),
                     "offset, transposes");
}
