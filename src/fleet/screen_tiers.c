/* screen_tiers.c: the tiers of `gpuval screen` as tables (screen_tiers.h). A row's size is the
 * first thing to change after timing a tier on a real node: edit the size here and bump the
 * tier's version, nothing else. Sizes are chosen so that the CPU oracle (f64, all cores) stays
 * well under a second a case, since each GPU's worker computes its own. */
#include "fleet/screen_tiers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"

static const struct {
    const char *label, *what;
} units[] = {
#define GV_SCREEN_UNIT_ROW(id, label, what) {label, what},
    GV_SCREEN_UNITS(GV_SCREEN_UNIT_ROW)
#undef GV_SCREEN_UNIT_ROW
};

const char *gv_screen_unit_label(int unit)
{
    return unit >= 0 && unit < GV_SCREEN_NUNITS ? units[unit].label : "";
}

int gv_screen_unit_parse(const char *s)
{
    for (int u = 0; s && u < GV_SCREEN_NUNITS; u++)
        if (strcmp(s, units[u].label) == 0) return u;
    return -1;
}

/* prolog: every unit once, small, for a job's prolog (target: 45 s for a node of eight GPUs
   screened at once, the oracles included). */
static const gv_screen_row prolog_rows[] = {
    {"gemm.cublas", "f32", "tf32", "1024x1024x1024", NULL, GV_UNIT_TENSOR},
    {"gemm.cublas", "f32", "bf16", "1024x1024x1024", NULL, GV_UNIT_TENSOR},
    {"gemm.cublas", "f32", "f16", "1024x1024x1024", NULL, GV_UNIT_TENSOR},
    {"gemm.cublas", "f64", "native", "512x512x512", NULL, GV_UNIT_FP64},
    {"gemm.tiled", "f32", "native", "512x512x512", NULL, GV_UNIT_SIMT_FMA},
    {"math.sin", "f32", "fastmath", "1e6", NULL, GV_UNIT_SFU},
    {"math.exp", "f32", "fastmath", "1e6", NULL, GV_UNIT_SFU},
    {"math.sin", "f32", "native", "1e6", NULL, GV_UNIT_MATH},
    {"reduce.sum", "f32", "native", "1e6", NULL, GV_UNIT_REDUCE},
    {"reduce.colsum", "f32", "native", "1000x700", NULL, GV_UNIT_REDUCE},
    {"diffusion.fixed", "f32", "native", "640x640x10", NULL, GV_UNIT_STENCIL},
    {"stencil.laplace", "f32", "native", "640x640", NULL, GV_UNIT_STENCIL},
    {"vadd", "f32", "native", "1e7", NULL, GV_UNIT_MEMORY},
    {"fft.c2c.fwd", "f32", "native", "4097x256", NULL, GV_UNIT_FFT},
};

/* drain: the same units longer, in both precisions, at sizes that fill the GPU (target: 10
   minutes for a node being drained). */
static const gv_screen_row drain_rows[] = {
    {"gemm.cublas", "f32", "tf32", "4096x4096x4096", NULL, GV_UNIT_TENSOR},
    {"gemm.cublas", "f32", "bf16", "4096x4096x4096", NULL, GV_UNIT_TENSOR},
    {"gemm.cublas", "f32", "f16", "4096x4096x4096", NULL, GV_UNIT_TENSOR},
    {"gemm.cublas", "f32", "default", "2048x2048x2048", NULL, GV_UNIT_TENSOR},
    {"gemm.cublas", "f64", "native", "2048x2048x2048", NULL, GV_UNIT_FP64},
    {"gemm.cublas", "f32", "native", "2048x2048x2048", NULL, GV_UNIT_SIMT_FMA},
    {"gemm.tiled", "f32", "native", "2048x2048x2048", NULL, GV_UNIT_SIMT_FMA},
    {"gemm.tiled", "f64", "native", "1024x1024x1024", NULL, GV_UNIT_FP64},
    {"math.sin", "f32", "fastmath", "1e7", NULL, GV_UNIT_SFU},
    {"math.exp", "f32", "fastmath", "1e7", NULL, GV_UNIT_SFU},
    {"math.sigmoid", "f32", "fastmath", "1e7", NULL, GV_UNIT_SFU},
    {"math.sin", "f32", "native", "1e7", NULL, GV_UNIT_MATH},
    {"math.exp", "f64", "native", "1e7", NULL, GV_UNIT_MATH},
    {"reduce.sum", "f32", "native", "1e8", NULL, GV_UNIT_REDUCE},
    {"reduce.sum", "f64", "native", "1e8", NULL, GV_UNIT_REDUCE},
    {"reduce.colsum", "f32", "native", "10000x7000", NULL, GV_UNIT_REDUCE},
    {"diffusion.fixed", "f32", "native", "2000x2000x100", NULL, GV_UNIT_STENCIL},
    {"diffusion.periodic", "f64", "native", "2000x2000x100", NULL, GV_UNIT_STENCIL},
    {"stencil.laplace", "f32", "native", "4096x4096", NULL, GV_UNIT_STENCIL},
    {"vadd", "f32", "native", "1e8", NULL, GV_UNIT_MEMORY},
    {"vadd", "f64", "native", "1e8", NULL, GV_UNIT_MEMORY},
    {"fft.c2c.fwd", "f32", "native", "2^20x8", NULL, GV_UNIT_FFT},
    {"fft.c2c.fwd", "f64", "native", "65537x16", NULL, GV_UNIT_FFT},
};

