/* gv_abi.h: the bottom of gpuval's layering — the vocabulary and ABI that src/, kernels/ and
 * oracle/ share: error codes, storage dtypes, precision modes and the memory patterns of a
 * device run. Plain C (C11 and C++17 alike), no CUDA type, no dependency on any other
 * project header: kernels/ and oracle/ include only this folder and their own headers
 * (tests/cpu/test_layers.c enforces it).
 *
 * The tables are X-macros: one line per entry, every property of the entry on that line, so
 * adding a dtype (f16, bf16) or an error code is adding one line here, and nothing else in
 * the tree spells an entry's size, precision or name. */
#ifndef GV_ABI_H
#define GV_ABI_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes ---------------------------------------------------------------------------
 * One error rule for the whole project: 0 is success, failures are negative. CUDA and library
 * errors keep their own names through gk_last_error() (kernels/gk.h), oracle argument errors
 * through go.h's convention. X(ENUM, value, name, message) */
#define GV_ERRORS(X)                                                                               \
    X(GV_OK, 0, "OK", "success")                                                                   \
    X(GV_EINVAL, -1, "EINVAL", "invalid argument")                                                 \
    X(GV_ENOMEM, -2, "ENOMEM", "out of host memory")                                               \
    X(GV_ENODEV, -3, "ENODEV", "no CUDA device")                                                   \
    X(GV_EDEVMEM, -4, "EDEVMEM", "out of device memory")                                           \
    X(GV_ECUDA, -5, "ECUDA", "CUDA error")                                                         \
    X(GV_ELIB, -6, "ELIB", "library error")                                                        \
    X(GV_EIO, -7, "EIO", "I/O error")                                                              \
    X(GV_EUNSUPPORTED, -8, "EUNSUPPORTED", "not supported by this device or library")              \
    X(GV_EGUARD, -9, "EGUARD", "memory outside a tensor was written, or an input changed")         \
    X(GV_EINTERNAL, -10, "EINTERNAL", "internal error (a broken contract of the harness)")

typedef enum gv_err {
#define GV_ERR_ENUM_(e, v, name, msg) e = v,
    GV_ERRORS(GV_ERR_ENUM_)
#undef GV_ERR_ENUM_
} gv_err;

static inline const char *gv_strerror(int err)
{
#define GV_ERR_MSG_(e, v, name, msg)                                                               \
    if (err == v) return msg;
    GV_ERRORS(GV_ERR_MSG_)
#undef GV_ERR_MSG_
    return "unknown error";
}

static inline const char *gv_errname(int err)
{
#define GV_ERR_NAME_(e, v, name, msg)                                                              \
    if (err == v) return name;
    GV_ERRORS(GV_ERR_NAME_)
#undef GV_ERR_NAME_
    return "E?";
}

/* ---- storage dtypes ------------------------------------------------------------------------
 * X(ENUM, name, C type, bytes, significand bits p incl. the implicit one, smallest normal
 *   exponent emin, tier the dtype promises in its own arithmetic, compute dtype)
 * Unit roundoff 2^-p; smallest normal 2^emin; subnormal spacing 2^(emin - p + 1). The
 * compute dtype is the arithmetic a storage dtype is computed in (itself for f32 and f64; a
 * half type stored and accumulated in f32 will name GV_F32). */
#define GV_DTYPES(X)                                                                               \
    X(GV_F32, "f32", float, 4, 24, -126, 1e-4, GV_F32)                                             \
    X(GV_F64, "f64", double, 8, 53, -1022, 1e-8, GV_F64)

typedef enum gv_dtype {
#define GV_DT_ENUM_(e, name, ctype, bytes, p, emin, tier, compute) e,
    GV_DTYPES(GV_DT_ENUM_)
#undef GV_DT_ENUM_
        GV_NDTYPES
} gv_dtype;

