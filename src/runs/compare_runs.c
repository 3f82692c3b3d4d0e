/* compare_runs.c: matching and deciding between two run files (see compare_runs.h). Reads
 * numbers through gv_jnum (non-finite numbers are strings in both schemas) and timing
 * statistics through stats.c, so the same intervals as `gpuval bench` are used. */
#include "runs/compare_runs.h"
#include "io/json_util.h"
#include "io/run_read.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_json.h"
#include "bench/stats.h"
#include "core/gv.h"
#include "io/schemas.h"

const char *gv_cmp_outcome_name(gv_cmp_outcome o)
{
    switch (o) {
    case GV_CMP_SAME: return "SAME";
    case GV_CMP_IMPROVED: return "IMPROVED";
    case GV_CMP_REGRESSED: return "REGRESSED";
    case GV_CMP_INCONCLUSIVE: return "INCONCLUSIVE";
    }
    return "?";
}

/* ---- Mann-Whitney U ----------------------------------------------------------------------- */

typedef struct tagged {
    double v;
    int from_a;
} tagged;

static int cmp_tagged(const void *x, const void *y)
{
    double a = ((const tagged *)x)->v, b = ((const tagged *)y)->v;
    return (a > b) - (a < b);
}

int gv_mann_whitney(const double *a, size_t na, const double *b, size_t nb, gv_mw *out)
{
    if (na < 1 || nb < 1 || na > SIZE_MAX / 4 / sizeof(tagged) ||
        nb > SIZE_MAX / 4 / sizeof(tagged))
        return GV_EINVAL;
    size_t n = na + nb;
    tagged *t = malloc(n * sizeof *t);
    if (!t) return GV_ENOMEM;
    for (size_t i = 0; i < na; i++)
        t[i] = (tagged){a[i], 1};
    for (size_t i = 0; i < nb; i++)
        t[na + i] = (tagged){b[i], 0};
    qsort(t, n, sizeof *t, cmp_tagged);
    /* ranks and counts in double: 300000 samples a side make n^3 and na*nb overflow int */
    double rank_a = 0, ties = 0; /* sum over tie groups of t^3 - t */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && t[j].v == t[i].v)
            j++;
        double avg = ((double)i + 1 + (double)j) / 2.0, k = (double)(j - i); /* ranks i+1..j */
        for (size_t m = i; m < j; m++)
            if (t[m].from_a) rank_a += avg;
        ties += k * k * k - k;
        i = j;
    }
    free(t);
    double da = (double)na, db = (double)nb, dn = (double)n;
    double u = rank_a - da * (da + 1) / 2.0, mu = da * db / 2.0;
    double var = da * db / 12.0 * ((dn + 1) - ties / (dn * (dn - 1)));
    out->u = u;
    if (!(var > 0)) {
        out->z = 0;
        out->p = 1;
        return GV_OK;
    }
    double d = fabs(u - mu) - 0.5;
    if (d < 0) d = 0;
    out->z = copysign(d / sqrt(var), u - mu);
    out->p = erfc(fabs(out->z) / sqrt(2.0));
    if (out->p > 1) out->p = 1;
    return GV_OK;
}

