/* fuzz_cli.c: the whole command line. The input, split at NUL bytes, is argv after "gpuval";
 * it runs through the very dispatch and option parsing of `gpuval` (main.c, built here with
 * its main renamed gv_cmd_main) in-process. Built without CUDA, every command that would run
 * work finds no device and stops, so what is fuzzed is the parsing, the output probes and the
 * reading of run files. The run happens in a private temporary directory that holds three run
 * files (a.json check, b.json bench, t.json tradeoffs); an input with a '/' anywhere is
 * skipped, so no output can land outside that directory. The exit code must be one of the
 * documented ones. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef GV_FIXTURES
#error "GV_FIXTURES: the directory of tests/fixtures"
#endif

int gv_cmd_main(int argc, char **argv);

static void copy(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (!in || !out) abort();
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    if (fclose(out)) abort();
}

static void setup(void)
{
    static int done;
    if (done) return;
    done = 1;
    char dir[] = "/tmp/gpuval-fuzz-cli.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir)) abort();
    copy(GV_FIXTURES "/check-h100.json", "a.json");
    copy(GV_FIXTURES "/bench-synthetic.json", "b.json");
    copy(GV_FIXTURES "/tradeoffs-synthetic.json", "t.json");
    if (!freopen("/dev/null", "w", stdout)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (size > 4096 || memchr(data, '/', size)) return 0;
    char *buf = malloc(size + 1);
    char *argv[66];
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    int argc = 0;
    argv[argc++] = "gpuval";
    for (size_t i = 0; i <= size && argc < 65;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    /* getopt keeps state across calls: reinitialise it (optind = 0) as a fresh process would */
    char *none[] = {"gpuval", NULL};
    optind = 0;
    getopt(1, none, "");
    int rc = gv_cmd_main(argc, argv);
    GV_FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2 || rc == 3 || rc == 4 || rc == 5 || rc == 77);
    free(buf);
    return 0;
}
