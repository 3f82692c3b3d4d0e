/* progress.h: the line `gpuval check` keeps updated on a terminal while its cases run
 * (progress.c): which case, the time so far and an estimate of the time left, then the case. */
#ifndef GV_PROGRESS_H
#define GV_PROGRESS_H

#include <stddef.h>

/* The line's widest: it is rewritten in place with '\r', which a line that wrapped in an
   80-column terminal would defeat. */
#define GV_PROGRESS_COLS 79

/* "1 s", "59 s", "2 min 05 s", "1 h 02 min": a duration for a person, whole units. */
void gv_progress_duration(char *buf, size_t len, double s);

/* "case 121/412, 14 s, ~35 s left: LABEL" into buf (at most GV_PROGRESS_COLS characters, the
   label cut to fit): case `started` (0-based) of n is starting, elapsed_s since the first. The
   estimate is the mean time of the cases done so far times the cases not done: cases differ
   in cost, so it is marked "~" and left out until one case has finished. */
void gv_progress_line(char *buf, size_t len, int started, int n, double elapsed_s,
                      const char *label);

#endif
