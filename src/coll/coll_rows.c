/* coll_rows.c: the rows of a `gpuval collectives` run (coll_rows.h) — which collective, dtype
 * and size each row is, its judgement against the f64 oracle on every rank (coll.h), its JSON
 * (its table row is render/coll_text.c's), and one row run over every local GPU from one process. Shared by the command
 * (cmd/collectives.c) and the ranks of an MPI job (coll_rank.c). */
#include "coll/coll_rows.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "io/json_util.h"
#include "io/outfile.h"
#include "io/run_doc.h"
#include "io/schemas.h"

bool gv_coll_plan_row(const gv_coll_plan *p, int nranks, int i, gv_coll_row *row)
{
    int at = 0;
    for (int k = 0; k < GK_NCOLLS; k++) {
        if (!p->want[k]) continue;
        for (int dt = 0; dt < GV_NDTYPES; dt++) {
            if (!(p->dtypes & (1u << dt)) || (dt != GV_F32 && dt != GV_F64)) continue;
            for (int s = 0; s < p->n_sizes; s++, at++) {
                if (at != i) continue;
                memset(row, 0, sizeof *row);
                assert(gv_colls[k].kind == k); /* want[] is indexed by kind */
                row->d = &gv_colls[k];
                row->dtype = dt;
                row->bytes = p->bytes[s];
                int64_t per_rank_elems = row->bytes / (int64_t)gv_dtype_size(dt);
                /* reduce-scatter's count is what each rank receives: bytes/rank sent / n */
                row->count =
                    k == GK_COLL_REDUCESCATTER_SUM ? per_rank_elems / nranks : per_rank_elems;
                if (row->count < 1) row->count = 1;
                return true;
            }
        }
    }
    return false;
}

void gv_coll_judge_rank(gv_coll_row *row, int nranks, const double *const *in_ref, int rank,
                        const void *out, double *ref, double *gauge)
{
    int kind = row->d->kind, dt = row->dtype;
    int64_t out_n = gk_coll_out_count(kind, row->count, nranks);
    gv_tiers no_tiers = {0};
    gv_coll_reference(kind, nranks, row->count, in_ref, rank, ref, gauge);
    gv_error_model em = gv_coll_model(kind, dt, nranks, gauge);
    gv_metrics m;
    gv_compare(out, (gv_dtype)dt, ref, out_n, &no_tiers, &em,
               gv_mode_precision_bits((gv_dtype)dt, GV_MODE_NATIVE), &m);
    row->wrong += gv_coll_wrong(out, dt, ref, &em, out_n);
    if (isnan(m.ratio) || m.ratio > row->ratio) row->ratio = m.ratio; /* NaN sticks */
    if (m.nonfinite_mismatches || m.poisoned) row->nonfinite = true;
}

void gv_coll_decide(gv_coll_row *row, int nranks)
{
    if (row->wrong == 0 && !row->nonfinite && row->ratio <= GV_DEFAULT_RATIO_BOUND) {
        row->verdict = GV_PASS;
        row->reason[0] = '\0';
    } else {
        row->verdict = GV_FAIL;
        snprintf(row->reason, sizeof row->reason,
                 "%lld elements outside the tolerance over %d ranks; ratio %.3g (bound %.3g)%s",
                 (long long)row->wrong, nranks, row->ratio, GV_DEFAULT_RATIO_BOUND,
                 row->nonfinite ? "; NaN/Inf or unwritten elements" : "");
    }
}

void gv_coll_bandwidths(gv_coll_row *row, int nranks)
{
    int kind = row->d->kind;
    row->algbw =
        gv_coll_algbw_bytes(kind, row->count, nranks, row->dtype) / (row->time_ms * 1e-3) / 1e9;
    row->busbw = row->algbw * gv_coll_busbw_factor(kind, nranks);
}

