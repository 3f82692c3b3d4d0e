/* run_info.c: the launcher's rank, per-rank paths and the run's place in a fleet
 * (run_info.h). */
#include "io/run_info.h"
#include "core/knobs.h"
#include "io/json_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A non-negative decimal integer below 2^31, all of s; -1 otherwise. */
static int parse_index(const char *s)
{
    if (!s || !*s) return -1;
    long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > 0x7fffffff) return -1;
    }
    return (int)v;
}

int gv_rank_parse(const char *(*get)(const char *name), gv_rank *out, char *err, size_t len)
{
    static const struct {
        const char *launcher, *rank, *local, *size;
    } launchers[] = {
        {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
        {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
        {"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
    };
    out->rank = out->local_rank = out->world_size = -1;
    out->launcher = NULL;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        const char *rank = get(launchers[i].rank);
        if (!rank) continue;
        const char *names[3] = {launchers[i].rank, launchers[i].local, launchers[i].size};
        int *fields[3] = {&out->rank, &out->local_rank, &out->world_size};
        for (int k = 0; k < 3; k++) {
            const char *v = get(names[k]);
            if (!v) continue; /* local rank and size are optional */
            *fields[k] = parse_index(v);
            if (*fields[k] < 0) {
                snprintf(err, len, "%s='%.40s' is not a non-negative integer", names[k], v);
                out->rank = out->local_rank = out->world_size = -1;
                return -1;
            }
        }
        /* a rank the job cannot have (rank 5 of 2) is a launcher's contradiction, not a rank */
        if (out->world_size >= 0 && (out->rank >= out->world_size || out->world_size == 0)) {
            snprintf(err, len, "%s=%d with %s=%d: not a rank of the job", names[0], out->rank,
                     names[2], out->world_size);
            out->rank = out->local_rank = out->world_size = -1;
            return -1;
        }
        out->launcher = launchers[i].launcher;
        return 1;
    }
    return 0;
}

int gv_rank_device(const gv_rank *r, int n_devices, char *err, size_t len)
{
    if (n_devices <= 1 || r->local_rank < 0) return 0;
    if (r->local_rank >= n_devices) {
        snprintf(err, len, "local rank %d selects device %d, %d present (one GPU per rank)",
                 r->local_rank, r->local_rank, n_devices);
        return -1;
    }
    return r->local_rank;
}

char *gv_rank_path(const char *path, int rank, char *out, size_t len)
{
    if (strcmp(path, "-") == 0) {
        if (len < 2) return NULL;
        strcpy(out, "-");
        return out;
    }
    char digits[16];
    snprintf(digits, sizeof digits, "%d", rank);
    size_t used = 0, plen = strlen(path);
    bool substituted = false;
#define PUT(s, n)                                                                                  \
    do {                                                                                           \
        if (used + (n) >= len) return NULL;                                                        \
        memcpy(out + used, (s), (n));                                                              \
        used += (n);                                                                               \
    } while (0)
    for (size_t i = 0; i < plen; i++) {
        if (path[i] == '%' && path[i + 1] == 'r') {
            PUT(digits, strlen(digits));
            i++;
            substituted = true;
        } else {
            PUT(path + i, 1);
        }
    }
    if (!substituted) {
        used = 0;
        size_t stem = plen;
        if (plen > 5 && strcmp(path + plen - 5, ".json") == 0) stem = plen - 5;
        PUT(path, stem);
        PUT(".rank", 5);
        PUT(digits, strlen(digits));
        PUT(path + stem, plen - stem);
    }
#undef PUT
    out[used] = '\0';
    return out;
}

void gv_fleet_info_fill(gv_fleet_info *f, const gk_device_info *dev, int device_count,
                        int device_index)
{
    memset(f, 0, sizeof *f);
    f->recorded = true;
    f->device_count = device_count;
    f->device_index = dev ? device_index : -1;
    char err[128];
    if (gv_rank_parse(gv_env, &f->rank, err, sizeof err) < 0) f->rank.launcher = NULL;
    gethostname(f->host, sizeof f->host - 1);
    if (dev)
        gv_link_read(dev->uuid, &f->link);
    else
        snprintf(f->link.why, sizeof f->link.why, "no device");
}

static json_t *int_or_null(int v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

static json_t *pos_or_null(unsigned v)
{
    return v > 0 ? json_integer(v) : json_null();
}

json_t *gv_fleet_info_json(const gv_fleet_info *f)
{
    if (!f->recorded) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "host", gv_json_bytes(f->host));
    json_object_set_new(o, "device_index", int_or_null(f->device_index));
    json_object_set_new(o, "device_count", json_integer(f->device_count));
    json_object_set_new(o, "rank", int_or_null(f->rank.rank));
    json_object_set_new(o, "local_rank", int_or_null(f->rank.local_rank));
    json_object_set_new(o, "world_size", int_or_null(f->rank.world_size));
    json_object_set_new(o, "launcher",
                        f->rank.launcher ? json_string(f->rank.launcher) : json_null());
    const gv_link *l = &f->link;
    json_object_set_new(o, "pcie",
                        l->ok && l->pcie_width
                            ? json_pack("{s:o, s:o, s:o, s:o}", "gen", pos_or_null(l->pcie_gen),
                                        "width", pos_or_null(l->pcie_width), "gen_max",
                                        pos_or_null(l->pcie_gen_max), "width_max",
                                        pos_or_null(l->pcie_width_max))
                            : json_null());
    json_object_set_new(o, "sm_clock_mhz", pos_or_null(l->sm_clock_mhz));
    json_object_set_new(o, "sm_clock_max_mhz", pos_or_null(l->sm_clock_max_mhz));
    json_object_set_new(o, "nvml", l->ok ? json_null() : json_string(l->why));
    return o;
}
