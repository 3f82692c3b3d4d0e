/* judge.c: outputs computed anywhere, judged here (judge.h): the case a spec names (case.h),
 * its inputs (the generator's, or the caller's), the f64 reference and the judge of check's own
 * cases, without a device; and the public gv_judge of include/gpuval.h on top of it. `gpuval
 * judge` (cmd/judge.c) takes the same path. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/case.h"
#include "api/judge.h"
#include "api/lowp.h"
#include "core/inputs.h"
#include "core/envelope.h"
#include "core/envelope_tc.h"
#include "core/gen.h" /* GV_PAR_MIN */
#include "core/judge.h"
#include "core/problem.h"
#include "core/reference.h"
#include "core/run.h"
#include "io/json_util.h"
#include "io/run_doc.h"
#include "io/sha256.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static const char *tname(const gv_tensor_spec *t, char *buf, size_t len, const char *side, int i)
{
    if (t->name && t->name[0]) return t->name;
    snprintf(buf, len, "%s %d", side, i);
    return buf;
}

/* "A (m x k), B (k x n)" for messages. */
static void list_tensors(const gv_case *c, const gv_layout *l, bool output, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    int n = output ? l->n_out : l->n_in;
    for (int i = 0; i < n && used < len; i++) {
        int64_t s[GV_MAX_DIMS];
        int nd = gv_judge_tensor_shape(c, l, output, i, s);
        char nb[32];
        const gv_tensor_spec *t = output ? &l->out[i] : &l->in[i];
        used += (size_t)snprintf(buf + used, len - used, "%s%s (", i ? ", " : "",
                                 tname(t, nb, sizeof nb, output ? "output" : "input", i));
        for (int k = 0; k < nd && used < len; k++)
            used +=
                (size_t)snprintf(buf + used, len - used, "%s%lld", k ? " x " : "", (long long)s[k]);
        if (used < len) used += (size_t)snprintf(buf + used, len - used, ")");
    }
}

/* One array's record in the case: its name, dtype, count and the SHA-256 of its data. A
   generated input's bits were checked against the generator's (gv_given_match), so the case's
   op, dtype, dist, size and seed already name them: it is recorded as generated, unhashed
   (hashing gigabytes of inputs a case cost more than judging them). */
static json_t *array_record(const gv_array *a, const char *side, int i, bool generated)
{
    json_t *o = json_pack("{s:s, s:i, s:s, s:I}", "side", side, "index", i, "dtype",
                          gv_lowp_dtype_name(a->dtype), "count", (json_int_t)a->count);
    if (!o) return NULL;
    if (generated) {
        json_object_set_new(o, "generated", json_true());
    } else {
        gv_sha256 h;
        char hex[65];
        gv_sha256_init(&h);
        gv_sha256_update(&h, a->data, (size_t)a->count * (size_t)gv_lowp_dtype_bytes(a->dtype));
        gv_sha256_final(&h, hex);
        json_object_set_new(o, "sha256", json_string(hex));
    }
    if (a->name) json_object_set_new(o, "name", json_string(a->name));
    return o;
}

/* Denormals-are-zero: each input value below the dtype's normal range read as a zero of its
   sign, in the f64 copies the oracle, the gauges and the measure hooks read (the stored data
   stay as given: they were checked against the generator's). The oracle cache keys on those
   copies, so a DAZ reference never meets the other. Returns the values zeroed. */
static int64_t zero_subnormal_inputs(gv_problem *p)
{
    double tiny = gv_dtype_normal_min(p->c.dtype);
    int64_t zeroed = 0;
    for (int i = 0; i < p->l.n_in; i++)
        for (int64_t k = 0; k < p->in[i].count; k++) {
            double v = p->in[i].ref[k];
            if (v != 0.0 && fabs(v) < tiny) {
                p->in[i].ref[k] = copysign(0.0, v);
                zeroed++;
            }
        }
    return zeroed;
}

