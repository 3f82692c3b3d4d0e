/* layout.h: where an operand lies in device memory when it is not a fresh, dense, aligned
 * buffer: its base pointer offset from a 256-byte boundary, a leading dimension larger than its
 * row, or its matrix stored transposed. The one contract between an op's layout
 * (src/ops/X.c: the placement it asks for), the device layer (kernels/device.cu: the
 * allocation, the padding between rows, the guards) and the kernels (the leading dimension and
 * transpose they are handed). Pure C arithmetic and host copies, so tests/cpu checks it
 * without a device.
 *
 * The host keeps every tensor packed (row-major, rows x cols, no padding): the oracle computes
 * on the same logical matrix whatever the placement; only the device copy changes. A placed
 * tensor's device image spans from its first used element to its last:
 *     stored row r (r < srows) holds scols used elements from position r * ld,
 *     positions r * ld + scols .. (r + 1) * ld - 1 are padding,
 * with srows x scols = rows x cols, or cols x rows when stored transposed. The padding holds
 * the red-zone byte on the device (a guard of its own: a write into it is a guard violation,
 * a read of it gives no data). */
#ifndef GV_ABI_LAYOUT_H
#define GV_ABI_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gv_abi.h"

/* One operand's placement. All zero: dense and 256-byte aligned (what every tensor got before
 * placements existed, and what an op that declares none still gets). */
typedef struct gk_place {
    /* bytes past a 256-byte boundary at which the first used element lies: a multiple of the
       element size (an f64 at +4 bytes is no legal double address) and below 256 */
    int64_t offset_bytes;
    /* the logical matrix, rows x cols elements = the tensor's count; 0 x 0: a flat tensor,
       which only an offset applies to */
    int64_t rows, cols;
    /* elements from the start of one stored row to the next; 0: as many as a stored row holds */
    int64_t ld;
    /* stored transposed: the device holds X^T (cols x rows, row-major, ld >= rows) */
    int trans;
} gk_place;

/* What an op's interface takes (gv_op.takes_layouts, `gpuval list -v`). */
enum {
    GK_TAKES_OFFSET = 1u << 0, /* a base pointer at any legal address of its dtype */
    GK_TAKES_LD = 1u << 1,     /* a leading dimension larger than the row */
    GK_TAKES_TRANS = 1u << 2   /* operands stored transposed */
};

static inline bool gk_place_is_matrix(const gk_place *p)
{
    return p->rows > 0 && p->cols > 0;
}

/* Rows and row length as stored (the transpose's when trans). */
static inline int64_t gk_place_srows(const gk_place *p)
{
    return p->trans ? p->cols : p->rows;
}
static inline int64_t gk_place_scols(const gk_place *p)
{
    return p->trans ? p->rows : p->cols;
}

/* The leading dimension a kernel uses: ld, or the stored row length when ld is 0. */
static inline int64_t gk_place_ld(const gk_place *p)
{
    return p->ld > 0 ? p->ld : gk_place_scols(p);
}

/* The leading dimension of a tensor an op lays out as a matrix with rows of dense_ld elements:
   its placement's, or dense_ld where it has none (a dense tensor's placement is all zero). */
static inline int64_t gk_place_ld_or(const gk_place *p, int64_t dense_ld)
{
    return gk_place_is_matrix(p) ? gk_place_ld(p) : dense_ld;
}

/* true: nothing moves; the tensor is the dense, aligned buffer of before. */
static inline bool gk_place_dense(const gk_place *p)
{
    return p->offset_bytes == 0 && !p->trans &&
           (!gk_place_is_matrix(p) || gk_place_ld(p) == gk_place_scols(p));
}

/* The placement makes sense for a tensor of `count` elements of `es` bytes. */
static inline bool gk_place_valid(const gk_place *p, int64_t count, int64_t es)
{
    if (es <= 0 || count < 0 || p->offset_bytes < 0 || p->offset_bytes >= 256 ||
        p->offset_bytes % es != 0 || p->rows < 0 || p->cols < 0 || p->ld < 0)
        return false;
    if (!gk_place_is_matrix(p)) return p->rows == 0 && p->cols == 0 && p->ld == 0 && !p->trans;
    return p->rows * p->cols == count && gk_place_ld(p) >= gk_place_scols(p);
}

/* Elements from the first used one to one past the last, padding included. */
static inline int64_t gk_place_span(const gk_place *p, int64_t count)
{
    if (count == 0 || !gk_place_is_matrix(p)) return count;
    return (gk_place_srows(p) - 1) * gk_place_ld(p) + gk_place_scols(p);
}

/* Where element (i, j) of the logical matrix lies in the image, in elements. */
static inline int64_t gk_place_pos(const gk_place *p, int64_t i, int64_t j)
{
    return p->trans ? j * gk_place_ld(p) + i : i * gk_place_ld(p) + j;
}

/* The image of a packed host tensor: padding set to pad_byte, every element where its
   placement puts it. span holds gk_place_span elements of es bytes. */
