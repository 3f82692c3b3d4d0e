/* fuzz_case.c: the readers of a case.json. The input is one file, read as gpuval reads it:
 *  - by the strict run-file reader (src/io/run_read.h, gv_run_read with the gpuval-case/1 schema
 *    that check --dump-failures writes, src/io/case_io.h): refused with the file named and no
 *    document, or accepted as a gpuval-case/1 document that validates again;
 *  - by `gpuval replay DIR` (src/cmd/replay.c, through gv_cmd_main), DIR holding the input as
 *    its case.json and nothing else: with no tensor files beside it nothing can run, so the
 *    exit is a usage error (2) whatever case.json says;
 *  - by `gpuval judge --case DIR/case.json` (the gpuval-inputs/1 file of `gpuval inputs`),
 *    whose outputs do not exist: again exit 2.
 * Runs in a private temporary directory; standard output goes to /dev/null. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <getopt.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "core/gv.h"
#include "io/run_read.h"
#include "io/schemas.h"

int gv_cmd_main(int argc, char **argv);

static int memfd = -1;
static char memfd_path[64], dir[64], case_path[96], none_path[96];

static void cleanup(void)
{
    unlink(case_path);
    rmdir(dir);
}

static void setup(void)
{
    if (memfd >= 0) return;
    memfd = memfd_create("fuzz_case", 0);
    if (memfd < 0) abort();
    snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
    snprintf(dir, sizeof dir, "/tmp/gpuval-fuzz-case.XXXXXX");
    if (!mkdtemp(dir)) abort();
    snprintf(case_path, sizeof case_path, "%s/case.json", dir);
    snprintf(none_path, sizeof none_path, "%s/none.npy", dir);
    if (!freopen("/dev/null", "w", stdout)) abort();
    atexit(cleanup); /* the replay's normal exit; libFuzzer may leave the empty directory */
}

static int run(int argc, char **argv)
{
    /* getopt keeps state across calls: reinitialise it as a fresh process would */
    char *none[] = {"gpuval", NULL};
    optind = 0;
    getopt(1, none, "");
    return gv_cmd_main(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (size > 1 << 16) return 0;
    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size) abort();
    const char *const schemas[] = {gv_schema(GV_DOC_CASE), NULL};
    json_t *doc = NULL;
    char err[1024] = "";
    int rc = gv_run_read(memfd_path, schemas, &doc, err, sizeof err);
    GV_FUZZ_CHECK(rc == GV_OK || rc == GV_EINVAL || rc == GV_ENOMEM);
    if (rc == GV_OK) {
        GV_FUZZ_CHECK(doc != NULL);
        const char *schema = json_string_value(json_object_get(doc, "schema"));
        GV_FUZZ_CHECK(schema && strcmp(schema, gv_schema(GV_DOC_CASE)) == 0);
        char again[1024] = "";
        GV_FUZZ_CHECK(gv_run_validate(doc, "again", again, sizeof again) == GV_OK);
        json_decref(doc);
    } else {
        GV_FUZZ_CHECK(doc == NULL);
        if (rc == GV_EINVAL) GV_FUZZ_CHECK(strncmp(err, memfd_path, strlen(memfd_path)) == 0);
    }

    FILE *f = fopen(case_path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f)) abort();
    char *replay[] = {"gpuval", "replay", dir, NULL};
    int replay_rc = run(3, replay);
    if (replay_rc != GV_EXIT_USAGE) fprintf(stderr, "replay exited %d\n", replay_rc);
    GV_FUZZ_CHECK(replay_rc == GV_EXIT_USAGE);
    char *judge[] = {"gpuval", "judge", "--case", case_path, "--outputs", none_path, NULL};
    int judge_rc = run(6, judge);
    if (judge_rc != GV_EXIT_USAGE) fprintf(stderr, "judge --case exited %d\n", judge_rc);
    GV_FUZZ_CHECK(judge_rc == GV_EXIT_USAGE);
    unlink(case_path);
    return 0;
}