/* The spec's arrays against the case: counts, dtypes, data. */
static int check_arrays(const gv_judge_spec *s, const gv_case *c, const gv_layout *l, char *err,
                        size_t errlen)
{
    const char *op = c->op->name;
    if (s->n_in != l->n_in || s->n_out != l->n_out) {
        char ins[256], outs[256];
        list_tensors(c, l, false, ins, sizeof ins);
        list_tensors(c, l, true, outs, sizeof outs);
        return gv_api_error(err, errlen, GV_EINVAL,
                            "%s takes %d input%s (%s) and %d output%s (%s); got %d and %d", op,
                            l->n_in, l->n_in == 1 ? "" : "s", ins, l->n_out,
                            l->n_out == 1 ? "" : "s", outs, s->n_in, s->n_out);
    }
    for (int side = 0; side < 2; side++) {
        int n = side ? s->n_out : s->n_in;
        const gv_array *arr = side ? s->out : s->in;
        for (int i = 0; i < n; i++) {
            const gv_array *a = &arr[i];
            const gv_tensor_spec *t = side ? &l->out[i] : &l->in[i];
            char nb[32], shape[128];
            const char *who = tname(t, nb, sizeof nb, side ? "output" : "input", i);
            const char *from = a->name ? a->name : "";
            if (a->count != t->count) {
                int64_t sh[GV_MAX_DIMS];
                int nd = gv_judge_tensor_shape(c, l, side, i, sh);
                size_t used = 0;
                shape[0] = '\0';
                for (int k = 0; k < nd; k++)
                    used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%lld",
                                             k ? " x " : "", (long long)sh[k]);
                char sz[96];
                return gv_api_error(
                    err, errlen, GV_EINVAL,
                    "%s %s%s%s%s: %lld elements, but %s at size %s has %lld (%s)", op, who,
                    from[0] ? " (" : "", from, from[0] ? ")" : "", (long long)a->count, who,
                    gv_shape_format(&c->shape, sz, sizeof sz), (long long)t->count, shape);
            }
            /* a low-precision array beside the compute dtype's (lowp.h); the f32 and f64
               ones are the compute dtype itself */
            if (a->dtype != (int)c->dtype && !gv_lowp_get(a->dtype))
                return gv_api_error(
                    err, errlen, GV_EINVAL,
                    "%s %s%s%s%s is %s, but the case is %s: the f32 and f64 arrays share one "
                    "dtype, the compute dtype (bf16, f16, e4m3 and e5m2 arrays may join it)",
                    op, who, from[0] ? " (" : "", from, from[0] ? ")" : "",
                    gv_lowp_dtype_bytes(a->dtype) ? gv_lowp_dtype_name(a->dtype)
                                                  : "of no gpuval dtype",
                    gv_dtype_name(c->dtype));
            if (!a->data && a->count > 0)
                return gv_api_error(err, errlen, GV_EINVAL, "%s %s: no data", op, who);
        }
    }
    return GV_OK;
}

/* The measured errors of the stored outputs (metrics.h: max_abs, max_rel, normwise_rel, bits,
   the tiers' mismatches), in place of those of the points the models judged (lowp.h): a bf16
   output's bits are its own, never the preimage's. Those stay among the extras. */
static void stored_metrics(const gv_judge_spec *s, const gv_problem *p, gv_result *r)
{
    gv_result_extra(r, "preimage_max_rel", r->m.max_rel);
    gv_result_extra(r, "preimage_bits", r->m.bits);
    double max_abs = 0.0, max_rel = 0.0, e2 = 0.0, r2 = 0.0;
    int64_t mism[GV_MAX_TIERS] = {0};
    for (int i = 0; i < s->n_out; i++) {
        const gv_lowp_info *f = gv_lowp_get(s->out[i].dtype);
        for (int64_t k = 0; k < p->out[i].count; k++) {
            double c = f ? gv_lowp_decode(f, s->out[i].data, k)
                         : gv_dtype_load(p->c.dtype, p->out[i].data, k);
            double ref = p->out[i].ref[k];
            if (!isfinite(c) || !isfinite(ref)) continue; /* the placement rules' */
            double d = fabs(c - ref);
            if (d > max_abs) max_abs = d;
            if (ref != 0 && d / fabs(ref) > max_rel) max_rel = d / fabs(ref);
            e2 += d * d;
            r2 += ref * ref;
            for (int t = 0; t < r->tiers.n; t++)
                if (!(d <= r->tiers.t[t] * (1.0 + fabs(ref)))) mism[t]++;
        }
    }
    r->m.max_abs = max_abs;
    r->m.max_rel = max_rel;
    r->m.normwise_rel = r2 > 0 ? sqrt(e2 / r2) : (e2 > 0 ? INFINITY : 0.0);
    r->m.bits = r->m.normwise_rel > 0 ? -log2(r->m.normwise_rel) : INFINITY;
    if (r->m.bits < 0) r->m.bits = 0;
    for (int t = 0; t < r->tiers.n; t++)
        r->m.mismatches[t] = mism[t];
}

