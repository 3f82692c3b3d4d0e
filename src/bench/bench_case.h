/* bench_case.h: timed runs (`gpuval bench`), kept apart from correctness runs: the options
 * of a timed run, the timing of one case (CPU oracle and three GPU scopes, with a sanity
 * verdict on an output of the timed path), and the ceilings measured in the same run
 * (bench_case.c). What the timings mean is summarised in bench_result.h. */
#ifndef GV_BENCH_CASE_H
#define GV_BENCH_CASE_H

#include "core/op.h"
#include "bench/energy.h"
#include "core/power.h"
#include "bench/stats.h"

/* The timings of a case: the three GPU scopes of kernels/gk.h, then the CPU oracle. */
typedef enum gv_timing_id {
    GV_T_HOT = GK_SCOPE_HOT,   /* kernel only, back to back */
    GV_T_COLD = GK_SCOPE_COLD, /* kernel only, L2 flushed before each sample */
    GV_T_E2E = GK_SCOPE_E2E,   /* pinned H2D + kernel + D2H */
    GV_T_CPU,                  /* the f64 oracle on the same inputs */
    GV_NTIMINGS
} gv_timing_id;

/* JSON key of a timing: "kernel_hot", "kernel_cold", "e2e", "cpu". */
const char *gv_timing_key(int id);

/* One scope's raw samples, in ms (per launch for the hot scope). */
typedef struct gv_samples {
    double *ms;
    int n, cap;
    int reps;         /* launches per sample */
    double elapsed_s; /* wall time spent sampling */
    gv_stop stop;     /* why sampling stopped */
} gv_samples;

int gv_samples_push(gv_samples *s, double ms);
void gv_samples_free(gv_samples *s);

/* The device layer a timed run calls (kernels/gk.h, "Timed runs"). gv_bench_cuda is the real
 * one; CPU tests plug in a fake to exercise sampling, sanity marking and the repeat check. */
typedef struct gv_bench_device {
    int (*count)(void);
    int (*mem_info)(int64_t *free_bytes, int64_t *total_bytes);
    int (*open)(const gk_op *op, const gk_launch *L, const gk_host_io *io, gk_bench **out);
    int (*sample)(gk_bench *b, int scope, int reps, double *ms);
    int (*result)(gk_bench *b, int scope, const gk_host_io *io);
    int (*info)(const gk_bench *b, gk_bench_info *info);
    void (*close)(gk_bench *b);
    int (*copy_open)(int64_t bytes, gk_bench **out);
    int (*gemm_open)(int dtype, int64_t n, gk_bench **out);
    int64_t (*flush_bytes)(void);
} gv_bench_device;
extern const gv_bench_device gv_bench_cuda;

typedef struct gv_bench_opts {
    gv_sampling gpu;               /* stop rule of the GPU scopes (budget_s = 0) */
    gv_sampling cpu;               /* stop rule of the CPU oracle (with a budget) */
    bool time_cpu;                 /* false: --no-cpu (the oracle still runs once: the reference) */
    bool hot, cold;                /* kernel-only scopes to time */
    bool repeat_all;               /* --repeat-check: time the hot scope twice in every case */
    int max_hot_reps;              /* launches per hot sample at most */
    double min_hot_sample_ms;      /* a hot sample lasts at least this long (event resolution) */
    const gv_bench_device *device; /* NULL: gv_bench_cuda */
    const char *uuid; /* the device's, for NVML's clocks around each case; NULL: not read */
} gv_bench_opts;

/* The defaults of DESIGN.md: spread 1%, cap 0.5 s, at least 10 samples, 95% intervals. */
void gv_bench_opts_default(gv_bench_opts *o);
/* o->device, or gv_bench_cuda when o or o->device is NULL. */
const gv_bench_device *gv_bench_device_of(const gv_bench_opts *o);

/* Everything a timed case leaves behind. */
typedef struct gv_bench_case {
    gv_case c;
    gv_result sanity;          /* the output of the last E2E sample, judged; SKIP/ERROR
                                  verdicts and their reasons when the case could not run */
    gv_verdict kernel_verdict; /* an output of the kernel-only path, judged */
    char kernel_reason[256];
    bool timed; /* the GPU scopes ran */
    gv_samples t[GV_NTIMINGS];
    gv_samples repeat; /* the hot scope timed a second time (repeat check); n = 0 if
                          not done */
    gk_bench_info info;
    int oracle_threads;
    double reference_ms; /* the first (untimed) oracle run, which gives the reference */
    gv_clocks clocks;    /* NVML around the GPU scopes (o->uuid set); !ok: why */
} gv_bench_case;

/* Time one case. Returns GV_OK whatever the verdict (in bc->sanity); fills bc, which must
 * then be released with gv_bench_case_free. repeat: time the hot scope a second time. */
int gv_bench_run_case(const gv_case *c, const gv_bench_opts *o, bool repeat, gv_bench_case *bc);
void gv_bench_case_free(gv_bench_case *bc);

/* Time the hot kernel-only scope of p's case alone, by gv_bench_run_case's method (launches per
 * sample chosen for the events' resolution, one warm-up sample, o->gpu's stop rule), without
 * the CPU oracle, the other scopes or a sanity verdict: p needs its inputs only, no reference.
 * s receives ms per launch (s->reps launches per sample), info the device's account of the
 * run (its math mode). GV_OK, or the device's gv_err with why[len] saying what failed. */
int gv_bench_time_hot(const gv_problem *p, const gv_bench_opts *o, gv_samples *s,
                      gk_bench_info *info, char *why, size_t len);

/* Energy per call of p's hot scope (energy.h): a fresh bench of p, the counter's update
   interval observed while the device idles, then hot samples back to back until their device
   time reaches gv_energy_window_s, the counter read at an update edge before and after.
   uuid: the device's (gk_device_info.uuid). e->ok false with e->why where it cannot be had. */
void gv_bench_energy_window(const gv_problem *p, const gv_bench_opts *o, const char *uuid,
                            gv_energy *e);

/* The ceilings of a run: a D2D copy (bytes read + written) and a pedantic cuBLAS gemm per
 * dtype, measured once, before the cases. */
typedef struct gv_ceiling {
    bool ok;
    char why[192]; /* !ok: why it was not measured */
    int64_t size;  /* copy: buffer bytes; gemm: n of n x n x n */
    double work;   /* copy: bytes moved (2 x size); gemm: flops (2 n^3) */
    gv_samples t;
    char math_mode[48];
} gv_ceiling;

typedef struct gv_ceilings {
    gv_ceiling copy;
    gv_ceiling gemm[GV_NDTYPES];
} gv_ceilings;

/* Measure the copy ceiling and the gemm ceiling of each dtype in the mask. Failures are
 * recorded per ceiling (ok = false, why), never fatal. */
void gv_bench_ceilings(const gv_bench_opts *o, unsigned dtypes, gv_ceilings *c);
void gv_ceilings_free(gv_ceilings *c);

/* Host bytes gv_bench_run_case holds for a case (problem tensors, oracle outputs and gauges,
 * pinned copies) and device bytes (tensors, workspace, L2 flush buffer), from the op's
 * layout without allocating; GV_OK or the layout's error. */
int gv_bench_case_bytes(const gv_case *c, const gv_bench_opts *o, double *host_bytes,
                        double *device_bytes);

#endif