/* ---- timing ------------------------------------------------------------------------------- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Quantile q of sorted s[0..n) by linear interpolation. */
static double quantile(const double *s, size_t n, double q)
{
    double h = (double)(n - 1) * q; /* q in [0, 1]: h in [0, n - 1], so the cast is in range */
    size_t i = (size_t)floor(h);
    if (i + 1 >= n) return s[n - 1];
    return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

/* The relative noise of one side: the larger of the median interval's relative half-width
 * and the IQR's relative half-width. */
static double noise_of(const double *x, size_t n, double *median)
{
    gv_stat st;
    double *s = malloc(n * sizeof *s);
    if (!s || n > INT_MAX || gv_stat_describe(x, (int)n, 0.95, &st) != GV_OK) {
        free(s);
        *median = n <= INT_MAX ? gv_median(x, (int)n) : NAN;
        return NAN;
    }
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double iqr = quantile(s, n, 0.75) - quantile(s, n, 0.25);
    free(s);
    *median = st.median;
    double half_iqr = st.median > 0 ? iqr / (2 * st.median) : 0;
    return fmax(st.rel_spread, half_iqr);
}

gv_cmp_outcome gv_cmp_timing(const double *base, size_t nb, const double *new_s, size_t nn,
                             gv_cmp_item *item)
{
    item->timing = true;
    if (nb < 5 || nn < 5) {
        snprintf(item->base, sizeof item->base, "%zu samples", nb);
        snprintf(item->new_, sizeof item->new_, "%zu samples", nn);
        snprintf(item->why, sizeof item->why, "fewer than 5 samples on a side");
        return item->outcome = GV_CMP_INCONCLUSIVE;
    }
    double mb, mn;
    double noise = fmax(noise_of(base, nb, &mb), noise_of(new_s, nn, &mn));
    gv_mw mw;
    if (gv_mann_whitney(new_s, nn, base, nb, &mw) != GV_OK || !(mb > 0) || !(mn > 0) ||
        isnan(noise)) {
        snprintf(item->why, sizeof item->why, "statistics failed");
        return item->outcome = GV_CMP_INCONCLUSIVE;
    }
    double r = mn / mb, thr = fmax(0.03, noise);
    item->has_ratio = isfinite(r) && r > 0;
    item->ratio = r;
    snprintf(item->base, sizeof item->base, "%.4g ms", mb);
    snprintf(item->new_, sizeof item->new_, "%.4g ms", mn);
    gv_cmp_outcome o = GV_CMP_SAME;
    if (mw.p < 0.01 && r > 1 + thr)
        o = GV_CMP_REGRESSED;
    else if (mw.p < 0.01 && r < 1 / (1 + thr))
        o = GV_CMP_IMPROVED;
    snprintf(item->why, sizeof item->why, "median x%.3f, p %.2g, threshold %.1f %%", r, mw.p,
             100 * thr);
    return item->outcome = o;
}

/* ---- cases -------------------------------------------------------------------------------- */

static void shape_label(const json_t *shape, char *buf, size_t len)
{
    size_t used = 0, i;
    json_t *v;
    buf[0] = '\0';
    /* sizes are integers (gv_run_read); anything else shows as -1, never cast from a double */
    json_array_foreach(shape, i, v)
    {
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%lld", i ? "x" : "",
                                 json_is_integer(v) ? (long long)json_integer_value(v) : -1);
    }
}

static void case_id(const json_t *c, char *op, size_t op_len, char *name, size_t name_len,
                    char *seed, size_t seed_len)
{
    char shape[96];
    shape_label(json_object_get(c, "shape"), shape, sizeof shape);
    snprintf(op, op_len, "%s", gv_jstr(c, "op"));
    snprintf(name, name_len, "%s/%s/%s/%s", gv_jstr(c, "dtype"), gv_jstr(c, "mode"),
             gv_jstr(c, "dist"), shape);
    const json_t *s = json_object_get(c, "seed");
    /* an integer below 2^63, or a string of decimal digits above; a negative integer is a
       seed >= 2^63 from a file written before seeds were strings: read it as uint64 */
    if (json_is_integer(s))
        snprintf(seed, seed_len, "%llu", (unsigned long long)json_integer_value(s));
    else if (json_is_string(s))
        snprintf(seed, seed_len, "%s", json_string_value(s));
    else
        snprintf(seed, seed_len, "?");
}

static gv_cmp_item *add_item(gv_cmp_case *cc, const char *what)
{
    if (cc->n_items >= GV_CMP_MAX_ITEMS) return NULL;
    gv_cmp_item *it = &cc->items[cc->n_items++];
    memset(it, 0, sizeof *it);
    snprintf(it->what, sizeof it->what, "%s", what);
    return it;
}