/* Whether judging these outputs again with ftz and daz declared could turn a FAIL into a
   PASS (gv_judge_run). Declaring them changes only: the reference, where an input is
   subnormal (daz zeroes it); the subnormal and zero-sign rules, which need an output zero or
   a reference below the normal range; the bias rule, off under ftz, whose lean flushing can
   only make where results reach the underflow range; and the models' absolute allowance for
   underflow, 2^emin per operation (eta_terms of them) in place of IEEE's half a subnormal
   spacing. Where every output and its reference lie above scale = 2^(p+8) times that whole
   allowance, it is under 2^-8 of one rounding of the result, which every model allows
   already: flushing has nothing there to change. */
static bool flushing_can_matter(const gv_problem *p, const gv_result *r)
{
    const gv_case *c = &p->c;
    const double tiny = gv_dtype_normal_min(c->dtype);
    for (int i = 0; i < p->l.n_in; i++)
        for (int64_t k = 0; k < p->in[i].count; k++) {
            const double v = p->in[i].ref[k];
            if (v != 0.0 && fabs(v) < tiny) return true;
        }
    gv_case native = *c;
    native.mode = GV_MODE_NATIVE;
    double terms = c->op->underflow_terms ? c->op->underflow_terms(c) : c->op->depth(&native);
    if (!(terms >= r->depth)) terms = r->depth;
    const double half = terms / 2 > 1.0 ? terms / 2 : 1.0;
    const double scale = ldexp(2.0 * tiny * half, gv_dtype_mantissa_bits(c->dtype) + 8);
    assert(scale > 0.0 && isfinite(scale));
    bool matters = false;
    for (int i = 0; i < p->l.n_out && !matters; i++) {
        const gv_tensor *t = &p->out[i];
#pragma omp parallel for schedule(static) reduction(|| : matters) if (t->count >= GV_PAR_MIN)
        for (int64_t k = 0; k < t->count; k++) {
            const double out = gv_dtype_load(c->dtype, t->data, k), ref = t->ref[k];
            if (out == 0.0 && ref == 0.0)
                matters = matters || signbit(out) != signbit(ref); /* a flushed operand's sign */
            else
                matters = matters || fabs(out) < scale || fabs(ref) < scale;
        }
    }
    return matters;
}

/* What a mode string declares beside the mode: "MODE+order=O" (the outputs' summation order,
   core/envelope.h: the envelope then judges against that order alone), "MODE+arch=sm_XY" (the
   architecture whose tensor-core model judges a tensor-core mode, core/envelope_tc.h; default
   sm_90), both before any "+daz" and "+ftz" (the declared behaviours, in either order, last).
   mode points into one of the buffers (or at the spec's string, or is NULL: native). */
typedef struct declared {
    const char *mode;
    gv_env_order order;
    int arch;
    bool ftz, daz;
    char order_buf[64], mode_buf[64], arch_buf[64], ftz_buf[64];
} declared;

/* "+KEY=VALUE" cut out of *mode (into rest, the mode without it; value into val): false where
   the mode has none; GV_EINVAL into *rc where either would not fit. */
