/* power.c: NVML through dlopen (see power.h). The few entry points are declared here from
 * NVML's stable C ABI (nvml.h: nvmlReturn_t is an int, 0 success; devices are opaque
 * handles; energy in mJ; NVML_CLOCK_SM = 1), so no header or library is needed to build. */
#include "core/power.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *nvml_device;
typedef struct nvml_api {
    int (*init)(void);
    int (*by_uuid)(const char *uuid, nvml_device *dev);
    int (*energy)(nvml_device dev, unsigned long long *mj);
    int (*clock)(nvml_device dev, int type, unsigned *mhz);
    int (*reasons)(nvml_device dev, unsigned long long *mask);
    /* optional (gv_link_read): NULL where the library lacks them */
    int (*pcie_gen)(nvml_device dev, unsigned *gen);
    int (*pcie_width)(nvml_device dev, unsigned *width);
    int (*pcie_gen_max)(nvml_device dev, unsigned *gen);
    int (*pcie_width_max)(nvml_device dev, unsigned *width);
    int (*clock_max)(nvml_device dev, int type, unsigned *mhz);
    /* optional (gv_health_read, gv_xid_watch_*) */
    int (*ecc)(nvml_device dev, int error_type, int counter_type, unsigned long long *count);
    int (*remapped)(nvml_device dev, unsigned *corr, unsigned *unc, unsigned *pending,
                    unsigned *failure);
    int (*retired_pending)(nvml_device dev, int *pending);
    int (*temperature)(nvml_device dev, int sensor, unsigned *c);
    int (*power)(nvml_device dev, unsigned *mw);
    int (*event_set_create)(void **set);
    int (*register_events)(nvml_device dev, unsigned long long types, void *set);
    int (*event_wait)(void *set, void *data, unsigned timeout_ms);
    int (*event_set_free)(void *set);
} nvml_api;

/* Load and initialise NVML once; NULL (with why) when the driver's library is not there. */
static const nvml_api *nvml(char *why, size_t len)
{
    static nvml_api api;
    static int state; /* 0 untried, 1 ready, -1 unavailable */
    static char failed[128];
    if (state == 0) {
        state = -1;
        void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            snprintf(failed, sizeof failed, "NVML not available (libnvidia-ml.so.1)");
        } else {
            *(void **)&api.init = dlsym(h, "nvmlInit_v2");
            *(void **)&api.by_uuid = dlsym(h, "nvmlDeviceGetHandleByUUID");
            *(void **)&api.energy = dlsym(h, "nvmlDeviceGetTotalEnergyConsumption");
            *(void **)&api.clock = dlsym(h, "nvmlDeviceGetClockInfo");
            *(void **)&api.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
            if (!api.reasons)
                *(void **)&api.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
            *(void **)&api.pcie_gen = dlsym(h, "nvmlDeviceGetCurrPcieLinkGeneration");
            *(void **)&api.pcie_width = dlsym(h, "nvmlDeviceGetCurrPcieLinkWidth");
            *(void **)&api.pcie_gen_max = dlsym(h, "nvmlDeviceGetMaxPcieLinkGeneration");
            *(void **)&api.pcie_width_max = dlsym(h, "nvmlDeviceGetMaxPcieLinkWidth");
            *(void **)&api.clock_max = dlsym(h, "nvmlDeviceGetMaxClockInfo");
            *(void **)&api.ecc = dlsym(h, "nvmlDeviceGetTotalEccErrors");
            *(void **)&api.remapped = dlsym(h, "nvmlDeviceGetRemappedRows");
            *(void **)&api.retired_pending = dlsym(h, "nvmlDeviceGetRetiredPagesPendingStatus");
            *(void **)&api.temperature = dlsym(h, "nvmlDeviceGetTemperature");
            *(void **)&api.power = dlsym(h, "nvmlDeviceGetPowerUsage");
            *(void **)&api.event_set_create = dlsym(h, "nvmlEventSetCreate");
            *(void **)&api.register_events = dlsym(h, "nvmlDeviceRegisterEvents");
            *(void **)&api.event_wait = dlsym(h, "nvmlEventSetWait_v2");
            *(void **)&api.event_set_free = dlsym(h, "nvmlEventSetFree");
            if (!api.init || !api.by_uuid || !api.energy || !api.clock || !api.reasons)
                snprintf(failed, sizeof failed, "NVML lacks an entry point gpuval reads");
            else if (api.init() != 0)
                snprintf(failed, sizeof failed, "nvmlInit failed");
            else
                state = 1;
        }
    }
    if (state < 0) snprintf(why, len, "%s", failed);
    return state > 0 ? &api : NULL;
}

/* The device with this UUID (without "GPU-"), or NULL with why. */
static nvml_device device_of(const nvml_api *api, const char *uuid, char *why, size_t len)
{
    char id[64];
    snprintf(id, sizeof id, "GPU-%s", uuid ? uuid : "");
    nvml_device dev = NULL;
    if (api->by_uuid(id, &dev) != 0) {
        snprintf(why, len, "NVML does not know device %s", id);
        return NULL;
    }
    return dev;
}

