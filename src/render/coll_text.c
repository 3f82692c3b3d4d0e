/* coll_text.c: the terminal tables of `gpuval collectives` (coll_text.h): the columns of a
 * collective's row, its reason and whether the ranks' outputs were bit-identical; and `gpuval
 * merge`'s table of an MPI job's rank files. */
#include "render/coll_text.h"

#include <limits.h>
#include <stdio.h>

#include "core/gv.h"
#include "io/json_util.h"
#include "io/run_read.h" /* gv_jint_in */

void gv_coll_print_header(void)
{
    printf("%-18s %-5s %12s %11s %7s %9s %11s %11s %11s  %s\n", "collective", "dtype", "bytes/rank",
           "count", "#wrong", "ratio", "time us", "algbw GB/s", "busbw GB/s", "verdict");
}

void gv_coll_print_row(const gv_coll_row *row)
{
    printf("%-18s %-5s %12lld %11lld %7lld %9.3g %11.1f %11.2f %11.2f  %s", row->d->name,
           gv_dtype_name((gv_dtype)row->dtype), (long long)row->bytes, (long long)row->count,
           (long long)row->wrong, row->ratio, row->time_ms * 1e3, row->algbw, row->busbw,
           gv_verdict_name(row->verdict));
    if (row->reason[0]) printf(" (%s)", row->reason);
    if (row->verdict == GV_PASS && !row->ranks_identical)
        printf(" [ranks' outputs not bit-identical]");
    printf("\n");
    fflush(stdout);
}

/* The MPI driver's own lines (coll/coll_rank.c): the ranks, a job's or a rank's SKIP, the
   count, a rank's error. */
static void print_ranks(const gv_coll_rank_gpu *all, int size)
{
    printf("collectives over %d ranks, one GPU each (NCCL_NVLS_ENABLE=0):", size);
    for (int r = 0; r < size; r++)
        printf(" %d=%s:dev%d", r, all[r].host, all[r].device);
    printf("\n");
}

static void print_shared_gpu(const gv_coll_rank_gpu *all, int a, int b)
{
    printf("collectives: SKIP (ranks %d and %d share device %d of %s: NCCL needs "
           "one GPU per rank; start at most as many ranks per node as it has "
           "GPUs)\n",
           a, b, all[a].device, all[a].host);
}

static void print_too_few(void)
{
    printf("collectives: SKIP (1 rank; they need 2 or more)\n");
}

static void print_rank_skip(int rank, int size, const char *why)
{
    printf("collectives: SKIP rank %d of %d (%s)\n", rank, size, why);
}

static void print_summary(const gv_coll_counts *n, int size, int nccl_version)
{
    printf("%d collectives over %d ranks: %d passed, %d failed, %d skipped, %d errors "
           "(NCCL %d)\n",
           n->pass + n->fail + n->error + n->skip, size, n->pass, n->fail, n->skip, n->error,
           nccl_version);
}

static void print_error(const char *msg)
{
    fprintf(stderr, "gpuval: %s\n", msg);
}

const gv_coll_table gv_coll_text_table = {
    .header = gv_coll_print_header,
    .row = gv_coll_print_row,
    .ranks = print_ranks,
    .shared_gpu = print_shared_gpu,
    .too_few = print_too_few,
    .rank_skip = print_rank_skip,
    .summary = print_summary,
    .error = print_error,
};

void gv_coll_merge_print(FILE *out, const gv_coll_merged *m, bool quiet)
{
    int n = m->n;
    json_t **docs = m->docs;
    fprintf(out, "collectives of %d ranks:", n);
    for (int r = 0; r < n; r++)
        fprintf(out, " rank%d=%s:dev%d", r, gv_jstr(docs[r], "fleet.host"),
                (int)gv_jint_in(docs[r], "fleet.device_index", INT_MIN, INT_MAX, -1));
    fprintf(out, "\n%-18s %-5s %12s", "collective", "dtype", "bytes/rank");
    for (int r = 0; r < n; r++) {
        char name[16];
        snprintf(name, sizeof name, "rank%d", r);
        fprintf(out, "   %-6s %7s %10s", name, "#wrong", "time us");
    }
    fprintf(out, " %7s %11s  %s\n", "#wrong", "busbw GB/s", "verdict");
    for (size_t k = 0; k < m->n_rows; k++) {
        const gv_coll_merged_row *row = &m->rows[k];
        if (quiet && row->verdict == GV_PASS) continue;
        char cells[2048] = "";
        size_t used = 0;
        for (int r = 0; r < n; r++) {
            size_t i = k * (size_t)n + (size_t)r;
            if (used < sizeof cells)
                used += (size_t)snprintf(cells + used, sizeof cells - used, "   %-6s %7.0f %10.1f",
                                         gv_verdict_name(m->cell_verdict[i]), m->cell_wrong[i],
                                         m->cell_ms[i] * 1e3);
        }
        fprintf(out, "%-18s %-5s %12.0f%s %7.0f %11.2f  %s\n", gv_jstr(row->row0, "collective"),
                gv_jstr(row->row0, "dtype"), gv_jnum(row->row0, "bytes_per_rank"), cells,
                row->wrong, row->busbw, gv_verdict_name(row->verdict));
    }
    if (m->have_median) {
        fprintf(out, "\nrank time, summed medians (median of ranks %.3f ms):", m->median);
        for (int r = 0; r < n; r++)
            fprintf(out, " rank%d %.3f ms%s", r, m->rank_ms[r], m->slow[r] ? " SLOW" : "");
        fprintf(out, "\n");
    }
    fprintf(out,
            "%d collectives on %d ranks: %d passed, %d failed, %d skipped, %d errors; %d slow "
            "rank%s\n",
            m->pass + m->fail + m->skip + m->error, n, m->pass, m->fail, m->skip, m->error,
            m->n_slow, m->n_slow == 1 ? "" : "s");
}