static bool cut_suffix(const char **mode, const char *key, char *val, size_t vlen, char *rest,
                       size_t rlen, int *rc, char *err, size_t errlen)
{
    const char *at = *mode ? strstr(*mode, key) : NULL;
    if (!at) return false;
    const char *v = at + strlen(key), *end = strchr(v, '+');
    size_t vl = end ? (size_t)(end - v) : strlen(v);
    size_t head = (size_t)(at - *mode), tail = end ? strlen(end) : 0;
    if (vl >= vlen || head + tail >= rlen) {
        *rc = gv_api_error(err, errlen, GV_EINVAL, "mode '%.60s': too long", *mode);
        return true;
    }
    memcpy(val, v, vl);
    val[vl] = '\0';
    memcpy(rest, *mode, head);
    memcpy(rest + head, end ? end : "", tail + 1);
    *mode = rest[0] ? rest : NULL;
    return true;
}

static int parse_declared(const char *spec_mode, declared *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->mode = spec_mode;
    int rc = GV_OK;
    char owhy[200];
    const char *order = NULL;
    if (cut_suffix(&d->mode, "+order=", d->order_buf, sizeof d->order_buf, d->mode_buf,
                   sizeof d->mode_buf, &rc, err, errlen)) {
        if (rc != GV_OK) return rc;
        order = d->order_buf;
    }
    if (gv_env_order_parse(order, &d->order, owhy, sizeof owhy) != GV_OK)
        return gv_api_error(err, errlen, GV_EINVAL, "%s", owhy);
    char val[24];
    if (cut_suffix(&d->mode, "+arch=", val, sizeof val, d->arch_buf, sizeof d->arch_buf, &rc, err,
                   errlen)) {
        if (rc != GV_OK) return rc;
        if (gv_env_tc_arch_parse(val, &d->arch, owhy, sizeof owhy) != GV_OK)
            return gv_api_error(err, errlen, GV_EINVAL, "%s", owhy);
    }
    size_t ml = d->mode ? strlen(d->mode) : 0;
    for (;;) {
        const char *mode = d->mode;
        bool *flag = ml >= 4 && strncmp(mode + ml - 4, "+ftz", 4) == 0   ? &d->ftz
                     : ml >= 4 && strncmp(mode + ml - 4, "+daz", 4) == 0 ? &d->daz
                                                                         : NULL;
        if (!flag) break;
        if (ml - 4 >= sizeof d->ftz_buf || ml == 4)
            return gv_api_error(err, errlen, GV_EINVAL,
                                "no mode '%.60s' (gpuval list --modes; +ftz or +daz after one)",
                                mode);
        memmove(d->ftz_buf, mode, ml - 4);
        d->ftz_buf[ml - 4] = '\0';
        d->mode = d->ftz_buf;
        ml -= 4;
        *flag = true;
    }
    return GV_OK;
}

/* The spec's array counts against the limits of any op. */
static int check_counts(const gv_judge_spec *s, char *err, size_t errlen)
{
    if (s->n_in < 0 || s->n_in > GV_MAX_TENSORS || s->n_out < 1 || s->n_out > GV_MAX_TENSORS ||
        (s->n_in > 0 && !s->in) || !s->out)
        return gv_api_error(
            err, errlen, GV_EINVAL,
            "%d inputs and %d outputs: an op has 0 to %d inputs and 1 to %d outputs, "
            "each array given",
            s->n_in, s->n_out, GV_MAX_TENSORS, GV_MAX_TENSORS);
    return GV_OK;
}

/* The compute dtype: that of the f32 or f64 arrays; f32 where every array is stored in a
   low-precision format (bf16 storage, f32 compute, as PyTorch computes bf16 tensors). Which
   sides hold low-precision arrays into lowp_in and lowp_out. */
static int compute_dtype(const gv_judge_spec *s, bool *lowp_in, bool *lowp_out)
{
    int dtype = -1;
    *lowp_in = *lowp_out = false;
    for (int i = 0; i < s->n_in + s->n_out; i++) {
        int d = i < s->n_in ? s->in[i].dtype : s->out[i - s->n_in].dtype;
        if (gv_lowp_get(d))
            *(i < s->n_in ? lowp_in : lowp_out) = true;
        else if (dtype < 0)
            dtype = d;
    }
    return dtype < 0 ? GV_DTYPE_F32 : dtype;
}

