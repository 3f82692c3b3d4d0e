/* test_input_guard.c: gk_run's device path on a device (kernels/device.cu, xfer.cu, devmem.cu).
 * A test op copies input a to output c, then plants one change in input a or b through the
 * CUDA runtime on the case's stream: one bit flipped in the first, a middle and the last
 * element, in the last byte of a tail that does not fill an 8-byte word, two elements
 * swapped (in one word and across words), a run of elements shifted by one. Each must fail the
 * guard with the message of the read-back ("input 0 (a) changed: N of M elements differ,
 * first at element K", N and K derived from the host data), with exactly one input read back.
 * Writing an element's own value back, or nothing, must pass with no input read back (the
 * device hashes decided). The staged copies must bring c back bit for bit equal to a, with
 * and without GPUVAL_PAGEABLE=1. The memory a run leaves idle in the pool must still count as
 * free (gk_mem_info), and a second run of the same size must not take more device memory
 * (not under compute-sanitizer, which takes device memory of its own). The device's hash of a
 * buffer must equal the host version's (kernels/gk_hash.h) bit for bit: no word skipped or
 * summed twice, whatever the size and the grid. */
#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "gk.h"
#include "gk_hash.h"

typedef enum {
    PLANT_NONE,
    PLANT_SAME,  /* element k's own bytes written back */
    PLANT_FLIP,  /* one bit of element k flipped (bit `bit` of its byte `byte`) */
    PLANT_SWAP,  /* elements k and k2 exchanged */
    PLANT_SHIFT, /* elements k .. k2 - 1 moved one place up (k + 1 .. k2) */
} plant_kind;

/* What the test op plants: set before each gk_run (one run at a time). */
static struct {
    plant_kind kind;
    int input; /* 0: a, 1: b */
    int64_t k, k2;
    int byte, bit;
    const unsigned char *host; /* the planted input's host copy */
} plan;

static int copy_and_plant(gk_launch *L)
{
    cudaStream_t s = (cudaStream_t)L->stream;
    size_t es = L->dtype == GV_F32 ? 4 : 8;
    if (cudaMemcpyAsync(L->out[0], L->in[0], (size_t)L->out_count[0] * es, cudaMemcpyDeviceToDevice,
                        s) != cudaSuccess)
        return GV_ECUDA;
    unsigned char *in = (unsigned char *)L->in[plan.input];
    static unsigned char tmp[1 << 12];
    cudaError_t e = cudaSuccess;
    switch (plan.kind) {
    case PLANT_NONE: break;
    case PLANT_SAME:
        e = cudaMemcpyAsync(in + plan.k * es, plan.host + plan.k * es, es, cudaMemcpyHostToDevice,
                            s);
        break;
    case PLANT_FLIP:
        memcpy(tmp, plan.host + plan.k * es, es);
        tmp[plan.byte] ^= (unsigned char)(1u << plan.bit);
        e = cudaMemcpyAsync(in + plan.k * es, tmp, es, cudaMemcpyHostToDevice, s);
        break;
    case PLANT_SWAP:
        e = cudaMemcpyAsync(in + plan.k * es, plan.host + plan.k2 * es, es, cudaMemcpyHostToDevice,
                            s);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(in + plan.k2 * es, plan.host + plan.k * es, es,
                                cudaMemcpyHostToDevice, s);
        break;
    case PLANT_SHIFT:
        cr_assert((size_t)(plan.k2 - plan.k) * es <= sizeof tmp);
        memcpy(tmp, plan.host + plan.k * es, (size_t)(plan.k2 - plan.k) * es);
        e = cudaMemcpyAsync(in + (plan.k + 1) * es, tmp, (size_t)(plan.k2 - plan.k) * es,
                            cudaMemcpyHostToDevice, s);
        break;
    }
    /* tmp and the host copy are read by the copies: done before the next plan */
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    return e == cudaSuccess ? GV_OK : GV_ECUDA;
}

static const gk_op plant_op = {NULL, copy_and_plant, NULL};

/* Two inputs a, b of n elements of dtype t (distinct values), output c = a. */
typedef struct io_case {
    int dtype;
    int64_t n;
    unsigned char *a, *b, *c;
} io_case;

