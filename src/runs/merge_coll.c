/* merge_coll.c: the per-rank collectives files of one MPI job as one table (merge_coll.h). Each
 * rank's file holds its own verdict, #wrong and median time for every collective (rank_*);
 * the job's figures are recomputed here from them, as the ranks' MPI reduction made them;
 * render/coll_text.c prints the table. */
#include "runs/merge_coll.h"
#include "io/infile.h"
#include "io/json_util.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_json.h" /* gv_jnum, gv_jstr */
#include "core/gv.h"
#include "io/outfile.h"
#include "coll/coll.h"
#include "runs/merge_check.h" /* GV_FLEET_SLOW_FRACTION */
#include "io/run_doc.h"
#include "io/run_read.h"
#include "io/schemas.h"

bool gv_coll_merge_is_collectives(const char *path)
{
    /* any file the strict reader takes; one it refuses is said by the loader that follows */
    json_t *doc;
    char err[1024];
    if (gv_run_read(path, NULL, &doc, err, sizeof err) != GV_OK) return false;
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    bool yes = schema && strcmp(schema, gv_schema(GV_DOC_COLLECTIVES)) == 0;
    json_decref(doc);
    return yes;
}

static gv_verdict verdict_of(const char *s)
{
    for (int v = GV_PASS; v <= GV_ERROR; v++)
        if (strcmp(s, gv_verdict_name((gv_verdict)v)) == 0) return (gv_verdict)v;
    return GV_ERROR; /* a verdict gpuval never writes: not a pass */
}