static bool bad_verdict(const char *v)
{
    return strcmp(v, "FAIL") == 0 || strcmp(v, "ERROR") == 0;
}

/* A verdict of a case that ran to a judgement. */
static bool ran(const char *v)
{
    return strcmp(v, "PASS") == 0 || strcmp(v, "FAIL") == 0;
}

static void cmp_verdict(gv_cmp_case *cc, const char *vb, const char *vn)
{
    gv_cmp_item *it = add_item(cc, "verdict");
    if (!it) return;
    snprintf(it->base, sizeof it->base, "%s", vb);
    snprintf(it->new_, sizeof it->new_, "%s", vn);
    if (strcmp(vb, "PASS") == 0 && bad_verdict(vn))
        it->outcome = GV_CMP_REGRESSED;
    else if (bad_verdict(vb) && strcmp(vn, "PASS") == 0)
        it->outcome = GV_CMP_IMPROVED;
    else if (ran(vb) && !ran(vn)) {
        /* judged in the base, not in the new run (a SKIP, or an ERROR after a FAIL): nothing
           says whether it still passes or still fails */
        it->outcome = GV_CMP_INCONCLUSIVE;
        snprintf(it->why, sizeof it->why, "ran in the base (%s), not judged in the new run (%s)",
                 vb, vn);
        return;
    }
    if (strcmp(vb, vn) != 0) snprintf(it->why, sizeof it->why, "verdict %s -> %s", vb, vn);
}

static void cmp_bits(gv_cmp_case *cc, double b, double n, const gv_cmp_opts *o)
{
    if (isnan(b) || isnan(n) || (isinf(b) && isinf(n))) return;
    gv_cmp_item *it = add_item(cc, "accurate bits");
    if (!it) return;
    snprintf(it->base, sizeof it->base, "%.1f", b);
    snprintf(it->new_, sizeof it->new_, "%.1f", n);
    /* +inf: no error at all (the outputs equal the reference); exact before and inexact now is
       a loss of every bit past the ones measured now, however many */
    if (isinf(b) || isinf(n)) {
        bool lost = b > n;
        it->outcome = lost ? GV_CMP_REGRESSED : GV_CMP_IMPROVED;
        snprintf(it->why, sizeof it->why,
                 lost ? "exact before, %.1f accurate bits now"
                      : "%.1f accurate bits before, exact now",
                 lost ? n : b);
    } else if (b - n > o->bits) {
        it->outcome = GV_CMP_REGRESSED;
        snprintf(it->why, sizeof it->why, "lost %.1f accurate bits (> %g)", b - n, o->bits);
    } else if (n - b > o->bits) {
        it->outcome = GV_CMP_IMPROVED;
        snprintf(it->why, sizeof it->why, "gained %.1f accurate bits (> %g)", n - b, o->bits);
    }
}

/* A ratio's change by more than o->ratio either way: REGRESSED or IMPROVED, unless both sides
   stay below floor (0: none), where it is SAME and the reason says so (gv_cmp_opts). */
static void cmp_ratio(gv_cmp_case *cc, const char *what, double b, double n, double floor,
                      const gv_cmp_opts *o)
{
    if (isnan(b) || isnan(n)) return;
    gv_cmp_item *it = add_item(cc, what);
    if (!it) return;
    snprintf(it->base, sizeof it->base, "%.3g", b);
    snprintf(it->new_, sizeof it->new_, "%.3g", n);
    if (!(b > 0) || isinf(b)) return; /* no scale to grow from */
    it->has_ratio = n > 0 && isfinite(n);
    it->ratio = n / b;
    bool changed = n > o->ratio * b || n * o->ratio < b;
    if (changed && floor > 0 && b < floor && n < floor) {
        snprintf(it->why, sizeof it->why, "%s x%.3g, below the floor %.3g: rounding noise", what,
                 n / b, floor);
    } else if (n > o->ratio * b) {
        it->outcome = GV_CMP_REGRESSED;
        snprintf(it->why, sizeof it->why, "%s grew x%.3g (> x%g)", what, n / b, o->ratio);
    } else if (n * o->ratio < b) {
        it->outcome = GV_CMP_IMPROVED;
        snprintf(it->why, sizeof it->why, "%s shrank x%.3g (> x%g)", what, b / n, o->ratio);
    }
}

