/* bench_plan.c: what a timed run will time, settled before any work: the named presets that
 * reproduce the seeds (and the project's performance targets), as data tables checked
 * against the registry at start-up, the crossover sweep's sizes, and the check that every
 * case fits this machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_plan.h"
#include "core/registry.h"

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

int gv_op_default_shape(const gv_op *op, int which, gv_shape *out)
{
    gv_shape s[32];
    char err[256];
    int n = gv_size_spec_parse(op->shapes, s, 32, err, sizeof err);
    if (n < 1) return GV_EINVAL;
    *out = s[which < 0 || which >= n ? n - 1 : which];
    return GV_OK;
}

/* ---- the presets, as data ---- */

/* The seeds' ops, named once: the presets below and the seeds' layouts use these. */
static const char op_vadd[] = "vadd", op_sin_iter[] = "sin_iter", op_matmul[] = "matmul_colsum",
                  op_einsum[] = "einsum.colsum", op_tiled[] = "gemm.tiled",
                  op_regblock[] = "gemm.regblock", op_cublas[] = "gemm.cublas",
                  op_diff_fixed[] = "diffusion.fixed", op_diff_periodic[] = "diffusion.periodic",
                  op_colsum[] = "reduce.colsum";
const char *const gv_seed002_ops[2] = {op_matmul, op_einsum};
const char *const gv_seed000_ops[2] = {op_vadd, op_sin_iter};

/* Seed 000: vadd where the GPU loses end to end, and sin applied k times (at the op's own
   n = 1e6) with its crossover in k. */
static const gv_preset_case seed000_cases[] = {
    {op_vadd, GV_F32, "1e5"},         {op_vadd, GV_F32, "11500000"},
    {op_sin_iter, GV_F32, "1e6x1"},   {op_sin_iter, GV_F32, "1e6x10"},
    {op_sin_iter, GV_F32, "1e6x100"}, {op_sin_iter, GV_F32, "1e6x1000"},
};
static const gv_preset_sweep seed000_sweep = {op_sin_iter, GV_F32, "1e6x1000", "k=1..1000", 2.0, 3};

/* Seed 002's pair at its sizes in f32 and f64. */
static const gv_preset_case seed002_cases[] = {
    {op_matmul, GV_F32, "10000x5000x7000"},
    {op_matmul, GV_F64, "10000x5000x7000"},
    {op_einsum, GV_F32, "10000x5000x7000"},
    {op_einsum, GV_F64, "10000x5000x7000"},
};

/* The cases of the targets (bench_targets.c): the GPU's, against its ceilings. */
static const gv_preset_case targets_cases[] = {
    {op_vadd, GV_F32, "2^28"},
    {op_einsum, GV_F32, "10000x5000x7000"},
    {op_einsum, GV_F64, "10000x5000x7000"},
    {op_colsum, GV_F32, "10000x7000"},
    {op_colsum, GV_F64, "10000x7000"},
    {op_tiled, GV_F32, "4096x4096x4096"},
    {op_tiled, GV_F64, "4096x4096x4096"},
    {op_regblock, GV_F32, "4096x4096x4096"},
    {op_regblock, GV_F64, "4096x4096x4096"},
    {op_cublas, GV_F32, "4096x4096x4096"},
    {op_cublas, GV_F64, "4096x4096x4096"},
    {op_diff_fixed, GV_F32, "8192x8192x1"},
    {op_diff_periodic, GV_F32, "8192x8192x1"},
};

/* A few small cases and a small sweep, small caps: `meson test --benchmark`. */
static const gv_preset_case short_cases[] = {
    {op_vadd, GV_F32, "1e6"},
    {op_cublas, GV_F32, "256x256x256"},
    {op_einsum, GV_F32, "1000x500x700"},
};
static const gv_preset_sweep short_sweep = {op_vadd, GV_F32, "2^20", "n=2^10..2^20", 4.0, 1};

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
const gv_preset gv_presets[] = {
    {"seed000", seed000_cases, N_OF(seed000_cases), &seed000_sweep, 0, -1, false},
    {"seed002", seed002_cases, N_OF(seed002_cases), NULL, 0, -1, false},
    {"targets", targets_cases, N_OF(targets_cases), NULL, 0, -1, true},
    {"short", short_cases, N_OF(short_cases), &short_sweep, 0.05, 2.0, false},
};
const int gv_n_presets = N_OF(gv_presets);

const char *gv_bench_preset_names(void)
{
    static char names[128];
    if (!names[0])
        for (int i = 0; i < gv_n_presets; i++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", i ? " " : "", gv_presets[i].name);
        }
    return names;
}

/* The op of an entry, with the dtype; GV_EINTERNAL with why naming the entry otherwise. */
static int resolve_op(const char *preset, const char *name, gv_dtype t, const char *shape,
                      const gv_op **op, char *why, size_t len)
{
    *op = gv_op_find(name);
    if (!*op)
        snprintf(why, len, "preset %s: %s %s %s: no op '%s' in the registry", preset, name,
                 gv_dtype_name(t), shape, name);
    else if (!gv_mode_ok(*op, t, GV_MODE_NATIVE))
        snprintf(why, len, "preset %s: %s %s %s: the op has no dtype %s (native)", preset, name,
                 gv_dtype_name(t), shape, gv_dtype_name(t));
    else
        return GV_OK;
    return GV_EINTERNAL;
}

