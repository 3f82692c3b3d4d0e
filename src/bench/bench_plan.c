/* bench_plan.c: what a timed run will time, settled before any work: the named presets that
 * reproduce the seeds (and the project's performance targets), the crossover sweep's sizes,
 * and the check that every case fits this machine. Ops are found by name through the
 * registry, so a preset whose op another build lacks says so and carries on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_plan.h"
#include "registry.h"

const char gv_bench_preset_names[] = "seed000 seed002 targets short";

int gv_case_list_add(gv_case_list *l, const gv_case *c)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        gv_case *grown = realloc(l->v, sizeof *grown * (size_t)cap);
        if (!grown) return GV_ENOMEM;
        l->v = grown;
        l->cap = cap;
    }
    l->v[l->n++] = *c;
    return GV_OK;
}

static int add(gv_case_list *l, const gv_op *op, gv_dtype t, gv_shape s)
{
    gv_case c = {op, t, GV_MODE_NATIVE, op->default_dist, s, 0};
    return gv_case_list_add(l, &c);
}

static gv_shape shape1(int64_t a)
{
    return (gv_shape){1, {a}};
}
static gv_shape shape3(int64_t a, int64_t b, int64_t c)
{
    return (gv_shape){3, {a, b, c}};
}

static void note(gv_notes *notes, const char *fmt, const char *a, const char *b)
{
    if (notes->n < (int)(sizeof notes->text / sizeof notes->text[0]))
        snprintf(notes->text[notes->n++], sizeof notes->text[0], fmt, a, b);
}

int gv_op_default_shape(const gv_op *op, int which, gv_shape *out)
{
    gv_shape s[32];
    char err[256];
    int n = gv_size_spec_parse(op->shapes, s, 32, err, sizeof err);
    if (n < 1) return GV_EINVAL;
    *out = s[which < 0 || which >= n ? n - 1 : which];
    return GV_OK;
}

/* Seed 000: vadd where the GPU loses end to end, and sin applied k times with its
   crossover in k, at the op's own n. */
static int seed000(gv_case_list *l, gv_sweep *sw, bool *have_sweep, gv_notes *notes)
{
    const gv_op *vadd = gv_op_find("vadd"), *sin_iter = gv_op_find("sin_iter");
    int rc = GV_OK;
    if (vadd) {
        rc = add(l, vadd, GV_F32, shape1(100000));
        if (rc == GV_OK) rc = add(l, vadd, GV_F32, shape1(11500000));
    } else {
        note(notes, "vadd is not in this build's registry: its rows are left out", "", "");
    }
    if (!sin_iter) {
        note(notes,
             "sin_iter is not in this build's registry (gv_op_find(\"sin_iter\") is NULL): its "
             "rows and its crossover are left out",
             "", "");
        return rc;
    }
    gv_shape base;
    int64_t n = 1000000;
    if (gv_op_default_shape(sin_iter, 0, &base) == GV_OK && base.nd == 2) n = base.d[0];
    gv_dtype t = (sin_iter->dtypes & (1u << GV_F32)) ? GV_F32 : GV_F64;
    const int64_t ks[] = {1, 10, 100, 1000};
    for (int i = 0; i < 4 && rc == GV_OK; i++) {
        gv_shape s = {2, {n, ks[i]}};
        char why[200], label[48];
        if (!gv_shape_ok(sin_iter, &s, why, sizeof why)) {
            gv_shape_format(&s, label, sizeof label);
            note(notes, "sin_iter %s is left out: %s", label, why);
            continue;
        }
        rc = add(l, sin_iter, t, s);
    }
    *sw = (gv_sweep){sin_iter, t, GV_MODE_NATIVE, {2, {n, 1000}}, 1, 1, 1000, 2.0, 3};
    *have_sweep = true;
    return rc;
}

/* Seed 002's pair at its sizes in f32 and f64; or the targets' cases. */
static int seed002_or_targets(bool seed, gv_case_list *l, gv_bench_opts *o, gv_notes *notes)
{
    const char *const ops[] = {seed ? "matmul_colsum" : "vadd", "einsum.colsum",
                               seed ? NULL : "gemm.tiled", seed ? NULL : "gemm.cublas"};
    int rc = GV_OK;
    for (int i = 0; i < 4 && rc == GV_OK; i++) {
        if (!ops[i]) continue;
        const gv_op *op = gv_op_find(ops[i]);
        if (!op) {
            note(notes, "%s is not in this build's registry: left out%s", ops[i], "");
            continue;
        }
        bool vadd = strcmp(ops[i], "vadd") == 0, gemm = strncmp(ops[i], "gemm", 4) == 0;
        gv_shape s = vadd   ? shape1((int64_t)1 << 28)
                     : gemm ? shape3(4096, 4096, 4096)
                            : shape3(10000, 5000, 7000);
        for (int t = 0; t < GV_NDTYPES && rc == GV_OK; t++)
            if (gv_mode_ok(op, (gv_dtype)t, GV_MODE_NATIVE) && (t == GV_F32 || !vadd))
                rc = add(l, op, (gv_dtype)t, s); /* the vadd target names f32 */
    }
    if (!seed) o->time_cpu = false; /* the targets are the GPU's, against its ceilings */
    return rc;
}