/* The samples of scope in a bench case; count in *n (0 when none). Allocated; free it. */
static double *samples_of(const json_t *c, const char *scope, size_t *n)
{
    const json_t *s =
        json_object_get(json_object_get(json_object_get(c, "timings"), scope), "samples_ms");
    *n = 0;
    size_t len = json_array_size(s);
    double *x = malloc((len + 1) * sizeof *x);
    if (!x) return NULL;
    for (size_t i = 0; i < len; i++) {
        double v = gv_jat(s, i);
        if (isfinite(v)) x[(*n)++] = v;
    }
    return x;
}

/* Items from first on measure other inputs (runs of different seeds): shown, not judged. */
static void unjudged_from(gv_cmp_case *cc, int first)
{
    for (int i = first; i < cc->n_items; i++) {
        cc->items[i].outcome = GV_CMP_SAME;
        snprintf(cc->items[i].why, sizeof cc->items[i].why, "another seed's inputs: not judged");
    }
}

static void compare_case(const json_t *b, const json_t *n, bool bench, bool timing_off,
                         const gv_cmp_opts *o, gv_cmp_result *res, gv_cmp_case *cc)
{
    case_id(b, cc->op, sizeof cc->op, cc->name, sizeof cc->name, cc->seed, sizeof cc->seed);
    cmp_verdict(cc, gv_jstr(b, "verdict"), gv_jstr(n, "verdict"));
    const char *mb = bench ? "sanity.accurate_bits" : "metrics.accurate_bits";
    const char *rb = bench ? "sanity.ratio" : "error_model.ratio";
    const char *pb = bench ? "sanity.prob_max" : "metrics.prob_max";
    int metrics_from = cc->n_items;
    cmp_bits(cc, gv_jnum(b, mb), gv_jnum(n, mb), o);
    /* the floor from the case's bound, the new run's (its judge's) or else the base's; a bench
       record's sanity run states none, and is judged without a floor */
    double bound = bench ? NAN : gv_jnum(n, "error_model.bound");
    if (!bench && !(bound > 0 && isfinite(bound))) bound = gv_jnum(b, "error_model.bound");
    double floor = bound > 0 && isfinite(bound) ? o->ratio_floor * bound : 0.0;
    cmp_ratio(cc, "error ratio", gv_jnum(b, rb), gv_jnum(n, rb), floor, o);
    cmp_ratio(cc, "prob R max", gv_jnum(b, pb), gv_jnum(n, pb), 0.0, o);
    if (res->across_seeds) unjudged_from(cc, metrics_from);
    if (bench) {
        size_t nb, nn;
        double *sb = samples_of(b, "kernel_hot", &nb), *sn = samples_of(n, "kernel_hot", &nn);
        gv_cmp_item *it = add_item(cc, "kernel_hot");
        if (it && sb && sn && (nb > 0 || nn > 0)) {
            res->n_timing++;
            gv_cmp_timing(sb, nb, sn, nn, it);
            if (timing_off && it->outcome != GV_CMP_INCONCLUSIVE) {
                it->outcome = GV_CMP_INCONCLUSIVE;
                snprintf(it->why, sizeof it->why, "devices differ (--force to judge)");
            }
            if (it->outcome == GV_CMP_INCONCLUSIVE) res->n_timing_inconclusive++;
        } else if (it) {
            cc->n_items--; /* no samples on either side */
        }
        free(sb);
        free(sn);
    }
    /* the case's outcome: REGRESSED over IMPROVED over INCONCLUSIVE over SAME */
    bool reg = false, imp = false, inc = false;
    for (int i = 0; i < cc->n_items; i++) {
        reg |= cc->items[i].outcome == GV_CMP_REGRESSED;
        imp |= cc->items[i].outcome == GV_CMP_IMPROVED;
        inc |= cc->items[i].outcome == GV_CMP_INCONCLUSIVE;
    }
    cc->outcome = reg   ? GV_CMP_REGRESSED
                  : imp ? GV_CMP_IMPROVED
                  : inc ? GV_CMP_INCONCLUSIVE
                        : GV_CMP_SAME;
}