static io_case make_case(int t, int64_t n)
{
    io_case x = {t, n, NULL, NULL, NULL};
    size_t es = t == GV_F32 ? 4 : 8;
    x.a = malloc((size_t)n * es);
    x.b = malloc((size_t)n * es);
    x.c = malloc((size_t)n * es);
    cr_assert(x.a && x.b && x.c);
    for (int64_t i = 0; i < n; i++) {
        double v = 1.0 + (double)i / (double)n, w = 2.0 - (double)i / (double)n;
        if (t == GV_F32) {
            float fv = (float)v + (float)i, fw = (float)w;
            memcpy(x.a + i * es, &fv, es);
            memcpy(x.b + i * es, &fw, es);
        } else {
            double dv = v + (double)i;
            memcpy(x.a + i * es, &dv, es);
            memcpy(x.b + i * es, &w, es);
        }
    }
    return x;
}

static void free_case(io_case *x)
{
    free(x->a);
    free(x->b);
    free(x->c);
}

/* gk_run of the plant op on x; *readbacks: inputs read back in full by this run. */
static int run_plant(io_case *x, int64_t *readbacks)
{
    cr_assert_gt(gk_device_count(), 0);
    gk_clear_error();
    gk_launch L;
    memset(&L, 0, sizeof L);
    L.dtype = x->dtype;
    L.mode = GV_MODE_NATIVE;
    L.nd = 1;
    L.dims[0] = x->n;
    L.n_in = 2;
    L.n_out = 1;
    L.in_count[0] = L.in_count[1] = L.out_count[0] = x->n;
    L.in_name[0] = "a";
    L.in_name[1] = "b";
    L.out_name[0] = "c";
    gk_host_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = x->a;
    io.in[1] = x->b;
    io.out[0] = x->c;
    plan.host = plan.input == 0 ? x->a : x->b;
    int64_t before = gk_input_readbacks();
    int rc = gk_run(&plant_op, &L, &io);
    *readbacks = gk_input_readbacks() - before;
    return rc;
}

static void expect_unchanged(io_case *x, plant_kind kind, int64_t k)
{
    memset(&plan, 0, sizeof plan);
    plan.kind = kind;
    plan.k = k;
    int64_t rb = -1;
    int rc = run_plant(x, &rb);
    cr_expect_eq(rc, GV_OK, "n %lld plant %d at %lld: rc %d (%s)", (long long)x->n, kind,
                 (long long)k, rc, gk_last_error());
    cr_expect_eq(rb, 0, "n %lld plant %d: %lld inputs read back, the hashes should have agreed",
                 (long long)x->n, kind, (long long)rb);
    size_t es = x->dtype == GV_F32 ? 4 : 8;
    cr_expect(memcmp(x->c, x->a, (size_t)x->n * es) == 0, "n %lld: c came back unlike a",
              (long long)x->n);
}

/* The plan as set must FAIL the guard naming input `input` with the count and first element
   the host data give. */
static void expect_changed(io_case *x)
{
    size_t es = x->dtype == GV_F32 ? 4 : 8;
    const unsigned char *h = plan.input == 0 ? x->a : x->b;
    /* what the device input holds after the plan, element by element, against h */
    int64_t differ = 0, first = -1;
    for (int64_t i = 0; i < x->n; i++) {
        const unsigned char *now = h + i * es;
        if (plan.kind == PLANT_SWAP && i == plan.k) now = h + plan.k2 * es;
        if (plan.kind == PLANT_SWAP && i == plan.k2) now = h + plan.k * es;
        if (plan.kind == PLANT_SHIFT && i > plan.k && i <= plan.k2) now = h + (i - 1) * es;
        bool d = memcmp(now, h + i * es, es) != 0 || (plan.kind == PLANT_FLIP && i == plan.k);
        if (d) {
            differ++;
            if (first < 0) first = i;
        }
    }
    cr_assert_gt(differ, 0, "the plan changes something");
    int64_t rb = -1;
    int rc = run_plant(x, &rb);
    char want[200];
    snprintf(want, sizeof want,
             "input %d (%s) changed: %lld of %lld elements differ, first at "
             "element %lld",
             plan.input, plan.input == 0 ? "a" : "b", (long long)differ, (long long)x->n,
             (long long)first);
    cr_expect_eq(rc, GV_EGUARD, "plant %d at %lld (n %lld): rc %d, not GV_EGUARD (%s)", plan.kind,
                 (long long)plan.k, (long long)x->n, rc, gk_last_error());
    cr_expect_str_eq(gk_last_error(), want, "plant %d at %lld: \"%s\", want \"%s\"", plan.kind,
                     (long long)plan.k, gk_last_error(), want);
    cr_expect_eq(rb, 1, "plant %d: %lld inputs read back, want only the changed one", plan.kind,
                 (long long)rb);
    cr_expect(memcmp(x->c, x->a, (size_t)x->n * es) == 0, "the outputs still came back");
}

