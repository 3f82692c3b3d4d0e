/* json_util.h: the JSON pieces both run schemas share (gpuval-run/1 from check, gpuval-bench/1
 * from bench): non-finite numbers, the device fingerprint and the build, written one way. */
#ifndef GV_JSON_UTIL_H
#define GV_JSON_UTIL_H

#include <jansson.h>

#include "../../kernels/gk.h"

/* A case's seed: an integer when it fits json_int_t (below 2^63), else its decimal digits as
 * a string, so every uint64 seed can be read back exactly (gpuval-run/1, gpuval-bench/1). */
json_t *gv_json_seed(uint64_t seed);

/* A number; NaN and +-Inf as the strings "nan", "inf", "-inf" (JSON has no literals). */
json_t *gv_json_num(double x);
/* The device fingerprint: name, uuid, cc_major, cc_minor, sm_count, clocks, bus width,
 * memory, L2, driver/runtime/cuBLAS versions, ecc. */
json_t *gv_json_device(const gk_device_info *d);
/* The build: {"cuda": bool, "cuda_arch": "sm_90" | null, "commit": "v0.1-12-gabc" | "unknown",
 * "cc": {"id", "version"}, "nvcc": "13.0.48" | null}. */
json_t *gv_json_build(void);
/* The build: the source's `git describe` ("unknown" outside a git tree), the C compiler ("gcc
 * 12.2.0") and nvcc's version (NULL in a build without CUDA), as gv_json_build records them. */
const char *gv_build_commit(void);
const char *gv_build_cc(void);
const char *gv_build_nvcc(void);
/* The host: {"hostname", "oracle_threads"}. */
json_t *gv_json_host(int oracle_threads);

/* A string from outside gpuval (an environment variable, the host name, the command line, a
 * path) as a JSON string, losslessly and never NULL: a backslash is written \\ and each byte
 * that is not part of well-formed UTF-8 \xNN (two lower-case hex digits); all else as it is.
 * A file holding only UTF-8 cannot hold the raw bytes, and jansson refuses them (json_string
 * returns NULL, which once dropped the whole env, host or argv block). NULL s: JSON null.
 * gv_bytes_unescape reverses it. */
json_t *gv_json_bytes(const char *s);
/* The original bytes of a gv_json_bytes text into out (room for strlen(text) + 1 bytes);
 * returns out. */
char *gv_bytes_unescape(const char *text, char *out);
/* The current UTC time as "YYYY-MM-DDTHH:MM:SSZ" into buf; returns buf. */
const char *gv_json_now(char *buf, size_t len);

/* Environment variables that change library numerics with no change of code (TF32 override,
 * cuBLAS emulation and workspace settings, ...): every run records them, set or not. */
extern const char *const gv_numerics_env[];
/* {"NAME": "value" | null, ...} for every name of gv_numerics_env. */
json_t *gv_json_env(void);
/* Print one warning line per variable of gv_numerics_env that is set; returns how many. */
int gv_env_warn(FILE *f);

/* ---- reading: the one reader of run files' values ---------------------------------------- */

/* A JSON number, or one of the strings gv_json_num writes ("inf", "-inf", "nan"), as a double;
 * NaN for anything else (absent, null, other strings). */
double gv_jval(const json_t *v);
/* The value at a dotted path ("timings.e2e.median_ms") below o, or NULL. */
const json_t *gv_jget(const json_t *o, const char *path);
/* The number at a dotted path as gv_jval reads it; NaN when absent. */
double gv_jnum(const json_t *o, const char *path);
/* Element i of a JSON array as gv_jval reads it; NaN when absent. */
double gv_jat(const json_t *arr, size_t i);
/* The string at a dotted path, or "" when absent or not a string. */
const char *gv_jstr(const json_t *o, const char *path);
/* The number at a dotted path as an int (truncated), or missing when it is absent, not finite
 * or outside int's range. */
int gv_jint(const json_t *o, const char *path, int missing);

#endif