/* Low-precision arrays on a case: refused for families without a model of them, and as
   generated inputs (gpuval's are f32 or f64). */
static int check_lowp(const gv_judge_spec *s, const gv_case *c, bool lowp_in, char *err,
                      size_t errlen)
{
    const char *refused = gv_lowp_family_refused(c->op->family);
    int d = -1;
    for (int i = 0; i < s->n_in + s->n_out && d < 0; i++) {
        int di = i < s->n_in ? s->in[i].dtype : s->out[i - s->n_in].dtype;
        if (gv_lowp_get(di)) d = di;
    }
    if (refused)
        return gv_api_error(err, errlen, GV_EINVAL, "%s with %s arrays: %s %s", c->op->name,
                            gv_lowp_dtype_name(d), c->op->family, refused);
    if (lowp_in && s->dist)
        return gv_api_error(err, errlen, GV_EINVAL,
                            "%s inputs are not the ones gpuval generates (its inputs are %s): "
                            "leave the distribution out to judge them as given data",
                            gv_lowp_dtype_name(d), gv_dtype_name(c->dtype));
    return GV_OK;
}

/* r set up for outputs computed elsewhere: the declared behaviours, order and architecture,
   and what outputs stored in a low-precision format change (the first such output names it). */
static void result_declared(const gv_judge_spec *s, const gv_case *c, const declared *d,
                            gv_result *r)
{
    gv_result_init(r, c);
    r->ftz_allowed = d->ftz;
    r->daz_allowed = d->daz;
    if (d->ftz && r->bias.judged) { /* each flush errs toward zero: a lean by construction */
        r->bias.judged = false;
        snprintf(r->bias.why_not, sizeof r->bias.why_not,
                 "flush-to-zero allowed: flushed underflows lean toward zero");
    }
    /* Depths belong to the kernel that has them: these outputs come from another program,
       whose summation order need not be gpuval's kernel's tree or chunks */
    gv_result_order_free(r);
    r->env.order = d->order;
    r->env.arch = d->arch;
    snprintf(r->math_mode, sizeof r->math_mode, "outputs given");
    for (int i = 0; i < s->n_out; i++) {
        const gv_lowp_info *f = gv_lowp_get(s->out[i].dtype);
        if (!f) continue;
        snprintf(r->math_mode, sizeof r->math_mode, "outputs given as %s (%s compute)", f->name,
                 gv_dtype_name(c->dtype));
        gv_result_extra(r, "output_rounding_u", ldexp(1.0, -f->p));
        /* the format's least subnormal: the width of a preimage near 0 (gemm's tie probe) */
        gv_result_extra(r, "output_spacing_min", ldexp(1.0, f->emin - f->p + 1));
        /* the models judge the computation; the stored values reach the tier they reach, as
           a reduced mode's do (a bf16 result is 2^-9 off by its rounding alone) */
        if (r->expected_tier > 0)
            snprintf(r->tier_note, sizeof r->tier_note,
                     "outputs stored in %s (rounding up to 2^-%d): tiers reported, not expected",
                     f->name, f->p);
        r->expected_tier = 0.0;
        /* each output is a rounding of its computed value, RN's errors as symmetric as any,
           but judged at its preimage's point nearest the reference (lowp.h), where most
           errors are 0: the lean rule has no model of those */
        if (r->bias.judged) {
            r->bias.judged = false;
            snprintf(r->bias.why_not, sizeof r->bias.why_not,
                     "outputs stored in %s: judged at their preimages' nearest points", f->name);
        }
        /* nor the envelope's lean: where the claimed arithmetic's envelope lies off the
           reference (sm_90's truncating tensor cores, below it on same-signed products),
           the points nearest the reference sit on one side of it, z = +6 for torch's correct
           bf16 bmm on an H100 */
        r->env.lean_unjudged = true;
        break;
    }
}

/* The spec's inputs into p: gpuval's generated ones (checked bit for bit against the
   generator's: a generated case is judged as gpuval's own only on gpuval's own inputs), or
   the caller's (low-precision ones decoded into the compute dtype, exactly). GV_OK, or an
   error message; p stays for the caller to free. */
