/* power.c: NVML through dlopen (see power.h). The few entry points are declared here from
 * NVML's stable C ABI (nvml.h: nvmlReturn_t is an int, 0 success; devices are opaque
 * handles; energy in mJ; NVML_CLOCK_SM = 1), so no header or library is needed to build. */
#include "core/power.h"

#include <dlfcn.h>
#include <stdio.h>
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

void gv_power_read(const char *uuid, gv_power *out)
{
    memset(out, 0, sizeof *out);
    const nvml_api *api = nvml(out->why, sizeof out->why);
    if (!api) return;
    char id[64];
    snprintf(id, sizeof id, "GPU-%s", uuid ? uuid : "");
    nvml_device dev = NULL;
    unsigned long long mj = 0;
    if (api->by_uuid(id, &dev) != 0) {
        snprintf(out->why, sizeof out->why, "NVML does not know device %s", id);
        return;
    }
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
    char id[64];
    snprintf(id, sizeof id, "GPU-%s", uuid ? uuid : "");
    nvml_device dev = NULL;
    if (api->by_uuid(id, &dev) != 0) {
        snprintf(out->why, sizeof out->why, "NVML does not know device %s", id);
        return;
    }
    out->pcie_gen = query_u(api->pcie_gen, dev);
    out->pcie_width = query_u(api->pcie_width, dev);
    out->pcie_gen_max = query_u(api->pcie_gen_max, dev);
    out->pcie_width_max = query_u(api->pcie_width_max, dev);
    if (api->clock(dev, 1 /* NVML_CLOCK_SM */, &out->sm_clock_mhz) != 0) out->sm_clock_mhz = 0;
    if (!api->clock_max || api->clock_max(dev, 1, &out->sm_clock_max_mhz) != 0)
        out->sm_clock_max_mhz = 0;
    out->ok = true;
}
