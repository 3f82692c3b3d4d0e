/* run_text.c: check's table on the terminal (see run_text.h): the header, the rows
 * (io/run_doc.c's text, wrapped to the terminal's width), the count and `gpuval info`'s device
 * block. */
#include "render/run_text.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void gv_table_header(FILE *f)
{
    fprintf(f, "%-24s %-5s %-8s %-9s %-16s %9s %9s %5s %8s %7s %6s %5s %5s  %s\n", "op", "dtype",
            "mode", "dist", "shape", "max_rel", "normwise", "bits", "ratio", "R_max", "R_rms",
            "1e-8", "1e-4", "verdict");
}

/* The bytes of s that make its first cols characters (a UTF-8 continuation byte never starts
   one), and their count of characters in *chars. */
static size_t prefix_bytes(const char *s, size_t cols, size_t *chars)
{
    size_t b = 0, c = 0;
    while (s[b]) {
        if (((unsigned char)s[b] & 0xC0) != 0x80) {
            if (c == cols) break;
            c++;
        }
        b++;
    }
    *chars = c;
    return b;
}

void gv_wrap_row(FILE *f, const char *line, int cols)
{
    assert(!strchr(line, '\n'));
    size_t chars, n = strlen(line);
    if (cols <= GV_ROW_INDENT + 1 || prefix_bytes(line, (size_t)cols, &chars) == n) {
        fprintf(f, "%s\n", line);
        return;
    }
    const char *p = line;
    size_t room = (size_t)cols;
    while (*p) {
        size_t take = prefix_bytes(p, room, &chars);
        if (p[take]) { /* more than fits: break before the last note ("(...)" or "[...]")
                          that starts in the line's second half, else at the last space, else
                          cut the word */
            size_t sp = take, note = take;
            while (sp > 0 && p[sp] != ' ')
                sp--;
            while (note > take / 2 &&
                   !(p[note] == ' ' && (p[note + 1] == '(' || p[note + 1] == '[')))
                note--;
            if (note > take / 2)
                take = note;
            else if (sp > 0)
                take = sp;
        }
        if (p != line) fprintf(f, "%*s", GV_ROW_INDENT, "");
        fprintf(f, "%.*s\n", (int)take, p);
        p += take;
        while (*p == ' ')
            p++;
        room = (size_t)cols - GV_ROW_INDENT;
    }
}

void gv_table_row(FILE *f, const gv_result *r)
{
    char *text = gv_table_row_text(r);
    if (text) fprintf(f, "%s\n", text);
    free(text);
}

void gv_table_row_fit(FILE *f, const gv_result *r, int cols)
{
    if (cols <= 0) {
        gv_table_row(f, r);
        return;
    }
    char *text = gv_table_row_text(r);
    if (text) gv_wrap_row(f, text, cols);
    free(text);
}

void gv_summary_print(FILE *f, const gv_summary *s)
{
    fprintf(f, "%d cases: %d passed, %d failed, %d skipped, %d errors\n",
            s->pass + s->fail + s->skip + s->error, s->pass, s->fail, s->skip, s->error);
}

void gv_device_print(FILE *f, const gk_device_info *d)
{
    fprintf(f, "device           %s\n", d->name);
    fprintf(f, "uuid             %s\n", d->uuid);
    fprintf(f, "compute cap.     %d.%d\n", d->cc_major, d->cc_minor);
    fprintf(f, "SMs              %d\n", d->sm_count);
    fprintf(f, "SM clock         %d MHz\n", d->sm_clock_mhz);
    fprintf(f, "memory clock     %d MHz, %d-bit bus\n", d->mem_clock_mhz, d->mem_bus_bits);
    fprintf(f, "memory           %.1f GiB total, %.1f GiB free\n",
            d->mem_total_bytes / 1073741824.0, d->mem_free_bytes / 1073741824.0);
    fprintf(f, "L2               %.1f MiB\n", d->l2_bytes / 1048576.0);
    fprintf(f, "ECC              %s\n", d->ecc_enabled ? "on" : "off");
    fprintf(f, "driver / runtime %d / %d\n", d->driver_version, d->runtime_version);
    fprintf(f, "cuBLAS           %d\n", d->cublas_version);
    char code[160];
    gv_device_code(d, code, sizeof code);
    fprintf(f, "kernel code      %s\n", code);
}