/* One collective: inputs, oracle, device run, judgement on every rank. */
void gv_coll_run_local(gv_coll_row *row, int nranks, uint64_t seed, int iters, int *nccl_version)
{
    int kind = row->d->kind, dt = row->dtype;
    int64_t count = row->count;
    /* one process drives every rank: the per-rank arrays below hold GK_COLL_MAX_RANKS, which
       the command caps its device count at (cmd/collectives.c) */
    assert(nranks >= 1 && nranks <= GK_COLL_MAX_RANKS);
    int64_t in_n = gk_coll_in_count(kind, count, nranks),
            out_n = gk_coll_out_count(kind, count, nranks);
    size_t es = gv_dtype_size(dt);
    double *in_ref[GK_COLL_MAX_RANKS] = {0};
    void *in[GK_COLL_MAX_RANKS] = {0}, *out[GK_COLL_MAX_RANKS] = {0};
    double *ref = malloc((size_t)out_n * sizeof(double)), *gauge = malloc((size_t)out_n * 8);
    bool ok = ref && gauge;
    for (int r = 0; r < nranks && ok; r++) {
        in_ref[r] = malloc((size_t)in_n * sizeof(double));
        in[r] = malloc((size_t)in_n * es);
        out[r] = malloc((size_t)out_n * es);
        ok = in_ref[r] && in[r] && out[r];
        if (ok) gv_coll_inputs(kind, dt, nranks, count, seed, r, in_ref[r], in[r]);
    }
    row->verdict = GV_ERROR;
    if (!ok) {
        snprintf(row->reason, sizeof row->reason, "out of host memory");
        goto done;
    }
    gk_coll c = {.kind = kind,
                 .dtype = dt,
                 .nranks = nranks,
                 .count = count,
                 .in = (const void *const *)in,
                 .out = (void *const *)out,
                 .warmup = 5,
                 .iters = iters};
    gk_clear_error();
    int rc = gk_coll_run(&c);
    *nccl_version = c.nccl_version;
    if (rc != GV_OK) {
        row->verdict = rc == GV_EUNSUPPORTED ? GV_SKIP : GV_ERROR;
        snprintf(row->reason, sizeof row->reason, "%s", gk_last_error());
        goto done;
    }
    row->time_ms = c.time_ms;
    gv_coll_bandwidths(row, nranks);
    row->ranks_identical = true;
    for (int r = 0; r < nranks; r++) {
        gv_coll_judge_rank(row, nranks, (const double *const *)in_ref, r, out[r], ref, gauge);
        if (r > 0 && kind != GK_COLL_REDUCESCATTER_SUM &&
            memcmp(out[r], out[0], (size_t)out_n * es) != 0)
            row->ranks_identical = false;
    }
    gv_coll_decide(row, nranks);
done:
    for (int r = 0; r < nranks; r++) {
        free(in_ref[r]);
        free(in[r]);
        free(out[r]);
    }
    free(ref);
    free(gauge);
}

json_t *gv_coll_row_json(const gv_coll_row *r, int nranks)
{
    json_t *o = json_object();
    json_object_set_new(o, "collective", json_string(r->d->name));
    json_object_set_new(o, "dtype", json_string(gv_dtype_name((gv_dtype)r->dtype)));
    json_object_set_new(o, "ranks", json_integer(nranks));
    json_object_set_new(o, "bytes_per_rank", json_integer(r->bytes));
    json_object_set_new(o, "count", json_integer(r->count));
    json_object_set_new(o, "verdict", json_string(gv_verdict_name(r->verdict)));
    json_object_set_new(o, "reason", json_string(r->reason));
    json_object_set_new(o, "exact", json_boolean(r->d->exact));
    json_object_set_new(o, "wrong", json_integer(r->wrong));
    json_object_set_new(o, "ratio", gv_json_num(r->ratio));
    json_object_set_new(o, "ranks_identical", json_boolean(r->ranks_identical));
    json_object_set_new(o, "time_ms", gv_json_num(r->time_ms));
    json_object_set_new(o, "algbw_gbs", gv_json_num(r->algbw));
    json_object_set_new(o, "busbw_gbs", gv_json_num(r->busbw));
    json_object_set_new(o, "busbw_factor", gv_json_num(gv_coll_busbw_factor(r->d->kind, nranks)));
    if (r->per_rank) { /* this rank alone; the fields above are the whole job's */
        json_object_set_new(o, "rank_verdict", json_string(gv_verdict_name(r->rank_verdict)));
        json_object_set_new(o, "rank_wrong", json_integer(r->rank_wrong));
        json_object_set_new(o, "rank_ratio", gv_json_num(r->rank_ratio));
        json_object_set_new(o, "rank_time_ms", gv_json_num(r->rank_time_ms));
    }
    return o;
}

static int emit_json(FILE *f, void *doc)
{
    return json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

bool gv_coll_write_json(const char *path, json_t *rows, int nranks, int nccl_version,
                        const gv_coll_plan *p, json_t *extra, gv_error *e)
{
    gv_run_info info;
    memset(&info, 0, sizeof info);
    info.have_device = gk_device_info_get(&info.device) == GV_OK;
    json_t *root = json_object();
    char when[64];
    json_object_set_new(root, "schema", json_string(gv_schema(GV_DOC_COLLECTIVES)));
    json_object_set_new(root, "created", json_string(gv_json_now(when, sizeof when)));
    json_object_set_new(root, "host", gv_json_host(0));
    json_object_set_new(root, "device",
                        info.have_device ? gv_json_device(&info.device) : json_null());
    json_object_set_new(root, "ranks", json_integer(nranks));
    json_object_set_new(root, "nccl_version", json_integer(nccl_version));
    json_object_set_new(root, "seed", gv_json_seed(p->seed));
    json_object_set_new(root, "iters", json_integer(p->iters));
    if (extra) json_object_update(root, extra);
    json_object_set_new(root, "collectives", rows);
    bool written = gv_write_file(path, emit_json, root) == 0;
    if (!written) gv_write_failure(path, e);
    json_decref(root);
    return written;
}
