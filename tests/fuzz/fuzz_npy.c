/* fuzz_npy.c: the .npy reader and writer (src/io/npy.c). The input is one file image. It is read
 * twice, as gpuval reads files: from memory (gv_npy_parse) and from a path (gv_npy_read, the
 * same bytes in a memfd opened through /proc/self/fd, so no disk is touched); both readers must
 * give the same answer, the same message and the same array. A file they accept is written back
 * (gv_npy_write_order, in the order it came in, through the safe writer into a private
 * directory on tmpfs, removed after) and read again: dtype, shape, order and data bytes must come
 * back equal. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "core/gv.h"
#include "io/npy.h"

static int memfd = -1;
static char memfd_path[64];

static void setup(void)
{
    if (memfd >= 0) return;
    memfd = memfd_create("fuzz_npy", 0);
    if (memfd < 0) abort();
    snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
}

/* Both arrays the same: dtype, shape, order (when same_order) and data bytes. */
static void check_same(const gv_npy *x, const gv_npy *y, bool same_order)
{
    GV_FUZZ_CHECK(x->type == y->type);
    GV_FUZZ_CHECK(x->nd == y->nd);
    for (int i = 0; i < x->nd; i++)
        GV_FUZZ_CHECK(x->shape[i] == y->shape[i]);
    GV_FUZZ_CHECK(x->count == y->count);
    if (same_order) GV_FUZZ_CHECK(x->fortran_order == y->fortran_order);
    GV_FUZZ_CHECK(memcmp(x->data, y->data, (size_t)x->count * gv_npy_type_size(x->type)) == 0);
}

/* What an accepted array must satisfy on its own. */
static void check_sane(const gv_npy *a)
{
    GV_FUZZ_CHECK(a->type >= 0 && a->type < GV_NPY_NTYPES);
    GV_FUZZ_CHECK(a->version >= 1 && a->version <= 3);
    GV_FUZZ_CHECK(a->nd >= 0 && a->nd <= GV_NPY_MAX_DIMS);
    GV_FUZZ_CHECK(a->data != NULL);
    int64_t count = 1;
    for (int i = 0; i < a->nd; i++) {
        GV_FUZZ_CHECK(a->shape[i] >= 0);
        GV_FUZZ_CHECK(!__builtin_mul_overflow(count, a->shape[i], &count));
    }
    GV_FUZZ_CHECK(count == a->count);
}

/* Every element as f64 (gv_npy_load, as gpuval compares values): NaN exactly when its bits are a
   NaN of its type, the sign bit kept, and an f16 or bf16 value exact in f32 (and for f16 a
   multiple of 2^-24 no larger than 65504). */
static void check_loads(const gv_npy *a)
{
    /* a complex array's elements are its (re, im) components, as gv_npy_load reads them */
    gv_npy_type t = gv_npy_component(a->type);
    size_t es = gv_npy_type_size(t);
    int64_t n = a->count * (gv_npy_type_complex(a->type) ? 2 : 1);
    for (int64_t k = 0; k < n; k++) {
        const unsigned char *p = (const unsigned char *)a->data + (size_t)k * es;
        uint64_t bits = 0;
        memcpy(&bits, p, es); /* little-endian host, as the reader assumes */
        bool nan, neg = bits >> (8 * es - 1);
        switch (t) {
        case GV_NPY_F32: nan = (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu); break;
        case GV_NPY_F64:
            nan = (bits & 0x7ff0000000000000u) == 0x7ff0000000000000u && (bits & 0xfffffffffffffu);
            break;
        case GV_NPY_F16: nan = (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu); break;
        case GV_NPY_BF16: nan = (bits & 0x7f80u) == 0x7f80u && (bits & 0x7fu); break;
        case GV_NPY_U8:
        case GV_NPY_U16: /* raw bits: loaded as the unsigned integer they spell */
            GV_FUZZ_CHECK(gv_npy_load(a->type, a->data, k) == (double)bits);
            continue;
        default: abort();
        }
        double v = gv_npy_load(a->type, a->data, k);
        GV_FUZZ_CHECK(isnan(v) == nan);
        if (nan) continue;
        GV_FUZZ_CHECK(!!signbit(v) == neg);
        if (t == GV_NPY_F16 || t == GV_NPY_BF16) GV_FUZZ_CHECK((double)(float)v == v);
        if (t == GV_NPY_F16 && isfinite(v)) {
            GV_FUZZ_CHECK(fabs(v) <= 65504.0);
            GV_FUZZ_CHECK(ldexp(v, 24) == trunc(ldexp(v, 24)));
        }
    }
}

