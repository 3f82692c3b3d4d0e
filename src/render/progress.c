/* progress.c: check's progress line (see progress.h). */
#include "render/progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void gv_progress_duration(char *buf, size_t len, double s)
{
    if (!(s >= 0) || !isfinite(s)) s = 0;
    long whole = (long)floor(s + 0.5);
    if (whole < 60)
        snprintf(buf, len, "%ld s", whole);
    else if (whole < 3600)
        snprintf(buf, len, "%ld min %02ld s", whole / 60, whole % 60);
    else
        snprintf(buf, len, "%ld h %02ld min", whole / 3600, whole / 60 % 60);
}

void gv_progress_line(char *buf, size_t len, int started, int n, double elapsed_s,
                      const char *label)
{
    if (len == 0) return;
    char took[32], left[48] = "";
    gv_progress_duration(took, sizeof took, elapsed_s);
    if (started > 0 && started < n && elapsed_s >= 0) {
        char eta[32];
        gv_progress_duration(eta, sizeof eta, elapsed_s / started * (n - started));
        snprintf(left, sizeof left, ", ~%s left", eta);
    }
    char full[512];
    if (label && *label)
        snprintf(full, sizeof full, "case %d/%d, %s%s: %s", started + 1, n, took, left, label);
    else
        snprintf(full, sizeof full, "case %d/%d, %s%s", started + 1, n, took, left);
    size_t cap = len - 1 < GV_PROGRESS_COLS ? len - 1 : GV_PROGRESS_COLS, k = strlen(full);
    if (k > cap) k = cap; /* the label's tail goes first: the counts lead */
    memcpy(buf, full, k);
    buf[k] = '\0';
}
