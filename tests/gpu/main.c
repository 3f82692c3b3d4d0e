/* main.c (tests/gpu): the GPU suite's entry. It looks for a device before Criterion starts
 * and returns 77 (meson's skip) when there is none, unless GPUVAL_REQUIRE_GPU (any value but empty
 * or 0) makes that a failure: Criterion alone would exit 0 with every test skipped. The look
 * happens in a forked child so this process never initialises CUDA (Criterion runs each test in a
 * child process of its own, which must start with a clean CUDA state). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gk.h"
#include "require.h"

static int device_present(void)
{
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) _exit(gk_device_count() > 0 ? 0 : 1);
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char *argv[])
{
    /* Criterion re-runs this binary for each test; only the first run asks. */
    if (!getenv("GPUVAL_DEVICE_SEEN")) {
        if (!device_present()) {
            const char *req = getenv("GPUVAL_REQUIRE_GPU");
            if (gv_require_gpu(req)) {
                fprintf(stderr, "gpu suite: no CUDA device and GPUVAL_REQUIRE_GPU=%s\n", req);
                return 1;
            }
            fprintf(stderr, "gpu suite: no CUDA device, skipped (exit 77)\n");
            return 77;
        }
        setenv("GPUVAL_DEVICE_SEEN", "1", 1);
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true)) result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