static int load_inputs(const gv_judge_spec *s, gv_problem *p, gv_result *r, char *err,
                       size_t errlen)
{
    const gv_case *c = &p->c;
    gv_given_inputs given;
    memset(&given, 0, sizeof given);
    given.n = s->n_in;
    void *decoded[GV_MAX_TENSORS] = {0}; /* low-precision inputs in the compute dtype */
    for (int i = 0; i < s->n_in; i++) {
        given.data[i] = s->in[i].data;
        given.count[i] = s->in[i].count;
        const gv_lowp_info *f = gv_lowp_get(s->in[i].dtype);
        if (!f) continue;
        size_t es = gv_dtype_size(c->dtype);
        decoded[i] = malloc(s->in[i].count > 0 ? (size_t)s->in[i].count * es : 1);
        if (!decoded[i]) {
            for (int k = 0; k < i; k++)
                free(decoded[k]);
            return gv_api_error(err, errlen, GV_ENOMEM, "too little host memory for the inputs");
        }
        /* exact in f32 and f64 alike: the oracle computes on the stored values */
        for (int64_t k = 0; k < s->in[i].count; k++)
            gv_dtype_store(c->dtype, decoded[i], k, gv_lowp_decode(f, s->in[i].data, k));
        given.data[i] = decoded[i];
    }
    if (s->dist) {
        given.inputs = GV_INPUTS_GENERATED;
        if (!gv_given_match(p, &given)) {
            char sz[96];
            return gv_api_error(
                err, errlen, GV_EINVAL,
                "the inputs are not the ones gpuval generates for %s %s %s %s seed %llu "
                "(gpuval inputs writes those); leave the distribution out to judge them "
                "as given data",
                c->op->name, gv_dtype_name(c->dtype), gv_dist_name(c->dist),
                gv_shape_format(&c->shape, sz, sizeof sz), (unsigned long long)c->seed);
        }
        gv_result_set_inputs(r, GV_INPUTS_GENERATED);
        return GV_OK;
    }
    given.inputs = GV_INPUTS_GIVEN;
    int rc = gv_problem_given(p, &given, r);
    for (int i = 0; i < s->n_in; i++) /* copied into p */
        free(decoded[i]);
    if (rc != GV_OK)
        return gv_api_error(err, errlen, GV_EINTERNAL, "the inputs do not fit the layout");
    return GV_OK;
}

/* The spec's outputs into p's output tensors: as given, or a low-precision output projected
   to its preimage's point nearest the reference (lowp.h). GV_OK or GV_ENOMEM. */
static int load_outputs(const gv_judge_spec *s, gv_problem *p)
{
    for (int i = 0; i < s->n_out; i++) {
        const gv_lowp_info *f = gv_lowp_get(s->out[i].dtype);
        if (!f) {
            memcpy(p->out[i].data, s->out[i].data,
                   (size_t)p->out[i].count * gv_dtype_size(p->c.dtype));
            continue;
        }
        double *x = malloc(sizeof *x * (size_t)p->out[i].count + 1);
        if (!x) return GV_ENOMEM;
        gv_lowp_project(f, s->out[i].data, p->out[i].ref, p->out[i].count, x);
        gv_dtype_store_n(p->c.dtype, p->out[i].data, x, p->out[i].count);
        free(x);
    }
    return GV_OK;
}

/* Each array's record (array_record) for the case's JSON. */
static json_t *arrays_json(const gv_judge_spec *s)
{
    json_t *ins = json_array(), *outs = json_array();
    for (int i = 0; i < s->n_in; i++)
        json_array_append_new(ins, array_record(&s->in[i], "input", i, s->dist != NULL));
    for (int i = 0; i < s->n_out; i++)
        json_array_append_new(outs, array_record(&s->out[i], "output", i, false));
    return json_pack("{s:o, s:o}", "inputs", ins, "outputs", outs);
}

/* One judgement of the spec's outputs: the case it names, its inputs, the oracle, the judge;
   whether a FAIL could turn with flushing declared into *flush_matters. */