static inline void gk_place_pack(const gk_place *p, int64_t count, int64_t es, int pad_byte,
                                 const void *dense, void *span)
{
    const unsigned char *d = (const unsigned char *)dense;
    unsigned char *s = (unsigned char *)span;
    if (!gk_place_is_matrix(p)) {
        memcpy(s, d, (size_t)(count * es));
        return;
    }
    memset(s, pad_byte, (size_t)(gk_place_span(p, count) * es));
    if (!p->trans) {
        for (int64_t i = 0; i < p->rows; i++)
            memcpy(s + gk_place_pos(p, i, 0) * es, d + i * p->cols * es, (size_t)(p->cols * es));
        return;
    }
    for (int64_t i = 0; i < p->rows; i++)
        for (int64_t j = 0; j < p->cols; j++)
            memcpy(s + gk_place_pos(p, i, j) * es, d + (i * p->cols + j) * es, (size_t)es);
}

/* The packed tensor back from an image (the inverse of gk_place_pack on the used elements). */
static inline void gk_place_unpack(const gk_place *p, int64_t count, int64_t es, const void *span,
                                   void *dense)
{
    const unsigned char *s = (const unsigned char *)span;
    unsigned char *d = (unsigned char *)dense;
    if (!gk_place_is_matrix(p)) {
        memcpy(d, s, (size_t)(count * es));
        return;
    }
    for (int64_t i = 0; i < p->rows; i++) {
        if (!p->trans) {
            memcpy(d + i * p->cols * es, s + gk_place_pos(p, i, 0) * es, (size_t)(p->cols * es));
            continue;
        }
        for (int64_t j = 0; j < p->cols; j++)
            memcpy(d + (i * p->cols + j) * es, s + gk_place_pos(p, i, j) * es, (size_t)es);
    }
}

/* An output's image before the launch: every used element's bytes used_byte (the poison),
   the padding pad_byte (the red-zone byte). */
static inline void gk_place_fill(const gk_place *p, int64_t count, int64_t es, int used_byte,
                                 int pad_byte, void *span)
{
    unsigned char *s = (unsigned char *)span;
    int64_t n = gk_place_span(p, count);
    if (!gk_place_is_matrix(p)) {
        memset(s, used_byte, (size_t)(n * es));
        return;
    }
    memset(s, pad_byte, (size_t)(n * es));
    int64_t ld = gk_place_ld(p), sc = gk_place_scols(p);
    for (int64_t r = 0; r < gk_place_srows(p); r++)
        memset(s + r * ld * es, used_byte, (size_t)(sc * es));
}

/* Bytes of the padding between stored rows that are not pad_byte; *first_row and *first_col
   (stored row, and position past its start in elements) name the first such byte's element,
   -1 when there is none. */
static inline int64_t gk_place_padding_changed(const gk_place *p, int64_t count, int64_t es,
                                               int pad_byte, const void *span, int64_t *first_row,
                                               int64_t *first_col)
{
    const unsigned char *s = (const unsigned char *)span;
    int64_t changed = 0;
    *first_row = *first_col = -1;
    if (count == 0 || !gk_place_is_matrix(p)) return 0;
    int64_t ld = gk_place_ld(p), sc = gk_place_scols(p);
    for (int64_t r = 0; r + 1 < gk_place_srows(p); r++)
        for (int64_t b = (r * ld + sc) * es; b < (r + 1) * ld * es; b++) {
            if (s[b] == (unsigned char)pad_byte) continue;
            if (changed++ == 0) {
                *first_row = r;
                *first_col = b / es - r * ld;
            }
        }
    return changed;
}

/* An offset off every 16-byte boundary for the t-th tensor of a case, as a user's pointer into
   a larger array may lie: one, two or three elements (4, 8, 12 bytes) of a 4-byte dtype, one
   element of an 8-byte one (8 bytes: an f64 at 4 is no legal address of a double). */
static inline int64_t gk_place_odd_offset(int64_t es, int t)
{
    return es >= 8 ? es : es * (t % 3 + 1);
}

/* A rows x cols matrix stored with `pad` elements after each stored row, transposed or not, at
   offset bytes past a 256-byte boundary. */
static inline gk_place gk_place_matrix(int64_t rows, int64_t cols, int64_t pad, int trans,
                                       int64_t offset)
{
    gk_place p = {offset, rows, cols, (trans ? rows : cols) + pad, trans};
    return p;
}

/* What `gpuval list -v` says of an op's takes_layouts: "offset, leading dimension, transposes"
   (those it takes, in that order), or "contiguous, aligned only" for none. Returns buf. */
static inline const char *gk_takes_layouts_text(unsigned takes, char *buf, size_t len)
{
    if ((takes & (GK_TAKES_OFFSET | GK_TAKES_LD | GK_TAKES_TRANS)) == 0) {
        snprintf(buf, len, "contiguous, aligned only");
        return buf;
    }
    snprintf(buf, len, "%s%s%s%s%s", takes & GK_TAKES_OFFSET ? "offset" : "",
             (takes & GK_TAKES_OFFSET) && (takes & (GK_TAKES_LD | GK_TAKES_TRANS)) ? ", " : "",
             takes & GK_TAKES_LD ? "leading dimension" : "",
             (takes & GK_TAKES_LD) && (takes & GK_TAKES_TRANS) ? ", " : "",
             takes & GK_TAKES_TRANS ? "transposes" : "");
    return buf;
}

#endif