static void flip(io_case *x, int input, int64_t k, int byte, int bit)
{
    memset(&plan, 0, sizeof plan);
    plan.kind = PLANT_FLIP;
    plan.input = input;
    plan.k = k;
    plan.byte = byte;
    plan.bit = bit;
    expect_changed(x);
}

static void swap_or_shift(io_case *x, plant_kind kind, int64_t k, int64_t k2)
{
    memset(&plan, 0, sizeof plan);
    plan.kind = kind;
    plan.k = k;
    plan.k2 = k2;
    expect_changed(x);
}

/* f32 with an odd count: the last element is a 4-byte tail after the whole 8-byte words.
   Sizes below and above the staged-copy threshold (4 MiB), the larger over several blocks. */
static void changes_are_caught(int t, int64_t n)
{
    io_case x = make_case(t, n);
    size_t es = t == GV_F32 ? 4 : 8;
    expect_unchanged(&x, PLANT_NONE, 0);
    expect_unchanged(&x, PLANT_SAME, n / 2);
    expect_unchanged(&x, PLANT_SAME, n - 1);
    flip(&x, 0, 0, 0, 0);                /* lowest bit of the first element */
    flip(&x, 0, n / 2, (int)es - 1, 7);  /* sign bit of a middle one */
    flip(&x, 0, n - 1, 0, 3);            /* the last element (the tail if odd) */
    flip(&x, 0, n - 1, (int)es - 1, 6);  /* the last byte of the buffer */
    flip(&x, 1, n / 3, 1, 2);            /* input b: b is named, a is not read */
    swap_or_shift(&x, PLANT_SWAP, 2, 3); /* f32: within one 8-byte word */
    swap_or_shift(&x, PLANT_SWAP, 3, 4); /* across two words */
    if (n > 200) {
        swap_or_shift(&x, PLANT_SWAP, 5, n - 2); /* far apart */
        swap_or_shift(&x, PLANT_SHIFT, n / 2, n / 2 + 100);
    }
    free_case(&x);
}

Test(gpu_input_guard, every_planted_change_fails_small, .timeout = 120)
{
    changes_are_caught(GV_F32, 1001);
    changes_are_caught(GV_F64, 1001);
    changes_are_caught(GV_F32, 7); /* one word and a tail */
}

Test(gpu_input_guard, every_planted_change_fails_large, .timeout = 300)
{
    changes_are_caught(GV_F32, 3000001); /* 12 MB: staged copies, many hash blocks */
    changes_are_caught(GV_F64, 2500000);
}

Test(gpu_input_guard, pageable_copies_give_the_same_bytes, .timeout = 300)
{
    cr_assert_eq(setenv("GPUVAL_PAGEABLE", "1", 1), 0); /* this test's own process */
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    changes_are_caught(GV_F32, 3000001);
    unsetenv("GPUVAL_PAGEABLE");
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
}

Test(gpu_input_guard, without_the_pool_the_same, .timeout = 300)
{
    cr_assert_eq(setenv("GPUVAL_NO_DEVICE_POOL", "1", 1), 0);
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    changes_are_caught(GV_F64, 1001);
    changes_are_caught(GV_F32, 3000001);
    unsetenv("GPUVAL_NO_DEVICE_POOL");
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
}