#define NROWS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const gv_screen_tier tiers[] = {
    {"prolog", "prolog/1", 45, 20, "every unit once, small: a job's prolog", prolog_rows,
     NROWS(prolog_rows)},
    {"drain", "drain/1", 600, 180, "every unit in both precisions, at sizes that fill the GPU",
     drain_rows, NROWS(drain_rows)},
};

const gv_screen_tier *gv_screen_tier_find(const char *name)
{
    for (int i = 0; name && i < NROWS(tiers); i++)
        if (strcmp(name, tiers[i].name) == 0) return &tiers[i];
    return NULL;
}

const gv_screen_tier *gv_screen_tier_at(int i)
{
    return i >= 0 && i < NROWS(tiers) ? &tiers[i] : NULL;
}

/* Row r of tier as one case into *out: GV_OK, or GV_EINVAL with the reason in err. */
static int row_case(const gv_screen_row *r, gv_case *out, char *err, size_t len)
{
    gv_dtype dt;
    gv_mode m;
    gv_shape shape;
    char why[256] = "";
    const gv_op *op = gv_op_find(r->op);
    if (!op) {
        snprintf(err, len, "op '%s' is not registered", r->op);
        return GV_EINVAL;
    }
    if (gv_dtype_parse(r->dtype, &dt) != GV_OK || gv_mode_parse(r->mode, &m) != GV_OK) {
        snprintf(err, len, "unknown dtype '%s' or mode '%s'", r->dtype, r->mode);
        return GV_EINVAL;
    }
    gv_dist dist = op->default_dist;
    if (r->dist && gv_dist_parse(r->dist, &dist) != GV_OK) {
        snprintf(err, len, "unknown dist '%s'", r->dist);
        return GV_EINVAL;
    }
    if (gv_size_spec_parse(r->size, &shape, 1, why, sizeof why) != 1) {
        snprintf(err, len, "size '%s': %s", r->size, why[0] ? why : "not one shape");
        return GV_EINVAL;
    }
    /* through the catalogue's own selection: the same checks of shape, mode and dist as
       `check --op OP --dtype T --mode M --dist D --size S` */
    gv_selection sel = {.op_glob = r->op,
                        .dtypes = 1u << dt,
                        .modes = 1u << m,
                        .dist = (int)dist,
                        .shapes = &shape,
                        .n_shapes = 1};
    gv_case *cases = NULL;
    int n = gv_select(&sel, &cases, why, sizeof why);
    if (n != 1) {
        snprintf(err, len, "selects %d cases, not one%s%s", n < 0 ? 0 : n, why[0] ? ": " : "", why);
        free(cases);
        return GV_EINVAL;
    }
    *out = cases[0];
    free(cases);
    return GV_OK;
}

int gv_screen_cases(const gv_screen_tier *tier, gv_case **cases, char *err, size_t len)
{
    *cases = calloc((size_t)tier->n_rows, sizeof **cases);
    if (!*cases) {
        snprintf(err, len, "out of host memory");
        return GV_EINVAL;
    }
    for (int i = 0; i < tier->n_rows; i++) {
        const gv_screen_row *r = &tier->rows[i];
        char why[384];
        if (row_case(r, &(*cases)[i], why, sizeof why) != GV_OK) {
            snprintf(err, len, "%s row %d (%s %s %s %s): %s", tier->version, i + 1, r->op, r->dtype,
                     r->mode, r->size, why);
            free(*cases);
            *cases = NULL;
            return GV_EINVAL;
        }
    }
    return tier->n_rows;
}

int gv_screen_unit_of(const gv_screen_tier *tier, const char *op, const char *dtype,
                      const char *mode, const char *dist, const char *shape)
{
    for (int i = 0; i < tier->n_rows; i++) {
        const gv_screen_row *r = &tier->rows[i];
        if (strcmp(r->op, op) || strcmp(r->dtype, dtype) || strcmp(r->mode, mode)) continue;
        if (r->dist && strcmp(r->dist, dist)) continue;
        gv_shape s;
        char why[128], text[96];
        if (gv_size_spec_parse(r->size, &s, 1, why, sizeof why) != 1) continue;
        if (strcmp(gv_shape_format(&s, text, sizeof text), shape) == 0) return (int)r->unit;
    }
    return -1;
}
