/* test_npy.c: the .npy reader and writer (src/io/npy.c) and SHA-256 (src/io/sha256.c): round trips
 * of every type and rank, headers of versions 2.0 and 3.0, Fortran order, the half types'
 * values, each hostile header the reader must refuse with its fault named, and the FIPS 180-4
 * test vectors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gv.h"
#include "io/npy.h"
#include "io/sha256.h"

static void tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/gv_test_npy_%d_%s", (int)getpid(), name);
}

/* The whole file at path into a malloc'ed buffer. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

Test(npy, round_trip_every_type_and_rank)
{
    static const int64_t shapes[][3] = {{0, 0, 0}, {7, 0, 0}, {0, 0, 0}, {2, 3, 4}};
    static const int nds[] = {0, 1, 1, 3};
    for (int t = 0; t < GV_NPY_NTYPES; t++) {
        for (int s = 0; s < 4; s++) {
            int64_t shape[3] = {shapes[s][0], shapes[s][1], shapes[s][2]};
            int64_t count = 1;
            for (int i = 0; i < nds[s]; i++)
                count *= shape[i];
            size_t bytes = (size_t)count * gv_npy_type_size((gv_npy_type)t);
            unsigned char *data = malloc(bytes + 1);
            for (size_t i = 0; i < bytes; i++)
                data[i] = (unsigned char)(i * 131 + 7 + t);
            char path[256];
            tmp_path(path, sizeof path, "rt.npy");
            cr_assert_eq(gv_npy_write(path, (gv_npy_type)t, nds[s], shape, data), 0);
            gv_npy a;
            char err[512];
            cr_assert_eq(gv_npy_read(path, &a, err, sizeof err), GV_OK, "%s", err);
            cr_expect_eq(a.type, (gv_npy_type)t);
            cr_expect_eq(a.nd, nds[s]);
            cr_expect_eq(a.count, count);
            cr_expect_eq(a.version, 1);
            for (int i = 0; i < nds[s]; i++)
                cr_expect_eq(a.shape[i], shape[i]);
            cr_expect(memcmp(a.data, data, bytes) == 0, "%s shape %d: bits differ",
                      gv_npy_type_name((gv_npy_type)t), s);
            /* the data starts on a 64-byte boundary, as NumPy writes it */
            size_t len;
            unsigned char *img = slurp(path, &len);
            cr_expect_eq((len - bytes) % 64, 0u);
            free(img);
            gv_npy_free(&a);
            free(data);
            unlink(path);
        }
    }
}

/* A file image with the given version and header text (padded, '\n'-terminated) and data. */
static unsigned char *image(int version, const char *header, const void *data, size_t data_len,
                            size_t *len)
{
    size_t pre = version == 1 ? 10 : 12, n = strlen(header);
    size_t hlen = (pre + n + 1 + 63) / 64 * 64 - pre;
    unsigned char *b = calloc(1, pre + hlen + data_len + 1);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)version;
    for (size_t i = 0; i < pre - 8; i++)
        b[8 + i] = (unsigned char)(hlen >> (8 * i));
    memcpy(b + pre, header, n);
    memset(b + pre + n, ' ', hlen - n - 1);
    b[pre + hlen - 1] = '\n';
    memcpy(b + pre + hlen, data, data_len);
    *len = pre + hlen + data_len;
    return b;
}

Test(npy, versions_2_and_3_and_spacing)
{
    float v[3] = {1.5f, -2.0f, 3.25f};
    for (int ver = 1; ver <= 3; ver++) {
        size_t len;
        unsigned char *b = image(ver, "{\"shape\":(3,),\"fortran_order\":False,\"descr\":\"<f4\"}",
                                 v, sizeof v, &len);
        gv_npy a;
        char err[512];
        cr_assert_eq(gv_npy_parse("mem", b, len, &a, err, sizeof err), GV_OK, "v%d: %s", ver, err);
        cr_expect_eq(a.version, ver);
        cr_expect_eq(a.count, 3);
        cr_expect_eq(gv_npy_load(a.type, a.data, 2), 3.25);
        gv_npy_free(&a);
        free(b);
    }
}