typedef struct gv_dtype_info {
    const char *name;
    size_t bytes;
    int mantissa_bits; /* p: significand bits incl. the implicit one */
    int min_exp;       /* smallest normal 2^min_exp */
    double tier;       /* the tier its own arithmetic is expected to meet */
    gv_dtype compute;
} gv_dtype_info;

static const gv_dtype_info gv_dtype_table[GV_NDTYPES] = {
#define GV_DT_INFO_(e, name, ctype, bytes, p, emin, tier, compute)                                 \
    {name, bytes, p, emin, tier, compute},
    GV_DTYPES(GV_DT_INFO_)
#undef GV_DT_INFO_
};

/* The entry of t; an out-of-range t is a programmer error (the first entry is returned so a
   release build never reads outside the table). */
static inline const gv_dtype_info *gv_dtype_get(int t)
{
    return &gv_dtype_table[(t >= 0 && t < (int)GV_NDTYPES) ? t : 0];
}
static inline size_t gv_dtype_size(int t)
{
    return gv_dtype_get(t)->bytes;
}
static inline int gv_dtype_mantissa_bits(int t)
{
    return gv_dtype_get(t)->mantissa_bits;
}
static inline int gv_dtype_min_exp(int t)
{
    return gv_dtype_get(t)->min_exp;
}
static inline double gv_dtype_tier(int t)
{
    return gv_dtype_get(t)->tier;
}
/* The smallest normal number 2^emin and the subnormal spacing 2^(emin - p + 1) of t. */
static inline double gv_dtype_normal_min(int t)
{
    return ldexp(1.0, gv_dtype_min_exp(t));
}
static inline double gv_dtype_subnormal_min(int t)
{
    return ldexp(1.0, gv_dtype_min_exp(t) - gv_dtype_mantissa_bits(t) + 1);
}
/* x rounded to dtype t (round to nearest even), back in f64 */
static inline double gv_dtype_round(int t, double x)
{
    switch (t) {
#define GV_DT_ROUND_(e, name, ctype, bytes, p, emin, tier, compute)                                \
    case e: return (double)(ctype)x;
        GV_DTYPES(GV_DT_ROUND_)
#undef GV_DT_ROUND_
    default: return x;
    }
}

/* Element i of a buffer of dtype t, as f64 / written from f64 (rounded to nearest even).
 * memcpy keeps both free of alignment and aliasing assumptions. */
static inline double gv_dtype_load(int t, const void *buf, int64_t i)
{
    switch (t) {
#define GV_DT_LOAD_(e, name, ctype, bytes, p, emin, tier, compute)                                 \
    case e: {                                                                                      \
        ctype v;                                                                                   \
        memcpy(&v, (const char *)buf + (size_t)i * sizeof v, sizeof v);                            \
        return (double)v;                                                                          \
    }
        GV_DTYPES(GV_DT_LOAD_)
#undef GV_DT_LOAD_
    default: return NAN;
    }
}
static inline void gv_dtype_store(int t, void *buf, int64_t i, double x)
{
    switch (t) {
#define GV_DT_STORE_(e, name, ctype, bytes, p, emin, tier, compute)                                \
    case e: {                                                                                      \
        ctype v = (ctype)x;                                                                        \
        memcpy((char *)buf + (size_t)i * sizeof v, &v, sizeof v);                                  \
        return;                                                                                    \
    }
        GV_DTYPES(GV_DT_STORE_)
#undef GV_DT_STORE_
    default: return;
    }
}

/* n values of f64 src stored to dtype t in dst: the dtype switch taken once, not per element
 * (inputs of 1e8 elements go through here). */
static inline void gv_dtype_store_n(int t, void *dst, const double *src, int64_t n)
{
    switch (t) {
#define GV_DT_STORE_N_(e, name, ctype, bytes, p, emin, tier, compute)                              \
    case e:                                                                                        \
        for (int64_t i = 0; i < n; i++)                                                            \
            ((ctype *)dst)[i] = (ctype)src[i];                                                     \
        return;
        GV_DTYPES(GV_DT_STORE_N_)
#undef GV_DT_STORE_N_
    default: return;
    }
}

