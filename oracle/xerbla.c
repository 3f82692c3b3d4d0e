/* xerbla.c: the oracle's error names, after LAPACK's xerbla: an oracle that rejects an
 * argument or runs out of memory records what happened here and returns its code (go.h);
 * go_last_error() gives it back to the caller, which turns it into the case's reason. One
 * message per thread: the last failure of an oracle called on this thread since
 * go_clear_error(), or "" when there was none. */
#include <stdio.h>

#include "go.h"

static _Thread_local char last[160];

int go_xerbla(const char *fn, int i, const char *arg)
{
    snprintf(last, sizeof last, "%s: argument %d (%s) is invalid", fn, i, arg);
    return -i;
}

int go_enomem(const char *fn)
{
    snprintf(last, sizeof last, "%s: out of memory", fn);
    return GO_ENOMEM;
}

int go_check_rows(const char *fn, int64_t m, int64_t n, const double *x, int64_t ldx,
                  const double *y, int64_t ldy)
{
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (n < 1) return go_xerbla(fn, 2, "n");
    if (!x) return go_xerbla(fn, 3, "x");
    if (ldx < n) return go_xerbla(fn, 4, "ldx");
    if (!y) return go_xerbla(fn, 5, "y");
    if (ldy < n) return go_xerbla(fn, 6, "ldy");
    return 0;
}

const char *go_last_error(void)
{
    return last;
}

void go_clear_error(void)
{
    last[0] = '\0';
}
