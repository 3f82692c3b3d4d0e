/* knobs.h: gpuval's environment (knobs.c). Every GPUVAL_* variable is a row of GV_KNOBS, read
 * once into one struct and passed down (the device layer gets its part through gk_set_knobs:
 * it never reads the environment itself); every other variable gpuval reads (the launcher's,
 * the libraries', the XDG directories) goes through gv_env. Nothing else in src/ or kernels/
 * calls getenv (tests/cpu/test_layers.c). */
#ifndef GV_KNOBS_H
#define GV_KNOBS_H

#include <stdbool.h>

/* X(field, variable, kind, what it does). Kinds: FLAG is on for the value "1" alone; TEXT is
 * the value as set (NULL when unset); INT is a decimal integer (-1 when unset or not one). */
#define GV_KNOBS(X)                                                                                \
    X(serial_case, "GPUVAL_SERIAL_CASE", FLAG,                                                     \
      "every step of a case on one thread: the device run does not overlap the oracle")            \
    X(inject_fault, "GPUVAL_INJECT_FAULT", TEXT,                                                   \
      "for the tests: KIND:GLOB makes the host code of matching cases crash, abort, hang or "      \
      "end in ERROR; "                                                                             \
      "'launch' makes every device run stop where it would launch")                                \
    X(cache_max, "GPUVAL_CACHE_MAX", TEXT,                                                         \
      "the oracle cache's size cap: bytes with an optional K, M, G or T (default 32G)")            \
    X(cache_min_ms, "GPUVAL_CACHE_MIN_MS", TEXT,                                                   \
      "the fixed cost of reading an oracle cache entry back (ms, default 1): a reference is "      \
      "stored when its oracle took longer than this plus its bytes at 4 GB/s")                     \
    X(cache_symlink, "GPUVAL_CACHE_SYMLINK", FLAG,                                                 \
      "use an oracle cache directory that is (or lies below) a symbolic link; refused otherwise")  \
    X(openblas_core_from, "GPUVAL_OPENBLAS_CORE_FROM", TEXT,                                       \
      "set by gpuval when it named OpenBLAS's core itself: the core OpenBLAS had detected")        \
    X(pageable, "GPUVAL_PAGEABLE", FLAG,                                                           \
      "copy tensors from pageable memory instead of staging them through pinned buffers")          \
    X(no_device_pool, "GPUVAL_NO_DEVICE_POOL", FLAG,                                               \
      "take every device tensor from cudaMalloc instead of the memory pool kept across cases")     \
    X(device_phases, "GPUVAL_DEVICE_PHASES", FLAG,                                                 \
      "print the wall time of each phase of every device run on stderr")                           \
    X(perturb_device, "GPUVAL_PERTURB_DEVICE", INT,                                                \
      "for the tests: device N changes its first output by 2 ulps (a planted outlier GPU)")        \
    X(screen_fault, "GPUVAL_SCREEN_FAULT", TEXT,                                                   \
      "for the tests of screen: DEV:KIND[:ARG][@GLOB] corrupts output 0 on device DEV (one-in:N, " \
      "mantissa[:B], exponent[:B], constant[:V]; core/fault.h)")                                   \
    X(generic_kernels, "GPUVAL_GENERIC_KERNELS", FLAG,                                             \
      "the hand-written kernels take their generic paths (those of GPUs without cp.async) on any " \
      "GPU, to test them where the fast paths exist")                                          \
    X(no_judge_cache, "GPUVAL_NO_JUDGE_CACHE", FLAG,                                               \
      "judge every output again: check takes no judgement from the cache, even where the case, "  \
      "its inputs and every output byte are those of one judged before (core/judge_memo.h)")      \
    X(envelope, "GPUVAL_ENVELOPE", TEXT,                                                           \
      "unset, 1 or on: given inputs of products and sums are also judged by the envelope of "    \
      "the claimed arithmetic (docs/error-models.md); 0 or off: the worst-case model alone")

#define GV_KNOB_TYPE_FLAG bool
#define GV_KNOB_TYPE_TEXT const char *
#define GV_KNOB_TYPE_INT  int

typedef struct gv_knobs_t {
#define GV_KNOB_FIELD_(field, var, kind, what) GV_KNOB_TYPE_##kind field;
    GV_KNOBS(GV_KNOB_FIELD_)
#undef GV_KNOB_FIELD_
} gv_knobs_t;

/* The knobs, read from the environment on first use (thread-safe) and handed to the device
 * layer then. */
const gv_knobs_t *gv_knobs(void);
/* Read them again (a test that set a variable in its own process), and hand them down. */
void gv_knobs_reload(void);


/* Any other environment variable (not gpuval's own): its value, or NULL. */
const char *gv_env(const char *name);

#endif
