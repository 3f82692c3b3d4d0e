/* json_util.c: see json_util.h. */
#include "io/json_util.h"
#include "build_commit.h"
#include "core/gv.h"
#include "core/knobs.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

json_t *gv_json_seed(uint64_t seed)
{
    if (seed <= (uint64_t)LLONG_MAX) return json_integer((json_int_t)seed);
    char buf[24];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)seed);
    return json_string(buf);
}

json_t *gv_json_num(double x)
{
    if (isnan(x)) return json_string("nan");
    if (isinf(x)) return json_string(x > 0 ? "inf" : "-inf");
    return json_real(x);
}

json_t *gv_json_device(const gk_device_info *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(d->name));
    json_object_set_new(o, "uuid", json_string(d->uuid));
    json_object_set_new(o, "cc_major", json_integer(d->cc_major));
    json_object_set_new(o, "cc_minor", json_integer(d->cc_minor));
    json_object_set_new(o, "sm_count", json_integer(d->sm_count));
    json_object_set_new(o, "sm_clock_mhz", json_integer(d->sm_clock_mhz));
    json_object_set_new(o, "mem_clock_mhz", json_integer(d->mem_clock_mhz));
    json_object_set_new(o, "mem_bus_bits", json_integer(d->mem_bus_bits));
    json_object_set_new(o, "mem_total_bytes", json_integer(d->mem_total_bytes));
    json_object_set_new(o, "mem_free_bytes", json_integer(d->mem_free_bytes));
    json_object_set_new(o, "l2_bytes", json_integer(d->l2_bytes));
    json_object_set_new(o, "driver_version", json_integer(d->driver_version));
    json_object_set_new(o, "runtime_version", json_integer(d->runtime_version));
    json_object_set_new(o, "cublas_version", json_integer(d->cublas_version));
    json_object_set_new(o, "ecc", json_boolean(d->ecc_enabled));
    /* the code the driver loaded for gpuval's kernels: SASS as built, or PTX JIT-compiled */
    if (d->binary_arch > 0)
        json_object_set_new(o, "kernel_code",
                            json_pack("{s:i, s:i, s:b}", "binary_arch", d->binary_arch, "ptx_arch",
                                      d->ptx_arch, "native", d->native > 0));
    return o;
}

#ifndef GV_CC_ID /* meson.build defines them for this file */
#define GV_CC_ID      "unknown"
#define GV_CC_VERSION "unknown"
#endif

const char *gv_build_commit(void)
{
    return GV_BUILD_COMMIT;
}

const char *gv_build_cc(void)
{
    return GV_CC_ID " " GV_CC_VERSION;
}

const char *gv_build_nvcc(void)
{
#ifdef GV_NVCC_VERSION
    return GV_NVCC_VERSION;
#else
    return NULL;
#endif
}

json_t *gv_json_build(void)
{
#ifdef GV_HAVE_CUDA
    json_t *o = json_pack("{s:b, s:s}", "cuda", 1, "cuda_arch", GV_CUDA_ARCH);
#else
    json_t *o = json_pack("{s:b, s:n}", "cuda", 0, "cuda_arch");
#endif
    json_object_set_new(o, "commit", json_string(gv_build_commit()));
    json_object_set_new(o, "cc", json_pack("{s:s, s:s}", "id", GV_CC_ID, "version", GV_CC_VERSION));
    const char *nvcc = gv_build_nvcc();
    json_object_set_new(o, "nvcc", nvcc ? json_string(nvcc) : json_null());
    return o;
}

/* From the cuBLAS and CUDA documentation: variables read by the libraries at run time that
   alter results or the algorithm chosen. */
const char *const gv_numerics_env[] = {
    "NVIDIA_TF32_OVERRIDE",      /* 0 disables TF32 everywhere, whatever the math mode */
    "CUBLAS_EMULATION_STRATEGY", /* performant / eager: when emulation is used */
    "CUBLAS_EMULATE_SINGLE_PRECISION",
    "CUBLAS_EMULATE_DOUBLE_PRECISION",
    "CUBLAS_WORKSPACE_CONFIG", /* workspace size: may change the algorithm and its order */
    "CUBLASLT_WORKSPACE_SIZE",
    "CUBLAS_DEFAULT_MATH_MODE",
    "CUDA_FORCE_PTX_JIT",
    "GPUVAL_PERTURB_DEVICE", /* a planted 2-ulp change on one device (kernels/gk.h) */
    "GPUVAL_SCREEN_FAULT",   /* a planted wrong output on one device (core/fault.h) */
    NULL};

