/* fault.h: planted faults of one GPU's arithmetic, for proving that `gpuval screen` names the GPU
 * and the unit that compute wrong (fault.c). GPUVAL_SCREEN_FAULT=DEV:KIND[:ARG][@GLOB] corrupts
 * output 0 of every case run on device DEV (of the cases whose op matches the fnmatch GLOB, when
 * one is given) as it arrives from the device, before it is hashed and judged:
 *   one-in:N      every N-th element (from 0) has its leading mantissa bit flipped
 *   mantissa[:B]  the middle element has mantissa bit B flipped (default 0, the last bit)
 *   exponent[:B]  the middle element has exponent bit B flipped (default 0)
 *   constant[:V]  every element is V (default 1), the same wrong answer every time
 * and three faults of the board rather than of an op's output (no @GLOB):
 *   slow[:F]      the screen's timed copy and products launch F times (an integer, default 3)
 *                 for each launch they count: a GPU F times slower than its peers
 *   ecc           the health snapshot after the cases shows one uncorrected ECC error
 *   xid[:N]       a critical XID event N (default 48, a double-bit ECC error) during the screen
 * The corruption is deterministic: a repeated run gives the same wrong bits, as a stuck unit
 * does. GPUVAL_PERTURB_DEVICE (kernels/gk.h) is the other planted fault: 2 ulps everywhere. */
#ifndef GV_FAULT_H
#define GV_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"

typedef enum gv_fault_kind {
    GV_FAULT_NONE = 0,
    GV_FAULT_ONE_IN,
    GV_FAULT_MANTISSA,
    GV_FAULT_EXPONENT,
    GV_FAULT_CONSTANT,
    GV_FAULT_SLOW,
    GV_FAULT_ECC,
    GV_FAULT_XID,
} gv_fault_kind;

typedef struct gv_fault {
    int device;
    gv_fault_kind kind;
    int64_t every;  /* one-in: N; slow: the factor; xid: the XID */
    int bit;        /* mantissa, exponent: the bit, 0 the least significant of its field */
    double value;   /* constant */
    char glob[128]; /* "" : every op */
} gv_fault;

/* Parse a GPUVAL_SCREEN_FAULT value into f: GV_OK, or GV_EINVAL with the reason in err. */
int gv_fault_parse(const char *spec, gv_fault *f, char *err, size_t len);

/* Corrupt count elements of dtype at buf as f says (the device and glob are the caller's to
 * check): the number of elements changed; 0 for a dtype other than f32 and f64. */
int64_t gv_fault_apply(const gv_fault *f, gv_dtype dtype, void *buf, int64_t count);

/* Whether f is a fault of the board (slow, ecc, xid), which gv_fault_apply leaves alone. */
bool gv_fault_of_board(const gv_fault *f);
/* GPUVAL_SCREEN_FAULT when it parses, names `device` and is a fault of the board: true with *f. */
bool gv_fault_board(int device, gv_fault *f);

/* The knob applied to one case's output 0 on the current device: called where a device run's
 * outputs arrive. No-op unless GPUVAL_SCREEN_FAULT is set, parses, names device `device` and its
 * glob matches op. */
void gv_fault_inject(const char *op, int device, gv_dtype dtype, void *buf, int64_t count);

#endif