/* ---- operand formats ------------------------------------------------------------------------
 * What a precision mode converts a GEMM's operands (or its output) to, as `gpuval probe` builds
 * its operands from them (src/probe/fprint.c) and replays the block-FMA models on them.
 * X(ENUM, name, significand bits with the implicit one, emin and emax of the normal numbers,
 *   scale_to: where > 0 the op scales each tensor by scale_to / amax before converting, as
 *   kernels/gemm.cu does for fp8; 0 where it converts the values as they are)
 * GV_FMT_OWN is the storage dtype's own format (binary32, binary64: the dtype table's p and
 * emin); GV_FMT_NONE: the mode is no GEMM arithmetic the probe can build operands for.
 * TF32 is binary32's exponent with 10 fraction bits; E4M3 is OCP FP8 E4M3 (emin -6, largest
 * finite 448: OCP 8-bit Floating Point Specification 1.0, 2023). */
#define GV_FORMATS(X)                                                                              \
    X(GV_FMT_NONE, "none", 0, 0, 0, 0)                                                             \
    X(GV_FMT_OWN, "own", 0, 0, 0, 0)                                                               \
    X(GV_FMT_TF32, "tf32", 11, -126, 127, 0)                                                       \
    X(GV_FMT_F16, "binary16", 11, -14, 15, 0)                                                      \
    X(GV_FMT_BF16, "bfloat16", 8, -126, 127, 0)                                                    \
    X(GV_FMT_E4M3, "e4m3", 4, -6, 8, 448)

typedef enum gv_format {
#define GV_FMT_ENUM_(e, name, p, emin, emax, scale_to) e,
    GV_FORMATS(GV_FMT_ENUM_)
#undef GV_FMT_ENUM_
        GV_NFORMATS
} gv_format;

typedef struct gv_format_info {
    const char *name;
    int p, emin, emax; /* 0 for GV_FMT_OWN (the dtype's) and GV_FMT_NONE */
    double scale_to;   /* > 0: tensors scaled by scale_to / amax before the conversion */
} gv_format_info;

static const gv_format_info gv_format_table[GV_NFORMATS] = {
#define GV_FMT_INFO_(e, name, p, emin, emax, scale_to) {name, p, emin, emax, scale_to},
    GV_FORMATS(GV_FMT_INFO_)
#undef GV_FMT_INFO_
};

static inline const gv_format_info *gv_format_get(int f)
{
    return &gv_format_table[(f >= 0 && f < (int)GV_NFORMATS) ? f : 0];
}