static int resolve_shape(const char *preset, const char *name, gv_dtype t, const char *spec,
                         const gv_op *op, gv_shape *s, char *why, size_t len)
{
    char err[256];
    if (gv_size_spec_parse(spec, s, 1, err, sizeof err) != 1)
        snprintf(why, len, "preset %s: %s %s '%s': not one shape: %s", preset, name,
                 gv_dtype_name(t), spec, err);
    else if (!gv_shape_ok(op, s, err, sizeof err))
        snprintf(why, len, "preset %s: %s %s %s: %s", preset, name, gv_dtype_name(t), spec, err);
    else
        return GV_OK;
    return GV_EINTERNAL;
}

int gv_preset_case_resolve(const char *preset, const gv_preset_case *pc, gv_case *out, char *why,
                           size_t len)
{
    const gv_op *op;
    gv_shape s;
    int rc = resolve_op(preset, pc->op, pc->dtype, pc->shape, &op, why, len);
    if (rc == GV_OK) rc = resolve_shape(preset, pc->op, pc->dtype, pc->shape, op, &s, why, len);
    if (rc != GV_OK) return rc;
    *out = (gv_case){op, pc->dtype, GV_MODE_NATIVE, op->default_dist, s, 0};
    return GV_OK;
}

int gv_preset_sweep_resolve(const char *preset, const gv_preset_sweep *ps, gv_sweep *out, char *why,
                            size_t len)
{
    const gv_op *op;
    memset(out, 0, sizeof *out);
    int rc = resolve_op(preset, ps->op, ps->dtype, ps->base, &op, why, len);
    if (rc == GV_OK)
        rc = resolve_shape(preset, ps->op, ps->dtype, ps->base, op, &out->base, why, len);
    if (rc != GV_OK) return rc;
    out->op = op;
    out->dtype = ps->dtype;
    out->mode = GV_MODE_NATIVE;
    out->factor = ps->factor;
    out->refine = ps->refine;
    char err[256];
    int64_t sizes[GV_MAX_SWEEP];
    if (gv_sweep_parse(out, ps->range, err, sizeof err) != GV_OK) {
        snprintf(why, len, "preset %s: sweep %s %s: %s", preset, ps->op, ps->range, err);
        return GV_EINTERNAL;
    }
    int n = gv_geom_sizes(out->lo, out->hi, out->factor, sizes, GV_MAX_SWEEP);
    if (n < 0) {
        snprintf(why, len, "preset %s: sweep %s %s: more than %d sizes", preset, ps->op, ps->range,
                 GV_MAX_SWEEP);
        return GV_EINTERNAL;
    }
    for (int i = 0; i < n; i++) {
        gv_shape s = out->base;
        s.d[out->dim] = sizes[i];
        if (!gv_shape_ok(op, &s, err, sizeof err)) {
            snprintf(why, len, "preset %s: sweep %s %s: %s", preset, ps->op, ps->range, err);
            return GV_EINTERNAL;
        }
    }
    return GV_OK;
}

int gv_bench_presets_check(char *why, size_t len)
{
    gv_case c;
    gv_sweep sw;
    for (int i = 0; i < gv_n_presets; i++) {
        const gv_preset *p = &gv_presets[i];
        for (int k = 0; k < p->n_cases; k++) {
            int rc = gv_preset_case_resolve(p->name, &p->cases[k], &c, why, len);
            if (rc != GV_OK) return rc;
        }
        if (p->sweep) {
            int rc = gv_preset_sweep_resolve(p->name, p->sweep, &sw, why, len);
            if (rc != GV_OK) return rc;
        }
    }
    return GV_OK;
}

int gv_bench_preset(const char *name, gv_case_list *cases, gv_sweep *sw, bool *have_sweep,
                    gv_bench_opts *o, gv_notes *notes)
{
    *have_sweep = false;
    const gv_preset *p = NULL;
    for (int i = 0; i < gv_n_presets; i++)
        if (strcmp(gv_presets[i].name, name) == 0) p = &gv_presets[i];
    if (!p) return GV_EINVAL;
    char why[320];
    int rc = GV_OK;
    for (int k = 0; k < p->n_cases && rc == GV_OK; k++) {
        gv_case c;
        rc = gv_preset_case_resolve(p->name, &p->cases[k], &c, why, sizeof why);
        if (rc == GV_OK) rc = gv_case_list_add(cases, &c);
    }
    if (rc == GV_OK && p->sweep) {
        rc = gv_preset_sweep_resolve(p->name, p->sweep, sw, why, sizeof why);
        *have_sweep = rc == GV_OK;
    }
    if (rc == GV_EINTERNAL && notes->n < (int)(sizeof notes->text / sizeof notes->text[0]))
        snprintf(notes->text[notes->n++], sizeof notes->text[0], "%s", why);
    if (p->cap_s > 0) o->gpu.cap_s = o->cpu.cap_s = p->cap_s;
    if (p->cpu_budget_s >= 0) o->cpu.budget_s = p->cpu_budget_s;
    if (p->no_cpu) o->time_cpu = false;
    return rc;
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
    if (strlen(spec) >= sizeof buf) {
        snprintf(why, len, "--sweep value is %zu bytes; DIM=LO..HI takes at most %zu", strlen(spec),
                 sizeof buf - 1);
        return GV_EINVAL;
    }
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
