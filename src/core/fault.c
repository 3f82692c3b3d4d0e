/* fault.c: GPUVAL_SCREEN_FAULT, a planted wrong GPU (fault.h). The outputs are changed on the
 * host, where the device's bits arrive, so every path that judges them (the models, the digest,
 * the comparison across GPUs) sees them as a faulty unit would have written them. */
#include "core/fault.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"

static const struct {
    const char *name;
    gv_fault_kind kind;
} kinds[] = {{"one-in", GV_FAULT_ONE_IN},
             {"mantissa", GV_FAULT_MANTISSA},
             {"exponent", GV_FAULT_EXPONENT},
             {"constant", GV_FAULT_CONSTANT},
             {"slow", GV_FAULT_SLOW},
             {"ecc", GV_FAULT_ECC},
             {"xid", GV_FAULT_XID}};

int gv_fault_parse(const char *spec, gv_fault *f, char *err, size_t len)
{
    memset(f, 0, sizeof *f);
    char buf[256];
    if (!spec || strlen(spec) >= sizeof buf) {
        snprintf(err, len, "GPUVAL_SCREEN_FAULT: expected DEV:KIND[:ARG][@GLOB]");
        return GV_EINVAL;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    char *at = strchr(buf, '@');
    if (at) {
        *at = '\0';
        if (!at[1] || strlen(at + 1) >= sizeof f->glob) {
            snprintf(err, len, "GPUVAL_SCREEN_FAULT '%s': an empty or overlong @GLOB", spec);
            return GV_EINVAL;
        }
        snprintf(f->glob, sizeof f->glob, "%s", at + 1);
    }
    char *kind = strchr(buf, ':');
    char *end;
    errno = 0;
    long dev = kind ? strtol(buf, &end, 10) : -1;
    if (!kind || end != kind || kind == buf || errno || dev < 0 || dev > 1000000) {
        snprintf(err, len,
                 "GPUVAL_SCREEN_FAULT '%s': expected DEV:KIND[:ARG][@GLOB], DEV a device "
                 "index",
                 spec);
        return GV_EINVAL;
    }
    f->device = (int)dev;
    kind++;
    char *arg = strchr(kind, ':');
    if (arg) *arg++ = '\0';
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(kind, kinds[k].name) == 0) f->kind = kinds[k].kind;
    if (f->kind == GV_FAULT_NONE) {
        snprintf(err, len,
                 "GPUVAL_SCREEN_FAULT '%s': unknown kind '%s' (one-in, mantissa, "
                 "exponent, constant, slow, ecc, xid)",
                 spec, kind);
        return GV_EINVAL;
    }
    errno = 0;
    switch (f->kind) {
    case GV_FAULT_ONE_IN:
        f->every = arg ? strtoll(arg, &end, 10) : 0;
        if (!arg || *end || end == arg || errno || f->every < 1) {
            snprintf(err, len, "GPUVAL_SCREEN_FAULT '%s': one-in takes N >= 1 (one-in:1000)", spec);
            return GV_EINVAL;
        }
        break;
    case GV_FAULT_MANTISSA:
    case GV_FAULT_EXPONENT: {
        long b = arg ? strtol(arg, &end, 10) : 0;
        int max = f->kind == GV_FAULT_MANTISSA ? 23 : 8; /* f32's fields; f64 has more */
        if ((arg && (*end || end == arg || errno)) || b < 0 || b >= max) {
            snprintf(err, len, "GPUVAL_SCREEN_FAULT '%s': %s takes a bit from 0 to %d", spec, kind,
                     max - 1);
            return GV_EINVAL;
        }
        f->bit = (int)b;
        break;
    }
    case GV_FAULT_CONSTANT:
        f->value = arg ? strtod(arg, &end) : 1.0;
        if (arg && (*end || end == arg || errno || f->value != f->value)) {
            snprintf(err, len, "GPUVAL_SCREEN_FAULT '%s': constant takes a finite number", spec);
            return GV_EINVAL;
        }
        break;
    case GV_FAULT_SLOW:
        f->every = arg ? strtoll(arg, &end, 10) : 3;
        if ((arg && (*end || end == arg || errno)) || f->every < 2 || f->every > 100) {
            snprintf(err, len, "GPUVAL_SCREEN_FAULT '%s': slow takes a factor from 2 to 100",
                     spec);
            return GV_EINVAL;
        }
        break;
    case GV_FAULT_XID:
        f->every = arg ? strtoll(arg, &end, 10) : 48;
        if ((arg && (*end || end == arg || errno)) || f->every < 1 || f->every > 1000) {
            snprintf(err, len, "GPUVAL_SCREEN_FAULT '%s': xid takes an XID from 1 to 1000", spec);
            return GV_EINVAL;
        }
        break;
    case GV_FAULT_ECC:
        if (arg) {
            snprintf(err, len, "GPUVAL_SCREEN_FAULT '%s': ecc takes no argument", spec);
            return GV_EINVAL;
        }
        break;
    default: break;
    }
    if (f->glob[0] && (f->kind == GV_FAULT_SLOW || f->kind == GV_FAULT_ECC || f->kind == GV_FAULT_XID)) {
        snprintf(err, len, "GPUVAL_SCREEN_FAULT '%s': %s is a fault of the board, not of an op: no @GLOB",
                 spec, kind);
        return GV_EINVAL;
    }
    return GV_OK;
}