/* A few small cases and a small sweep, small caps: `meson test --benchmark`. */
static int short_preset(gv_case_list *l, gv_sweep *sw, bool *have_sweep, gv_bench_opts *o)
{
    const gv_op *vadd = gv_op_find("vadd"), *gemm = gv_op_find("gemm.cublas"),
                *es = gv_op_find("einsum.colsum");
    int rc = GV_OK;
    if (vadd) rc = add(l, vadd, GV_F32, shape1(1000000));
    if (gemm && rc == GV_OK) rc = add(l, gemm, GV_F32, shape3(256, 256, 256));
    if (es && rc == GV_OK) rc = add(l, es, GV_F32, shape3(1000, 500, 700));
    o->gpu.cap_s = o->cpu.cap_s = 0.05;
    o->cpu.budget_s = 2.0;
    if (vadd) {
        *sw =
            (gv_sweep){vadd, GV_F32, GV_MODE_NATIVE, shape1(1 << 20), 0, 1 << 10, 1 << 20, 4.0, 1};
        *have_sweep = true;
    }
    return rc;
}

int gv_bench_preset(const char *name, gv_case_list *cases, gv_sweep *sw, bool *have_sweep,
                    gv_bench_opts *o, gv_notes *notes)
{
    *have_sweep = false;
    if (strcmp(name, "seed000") == 0) return seed000(cases, sw, have_sweep, notes);
    if (strcmp(name, "seed002") == 0) return seed002_or_targets(true, cases, o, notes);
    if (strcmp(name, "targets") == 0) return seed002_or_targets(false, cases, o, notes);
    if (strcmp(name, "short") == 0) return short_preset(cases, sw, have_sweep, o);
    return GV_EINVAL;
}

/* One positive size in the SPEC grammar ("1000", "1e5", "2^20"). */
static int parse_size(const char *s, int64_t *v)
{
    gv_shape sh[1];
    char err[256];
    if (gv_size_spec_parse(s, sh, 1, err, sizeof err) != 1 || sh[0].nd != 1) return GV_EINVAL;
    *v = sh[0].d[0];
    return GV_OK;
}

int gv_sweep_parse(gv_sweep *sw, const char *spec, char *why, size_t len)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", spec);
    char *eq = strchr(buf, '='), *dots = strstr(buf, "..");
    if (!eq || !dots || dots < eq) {
        snprintf(why, len, "--sweep takes DIM=LO..HI (e.g. k=1..1000), not '%s'", spec);
        return GV_EINVAL;
    }
    *eq = *dots = '\0';
    char dims[64];
    snprintf(dims, sizeof dims, "%s", sw->op->dims);
    int dim = 0, found = -1;
    for (char *save = NULL, *tok = strtok_r(dims, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save), dim++)
        if (strcmp(tok, buf) == 0) found = dim;
    if (found < 0) {
        snprintf(why, len, "%s has no dim '%s' (its dims: %s)", sw->op->name, buf, sw->op->dims);
        return GV_EINVAL;
    }
    int64_t lo, hi;
    if (parse_size(eq + 1, &lo) || parse_size(dots + 2, &hi) || hi < lo) {
        snprintf(why, len, "--sweep range '%s..%s' must be two positive sizes, LO <= HI", eq + 1,
                 dots + 2);
        return GV_EINVAL;
    }
    sw->dim = found;
    sw->lo = lo;
    sw->hi = hi;
    return GV_OK;
}

int gv_bench_fits(const gv_case *c, const gv_bench_opts *o, char *why, size_t len)
{
    double host = 0, dev = 0;
    char label[192];
    gv_case_label(c, label, sizeof label);
    if (gv_bench_case_bytes(c, o, &host, &dev) != GV_OK) {
        snprintf(why, len, "%s: the op's layout refuses this shape", label);
        return GV_EINVAL;
    }
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (ram > 0 && host > ram) {
        snprintf(why, len, "%s needs %.3g GB of host memory; this machine has %.3g GB", label,
                 host / 1e9, ram / 1e9);
        return GV_EINVAL;
    }
    const gv_bench_device *d = gv_bench_device_of(o);
    int64_t free_b = 0, total_b = 0;
    if (d->count() > 0 && d->mem_info(&free_b, &total_b) == GV_OK && dev > (double)total_b) {
        snprintf(why, len, "%s needs %.3g GB of device memory; the device has %.3g GB", label,
                 dev / 1e9, (double)total_b / 1e9);
        return GV_EINVAL;
    }
    return GV_OK;
}

int gv_sweep_sizes(const gv_sweep *sw, const gv_bench_opts *o, int64_t *sizes, char *why,
                   size_t len)
{
    int n = gv_geom_sizes(sw->lo, sw->hi, sw->factor, sizes, GV_MAX_SWEEP);
    if (n < 0) {
        snprintf(why, len, "--sweep %lld..%lld with factor %g needs more than %d sizes",
                 (long long)sw->lo, (long long)sw->hi, sw->factor, GV_MAX_SWEEP);
        return GV_EINVAL;
    }
    for (int i = 0; i < n; i++) {
        gv_shape s = sw->base;
        s.d[sw->dim] = sizes[i];
        char reason[256];
        if (!gv_shape_ok(sw->op, &s, reason, sizeof reason)) {
            snprintf(why, len, "--crossover %s: %s", sw->op->name, reason);
            return GV_EINVAL;
        }
    }
    gv_case top = {sw->op, sw->dtype, sw->mode, sw->op->default_dist, sw->base, 0};
    top.shape.d[sw->dim] = sizes[n - 1];
    return gv_bench_fits(&top, o, why, len) == GV_OK ? n : GV_EINVAL;
}