/* Which device fingerprint fields differ, into why; true when any does. */
bool gv_cmp_device_diff(const json_t *a, const json_t *b, char *why, size_t len)
{
    static const char *const keys[] = {"name", "uuid", "driver_version", "cublas_version"};
    size_t used = 0;
    why[0] = '\0';
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const json_t *x = json_object_get(json_object_get(a, "device"), keys[i]);
        const json_t *y = json_object_get(json_object_get(b, "device"), keys[i]);
        if ((x || y) && !(x && y && json_equal(x, y)))
            used += (size_t)snprintf(why + used, used < len ? len - used : 0, "%s%s",
                                     used ? ", " : "", keys[i]);
    }
    return used > 0;
}

/* The keys of from that other lacks (allocated, count in *n). */
static char **one_sided(const gv_run_index *from, const gv_run_index *other, int *n)
{
    char **out = calloc(from->n + 1, sizeof *out);
    *n = 0;
    if (!out) return NULL;
    for (size_t i = 0; i < from->n; i++)
        if (gv_run_index_find(other, from->keys[i]) < 0) out[(*n)++] = strdup(from->keys[i]);
    return out;
}

/* The one seed of a run's generated cases into seed ("" when it has none); false when they
   have several. */
static bool one_seed(const json_t *cases, char *seed, size_t len)
{
    size_t i;
    const json_t *c;
    seed[0] = '\0';
    json_array_foreach(cases, i, c)
    {
        const char *in = gv_jstr(c, "inputs");
        if (in[0] && strcmp(in, "generated") != 0) continue;
        char op[64], name[160], s[24];
        case_id(c, op, sizeof op, name, sizeof name, s, sizeof s);
        if (!seed[0])
            snprintf(seed, len, "%s", s);
        else if (strcmp(seed, s) != 0)
            return false;
    }
    return true;
}

/* A copy of cases with the seed of each generated case set to 0: matched without it. */
static json_t *seedless(const json_t *cases)
{
    json_t *out = json_deep_copy(cases);
    size_t i;
    json_t *c;
    json_array_foreach(out, i, c)
    {
        const char *in = gv_jstr(c, "inputs");
        if (!in[0] || strcmp(in, "generated") == 0) json_object_set_new(c, "seed", json_integer(0));
    }
    return out;
}

/* Index the cases of one side; GV_OK, or GV_EINVAL with a message naming the repeated case. */
static int index_side(const json_t *cases, const char *side, gv_run_index *ix, char *err,
                      size_t err_len)
{
    size_t first = 0, again = 0;
    int rc = gv_run_index_build(cases, ix, &first, &again);
    if (rc == GV_EINVAL)
        snprintf(err, err_len, "%s file: case %zu (%s) is the same case as case %zu", side, again,
                 ix->keys[again], first);
    return rc;
}

/* The geometric means of the cases' ratios (gv_cmp_result): exp of the mean log, so that a
   case twice as slow and one twice as fast cancel, as they should for ratios. */
static void geomeans(gv_cmp_result *res)
{
    double log_error = 0, log_time = 0;
    for (int k = 0; k < res->n_cases; k++)
        for (int i = 0; i < res->cases[k].n_items; i++) {
            const gv_cmp_item *it = &res->cases[k].items[i];
            if (!it->has_ratio) continue;
            if (strcmp(it->what, "error ratio") == 0) {
                log_error += log(it->ratio);
                res->n_geomean_error++;
            } else if (strcmp(it->what, "kernel_hot") == 0) {
                log_time += log(it->ratio);
                res->n_geomean_time++;
            }
        }
    if (res->n_geomean_error) res->geomean_error = exp(log_error / res->n_geomean_error);
    if (res->n_geomean_time) res->geomean_time = exp(log_time / res->n_geomean_time);
}