/* Flip bit `bit` of element i (as a uint of its width). */
#define FLIP(type, buf, i, bit) (((type *)(buf))[i] ^= (type)1 << (bit))

int64_t gv_fault_apply(const gv_fault *f, gv_dtype dtype, void *buf, int64_t count)
{
    if ((dtype != GV_F32 && dtype != GV_F64) || count < 1 || !buf) return 0;
    bool f64 = dtype == GV_F64;
    int mant = f64 ? 52 : 23;
    int64_t mid = count / 2, changed = 0;
    switch (f->kind) {
    case GV_FAULT_ONE_IN:
        for (int64_t i = 0; i < count; i += f->every, changed++)
            if (f64)
                FLIP(uint64_t, buf, i, mant - 1);
            else
                FLIP(uint32_t, buf, i, mant - 1);
        break;
    case GV_FAULT_MANTISSA:
    case GV_FAULT_EXPONENT: {
        int bit = f->kind == GV_FAULT_MANTISSA ? f->bit : mant + f->bit;
        if (f64)
            FLIP(uint64_t, buf, mid, bit);
        else
            FLIP(uint32_t, buf, mid, bit);
        changed = 1;
        break;
    }
    case GV_FAULT_CONSTANT:
        for (int64_t i = 0; i < count; i++, changed++)
            if (f64)
                ((double *)buf)[i] = f->value;
            else
                ((float *)buf)[i] = (float)f->value;
        break;
    default: break;
    }
    return changed;
}

bool gv_fault_of_board(const gv_fault *f)
{
    return f->kind == GV_FAULT_SLOW || f->kind == GV_FAULT_ECC || f->kind == GV_FAULT_XID;
}

bool gv_fault_board(int device, gv_fault *f)
{
    const char *spec = gv_knobs()->screen_fault;
    char err[256];
    if (!spec || !*spec || gv_fault_parse(spec, f, err, sizeof err) != GV_OK) return false;
    return f->device == device && gv_fault_of_board(f);
}

void gv_fault_inject(const char *op, int device, gv_dtype dtype, void *buf, int64_t count)
{
    const char *spec = gv_knobs()->screen_fault;
    if (!spec || !*spec) return;
    gv_fault f;
    char err[256];
    if (gv_fault_parse(spec, &f, err, sizeof err) != GV_OK) return; /* screen refuses it first */
    if (f.device != device) return;
    if (f.glob[0] && fnmatch(f.glob, op, 0) != 0) return;
    gv_fault_apply(&f, dtype, buf, count);
}
