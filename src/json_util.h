/* json_util.h: the JSON pieces both run schemas share (gpuval-run/1 from check, gpuval-bench/1
 * from bench): non-finite numbers, the device fingerprint and the build, written one way. */
#ifndef GV_JSON_UTIL_H
#define GV_JSON_UTIL_H

#include <jansson.h>

#include "../kernels/gk.h"

/* A number; NaN and +-Inf as the strings "nan", "inf", "-inf" (JSON has no literals). */
json_t *gv_json_num(double x);
/* The device fingerprint: name, uuid, cc_major, cc_minor, sm_count, clocks, bus width,
 * memory, L2, driver/runtime/cuBLAS versions, ecc. */
json_t *gv_json_device(const gk_device_info *d);
/* The build: {"cuda": bool, "cuda_arch": "sm_90" | null}. */
json_t *gv_json_build(void);
/* The host: {"hostname", "oracle_threads"}. */
json_t *gv_json_host(int oracle_threads);
/* The current UTC time as "YYYY-MM-DDTHH:MM:SSZ" into buf; returns buf. */
const char *gv_json_now(char *buf, size_t len);

#endif