void gv_power_read(const char *uuid, gv_power *out)
{
    memset(out, 0, sizeof *out);
    const nvml_api *api = nvml(out->why, sizeof out->why);
    if (!api) return;
    nvml_device dev = device_of(api, uuid, out->why, sizeof out->why);
    if (!dev) return;
    unsigned long long mj = 0;
    if (api->energy(dev, &mj) != 0) {
        snprintf(out->why, sizeof out->why, "this board reports no energy counter");
        return;
    }
    out->energy_j = (double)mj * 1e-3;
    if (api->clock(dev, 1 /* NVML_CLOCK_SM */, &out->sm_clock_mhz) != 0) out->sm_clock_mhz = 0;
    if (api->reasons(dev, &out->throttle) != 0) out->throttle = 0;
    out->ok = true;
}

void gv_clocks_from(const gv_power *before, const gv_power *after, gv_clocks *c)
{
    memset(c, 0, sizeof *c);
    if (!before->ok || !after->ok) {
        snprintf(c->why, sizeof c->why, "%s", !before->ok ? before->why : after->why);
        return;
    }
    c->ok = true;
    c->sm_mhz_before = before->sm_clock_mhz;
    c->sm_mhz_after = after->sm_clock_mhz;
    c->throttle = before->throttle | after->throttle;
    c->throttled = (c->throttle & GV_THROTTLE_SLOWDOWN_MASK) != 0;
}

char *gv_throttle_names(unsigned long long mask, char *buf, size_t len)
{
    /* NVML's clocks-event reason bits (nvml.h, nvmlClocksEventReason*) */
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {{0x4, "sw power cap"},
                 {0x8, "hw slowdown"},
                 {0x20, "sw thermal"},
                 {0x40, "hw thermal"},
                 {0x80, "power brake"}};
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && used < len; i++)
        if (mask & names[i].bit) {
            int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i].name);
            if (w < 0) break;
            used += (size_t)w;
        }
    return buf;
}

/* One optional unsigned query: 0 when the entry point is missing or the board declines. */
static unsigned query_u(int (*fn)(nvml_device, unsigned *), nvml_device dev)
{
    unsigned v = 0;
    if (!fn || fn(dev, &v) != 0) v = 0;
    return v;
}

void gv_link_read(const char *uuid, gv_link *out)
{
    memset(out, 0, sizeof *out);
    const nvml_api *api = nvml(out->why, sizeof out->why);
    if (!api) return;
    nvml_device dev = device_of(api, uuid, out->why, sizeof out->why);
    if (!dev) return;
    out->pcie_gen = query_u(api->pcie_gen, dev);
    out->pcie_width = query_u(api->pcie_width, dev);
    out->pcie_gen_max = query_u(api->pcie_gen_max, dev);
    out->pcie_width_max = query_u(api->pcie_width_max, dev);
    if (api->clock(dev, 1 /* NVML_CLOCK_SM */, &out->sm_clock_mhz) != 0) out->sm_clock_mhz = 0;
    if (!api->clock_max || api->clock_max(dev, 1, &out->sm_clock_max_mhz) != 0)
        out->sm_clock_max_mhz = 0;
    out->ok = true;
}

void gv_health_read(const char *uuid, gv_health *out)
{
    memset(out, 0, sizeof *out);
    const nvml_api *api = nvml(out->why, sizeof out->why);
    if (!api) return;
    nvml_device dev = device_of(api, uuid, out->why, sizeof out->why);
    if (!dev) return;
    /* nvml.h: NVML_MEMORY_ERROR_TYPE_CORRECTED 0, _UNCORRECTED 1; NVML_VOLATILE_ECC 0,
       NVML_AGGREGATE_ECC 1. A board with ECC off answers NOT_SUPPORTED: have_ecc stays false. */
    out->have_ecc = api->ecc && api->ecc(dev, 0, 0, &out->ecc_vol_corrected) == 0 &&
                    api->ecc(dev, 1, 0, &out->ecc_vol_uncorrected) == 0 &&
                    api->ecc(dev, 0, 1, &out->ecc_agg_corrected) == 0 &&
                    api->ecc(dev, 1, 1, &out->ecc_agg_uncorrected) == 0;
    out->have_remap = api->remapped &&
                      api->remapped(dev, &out->remap_corrected, &out->remap_uncorrected,
                                    &out->remap_pending, &out->remap_failure) == 0;
    int pending = 0; /* nvmlEnableState_t: NVML_FEATURE_ENABLED 1 */
    out->have_retired = api->retired_pending && api->retired_pending(dev, &pending) == 0;
    out->retired_pending = out->have_retired && pending == 1;
    if (api->clock(dev, 1 /* NVML_CLOCK_SM */, &out->sm_clock_mhz) != 0) out->sm_clock_mhz = 0;
    if (!api->clock_max || api->clock_max(dev, 1, &out->sm_clock_max_mhz) != 0)
        out->sm_clock_max_mhz = 0;
    /* NVML_TEMPERATURE_GPU 0 */
    if (!api->temperature || api->temperature(dev, 0, &out->temp_c) != 0) out->temp_c = 0;
    if (!api->power || api->power(dev, &out->power_mw) != 0) out->power_mw = 0;
    if (api->reasons(dev, &out->throttle) != 0) out->throttle = 0;
    out->ok = true;
}