json_t *gv_json_env(void)
{
    json_t *o = json_object();
    for (int i = 0; gv_numerics_env[i]; i++)
        json_object_set_new(o, gv_numerics_env[i], gv_json_bytes(gv_env(gv_numerics_env[i])));
    return o;
}

/* The length of the well-formed UTF-8 character at p (1 for ASCII), 0 for a byte that starts
   none (stray, cut, overlong, surrogate, past U+10FFFF). */
static int utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80) return 1;
    int n = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
            : p[0] >= 0xe0 && p[0] <= 0xef ? 3
            : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                           : 0;
    if (!n) return 0;
    uint32_t cp = n == 4 ? p[0] & 0x07u : n == 3 ? p[0] & 0x0fu : p[0] & 0x1fu;
    for (int k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (p[k] & 0x3fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

json_t *gv_json_bytes(const char *s)
{
    if (!s) return json_null();
    size_t len = strlen(s);
    char *buf = malloc(4 * len + 1);
    if (!buf) return json_string("(out of memory)");
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int u = utf8_len(p);
        if (u == 0) {
            used += (size_t)sprintf(buf + used, "\\x%02x", *p);
            p++;
        } else if (*p == '\\') {
            buf[used++] = '\\';
            buf[used++] = '\\';
            p++;
        } else {
            memcpy(buf + used, p, (size_t)u);
            used += (size_t)u;
            p += u;
        }
    }
    buf[used] = '\0';
    json_t *v = json_string(buf);
    free(buf);
    return v ? v : json_string("(not encodable)");
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

char *gv_bytes_unescape(const char *text, char *out)
{
    size_t n = 0;
    for (const char *p = text; *p; p++) {
        if (p[0] == '\\' && p[1] == '\\') {
            out[n++] = '\\';
            p++;
        } else if (p[0] == '\\' && p[1] == 'x' && hex_digit(p[2]) >= 0 && hex_digit(p[3]) >= 0) {
            out[n++] = (char)(hex_digit(p[2]) * 16 + hex_digit(p[3]));
            p += 3;
        } else
            out[n++] = *p;
    }
    out[n] = '\0';
    return out;
}

int gv_env_warn(FILE *f)
{
    int n = 0;
    for (int i = 0; gv_numerics_env[i]; i++) {
        const char *v = gv_env(gv_numerics_env[i]);
        if (!v) continue;
        char shown[256]; /* the value as the terminal may show it: control bytes as \xNN */
        fprintf(f, "warning: %s=%s is set: library numerics may differ from a plain run\n",
                gv_numerics_env[i], gv_printable(v, shown, sizeof shown));
        n++;
    }
    return n;
}

json_t *gv_json_host(int oracle_threads)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    /* the oracle's BLAS: its kernels decide the references' last bits and their speed;
       openblas_core_detected is set when gpuval named the core (src/cmd/gpuval_main.c) */
    const char *from = gv_knobs()->openblas_core_from;
    json_t *o = json_pack("{s:o, s:i, s:o, s:o}", "hostname", gv_json_bytes(host), "oracle_threads",
                          oracle_threads, "openblas", gv_json_bytes(openblas_get_config()),
                          "openblas_core", gv_json_bytes(openblas_get_corename()));
    if (o && from) json_object_set_new(o, "openblas_core_detected", gv_json_bytes(from));
    return o;
}

const char *gv_json_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    return buf;
}

double gv_jval(const json_t *v)
{
    if (json_is_number(v)) return json_number_value(v);
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "inf") == 0) return INFINITY;
        if (strcmp(s, "-inf") == 0) return -INFINITY;
    }
    return NAN;
}

const json_t *gv_jget(const json_t *o, const char *path)
{
    char key[128];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key) return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_is_object(o) ? json_object_get(o, key) : NULL;
        path += n + (path[n] == '.');
    }
    return o;
}

double gv_jnum(const json_t *o, const char *path)
{
    return gv_jval(gv_jget(o, path));
}

double gv_jat(const json_t *arr, size_t i)
{
    return gv_jval(json_array_get(arr, i));
}

const char *gv_jstr(const json_t *o, const char *path)
{
    const json_t *v = gv_jget(o, path);
    return json_is_string(v) ? json_string_value(v) : "";
}

int gv_jint(const json_t *o, const char *path, int missing)
{
    double v = gv_jnum(o, path);
    return isfinite(v) && v >= INT_MIN && v <= INT_MAX ? (int)v : missing;
}