/* Row-major data (as read) into Fortran order (the first index fastest), as the file had it. */
static void c_to_fortran(const gv_npy *a, void *dst)
{
    size_t es = gv_npy_type_size(a->type);
    int64_t idx[GV_NPY_MAX_DIMS] = {0};
    for (int64_t k = 0; k < a->count; k++) { /* k walks the C order: the last index fastest */
        int64_t off = 0;
        for (int i = a->nd - 1; i >= 0; i--)
            off = off * a->shape[i] + idx[i];
        memcpy((char *)dst + (size_t)off * es, (const char *)a->data + (size_t)k * es, es);
        for (int i = a->nd - 1; i >= 0; i--) {
            if (++idx[i] < a->shape[i]) break;
            idx[i] = 0;
        }
    }
}

static void round_trip(const gv_npy *a)
{
    size_t bytes = (size_t)a->count * gv_npy_type_size(a->type);
    void *file_order = (void *)a->data;
    if (a->fortran_order && a->nd > 1) {
        file_order = malloc(bytes ? bytes : 1);
        if (!file_order) return;
        c_to_fortran(a, file_order);
    }
    /* A directory of its own for each round trip, removed before returning: nothing is left
       behind however the process ends (libFuzzer may leave without running atexit handlers).
       On tmpfs where there is one: the writer fsyncs every file. */
    char dir[64], path[96];
    snprintf(dir, sizeof dir, "/dev/shm/gpuval-fuzz-npy.XXXXXX");
    if (!mkdtemp(dir)) {
        snprintf(dir, sizeof dir, "/tmp/gpuval-fuzz-npy.XXXXXX");
        if (!mkdtemp(dir)) abort();
    }
    snprintf(path, sizeof path, "%s/a.npy", dir);
    int wrc = gv_npy_write_order(path, a->type, a->nd, a->shape, file_order, a->fortran_order);
    if (file_order != a->data) free(file_order);
    gv_npy b;
    char err[512] = "";
    int rc = wrc == 0 ? gv_npy_read(path, &b, err, sizeof err) : GV_EIO;
    unlink(path);
    rmdir(dir);
    GV_FUZZ_CHECK(wrc == 0);
    if (rc != GV_OK) fprintf(stderr, "round trip: %s\n", err);
    GV_FUZZ_CHECK(rc == GV_OK);
    GV_FUZZ_CHECK(b.version == 1);
    check_same(a, &b, true);
    gv_npy_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    gv_npy a, f;
    char err_mem[512] = "", err_file[512] = "";
    int rc_mem = gv_npy_parse(memfd_path, data, size, &a, err_mem, sizeof err_mem);

    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size) abort();
    int rc_file = gv_npy_read(memfd_path, &f, err_file, sizeof err_file);

    GV_FUZZ_CHECK(rc_mem == GV_OK || rc_mem == GV_EINVAL || rc_mem == GV_ENOMEM);
    if (rc_mem != GV_ENOMEM && rc_file != GV_ENOMEM) {
        if (rc_mem != rc_file || strcmp(err_mem, err_file) != 0)
            fprintf(stderr, "memory: %d %s\nfile:   %d %s\n", rc_mem, err_mem, rc_file, err_file);
        GV_FUZZ_CHECK(rc_mem == rc_file);
        GV_FUZZ_CHECK(strcmp(err_mem, err_file) == 0);
    }
    if (rc_mem != GV_OK) {
        GV_FUZZ_CHECK(a.data == NULL);
        if (rc_mem == GV_EINVAL) GV_FUZZ_CHECK(err_mem[0] != '\0');
    }
    if (rc_file != GV_OK) GV_FUZZ_CHECK(f.data == NULL);
    if (rc_mem == GV_OK) {
        check_sane(&a);
        check_loads(&a);
    }
    if (rc_mem == GV_OK && rc_file == GV_OK) {
        GV_FUZZ_CHECK(a.version == f.version);
        check_same(&a, &f, true);
    }
    if (rc_mem == GV_OK) round_trip(&a);
    gv_npy_free(&a);
    gv_npy_free(&f);
    return 0;
}