/* PASS < SKIP < FAIL < ERROR, as the ranks' reduction orders them. */
static int severity(gv_verdict v)
{
    return v == GV_PASS ? 0 : v == GV_SKIP ? 1 : v == GV_FAIL ? 2 : 3;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The files as one job's ranks 0..ranks-1, each once, with the same rows: docs[r] is rank r's.
   0, or -1 with the reason in err. */
static int order_ranks(json_t **loaded, const char *const *paths, int n, json_t **docs, char *err,
                       size_t len)
{
    /* ranks and rank are integers in range (gv_run_read): converted only after that check */
    int ranks = (int)gv_jint_in(loaded[0], "ranks", 1, GV_RUN_MAX_RANKS, -1);
    if (ranks != n) {
        snprintf(err, len, "%s is one of %d ranks, %d files given", paths[0], ranks, n);
        return -1;
    }
    const json_t *rows0 = json_object_get(loaded[0], "collectives");
    for (int i = 0; i < n; i++) {
        long long r = gv_jint_in(loaded[i], "rank", 0, n - 1, -1);
        if (r < 0 || gv_jint_in(loaded[i], "ranks", 1, GV_RUN_MAX_RANKS, -1) != ranks) {
            snprintf(err, len,
                     "%s is not a rank of this %d-rank job (collectives run under "
                     "mpirun or srun write one)",
                     paths[i], ranks);
            return -1;
        }
        if (docs[(int)r]) {
            snprintf(err, len, "rank %d twice: %s", (int)r, paths[i]);
            return -1;
        }
        docs[(int)r] = loaded[i];
        const json_t *rows = json_object_get(loaded[i], "collectives");
        bool same = json_array_size(rows) == json_array_size(rows0) &&
                    gv_jnum(loaded[i], "seed") == gv_jnum(loaded[0], "seed");
        for (size_t k = 0; same && k < json_array_size(rows); k++) {
            const json_t *a = json_array_get(rows, k), *b = json_array_get(rows0, k);
            same = strcmp(gv_jstr(a, "collective"), gv_jstr(b, "collective")) == 0 &&
                   strcmp(gv_jstr(a, "dtype"), gv_jstr(b, "dtype")) == 0 &&
                   gv_jnum(a, "count") == gv_jnum(b, "count") &&
                   json_object_get(a, "rank_verdict") != NULL;
        }
        if (!same) {
            snprintf(err, len, "%s and %s are not ranks of one run (their collectives differ)",
                     paths[i], paths[0]);
            return -1;
        }
    }
    return 0;
}

/* Rank r's row k, in m's arrays. */
static size_t at(const gv_coll_merged *m, size_t k, int r)
{
    return k * (size_t)m->n + (size_t)r;
}

/* Row k of the job from its ranks' rows: the worst verdict, the #wrong summed, the slowest
   rank's time and the bandwidth from it; each rank's time added to its sum. */
static void merge_row(gv_coll_merged *m, size_t k)
{
    int n = m->n;
    gv_coll_merged_row *out = &m->rows[k];
    const json_t *row0 = json_array_get(json_object_get(m->docs[0], "collectives"), k);
    const gv_coll_desc *d = gv_coll_find(gv_jstr(row0, "collective"));
    int dt = strcmp(gv_jstr(row0, "dtype"), "f64") == 0 ? GV_F64 : GV_F32;
    int worst = 0;
    double wrong = 0, slowest = 0;
    out->row0 = row0;
    for (int r = 0; r < n; r++) {
        const json_t *row = json_array_get(json_object_get(m->docs[r], "collectives"), k);
        gv_verdict v = verdict_of(gv_jstr(row, "rank_verdict"));
        double w = gv_jnum(row, "rank_wrong"), ms = gv_jnum(row, "rank_time_ms");
        if (severity(v) > worst) worst = severity(v);
        wrong += isfinite(w) ? w : 0;
        if (isfinite(ms) && ms > slowest) slowest = ms;
        if (isfinite(ms)) m->rank_ms[r] += ms;
        m->cell_verdict[at(m, k, r)] = v;
        m->cell_wrong[at(m, k, r)] = w;
        m->cell_ms[at(m, k, r)] = ms;
    }
    gv_verdict job = worst == 0 ? GV_PASS : worst == 1 ? GV_SKIP : worst == 2 ? GV_FAIL : GV_ERROR;
    if (job == GV_PASS && wrong > 0) job = GV_FAIL; /* a count the verdicts did not carry */
    m->pass += job == GV_PASS;
    m->fail += job == GV_FAIL;
    m->skip += job == GV_SKIP;
    m->error += job == GV_ERROR;
    double busbw = NAN;
    if (d && slowest > 0)
        busbw = gv_coll_algbw_bytes(d->kind, gv_jint_in(row0, "count", 0, INT64_MAX, 0), n, dt) /
                (slowest * 1e-3) / 1e9 * gv_coll_busbw_factor(d->kind, n);
    out->verdict = job;
    out->wrong = wrong;
    out->busbw = busbw;
}

/* The job's rows from docs (rank r's at [r], taken), and the ranks against their median. */
static gv_status merge_docs(json_t **docs, int n, gv_coll_merged *m)
{
    m->n = n;
    m->docs = docs;
    m->n_rows = json_array_size(json_object_get(docs[0], "collectives"));
    size_t cells = m->n_rows * (size_t)n;
    m->rows = calloc(m->n_rows ? m->n_rows : 1, sizeof *m->rows);
    m->cell_verdict = calloc(cells ? cells : 1, sizeof *m->cell_verdict);
    m->cell_wrong = calloc(cells ? cells : 1, sizeof *m->cell_wrong);
    m->cell_ms = calloc(cells ? cells : 1, sizeof *m->cell_ms);
    m->rank_ms = calloc((size_t)n, sizeof *m->rank_ms);
    m->slow = calloc((size_t)n, sizeof *m->slow);
    if (!m->rows || !m->cell_verdict || !m->cell_wrong || !m->cell_ms || !m->rank_ms || !m->slow)
        return GV_ST_RUNTIME;
    for (size_t k = 0; k < m->n_rows; k++)
        merge_row(m, k);
    /* ranks against their median: a slow GPU or link shows in every collective it joins */
    double *sorted = malloc((size_t)n * sizeof *sorted);
    if (sorted) {
        memcpy(sorted, m->rank_ms, (size_t)n * sizeof *sorted);
        qsort(sorted, (size_t)n, sizeof *sorted, by_double);
        m->median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
        m->have_median = true;
        for (int r = 0; r < n; r++) {
            m->slow[r] = m->median > 0 && m->rank_ms[r] > m->median * (1 + GV_FLEET_SLOW_FRACTION);
            m->n_slow += m->slow[r];
        }
        free(sorted);
    }
    m->merged = true;
    return gv_run_status(m->fail, m->error, m->pass, true, false);
}

void gv_coll_merged_free(gv_coll_merged *m)
{
    for (int r = 0; m->docs && r < m->n; r++)
        json_decref(m->docs[r]);
    free(m->docs);
    free(m->rows);
    free(m->cell_verdict);
    free(m->cell_wrong);
    free(m->cell_ms);
    free(m->rank_ms);
    free(m->slow);
    memset(m, 0, sizeof *m);
}

gv_status gv_coll_merge(const char *const *paths, int n, gv_coll_merged *m, gv_error *e)
{
    memset(m, 0, sizeof *m);
    json_t **loaded = calloc((size_t)n, sizeof *loaded), **docs = calloc((size_t)n, sizeof *docs);
    gv_status rc = GV_ST_BAD_INPUT;
    char err[1024] = "";
    if (!loaded || !docs) {
        rc = GV_ST_RUNTIME;
        goto done;
    }
    for (int i = 0; i < n; i++) {
        /* a missing, truncated or malformed rank file is named as such by the strict reader;
           only a whole run of another kind is "not a collectives run" */
        const char *const schemas[] = {gv_schema(GV_DOC_COLLECTIVES), NULL};
        if (gv_run_read(paths[i], NULL, &loaded[i], err, sizeof err) != GV_OK) goto done;
        const char *schema = json_string_value(json_object_get(loaded[i], "schema"));
        if (strcmp(schema, schemas[0]) != 0) {
            snprintf(err, sizeof err, "%s is a %s run, not a %s run (mixed with %s)", paths[i],
                     schema, gv_schema(GV_DOC_COLLECTIVES), paths[0]);
            goto done;
        }
    }
    if (order_ranks(loaded, paths, n, docs, err, sizeof err) != 0) goto done;
    rc = merge_docs(docs, n, m); /* m holds the documents now */
    docs = NULL;
    free(loaded);
    loaded = NULL;
done:
    gv_err_set(e, rc, "%s", err);
    for (int i = 0; loaded && i < n; i++)
        json_decref(loaded[i]);
    free(loaded);
    free(docs);
    return rc;
}