/* ---- precision modes -----------------------------------------------------------------------
 * How the device computes, not how tensors are stored. One row is the whole of a mode outside
 * its kernel code (docs/adding-a-mode.md).
 * X(ENUM, name, input significand bits inside the op (0: the storage dtype's own),
 *   accumulation significand bits (0: the storage dtype's own), storage dtypes it applies to
 *   (bit per gv_dtype: 1 f32, 2 f64, 3 both), 1 if it promises the dtype's own tier, 1 if
 *   it promises that every operation rounds to nearest (IEEE's default: zero-mean rounding
 *   errors, so the bias rule judges; docs/error-models.md, "Bias"), 1 if `check` runs it by
 *   default,
 *   the GEMM operands' format after the mode's conversion and the output's (GV_FORMATS; NONE:
 *   `gpuval probe` has nothing to measure), the name of the published tensor-core block-FMA
 *   model the probe's replay compares it with on f32 cases (src/core/bfma.c: "tf32", "f16",
 *   "bf16", "f16acc", "e4m3"; NULL: no tensor-core block FMA), 1 if it is a cuBLAS math mode
 *   or emulation that every op built on cuBLAS S/Dgemm can run (GV_CUBLAS_MODES, src/ops/opkit.h),
 *   what it needs of the device (gv_mode_need): the oldest compute capability it runs on
 *   (major * 10 + minor; 0: any) and the first it no longer runs on (0: none), the reason a
 *   case is a SKIP where it cannot run (NULL: it runs everywhere), said as "REASON (device:
 *   X.Y)AFTER" with AFTER the next column (NULL: nothing), 1 if it emulates the dtype's
 *   arithmetic on other hardware (bf16x9, fp64emu*: a mode whose input bits are then the
 *   emulated significand a sweep asks for),
 *   what it is)
 * A mode an op offers is named in the op's descriptor; this table says what the mode is.
 * fp8's 4 input bits are e4m3's (3 stored, 1 implicit; largest finite 448): the scaling of
 * each tensor by 448 / amax (kernels/gemm.cu) keeps the inputs in its normal range.
 * The scaled fp8 modes (fp8e5m2, fp8row, fp8blk; gv_mode_scaled) write input bits 0 and
 * accumulation bits 14: their reference quantises the operands as the kernel does (same
 * scales, same rounding: src/ops/gemm_fp8.c), so the operands' rounding is inside the
 * reference and what is left to judge is the accumulation, Hopper's fp8 tensor-core sums of
 * 14 significant bits (13 fraction bits, truncated: [KM25], src/probe/bfma.c) promoted to f32
 * every 128 products (probe/sm_90.expect, measured). The probe builds no operands for them
 * yet (GV_FMT_NONE). fp8row and fp8blk end before 10.0: the blockwise scale modes are
 * Hopper-only (NVIDIA/CUDALibrarySamples issue 310, cuBLAS 12.9+), and the outer-vector one
 * is run where the 14-bit accumulator model is the architecture's. */