Test(npy, fortran_order_is_transposed_to_row_major)
{
    /* A 2x3 array with A[i][j] = 10 i + j, stored column-major, and a 2x2x2 one */
    double colmajor[6] = {0, 10, 1, 11, 2, 12};
    size_t len;
    unsigned char *b = image(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                             colmajor, sizeof colmajor, &len);
    gv_npy a;
    char err[512];
    cr_assert_eq(gv_npy_parse("mem", b, len, &a, err, sizeof err), GV_OK, "%s", err);
    cr_expect(a.fortran_order);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            cr_expect_eq(gv_npy_load(a.type, a.data, i * 3 + j), 10.0 * i + j, "(%d,%d)", i, j);
    gv_npy_free(&a);
    free(b);
    double cube[8]; /* element (i,j,k) = 100 i + 10 j + k at i + 2 j + 4 k */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++)
                cube[i + 2 * j + 4 * k] = 100 * i + 10 * j + k;
    b = image(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2, 2), }", cube, sizeof cube,
              &len);
    cr_assert_eq(gv_npy_parse("mem", b, len, &a, err, sizeof err), GV_OK, "%s", err);
    for (int r = 0; r < 8; r++)
        cr_expect_eq(gv_npy_load(a.type, a.data, r), 100 * (r / 4) + 10 * (r / 2 % 2) + r % 2);
    gv_npy_free(&a);
    free(b);
    /* the writer's Fortran order reads back as the same row-major array */
    char path[256];
    tmp_path(path, sizeof path, "f.npy");
    int64_t shape[2] = {2, 3};
    cr_assert_eq(gv_npy_write_order(path, GV_NPY_F64, 2, shape, colmajor, true), 0);
    cr_assert_eq(gv_npy_read(path, &a, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(gv_npy_load(a.type, a.data, 1), 1.0);
    cr_expect_eq(gv_npy_load(a.type, a.data, 3), 10.0);
    gv_npy_free(&a);
    unlink(path);
}

Test(npy, half_types_decode_exactly)
{
    uint16_t h[6] = {0x3c00, 0x0001, 0x7c00, 0xc000, 0x7bff, 0x7e00};
    cr_expect_eq(gv_npy_load(GV_NPY_F16, h, 0), 1.0);
    cr_expect_eq(gv_npy_load(GV_NPY_F16, h, 1), ldexp(1.0, -24)); /* smallest subnormal */
    cr_expect(isinf(gv_npy_load(GV_NPY_F16, h, 2)));
    cr_expect_eq(gv_npy_load(GV_NPY_F16, h, 3), -2.0);
    cr_expect_eq(gv_npy_load(GV_NPY_F16, h, 4), 65504.0); /* largest finite half */
    cr_expect(isnan(gv_npy_load(GV_NPY_F16, h, 5)));
    uint16_t bf[3] = {0x3f80, 0x4049, 0xff80};
    cr_expect_eq(gv_npy_load(GV_NPY_BF16, bf, 0), 1.0);
    cr_expect_eq(gv_npy_load(GV_NPY_BF16, bf, 1), 3.140625);
    cr_expect(isinf(gv_npy_load(GV_NPY_BF16, bf, 2)) && gv_npy_load(GV_NPY_BF16, bf, 2) < 0);
    size_t len;
    unsigned char *b =
        image(1, "{'descr': '|V2', 'fortran_order': False, 'shape': (3,), }", bf, sizeof bf, &len);
    gv_npy a;
    char err[512];
    cr_assert_eq(gv_npy_parse("mem", b, len, &a, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(a.type, GV_NPY_BF16);
    gv_npy_free(&a);
    free(b);
}

/* Parse header (version 1, data_len bytes of zeros) and expect the fault substring. */
static void expect_fault(const char *header, size_t data_len, const char *fault)
{
    static unsigned char zeros[64];
    size_t len;
    unsigned char *b = image(1, header, zeros, data_len, &len);
    gv_npy a;
    char err[512] = "";
    cr_expect_eq(gv_npy_parse("hostile.npy", b, len, &a, err, sizeof err), GV_EINVAL, "%s", header);
    cr_expect(strstr(err, "hostile.npy: ") == err, "message names the file: %s", err);
    cr_expect(strstr(err, fault) != NULL, "'%s' should name '%s'", err, fault);
    cr_expect_null(a.data);
    free(b);
}

Test(npy, hostile_headers_are_refused_with_their_fault)
{
    expect_fault("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8, "big-endian");
    expect_fault("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 8,
                 "unsupported dtype '<i4'");
    expect_fault("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8,
                 "structured");
    expect_fault("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 4, "truncated data");
    expect_fault("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12, "trailing bytes");
    expect_fault("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 0,
                 "element count overflows");
    expect_fault("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", 0,
                 "byte count overflows");
    expect_fault("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0,
                 "larger than 2^63-1");
    expect_fault("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0, "malformed");
    expect_fault("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8, "not a tuple");
    expect_fault("{'descr': '<f4', 'fortran_order': False, }", 8, "missing key 'shape'");
    expect_fault("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8,
                 "repeated key 'descr'");
    expect_fault("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8,
                 "unexpected or repeated key 'x'");
    expect_fault("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", 8, "fortran_order");
    expect_fault("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", 4,
                 "more than 8 dims");
    expect_fault("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk", 8,
                 "text after the dict");
}

Test(npy, hostile_preambles_are_refused_before_allocating)
{
    gv_npy a;
    char err[512];
    unsigned char b[16] = {0x93, 'N', 'U', 'M', 'P', 'X', 1, 0};
    cr_expect_eq(gv_npy_parse("m", b, 16, &a, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "bad magic") != NULL, "%s", err);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = 4;
    cr_expect_eq(gv_npy_parse("m", b, 16, &a, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "unsupported .npy version 4.0") != NULL, "%s", err);
    /* version 2 with a 1 GiB header length: refused from the 12-byte preamble alone */
    b[6] = 2;
    b[8] = 0, b[9] = 0, b[10] = 0, b[11] = 0x40;
    cr_expect_eq(gv_npy_parse("m", b, 12, &a, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "header length 1073741824") != NULL, "%s", err);
    /* a header length that runs past the end of the file */
    b[6] = 1;
    b[8] = 100, b[9] = 0;
    cr_expect_eq(gv_npy_parse("m", b, 16, &a, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "truncated") != NULL, "%s", err);
    cr_expect_eq(gv_npy_parse("m", b, 7, &a, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "truncated") != NULL, "%s", err);
}

Test(npy, read_names_a_missing_file)
{
    gv_npy a;
    char err[512];
    cr_expect_eq(gv_npy_read("/nonexistent/x.npy", &a, err, sizeof err), GV_EIO);
    cr_expect(strstr(err, "/nonexistent/x.npy: cannot open") != NULL, "%s", err);
}

static void expect_sha(const char *msg, size_t repeat, const char *hex)
{
    gv_sha256 s;
    gv_sha256_init(&s);
    for (size_t i = 0; i < repeat; i++)
        gv_sha256_update(&s, msg, strlen(msg));
    char got[65];
    gv_sha256_final(&s, got);
    cr_expect_str_eq(got, hex, "SHA-256 of '%s' x %zu", msg, repeat);
}

static void fips_180_vectors(void)
{
    expect_sha("", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect_sha("abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
               "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    expect_sha("a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* 55, 56 and 64 bytes: the padding's edge cases (one block, two blocks); the digests are
       coreutils sha256sum's */
    expect_sha("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1,
               "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    expect_sha("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1,
               "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    expect_sha("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1,
               "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

Test(sha256, fips_180_test_vectors)
{
    fips_180_vectors(); /* the SHA extensions where the CPU has them */
    bool had = gv_sha256_use_hardware(false);
    fips_180_vectors(); /* the portable loop */
    gv_sha256_use_hardware(had);
}

/* The SHA extensions' path and the portable loop agree on every length around the block
   edges and on updates split anywhere (the whole-block path and the buffered one). */
Test(sha256, hardware_and_portable_agree)
{
    enum { MAX = 1000 };
    unsigned char *msg = malloc(MAX);
    cr_assert_not_null(msg);
    uint32_t x = 12345;
    for (int i = 0; i < MAX; i++) {
        x = x * 1103515245u + 12345u;
        msg[i] = (unsigned char)(x >> 16);
    }
    for (size_t len = 0; len <= MAX; len += len < 200 ? 1 : 97) {
        char want[65], got[65];
        size_t split = (len * 7) / 13;
        bool had = gv_sha256_use_hardware(false);
        gv_sha256 s;
        gv_sha256_init(&s);
        gv_sha256_update(&s, msg, len);
        gv_sha256_final(&s, want);
        gv_sha256_use_hardware(true);
        gv_sha256_init(&s);
        gv_sha256_update(&s, msg, split);
        gv_sha256_update(&s, msg + split, len - split);
        gv_sha256_final(&s, got);
        gv_sha256_use_hardware(had);
        cr_expect_str_eq(got, want, "length %zu split at %zu", len, split);
    }
    free(msg);
}