/* The two documents' schemas: both run or both bench documents. GV_OK (res->bench set), or
   GV_EINVAL with the message in err. */
static int check_schemas(const json_t *base, const json_t *new_doc, gv_cmp_result *res, char *err,
                         size_t err_len)
{
    const char *sb = gv_jstr(base, "schema"), *sn = gv_jstr(new_doc, "schema");
    const char *known[] = {gv_schema(GV_DOC_RUN), gv_schema(GV_DOC_BENCH)};
    for (int side = 0; side < 2; side++) {
        const char *s = side ? sn : sb;
        if (strcmp(s, known[0]) != 0 && strcmp(s, known[1]) != 0) {
            snprintf(err, err_len, "%s file: unknown schema '%s' (known: %s, %s)",
                     side ? "new" : "base", s, known[0], known[1]);
            return GV_EINVAL;
        }
    }
    if (strcmp(sb, sn) != 0) {
        snprintf(err, err_len, "schemas differ: base is %s, new is %s", sb, sn);
        return GV_EINVAL;
    }
    const json_t *cb = json_object_get(base, "cases"), *cn = json_object_get(new_doc, "cases");
    if (!json_is_array(cb) || !json_is_array(cn)) {
        snprintf(err, err_len, "%s file has no \"cases\" array",
                 json_is_array(cb) ? "new" : "base");
        return GV_EINVAL;
    }
    res->bench = strcmp(sb, known[1]) == 0;
    return GV_OK;
}

/* Runs of different seeds: no case matches with its seed, and each run's generated cases have
   one seed. Then *ib and *in are replaced by indexes of seedless copies (kept in *cb_any and
   *cn_any, which the indexes point into) and res->across_seeds is set: the verdicts are judged
   and the rest only shown. Otherwise nothing changes. */
static void match_across_seeds(const json_t *cb, const json_t *cn, gv_run_index *ib,
                               gv_run_index *in, json_t **cb_any, json_t **cn_any,
                               gv_cmp_result *res, char *err, size_t err_len)
{
    bool any_match = false;
    for (size_t i = 0; i < ib->n && !any_match; i++)
        any_match = gv_run_index_find(in, ib->keys[i]) >= 0;
    if (any_match || !ib->n || !in->n || !one_seed(cb, res->seed_base, sizeof res->seed_base) ||
        !one_seed(cn, res->seed_new, sizeof res->seed_new) || !res->seed_base[0] ||
        !res->seed_new[0] || strcmp(res->seed_base, res->seed_new) == 0)
        return;
    *cb_any = seedless(cb);
    *cn_any = seedless(cn);
    gv_run_index xb, xn;
    if (*cb_any && *cn_any && index_side(*cb_any, "base", &xb, err, err_len) == GV_OK) {
        if (index_side(*cn_any, "new", &xn, err, err_len) == GV_OK) {
            gv_run_index_free(ib);
            gv_run_index_free(in);
            *ib = xb;
            *in = xn;
            res->across_seeds = true;
        } else {
            gv_run_index_free(&xb);
        }
    }
    err[0] = '\0'; /* a seedless copy that does not index is matched with its seeds, as before */
}

/* Each base case with its match in the new run, compared; the cases of one side only listed,
   and those of them the base ran counted as not run. GV_OK or GV_ENOMEM. */