#define GV_MODES(X)                                                                                \
    X(GV_MODE_NATIVE, "native", 0, 0, 3, 1, 1, 1, GV_FMT_OWN, GV_FMT_OWN, NULL, 0,                 \
      0, 0, NULL,                                                                                  \
      NULL, 0,                                                                                     \
      "the dtype's own arithmetic; cuBLAS pedantic math")                                          \
    X(GV_MODE_TF32, "tf32", 11, 0, 1, 0, 0, 1, GV_FMT_TF32, GV_FMT_OWN, "tf32", 0,                 \
      80, 0, "TF32 tensor cores need compute capability 8.0 or newer",                             \
      NULL, 0,                                                                                     \
      "f32 storage, tensor cores on TF32-rounded operands")                                        \
    X(GV_MODE_FASTMATH, "fastmath", 0, 0, 3, 0, 0, 1, GV_FMT_NONE, GV_FMT_NONE, NULL, 0,           \
      0, 0, NULL,                                                                                  \
      NULL, 0,                                                                                     \
      "intrinsics such as __sinf, __expf")                                                         \
    X(GV_MODE_DEFAULT, "default", 0, 0, 3, 1, 0, 1, GV_FMT_OWN, GV_FMT_OWN, NULL, 1,               \
      0, 0, NULL,                                                                                  \
      NULL, 0,                                                                                     \
      "cuBLAS default math: what applications get")                                                \
    X(GV_MODE_BF16X9, "bf16x9", 0, 0, 1, 1, 0, 1, GV_FMT_OWN, GV_FMT_OWN, NULL, 1,                 \
      100, 110, "bf16x9: cuBLAS's BF16x9 f32 emulation runs on compute capability 10.x only",      \
      "; elsewhere it would be native f32 under the bf16x9 label", 1,                              \
      "f32 emulated by 3 bf16 terms a value (cuBLAS)")                                             \
    X(GV_MODE_FP64EMU, "fp64emu", 0, 0, 2, 1, 0, 1, GV_FMT_OWN, GV_FMT_OWN, NULL, 1,               \
      90, 0, "cuBLAS's f64 fixed-point emulation is known to engage from compute capability 9.0",  \
      NULL, 1,                                                                                     \
      "f64 emulated in fixed point on integer tensor cores, mantissa bits chosen by cuBLAS")       \
    X(GV_MODE_FP64EMU_32, "fp64emu32", 32, 0, 2, 0, 0, 0, GV_FMT_OWN, GV_FMT_OWN, NULL, 1,         \
      90, 0, "cuBLAS's f64 fixed-point emulation is known to engage from compute capability 9.0",  \
      NULL, 1,                                                                                     \
      "f64 fixed-point emulation, 32 mantissa bits")                                               \
    X(GV_MODE_FP64EMU_40, "fp64emu40", 40, 0, 2, 0, 0, 0, GV_FMT_OWN, GV_FMT_OWN, NULL, 1,         \
      90, 0, "cuBLAS's f64 fixed-point emulation is known to engage from compute capability 9.0",  \
      NULL, 1,                                                                                     \
      "f64 fixed-point emulation, 40 mantissa bits")                                               \
    X(GV_MODE_FP64EMU_48, "fp64emu48", 48, 0, 2, 0, 0, 0, GV_FMT_OWN, GV_FMT_OWN, NULL, 1,         \
      90, 0, "cuBLAS's f64 fixed-point emulation is known to engage from compute capability 9.0",  \
      NULL, 1,                                                                                     \
      "f64 fixed-point emulation, 48 mantissa bits")                                               \
    X(GV_MODE_FP64EMU_56, "fp64emu56", 56, 0, 2, 0, 0, 0, GV_FMT_OWN, GV_FMT_OWN, NULL, 1,         \
      90, 0, "cuBLAS's f64 fixed-point emulation is known to engage from compute capability 9.0",  \
      NULL, 1,                                                                                     \
      "f64 fixed-point emulation, 56 mantissa bits")                                               \
    X(GV_MODE_F16, "f16", 11, 0, 1, 0, 0, 0, GV_FMT_F16, GV_FMT_OWN, "f16", 0,                     \
      0, 0, NULL,                                                                                  \
      NULL, 0,                                                                                     \
      "inputs stored in half, f32 accumulation (cublasGemmEx)")                                    \
    X(GV_MODE_BF16, "bf16", 8, 0, 1, 0, 0, 0, GV_FMT_BF16, GV_FMT_OWN, "bf16", 0,                  \
      80, 0, "bf16 tensor cores need compute capability 8.0 or newer",                             \
      NULL, 0,                                                                                     \
      "inputs stored in bfloat16, f32 accumulation")                                               \
    X(GV_MODE_IRS_F16, "irs-f16", 0, 0, 2, 1, 0, 0, GV_FMT_NONE, GV_FMT_NONE, NULL, 0,             \
      0, 0, NULL,                                                                                  \
      NULL, 0,                                                                                     \
      "f64 solve: LU in half, refined to f64 (DHgesv)")                                            \
    X(GV_MODE_IRS_BF16, "irs-bf16", 0, 0, 2, 1, 0, 0, GV_FMT_NONE, GV_FMT_NONE, NULL, 0,           \
      80, 0, "bf16 tensor cores need compute capability 8.0 or newer",                             \
      NULL, 0,                                                                                     \
      "f64 solve: LU in bfloat16, refined (DBgesv)")                                               \
    X(GV_MODE_IRS_TF32, "irs-tf32", 0, 0, 2, 1, 0, 0, GV_FMT_NONE, GV_FMT_NONE, NULL, 0,           \
      80, 0, "TF32 tensor cores need compute capability 8.0 or newer",                             \
      NULL, 0,                                                                                     \
      "f64 solve: LU in TF32, refined (DXgesv)")                                                   \
    X(GV_MODE_IRS_F32, "irs-f32", 0, 0, 2, 1, 0, 0, GV_FMT_NONE, GV_FMT_NONE, NULL, 0,             \
      0, 0, NULL,                                                                                  \
      NULL, 0,                                                                                     \
      "f64 solve: LU in f32, refined (DSgesv)")                                                    \
    X(GV_MODE_F16ACC, "f16acc", 11, 11, 1, 0, 0, 0, GV_FMT_F16, GV_FMT_F16, "f16acc", 0,           \
      0, 0, NULL,                                                                                  \
      NULL, 0,                                                                                     \
      "inputs stored in half, f16 accumulation and output (cublasGemmEx, COMPUTE_16F)")            \
    X(GV_MODE_FP8, "fp8", 4, 0, 1, 0, 0, 0, GV_FMT_E4M3, GV_FMT_OWN, "e4m3", 0,                    \
      89, 0, "fp8 needs compute capability 8.9 or newer",                                          \
      NULL, 0,                                                                                     \
      "inputs scaled to 448/amax, stored in e4m3, f32 accumulation (cuBLASLt)")                    \
    X(GV_MODE_FP8E5M2, "fp8e5m2", 0, 14, 1, 0, 0, 0, GV_FMT_NONE, GV_FMT_NONE, NULL, 0,            \
      89, 0, "fp8 needs compute capability 8.9 or newer",                                          \
      NULL, 0,                                                                                     \
      "A e4m3 (448/amax), B e5m2 (57344/amax), per-tensor scales, 14-bit tensor-core sums")        \
    X(GV_MODE_FP8ROW, "fp8row", 0, 14, 1, 0, 0, 0, GV_FMT_NONE, GV_FMT_NONE, NULL, 0,              \
      90, 100, "cuBLASLt's outer-vector fp8 scaling is run on compute capability 9.0 only",        \
      "; the accumulator model is Hopper's", 0,                                                    \
      "e4m3, one scale per row of A and column of B (448/amax of each), OUTER_VEC_32F")            \
    X(GV_MODE_FP8BLK, "fp8blk", 0, 14, 1, 0, 0, 0, GV_FMT_NONE, GV_FMT_NONE, NULL, 0,              \
      90, 100, "cuBLASLt's blockwise fp8 scaling runs on compute capability 9.0 only",             \
      NULL, 0,                                                                                     \
      "e4m3, scales per 1x128 block of A and 128x128 block of B (DeepSeek-V3 recipe)")