/* 3 x 256 MiB per run: what the pool keeps idle after a run counts as free, and a second run
   of the same size reuses it instead of taking more from the device. */
Test(gpu_input_guard, pooled_memory_counts_as_free_and_is_reused, .timeout = 300)
{
    /* a sanitizer takes device memory of its own while kernels run */
    if (getenv("GPUVAL_UNDER_SANITIZER")) cr_skip_test("device memory is not measured here");
    cr_assert_gt(gk_device_count(), 0);
    int dev = 0, pools = 0;
    cr_assert_eq(cudaGetDevice(&dev), cudaSuccess);
    cr_assert_eq(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, dev), cudaSuccess);
    if (!pools) cr_skip_test("the device has no memory pools");
    io_case x = make_case(GV_F64, (int64_t)32 << 20);
    memset(&plan, 0, sizeof plan);
    int64_t rb = 0, total = 0, free0 = 0, free1 = 0, free2 = 0;
    /* a first small run loads the modules and makes the pool and staging */
    io_case warm = make_case(GV_F64, 1001);
    cr_assert_eq(run_plant(&warm, &rb), GV_OK, "%s", gk_last_error());
    cr_assert_eq(gk_mem_info(&free0, &total), GV_OK);
    cr_assert_eq(run_plant(&x, &rb), GV_OK, "%s", gk_last_error());
    size_t raw1 = 0, raw2 = 0, t = 0;
    cr_assert_eq(cudaMemGetInfo(&raw1, &t), cudaSuccess);
    cr_assert_eq(gk_mem_info(&free1, &total), GV_OK);
    cr_assert_eq(run_plant(&x, &rb), GV_OK, "%s", gk_last_error());
    cr_assert_eq(cudaMemGetInfo(&raw2, &t), cudaSuccess);
    cr_assert_eq(gk_mem_info(&free2, &total), GV_OK);
    const int64_t slack = (int64_t)64 << 20, case_bytes = (int64_t)3 * (256 << 20);
    cr_log_info("free for cases %lld -> %lld -> %lld; device free after run 1 %zu, run 2 %zu",
                (long long)free0, (long long)free1, (long long)free2, raw1, raw2);
    cr_expect(free1 > free0 - slack,
              "after a run %lld free, before %lld: the pool's idle %lld "
              "bytes must count as free",
              (long long)free1, (long long)free0, (long long)case_bytes);
    cr_expect(free2 > free0 - slack, "after two runs %lld free, before %lld", (long long)free2,
              (long long)free0);
    cr_expect((int64_t)raw2 > (int64_t)raw1 - slack,
              "a second run of the same size took %lld more bytes from the device",
              (long long)raw1 - (long long)raw2);
    cr_expect(free0 - (int64_t)raw1 > case_bytes - slack,
              "the pool kept the first run's %lld bytes (device free %zu, for cases %lld)",
              (long long)case_bytes, raw1, (long long)free1);
    free_case(&warm);
    free_case(&x);
}

Test(gpu_input_guard, device_hash_equals_the_host_hash, .timeout = 120)
{
    cr_assert_gt(gk_device_count(), 0);
    const size_t sizes[] = {1,
                            7,
                            8,
                            9,
                            15,
                            16,
                            17,
                            40,
                            4004,
                            4007,
                            8008,
                            (size_t)1 << 20,
                            (size_t)12000004,
                            (size_t)20000000 + 5,
                            (size_t)100000000 + 3};
    uint64_t seed = 3;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        unsigned char *p = malloc(n);
        cr_assert_not_null(p);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            p[i] = (unsigned char)(seed >> 33);
        }
        uint64_t dev[2] = {0, 0}, host[2] = {1, 1};
        cr_assert_eq(gk_input_hash_device(p, n, dev), GV_OK, "%zu bytes: %s", n, gk_last_error());
        gk_hash_bytes_host(p, n, host);
        cr_expect(dev[0] == host[0] && dev[1] == host[1],
                  "%zu bytes: device %016llx %016llx, host %016llx %016llx", n,
                  (unsigned long long)dev[0], (unsigned long long)dev[1],
                  (unsigned long long)host[0], (unsigned long long)host[1]);
        free(p);
    }
}
