/* trade_report.h: the accuracy/speed trade-offs of `gpuval tradeoffs` (cmd/tradeoffs.c) as
 * structs, and what is computed from them alone (trade_report.c): the speed-ups (ratios of
 * hot-scope medians), the Pareto front of (accurate bits, median time) per op and size, the
 * model flags, the counts and the JSON document (schema "gpuval-tradeoffs/1"). Pure functions
 * of the rows, so the CPU tests check them on synthetic rows. Every printer of the document
 * (terminal, Markdown, HTML) is in src/render/ and reads the document: trade_text.h,
 * render_tradeoffs.h. */
#ifndef GV_TRADE_REPORT_H
#define GV_TRADE_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "core/op.h"
#include "bench/energy.h"
#include "io/run_doc.h"
#include "bench/stats.h"
#include "io/schemas.h"

/* One (dtype, mode) of a group. */
typedef struct gv_trade_row {
    gv_result r;               /* the correctness run: verdict, reason, metrics, math mode */
    bool timed;                /* the hot scope was sampled; t holds its summary */
    bool time_error;           /* timing failed for a reason other than memory or support */
    char time_why[192];        /* judged but not timed: why */
    gv_stat t;                 /* hot kernel-only scope, ms per call: median, interval, n */
    double speedup_vs_f64;     /* f64 native median / this median; NaN: no baseline */
    double speedup_vs_default; /* the dtype's `default` (else native) median / this; NaN */
    int pareto;                /* 1 on the front, 0 dominated, -1 not a candidate */
    /* the board around the timing pass (NVML; power_ok false: not reported, power_why) */
    bool power_ok;
    /* energy per call from a window of its own after the timing pass (energy.h) */
    gv_energy energy;
    unsigned sm_mhz_before, sm_mhz_after;
    unsigned long long throttle; /* clocks-event reasons seen before or after */
    bool throttled;              /* a slowdown reason was set: the timing is marked */
    char power_why[128];
    /* gv_trade_flag_models: a passing row that does better than its model can explain ("" if
       none), e.g. far below the input-rounding floor, or the same bits as native */
    char model_flag[320];
    /* the mode's probes (gv_mode_probe_cases: is the claimed arithmetic in effect?), run after
       the row's correctness case and never timed; n_probes 0: the mode has none. probe_verdict
       is the worst of them; a FAIL makes the row's verdict FAIL with the probe's reason.
       probe_what: what they measured, short ("tie ok", "width 36", "acc 14.0"); probe_reason:
       the first probe's reason that was not PASS, or its unjudgeable note ("" if none);
       probe_width / probe_acc_bits: the width probe's bits kept and the narrow probe's
       accumulator bits (NaN where not run). */
    int n_probes;
    gv_verdict probe_verdict;
    char probe_what[64];
    char probe_reason[256];
    double probe_width, probe_acc_bits;
    /* the arithmetic fingerprint (`gpuval probe`, src/probe/) of a GEMM row, untimed: the
       operands' bits, the bits the dot keeps, the block size, the rounding of a block and the
       subnormals kept or flushed, as measured; arith_fails: features that FAILed the
       architecture's expectations, named in arith_failed. arith_have false: not probed. */
    bool arith_have;
    char arith_in[32], arith_acc[32], arith_block[32], arith_round[32], arith_sub[72];
    int arith_fails;
    char arith_failed[128];
} gv_trade_row;

/* One op at one size on one set of inputs: every (dtype, mode) the op accepts. */
typedef struct gv_trade_group {
    const gv_op *op;
    gv_shape shape;
    gv_dist dist;
    uint64_t seed;
    gv_trade_row *rows;
    int n;
} gv_trade_group;

/* The mode speed-ups are also taken against, when the mode table has it; -1 otherwise. */
int gv_trade_default_mode(void);

/* Fill speedup_vs_f64 and speedup_vs_default of every timed row from the group's medians:
 * the f64 native row's median / the row's; the same dtype's `default` row when the group has
 * one (NaN when it was not timed), else the same dtype's native row. */
void gv_trade_speedups(gv_trade_row *rows, int n);

/* Mark the front of (accurate bits up, median time down) among the candidates (PASS and
 * timed, bits not NaN): a row is on it when no other has at least its bits in at most its
 * time, strictly better in one. Others get -1. */
void gv_trade_pareto(gv_trade_row *rows, int n);

/* Flag, in model_flag, every PASS row that does better than its mode's model allows
 * (docs/error-models.md, "Better than its model"):
 *  - its RMS R, over at least GV_PROB_RMS_MIN_N elements, is below 1/GV_PROB_FLOOR_FACTOR of
 *    the floor its claimed input rounding alone gives (r.prob.floor_rms > 0);
 *  - or it claims another arithmetic than native (not native, not default) and its output
 *    has the same bits as the same dtype's native row, which is not exact itself.
 * The library then may not be using the claimed path. */
void gv_trade_flag_models(gv_trade_row *rows, int n);

typedef struct gv_trade_summary {
    int rows, passed, failed, skipped, errors; /* errors: ERROR verdicts + timing errors */
} gv_trade_summary;
void gv_trade_summarize(const gv_trade_group *g, int n, gv_trade_summary *s);

/* The whole run as one document (info->command "tradeoffs"). */
json_t *gv_trade_doc(const gv_run_info *info, const gv_trade_group *g, int n,
                     const gv_trade_summary *s);

/* One group as the document holds it: op, dims, shape, dist, seed and its rows. */
json_t *gv_trade_group_json(const gv_trade_group *g);

/* Write the document as JSON through gv_bench_write_json (bench_json.h: a temporary beside
 * path, then a rename). GV_OK or GV_EIO (errno says why). Its Markdown is gv_render_write's
 * (render/render.h), the same as `gpuval report`'s. */
int gv_trade_write_json(const char *path, const json_t *doc);

#endif