static int judge_run_once(const gv_judge_spec *s, gv_result *r, json_t **arrays,
                          bool *flush_matters, char *err, size_t errlen)
{
    if (arrays) *arrays = NULL;
    if (flush_matters) *flush_matters = false;
    if (!s || !r) return gv_api_error(err, errlen, GV_EINVAL, "no spec");
    int rc = check_counts(s, err, errlen);
    if (rc != GV_OK) return rc;
    bool lowp_in, lowp_out;
    int dtype = compute_dtype(s, &lowp_in, &lowp_out);
    declared d;
    rc = parse_declared(s->mode, &d, err, errlen);
    if (rc != GV_OK) return rc;
    gv_case c;
    gv_layout l;
    rc = gv_judge_case_make(s->op, dtype, d.mode, s->size, s->dist, s->seed, &c, &l, err, errlen);
    if (rc != GV_OK) return rc;
    if (lowp_in || lowp_out) {
        rc = check_lowp(s, &c, lowp_in, err, errlen);
        if (rc != GV_OK) return rc;
    }
    rc = check_arrays(s, &c, &l, err, errlen);
    if (rc != GV_OK) return rc;
    char why[160];
    if (gv_host_memory_check(&c, &l, why, sizeof why) != GV_OK)
        return gv_api_error(err, errlen, GV_ENOMEM, "%s", why);

    result_declared(s, &c, &d, r);
    gv_problem p;
    double t0 = now_ms();
    rc = gv_problem_init(&p, &c);
    r->inputs_ms = now_ms() - t0;
    if (rc != GV_OK) {
        gv_problem_free(&p);
        if (rc == GV_ENOMEM)
            return gv_api_error(err, errlen, rc, "too little host memory for the inputs");
        r->verdict = GV_ERROR;
        gv_oracle_reason(rc, "inputs", r->reason, sizeof r->reason);
        return GV_OK;
    }
    rc = load_inputs(s, &p, r, err, errlen);
    if (rc != GV_OK) {
        gv_problem_free(&p);
        return rc;
    }
    if (d.daz) r->daz_inputs = zero_subnormal_inputs(&p);
    rc = gv_problem_oracle(&p, r);
    if (rc == GV_OK) rc = load_outputs(s, &p);
    if (rc == GV_OK) {
        t0 = now_ms();
        gv_judge_problem(&p, r);
        r->judgements = 1;
        if (flush_matters && r->verdict == GV_FAIL) *flush_matters = flushing_can_matter(&p, r);
        r->judge_ms = now_ms() - t0;
        if (lowp_out) stored_metrics(s, &p, r);
    }
    gv_problem_free(&p);
    if (rc == GV_ENOMEM)
        return gv_api_error(err, errlen, rc, "too little host memory for the outputs");
    if (arrays) *arrays = arrays_json(s);
    return GV_OK;
}

/* Whether the declared behaviours in a mode string include name ("+ftz", "+daz"). */
static bool declares(const char *mode, const char *name)
{
    return mode && strstr(mode, name) != NULL;
}