typedef enum gv_mode {
#define GV_MODE_ENUM_(e, name, bits, acc, dtypes, tier, rn, catalogue, in, out, bfma, cublas,      \
                      cc_min, cc_end, need, need_after, emulated, what)                            \
    e,
    GV_MODES(GV_MODE_ENUM_)
#undef GV_MODE_ENUM_
        GV_NMODES
} gv_mode;

typedef struct gv_mode_info {
    const char *name;
    int input_bits;    /* 0: the storage dtype's own */
    int acc_bits;      /* significand bits of the accumulation; 0: the storage dtype's own */
    unsigned dtypes;   /* bit (1u << gv_dtype) */
    int promises_tier; /* 1: expected to meet the dtype's own tier */
    int promises_rn;   /* 1: every operation rounds to nearest (the bias rule judges) */
    int catalogue;     /* 1: in `check`'s default selection; 0: there through its mode
                          probes alone (core/registry.c), its shapes when named */
    gv_format probe_in, probe_out; /* a GEMM's operands after the conversion, its output */
    const char *bfma;              /* the replay's block-FMA model on f32 cases; NULL: none */
    int cublas;                    /* 1: in GV_CUBLAS_MODES */
    int cc_min, cc_end; /* runs from compute capability cc_min (0: any) to before cc_end (0: on) */
    const char *need, *need_after; /* the SKIP's reason where it cannot run (gv_mode_need) */
    int emulated; /* 1: the dtype's arithmetic emulated on other hardware (bf16x9, fp64emu*) */
    const char *what;
} gv_mode_info;