/* nvml.h's nvmlEventData_t, as nvmlEventSetWait_v2 fills it */
typedef struct nvml_event {
    nvml_device device;
    unsigned long long type, data;
    unsigned gpu_instance, compute_instance;
} nvml_event;

struct gv_xid_watch {
    const nvml_api *api;
    void *set;
};

gv_xid_watch *gv_xid_watch_start(const char *uuid, char *why, size_t len)
{
    const nvml_api *api = nvml(why, len);
    if (!api) return NULL;
    if (!api->event_set_create || !api->register_events || !api->event_wait ||
        !api->event_set_free) {
        snprintf(why, len, "this NVML cannot watch events");
        return NULL;
    }
    nvml_device dev = device_of(api, uuid, why, len);
    if (!dev) return NULL;
    gv_xid_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(why, len, "out of host memory");
        return NULL;
    }
    w->api = api;
    if (api->event_set_create(&w->set) != 0) {
        snprintf(why, len, "nvmlEventSetCreate failed");
        free(w);
        return NULL;
    }
    /* nvmlEventTypeXidCriticalError 0x8 */
    int rc = api->register_events(dev, 0x8ull, w->set);
    if (rc != 0) {
        snprintf(why, len, "this board does not report XID events to this user (NVML %d)", rc);
        api->event_set_free(w->set);
        free(w);
        return NULL;
    }
    return w;
}

int gv_xid_watch_stop(gv_xid_watch *w, unsigned long long xid[GV_XID_MAX])
{
    if (!w) return 0;
    int n = 0;
    nvml_event e;
    /* every event queued since start, without waiting (timeout 0 answers NVML_ERROR_TIMEOUT
       once the queue is empty); bounded so that a board that streams events cannot hold the
       screen */
    for (int tries = 0; tries < 4096; tries++) {
        memset(&e, 0, sizeof e);
        if (w->api->event_wait(w->set, &e, 0) != 0) break;
        if (!(e.type & 0x8ull)) continue;
        if (n < GV_XID_MAX) xid[n] = e.data;
        n++;
    }
    w->api->event_set_free(w->set);
    free(w);
    return n;
}

/* Append to buf[len] "; " and the formatted text. */
static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 3 >= len) return;
    if (used) {
        memcpy(buf + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

bool gv_health_judge(const gv_health *before, const gv_health *after,
                     const unsigned long long *xid, int n_xid, char *fail, size_t flen,
                     char *warn, size_t wlen)
{
    if (flen) fail[0] = '\0';
    if (wlen) warn[0] = '\0';
    const gv_health *h[2] = {before, after};
    for (int k = 0; k < 2; k++) {
        const gv_health *s = h[k];
        if (!s || !s->ok) continue;
        const char *when = k ? "after" : "before";
        if (s->have_ecc && s->ecc_vol_uncorrected > 0)
            append(fail, flen, "%llu uncorrected ECC errors since the driver loaded (%s)",
                   s->ecc_vol_uncorrected, when);
        if (s->have_remap && s->remap_failure)
            append(fail, flen, "row remapping failed (%s)", when);
        if (s->have_remap && s->remap_pending)
            append(fail, flen, "a remapped row waits for a GPU reset (%s)", when);
        if (s->have_retired && s->retired_pending)
            append(fail, flen, "a retired page waits for a GPU reset (%s)", when);
    }
    /* the same reason twice (before and after) is said once: keep the first */
    if (before && after && before->ok && after->ok && before->have_ecc && after->have_ecc) {
        if (after->ecc_agg_uncorrected > before->ecc_agg_uncorrected)
            append(fail, flen, "uncorrected ECC errors grew by %llu during the screen",
                   after->ecc_agg_uncorrected - before->ecc_agg_uncorrected);
        if (after->ecc_vol_corrected > before->ecc_vol_corrected)
            append(warn, wlen, "corrected ECC errors grew by %llu during the screen",
                   after->ecc_vol_corrected - before->ecc_vol_corrected);
    }
    for (int i = 0; i < n_xid && i < GV_XID_MAX; i++)
        append(fail, flen, "XID %llu during the screen", xid[i]);
    if (n_xid > GV_XID_MAX) append(fail, flen, "%d more XID events", n_xid - GV_XID_MAX);
    /* hardware slowdown, thermal and power brake: not the power cap, which full load reaches */
    unsigned long long held = (after && after->ok ? after->throttle : 0) & 0xE8ull;
    if (held) {
        char names[128];
        append(warn, wlen, "clocks held down: %s", gv_throttle_names(held, names, sizeof names));
    }
    return flen && fail[0] != '\0';
}