int gv_judge_run(const gv_judge_spec *s, gv_result *r, json_t **arrays, char *err, size_t errlen)
{
    bool flush_matters = false;
    int rc = judge_run_once(s, r, arrays, &flush_matters, err, errlen);
    if (rc != GV_OK || r->verdict != GV_FAIL) return rc;
    /* The cause of a FAIL that flush-to-zero explains (docs/error-models.md, "Underflow that
       is not promised, and flush-to-zero declared"). CUDA's -ftz, which CuPy's f32 kernels
       are built with, flushes subnormal operands as well as results: a column sum of
       subnormals read as zero misses the model by far more than one flush per underflow
       (caught as precision), and a cumsum's zeros beside a few subnormals kept look like lost
       range. Where the same outputs PASS with ftz and daz both declared, flushing is the
       whole deviation, so the FAIL is named for it; the verdict stays FAIL (nothing was
       declared) and the reason says what declaring would do. Guard and poison are never
       flushing; a FAIL with both declared already has nothing left to try; and where no
       input, output or reference comes near the underflow range (flushing_can_matter) the
       second judgement would repeat the first, at its whole cost (a large product's oracle
       and envelope), to the same FAIL. */
    if (!flush_matters || r->cause == GV_CAUSE_GUARD || r->cause == GV_CAUSE_UNWRITTEN ||
        r->cause == GV_CAUSE_FLUSHED || (declares(s->mode, "+ftz") && declares(s->mode, "+daz")))
        return rc;
    char mode[96];
    int ml = snprintf(mode, sizeof mode, "%s+daz+ftz", s->mode ? s->mode : "native");
    gv_result *flushed = malloc(sizeof *flushed);
    if (ml < 0 || (size_t)ml >= sizeof mode || !flushed) { /* the FAIL stands as first named */
        free(flushed);
        return rc;
    }
    gv_judge_spec s2 = *s;
    s2.mode = mode;
    char err2[256];
    r->judgements = 2;
    if (judge_run_once(&s2, flushed, NULL, NULL, err2, sizeof err2) == GV_OK &&
        flushed->verdict == GV_PASS) {
        char was[sizeof r->reason];
        snprintf(was, sizeof was, "%s", r->reason);
        r->cause = GV_CAUSE_FLUSHED;
        snprintf(r->reason, sizeof r->reason,
                 "flushed subnormals: PASS with ftz and daz allowed (subnormal inputs and results "
                 "as zero, CUDA's -ftz); undeclared: %.120s",
                 was);
    }
    free(flushed);
    return rc;
}

/* ---- the public API -------------------------------------------------------------------- */

static void judgement_from(const gv_result *r, gv_judgement *j)
{
    j->verdict = (int)r->verdict;
    snprintf(j->reason, sizeof j->reason, "%s", r->reason);
    bool judged = r->verdict == GV_PASS || r->verdict == GV_FAIL;
    j->max_rel = j->normwise = j->bits = j->ratio = j->r_max = j->r_rms = NAN;
    if (!judged) return;
    j->max_rel = r->m.max_rel;
    j->normwise = r->m.normwise_rel;
    j->bits = r->m.bits;
    j->ratio = r->m.ratio;
    if (r->prob.on) {
        j->r_max = r->m.prob_max;
        if (r->m.prob_n >= GV_PROB_RMS_MIN_N) j->r_rms = r->m.prob_rms;
    }
    for (int k = 0; k < r->tiers.n; k++) {
        if (r->tiers.t[k] == 1e-8) j->meets_1e8 = gv_tier_met(&r->m, k);
        if (r->tiers.t[k] == 1e-4) j->meets_1e4 = gv_tier_met(&r->m, k);
    }
}

int gv_judge(const gv_judge_spec *spec, gv_judgement *j)
{
    if (!j) return GV_API_EINVAL;
    memset(j, 0, sizeof *j);
    j->verdict = GV_VERDICT_ERROR;
    j->max_rel = j->normwise = j->bits = j->ratio = j->r_max = j->r_rms = NAN;
    gv_result *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(j->reason, sizeof j->reason, "out of host memory");
        return GV_API_ENOMEM;
    }
    json_t *arrays = NULL;
    int rc = gv_judge_run(spec, r, &arrays, j->reason, sizeof j->reason);
    if (rc != GV_OK) {
        free(r);
        return rc == GV_ENOMEM ? GV_API_ENOMEM : GV_API_EINVAL;
    }
    judgement_from(r, j);
    json_t *o = gv_result_json(r);
    if (o && arrays) json_object_set(o, "arrays", arrays);
    /* the row as check and judge print it, from their one formatter (io/run_doc.c), so that a
       binding shows the same line instead of formatting its own */
    char *row = gv_table_row_text(r);
    if (o && row) json_object_set_new(o, "row", json_string(row));
    free(row);
    j->json = o ? json_dumps(o, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(o);
    json_decref(arrays);
    free(r);
    if (!j->json) {
        snprintf(j->reason, sizeof j->reason, "out of host memory for the case's JSON");
        return GV_API_ENOMEM;
    }
    return GV_API_OK;
}

void gv_judgement_free(gv_judgement *j)
{
    if (!j) return;
    free(j->json);
    j->json = NULL;
}
