/* knobs.c: gpuval's environment (knobs.h), the only place in src/ that calls getenv. */
#include "core/knobs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/gk.h"

static gv_knobs_t knobs;
static pthread_once_t knobs_once = PTHREAD_ONCE_INIT;

static bool read_FLAG(const char *var)
{
    const char *e = getenv(var);
    return e && e[0] == '1' && e[1] == '\0';
}

/* A copy of the value, kept in the knob's own buffer: getenv's pointer dies when the variable
   changes, and a test may change it after reading. A value longer than the buffer is cut. */
enum { TEXT_MAX = 1024 };
static char text_buf[32][TEXT_MAX];
static int text_next;

static const char *read_TEXT(const char *var)
{
    const char *e = getenv(var);
    char *buf = text_buf[text_next++];
    if (!e) return NULL;
    strncpy(buf, e, TEXT_MAX - 1);
    buf[TEXT_MAX - 1] = '\0';
    return buf;
}

static int read_INT(const char *var)
{
    const char *e = getenv(var);
    if (!e || !*e) return -1;
    char *end;
    long v = strtol(e, &end, 10);
    return *end == '\0' && v >= 0 && v <= 1 << 30 ? (int)v : -1;
}

static void load(void)
{
    text_next = 0;
#define GV_KNOB_READ_(field, var, kind, what) knobs.field = read_##kind(var);
    GV_KNOBS(GV_KNOB_READ_)
#undef GV_KNOB_READ_
    /* the driver's own variable: with it set every module is JIT-compiled from PTX */
    const char *force_jit = gv_env("CUDA_FORCE_PTX_JIT");
    gk_knobs down = {.pageable = knobs.pageable,
                     .no_device_pool = knobs.no_device_pool,
                     .device_phases = knobs.device_phases,
                     .inject_launch_fault =
                         knobs.inject_fault && strcmp(knobs.inject_fault, "launch") == 0,
                     .perturb_device = knobs.perturb_device,
                     .generic_kernels = knobs.generic_kernels,
                     .force_ptx_jit = force_jit && force_jit[0] == '1'};
    gk_set_knobs(&down);
}

const gv_knobs_t *gv_knobs(void)
{
    pthread_once(&knobs_once, load);
    return &knobs;
}

void gv_knobs_reload(void)
{
    pthread_once(&knobs_once, load);
    load();
}

const char *gv_env(const char *name)
{
    return getenv(name);
}
