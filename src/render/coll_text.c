/* coll_text.c: the terminal table of `gpuval collectives` (coll_text.h): the columns of a
 * collective's row, its reason and whether the ranks' outputs were bit-identical. */
#include "render/coll_text.h"

#include <stdio.h>

#include "core/gv.h"

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

const gv_coll_table gv_coll_text_table = {gv_coll_print_header, gv_coll_print_row};
