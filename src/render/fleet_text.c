/* fleet_text.c: the workers' lines on the terminal (see fleet_text.h). stdout is flushed before
 * anything goes to stderr, so that a worker's errors stand beside its own output. */
#include "render/fleet_text.h"

#include <stdio.h>
#include <sys/stat.h>

#include "core/gv.h" /* gv_printable */

static void print_file(const char *path, FILE *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char buf[8192];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, got, out);
    fclose(f);
}

static void print_banner(const char *cmd, const gv_device_plan *plan, bool serial)
{
    int n = plan->n;
    printf("%s on %d devices, one worker process each%s:", cmd, n,
           serial ? ", one after another" : "");
    for (int i = 0; i < n; i++)
        printf(" %d", plan->index[i]);
    printf("\n");
    fflush(stdout);
}

static void print_worker(int device, int exit_code, const char *out_path, const char *err_path)
{
    printf("\n== device %d (worker exit %d) ==\n", device, exit_code);
    fflush(stdout);
    print_file(out_path, stdout);
    struct stat st;
    if (stat(err_path, &st) == 0 && st.st_size > 0) {
        fflush(stdout);
        print_file(err_path, stderr);
    }
}

static void print_no_run(int device, bool killed, double time_box_s, const char *err)
{
    char shown[2048];
    fflush(stdout);
    if (killed)
        fprintf(stderr,
                "gpuval: device %d left no run: its worker was still running at the "
                "time box of %.0f s and was killed\n",
                device, time_box_s);
    else
        fprintf(stderr, "gpuval: device %d left no run: %s\n", device,
                gv_printable(err, shown, sizeof shown));
}

const gv_fleet_printer gv_fleet_text_printer = {
    .banner = print_banner, .worker = print_worker, .no_run = print_no_run};