static int compare_matched(const json_t *cb, const json_t *cn, const gv_run_index *ib,
                           const gv_run_index *in, const gv_cmp_opts *opts, gv_cmp_result *res)
{
    res->cases = calloc(json_array_size(cb) + 1, sizeof *res->cases);
    res->only_base = one_sided(ib, in, &res->n_only_base);
    res->only_new = one_sided(in, ib, &res->n_only_new);
    res->only_base_ran = calloc(json_array_size(cb) + 1, sizeof *res->only_base_ran);
    if (!res->cases || !res->only_base || !res->only_new || !res->only_base_ran) return GV_ENOMEM;
    for (size_t i = 0; i < ib->n; i++) {
        long long j = gv_run_index_find(in, ib->keys[i]);
        if (j < 0) continue;
        gv_cmp_case *cc = &res->cases[res->n_cases++];
        const json_t *b = json_array_get(cb, i), *n = json_array_get(cn, (size_t)j);
        compare_case(b, n, res->bench, res->device_differs && !opts->force, opts, res, cc);
        res->count[cc->outcome]++;
        const char *vb = gv_jstr(b, "verdict"), *vn = gv_jstr(n, "verdict");
        /* judged in the base, not here; a PASS turned ERROR is REGRESSED instead */
        res->n_not_run += ran(vb) && !ran(vn) && !(strcmp(vb, "PASS") == 0 && bad_verdict(vn));
    }
    for (int k = 0; k < res->n_only_base; k++) {
        long long i = gv_run_index_find(ib, res->only_base[k]);
        res->only_base_ran[k] = i >= 0 && ran(gv_jstr(json_array_get(cb, (size_t)i), "verdict"));
        res->n_not_run += res->only_base_ran[k];
    }
    return GV_OK;
}

/* The comparison's outcome from its cases' (gv_cmp_result.overall). */
static gv_cmp_outcome overall_outcome(const gv_cmp_result *res)
{
    if (res->count[GV_CMP_REGRESSED]) return GV_CMP_REGRESSED;
    /* INCONCLUSIVE over IMPROVED: a lost case is never a success */
    if (res->n_not_run > 0) return GV_CMP_INCONCLUSIVE;
    if (res->count[GV_CMP_IMPROVED]) return GV_CMP_IMPROVED;
    if (res->n_timing > 0 && res->n_timing_inconclusive == res->n_timing)
        return GV_CMP_INCONCLUSIVE;
    return GV_CMP_SAME;
}

int gv_compare_runs(const json_t *base, const json_t *new_doc, const gv_cmp_opts *opts,
                    gv_cmp_result *res, char *err, size_t err_len)
{
    memset(res, 0, sizeof *res);
    int rc = check_schemas(base, new_doc, res, err, err_len);
    if (rc != GV_OK) return rc;
    const json_t *cb = json_object_get(base, "cases"), *cn = json_object_get(new_doc, "cases");
    res->device_differs =
        gv_cmp_device_diff(base, new_doc, res->device_why, sizeof res->device_why);
    gv_run_index ib, in;
    rc = index_side(cb, "base", &ib, err, err_len);
    int rc2 = rc == GV_OK ? index_side(cn, "new", &in, err, err_len) : GV_OK;
    if (rc != GV_OK || rc2 != GV_OK) {
        gv_run_index_free(&ib);
        if (rc == GV_OK) gv_run_index_free(&in);
        return rc != GV_OK ? rc : rc2;
    }
    json_t *cb_any = NULL, *cn_any = NULL;
    match_across_seeds(cb, cn, &ib, &in, &cb_any, &cn_any, res, err, err_len);
    rc = compare_matched(cb, cn, &ib, &in, opts, res);
    gv_run_index_free(&ib);
    gv_run_index_free(&in);
    json_decref(cb_any);
    json_decref(cn_any);
    if (rc != GV_OK) {
        gv_cmp_result_free(res);
        return rc;
    }
    if (!res->across_seeds) geomeans(res);
    res->overall = overall_outcome(res);
    return GV_OK;
}

void gv_cmp_result_free(gv_cmp_result *res)
{
    for (int i = 0; res->only_base && i < res->n_only_base; i++)
        free(res->only_base[i]);
    for (int i = 0; res->only_new && i < res->n_only_new; i++)
        free(res->only_new[i]);
    free(res->only_base);
    free(res->only_new);
    free(res->only_base_ran);
    free(res->cases);
    memset(res, 0, sizeof *res);
}