static const gv_mode_info gv_mode_table[GV_NMODES] = {
#define GV_MODE_INFO_(e, name, bits, acc, dtypes, tier, rn, catalogue, in, out, bfma, cublas,      \
                      cc_min, cc_end, need, need_after, emulated, what)                            \
    {name, bits, acc, dtypes, tier, rn, catalogue, in, out, bfma, cublas,                          \
     cc_min, cc_end, need, need_after, emulated, what},
    GV_MODES(GV_MODE_INFO_)
#undef GV_MODE_INFO_
};

static inline const gv_mode_info *gv_mode_get(int m)
{
    return &gv_mode_table[(m >= 0 && m < (int)GV_NMODES) ? m : 0];
}

/* What a mode needs of the device, by compute capability cc (major * 10 + minor): NULL where
 * the device has it, else the reason a case in that mode is a SKIP (written into why). A mode
 * the device lacks is never run under its label: a library that silently falls back (cuBLAS
 * runs pedantic f32 under the BF16x9 label on 9.0: docs/error-models.md) would pass a case
 * that did not use the claimed arithmetic.
 *  - tf32, bf16, irs-tf32, irs-bf16: TF32 and bf16 tensor cores arrived with Ampere (8.0;
 *    NVIDIA A100 Tensor Core GPU Architecture whitepaper).
 *  - fp8: e4m3 tensor cores from 8.9 (Ada, Hopper; cuBLASLt's FP8 matmul requirements).
 *  - bf16x9: cuBLAS's FP32 emulation runs on Blackwell's BF16 tensor cores, cc 10.x (NVIDIA
 *    technical blog "Unlocking Tensor Core Performance with Floating Point Emulation in
 *    cuBLAS", 2025); on an H100 (9.0) it gave the bits of pedantic f32.
 *  - fp64emu*: measured in effect on 9.0 (gpuval probe: fixed_point, the claimed widths);
 *    NVIDIA documents it for Blackwell's integer tensor cores; before 9.0 nobody has shown it
 *    engages, so it is not run there under its label.
 *  - fp8e5m2: e4m3 x e5m2 on the fp8 tensor cores, from 8.9 as fp8 (cuBLASLt's FP8 type
 *    combinations).
 *  - fp8row, fp8blk: 9.0 only. cuBLASLt's VEC128_32F and BLK128x128_32F scale modes are
 *    Hopper's (cuBLAS 12.9+; NVIDIA's answer in NVIDIA/CUDALibrarySamples issue 310: "Hopper
 *    (sm_90) only"); outer-vector scaling is held to the same range because the judge's
 *    model of the sums (14-bit truncated, promoted every 128) is Hopper's. */
static inline const char *gv_mode_need(int mode, int cc, char *why, size_t len)
{
    const gv_mode_info *m = gv_mode_get(mode);
    int runs = cc >= m->cc_min && (m->cc_end == 0 || cc < m->cc_end);
    if (runs || !m->need) return NULL;
    snprintf(why, len, "%s (device: %d.%d)%s", m->need, cc / 10, cc % 10,
             m->need_after ? m->need_after : "");
    return why;
}

/* The scaled fp8 modes (the table's comment): input bits 0 with accumulation bits of their
 * own. Their reference holds the operands' rounding, their judge's units are the
 * accumulator's, and their truncating sums are outside the probabilistic model's form. */
static inline int gv_mode_scaled(int mode)
{
    const gv_mode_info *m = gv_mode_get(mode);
    return m->input_bits == 0 && m->acc_bits > 0;
}

/* ---- memory patterns of a device run -------------------------------------------------------
 * Outputs are poisoned with all bytes GV_POISON_BYTE before the launch (all-ones: a NaN in
 * every float format that no arithmetic produces); every tensor and the workspace sit between
 * GV_REDZONE_BYTES of GV_REDZONE_BYTE (distinct from the poison, so an unwritten output and a
 * written red zone are told apart; a multiple of 256 keeps tensors 256-byte aligned). */
#define GV_POISON_BYTE   0xFF
#define GV_REDZONE_BYTES 256
#define GV_REDZONE_BYTE  0xA5

#ifdef __cplusplus
}
#endif
#endif
