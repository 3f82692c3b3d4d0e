/* test_screen.c: `gpuval screen` without a GPU — the tiers (every row one case of the
 * catalogue, every unit covered), the planted faults of GPUVAL_SCREEN_FAULT (each kind changes
 * exactly the bits it says), the three judgements over synthetic run documents of a node (the
 * case's verdict, the golden digest, the outlier among the GPUs), the golden file's writer and
 * its strict reader, the outputs (drain line, Prometheus textfile, Kubernetes condition, the
 * node's document), a run document with the screen block read back by report and compare, and
 * the command's usage errors. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fault.h"
#include "core/knobs.h"
#include "cmd/exit.h"   /* gv_cmd_exit: the status as the command exits with it */
#include "cmd/screen.h" /* gv_screen_options */
#include "core/registry.h"
#include "fleet/screen_golden.h"
#include "fleet/screen_judge.h"
#include "fleet/screen_out.h"
#include "render/screen_text.h"
#include "fleet/workers.h"
#include "io/run_read.h"
#include "io/schemas.h"
#include "testkit.h"

/* ---- tiers -------------------------------------------------------------------------------- */

Test(screen_tiers, every_row_is_one_case_of_the_catalogue_and_every_unit_is_covered)
{
    int n_tiers = 0;
    for (const gv_screen_tier *t; (t = gv_screen_tier_at(n_tiers)); n_tiers++) {
        gv_case *cases = NULL;
        char err[512] = "";
        int n = gv_screen_cases(t, &cases, err, sizeof err);
        cr_assert_eq(n, t->n_rows, "%s: %s", t->version, err);
        char want[64];
        snprintf(want, sizeof want, "%s/", t->name);
        cr_expect(strncmp(t->version, want, strlen(want)) == 0, "%s: not NAME/VERSION", t->version);
        bool unit_seen[GV_SCREEN_NUNITS] = {false};
        for (int i = 0; i < n; i++) {
            const gv_screen_row *r = &t->rows[i];
            cr_expect_str_eq(cases[i].op->name, r->op);
            cr_expect_str_eq(gv_dtype_name(cases[i].dtype), r->dtype);
            cr_expect_str_eq(gv_mode_name(cases[i].mode), r->mode);
            unit_seen[r->unit] = true;
            /* the unit is found back from the case as a run document records it */
            char shape[96];
            gv_shape_format(&cases[i].shape, shape, sizeof shape);
            cr_expect_eq(
                gv_screen_unit_of(t, r->op, r->dtype, r->mode, gv_dist_name(cases[i].dist), shape),
                (int)r->unit, "%s row %d", t->version, i);
            for (int k = 0; k < i; k++) /* no case twice: a case key names one row */
                cr_expect(memcmp(&cases[k], &cases[i], sizeof cases[i]) != 0, "%s rows %d and %d",
                          t->version, k, i);
        }
        for (int u = 0; u < GV_SCREEN_CASE_UNITS; u++)
            cr_expect(unit_seen[u], "%s covers no case of unit %s", t->version,
                      gv_screen_unit_label(u));
        free(cases);
    }
    cr_expect_eq(n_tiers, 2);
    cr_expect_not_null(gv_screen_tier_find("prolog"));
    cr_expect_not_null(gv_screen_tier_find("drain"));
    cr_expect_null(gv_screen_tier_find("prolog/1"));
    cr_expect_leq(gv_screen_tier_find("prolog")->budget_s, 45);
    cr_expect_leq(gv_screen_tier_find("drain")->budget_s, 600);
    cr_expect_eq(gv_screen_unit_parse("tensor-cores"), GV_UNIT_TENSOR);
    cr_expect_eq(gv_screen_unit_parse("gpu"), -1);
}

/* ---- planted faults ----------------------------------------------------------------------- */

Test(screen_fault, the_spec_is_parsed_strictly)
{
    gv_fault f;
    char err[256];
    cr_assert_eq(gv_fault_parse("3:one-in:1000", &f, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(f.device, 3);
    cr_expect_eq(f.kind, GV_FAULT_ONE_IN);
    cr_expect_eq(f.every, 1000);
    cr_assert_eq(gv_fault_parse("0:mantissa@gemm.*", &f, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(f.kind, GV_FAULT_MANTISSA);
    cr_expect_eq(f.bit, 0);
    cr_expect_str_eq(f.glob, "gemm.*");
    cr_assert_eq(gv_fault_parse("1:exponent:3", &f, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(f.bit, 3);
    cr_assert_eq(gv_fault_parse("1:constant:2.5", &f, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(f.value, 2.5);
    const char *bad[] = {"",
                         "3",
                         "x:one-in:3",
                         "-1:constant",
                         "3:one-in",
                         "3:one-in:0",
                         "3:mantissa:23",
                         "3:exponent:8",
                         "3:constant:nan",
                         "3:melt",
                         "3:constant@",
                         ":constant"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        cr_expect_eq(gv_fault_parse(bad[i], &f, err, sizeof err), GV_EINVAL, "'%s' accepted",
                     bad[i]);
        cr_expect_not_null(strstr(err, "GPUVAL_SCREEN_FAULT"), "'%s': %s", bad[i], err);
    }
}

Test(screen_fault, each_kind_changes_exactly_the_bits_it_names)
{
    float a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = b[i] = 1.0f + i;
    gv_fault f;
    char err[256];
    /* mantissa bit 0 of the middle element: one ulp there, nowhere else */
    cr_assert_eq(gv_fault_parse("0:mantissa", &f, err, sizeof err), GV_OK);
    cr_expect_eq(gv_fault_apply(&f, GV_F32, b, 10), 1);
    for (int i = 0; i < 10; i++)
        cr_expect(i == 5 ? b[i] == nextafterf(a[i], i % 2 ? 0.0f : 100.0f) ||
                               b[i] == nextafterf(a[i], 100.0f) || b[i] == nextafterf(a[i], 0.0f)
                         : b[i] == a[i],
                  "element %d: %.9g from %.9g", i, b[i], a[i]);
    cr_expect_neq(b[5], a[5]);
    /* exponent bit 0: the middle element doubled or halved */
    memcpy(b, a, sizeof b);
    cr_assert_eq(gv_fault_parse("0:exponent", &f, err, sizeof err), GV_OK);
    gv_fault_apply(&f, GV_F32, b, 10);
    cr_expect(b[5] == 2 * a[5] || b[5] == a[5] / 2, "%g from %g", b[5], a[5]);
    /* one in 4: elements 0, 4 and 8, each by its leading mantissa bit */
    double x[10], y[10];
    for (int i = 0; i < 10; i++)
        x[i] = y[i] = 1.0 + i;
    cr_assert_eq(gv_fault_parse("0:one-in:4", &f, err, sizeof err), GV_OK);
    cr_expect_eq(gv_fault_apply(&f, GV_F64, y, 10), 3);
    for (int i = 0; i < 10; i++)
        if (i % 4 == 0)
            cr_expect(fabs(y[i] - x[i]) >= 0.25 * x[i], "element %d: %g from %g", i, y[i], x[i]);
        else
            cr_expect_eq(y[i], x[i], "element %d", i);
    /* constant: every element, the same wrong answer */
    cr_assert_eq(gv_fault_parse("0:constant:7", &f, err, sizeof err), GV_OK);
    cr_expect_eq(gv_fault_apply(&f, GV_F64, y, 10), 10);
    for (int i = 0; i < 10; i++)
        cr_expect_eq(y[i], 7.0);
}

Test(screen_fault, the_knob_acts_on_its_device_and_its_ops_only)
{
    float a[4] = {1, 2, 3, 4};
    setenv("GPUVAL_SCREEN_FAULT", "2:constant:9@gemm.*", 1);
    gv_knobs_reload();
    gv_fault_inject("gemm.cublas", 1, GV_F32, a, 4); /* another device */
    gv_fault_inject("vadd", 2, GV_F32, a, 4);        /* another op */
    for (int i = 0; i < 4; i++)
        cr_expect_eq(a[i], (float)(i + 1));
    gv_fault_inject("gemm.cublas", 2, GV_F32, a, 4);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(a[i], 9.0f);
    unsetenv("GPUVAL_SCREEN_FAULT");
    gv_knobs_reload();
    gv_fault_inject("gemm.cublas", 2, GV_F32, a, 4);
}

/* ---- synthetic runs of a node ------------------------------------------------------------- */

/* The digest of row i on a healthy GPU */
static void good_hash(int i, char *buf, size_t len)
{
    snprintf(buf, len, "0x%016llx", 0x1000ull + (unsigned long long)i);
}

/* A run of the prolog tier on device `index` as a worker writes it: every row PASS with its
   healthy digest (each case deterministic unless its op says otherwise). */
static json_t *node_run(int index, const char *model)
{
    const gv_screen_tier *t = gv_screen_tier_find("prolog");
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("gpuval-run/1"));
    json_object_set_new(root, "command", json_string("screen"));
    json_object_set_new(root, "fleet",
                        json_pack("{s:s, s:i, s:n, s:{s:i, s:i}, s:i, s:i}", "host", "node1",
                                  "device_index", index, "rank", "pcie", "gen", 5, "width", 16,
                                  "sm_clock_mhz", 1980, "sm_clock_max_mhz", 1980));
    char uuid[64];
    /* as the run document records it: without nvidia-smi's "GPU-", which the screen adds */
    snprintf(uuid, sizeof uuid, "0000000%d-aaaa-bbbb-cccc-000000000000", index);
    json_object_set_new(root, "device",
                        json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "name", model, "uuid",
                                  uuid, "cc_major", 9, "cc_minor", 0, "sm_count", 132,
                                  "driver_version", 13000, "runtime_version", 13000,
                                  "cublas_version", 130100));
    json_object_set_new(root, "screen",
                        json_pack("{s:s, s:f}", "tier", t->version, "seconds", 10.0 + index));
    json_t *arr = json_array();
    for (int i = 0; i < t->n_rows; i++) {
        const gv_screen_row *r = &t->rows[i];
        const gv_op *op = gv_op_find(r->op);
        cr_assert_not_null(op, "%s", r->op);
        gv_shape s;
        char why[128], hash[24];
        cr_assert_eq(gv_size_spec_parse(r->size, &s, 1, why, sizeof why), 1);
        json_t *shape = json_array();
        for (int d = 0; d < s.nd; d++)
            json_array_append_new(shape, json_integer(s.d[d]));
        good_hash(i, hash, sizeof hash);
        json_t *o =
            json_pack("{s:s, s:s, s:s, s:s, s:o, s:i, s:s, s:s, s:b, s:f, s:s}", "op", r->op,
                      "dtype", r->dtype, "mode", r->mode, "dist", gv_dist_name(op->default_dist),
                      "shape", shape, "seed", 0, "verdict", "PASS", "reason", "", "deterministic",
                      op->nondeterministic == NULL, "device_ms", 1.0, "output_hash", hash);
        json_object_set_new(o, "metrics",
                            json_pack("{s:f, s:f, s:i, s:f, s:f}", "max_rel", 1e-7, "normwise_rel",
                                      5e-8, "worst_index", 41, "worst_value", 0.5, "worst_ref",
                                      0.25));
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "cases", arr);
    return root;
}

#define H100 "NVIDIA H100 80GB HBM3"

/* The case of row `row` of the prolog tier in doc. */
static json_t *row_case(json_t *doc, int row)
{
    return json_array_get(json_object_get(doc, "cases"), (size_t)row);
}

/* The first row of unit u in the prolog tier. */
static int row_of(gv_screen_unit u)
{
    const gv_screen_tier *t = gv_screen_tier_find("prolog");
    for (int i = 0; i < t->n_rows; i++)
        if (t->rows[i].unit == u) return i;
    cr_assert_fail("no row of unit %d", u);
    return -1;
}

/* The judgement's status as `gpuval screen` turns it into its exit code (recorded in v, as the
   command records it for the documents and metrics). */
static int judge(json_t **docs, int n, const json_t *golden, gv_screen_verdict *v)
{
    const char *names[GV_FLEET_MAX_DEVICES] = {0};
    gv_status st = gv_screen_judge(gv_screen_tier_find("prolog"), docs, names, n, golden, false, v);
    cr_expect_eq(st, v->status, "the status returned is the verdict's");
    v->exit_code = gv_cmd_exit(st);
    return v->exit_code;
}

static void free_docs(json_t **docs, int n)
{
    for (int i = 0; i < n; i++)
        json_decref(docs[i]);
}

Test(screen_judge, a_healthy_node_passes_every_judgement)
{
    json_t *docs[3] = {node_run(0, H100), node_run(1, H100), node_run(2, H100)};
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 3, NULL, &v), 0);
    cr_expect_eq(v.n_failures, 0);
    for (int g = 0; g < 3; g++) {
        cr_expect(v.gpus[g].ok, "GPU %d", g);
        cr_expect_eq(v.gpus[g].index, g);
        cr_expect_eq(v.gpus[g].cases, gv_screen_tier_find("prolog")->n_rows);
        cr_expect_eq(v.gpus[g].golden, GV_GOLDEN_NOT_ASKED);
        cr_expect_eq(v.gpus[g].seconds, 10.0 + g);
    }
    v.seconds = 31.25;
    char line[1024];
    gv_screen_drain_line(&v, line, sizeof line);
    cr_expect_str_eq(line, "gpuval screen: prolog/1 passed on 3 GPUs in 31.2 s");
    gv_screen_verdict_free(&v);
    free_docs(docs, 3);
}

Test(screen_judge, the_gpu_whose_digest_differs_from_the_majority_is_named_with_its_unit)
{
    json_t *docs[4] = {node_run(0, H100), node_run(1, H100), node_run(2, H100), node_run(3, H100)};
    int row = row_of(GV_UNIT_TENSOR);
    json_object_set_new(row_case(docs[3], row), "output_hash", json_string("0x00000000deadbeef"));
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 4, NULL, &v), 1);
    cr_assert_eq(v.n_failures, 1);
    cr_expect_eq(v.failures[0].gpu, 3);
    cr_expect_eq(v.failures[0].unit, GV_UNIT_TENSOR);
    cr_expect_eq(v.failures[0].by, GV_SCREEN_BY_FLEET);
    cr_expect(!v.gpus[3].ok && v.gpus[0].ok && v.gpus[1].ok && v.gpus[2].ok);
    cr_expect_eq(v.gpus[3].unit_failures[GV_UNIT_TENSOR], 1);
    char line[1024];
    gv_screen_drain_line(&v, line, sizeof line);
    cr_expect_str_eq(line, "gpuval screen: GPU 3 (GPU-00000003-aaaa-bbbb-cccc-000000000000) "
                           "failed gemm.cublas f32 tf32 (tensor-cores): digest differs from "
                           "the other GPUs'");
    gv_screen_verdict_free(&v);
    free_docs(docs, 4);
}

Test(screen_judge, a_failed_case_fails_its_gpu_with_the_reason_check_gave)
{
    json_t *docs[2] = {node_run(0, H100), node_run(1, H100)};
    json_t *c = row_case(docs[1], row_of(GV_UNIT_REDUCE));
    json_object_set_new(c, "verdict", json_string("FAIL"));
    json_object_set_new(c, "reason", json_string("error model: ratio 812 > 16"));
    /* the two digests differ too: with two GPUs the one farther from the oracle is named */
    json_object_set_new(c, "output_hash", json_string("0x0000000000000bad"));
    json_object_set_new(c, "metrics",
                        json_pack("{s:f, s:f, s:i, s:f, s:f}", "max_rel", 1e-2, "normwise_rel",
                                  5e-3, "worst_index", 7, "worst_value", 0.6, "worst_ref", 0.25));
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 2, NULL, &v), 1);
    cr_assert_eq(v.n_failures, 1);
    cr_expect_eq(v.failures[0].gpu, 1);
    cr_expect_eq(v.failures[0].unit, GV_UNIT_REDUCE);
    cr_expect_eq(v.failures[0].by, GV_SCREEN_BY_CHECK | GV_SCREEN_BY_FLEET);
    char line[1024], by[64];
    cr_expect_str_eq(gv_screen_by_text(v.failures[0].by, by, sizeof by), "check+fleet");
    gv_screen_drain_line(&v, line, sizeof line);
    cr_expect_str_eq(line, "gpuval screen: GPU 1 (GPU-00000001-aaaa-bbbb-cccc-000000000000) "
                           "failed reduce.sum f32 native (reduce): FAIL: error model: ratio 812 "
                           "> 16");
    cr_expect(v.gpus[0].ok);
    gv_screen_verdict_free(&v);
    free_docs(docs, 2);
}

Test(screen_judge, two_gpus_equally_far_from_the_oracle_are_both_named_undecided)
{
    json_t *docs[2] = {node_run(0, H100), node_run(1, H100)};
    json_object_set_new(row_case(docs[1], row_of(GV_UNIT_FFT)), "output_hash",
                        json_string("0x0000000000000bad"));
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 2, NULL, &v), 1);
    cr_assert_eq(v.n_failures, 2);
    cr_expect(!v.gpus[0].ok && !v.gpus[1].ok);
    cr_expect_not_null(strstr(v.failures[0].why, "undecided"), "%s", v.failures[0].why);
    char line[4096];
    gv_screen_drain_line(&v, line, sizeof line); /* the drain line says it was not decided */
    cr_expect_not_null(strstr(line, "undecided (both named"), "%s", line);
    gv_screen_verdict_free(&v);
    free_docs(docs, 2);
}

Test(screen_judge, a_lost_worker_is_not_judged_and_exits_3_when_none_failed)
{
    json_t *docs[3] = {node_run(0, H100), NULL, node_run(2, H100)};
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 3, NULL, &v), 3);
    cr_expect(v.gpus[1].lost && !v.gpus[1].ok);
    char line[1024];
    gv_screen_drain_line(&v, line, sizeof line);
    cr_expect_not_null(strstr(line, "1 GPU not judged"), "%s", line);
    json_t *cond = gv_screen_k8s_condition(&v);
    cr_expect_str_eq(json_string_value(json_object_get(cond, "status")), "Unknown");
    json_decref(cond);
    gv_screen_verdict_free(&v);
    json_decref(docs[0]);
    json_decref(docs[2]);
}

/* ---- golden ------------------------------------------------------------------------------- */

static char dir[128];

static void make_dir(void)
{
    gv_test_scratch_dir(dir, sizeof dir, "screen");
}

static void remove_dir(void)
{
    gv_test_remove_dir(dir);
}

TestSuite(screen_golden, .init = make_dir, .fini = remove_dir);

Test(screen_golden, recorded_digests_match_and_a_changed_bit_fails_one_gpu)
{
    json_t *docs[2] = {node_run(0, H100), node_run(1, H100)};
    char err[512] = "";
    json_t *g = gv_screen_golden_record(NULL, docs, 2, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    cr_expect_eq(gv_screen_golden_validate(g, "recorded", err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(json_array_size(json_object_get(g, "entries")), 1); /* one model, one entry */
    /* written and read back through the strict reader */
    char path[256];
    snprintf(path, sizeof path, "%s/golden.json", dir);
    cr_assert_eq(json_dump_file(g, path, JSON_INDENT(1)), 0);
    json_t *back = NULL;
    cr_assert_eq(gv_screen_golden_read(path, &back, err, sizeof err), GV_OK, "%s", err);

    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 2, back, &v), 0);
    int deterministic = 0;
    const gv_screen_tier *t = gv_screen_tier_find("prolog");
    for (int i = 0; i < t->n_rows; i++)
        deterministic += gv_op_find(t->rows[i].op)->nondeterministic == NULL;
    cr_expect_gt(deterministic, 0);
    cr_expect_eq(v.gpus[0].golden, GV_GOLDEN_COMPARED);
    cr_expect_eq(v.gpus[0].golden_matched, deterministic);
    cr_expect_eq(v.gpus[0].golden_differ, 0);
    gv_screen_verdict_free(&v);

    /* one GPU alone, one bit of one digest: only the golden file can tell */
    int row = row_of(GV_UNIT_FP64);
    json_object_set_new(row_case(docs[1], row), "output_hash", json_string("0x0000000000001004"));
    cr_expect_eq(judge(&docs[1], 1, back, &v), 1);
    cr_assert_eq(v.n_failures, 1);
    cr_expect_eq(v.failures[0].by, GV_SCREEN_BY_GOLDEN);
    cr_expect_eq(v.failures[0].unit, GV_UNIT_FP64);
    char line[1024];
    gv_screen_drain_line(&v, line, sizeof line);
    cr_expect_str_eq(line, "gpuval screen: GPU 1 (GPU-00000001-aaaa-bbbb-cccc-000000000000) "
                           "failed gemm.cublas f64 native (fp64): digest differs from golden");
    gv_screen_verdict_free(&v);
    json_decref(back);
    json_decref(g);
    free_docs(docs, 2);
}

Test(screen_golden, another_gpu_or_driver_has_no_entry_and_that_is_not_a_failure)
{
    json_t *docs[1] = {node_run(0, H100)};
    char err[512];
    json_t *g = gv_screen_golden_record(NULL, docs, 1, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    json_t *other[1] = {node_run(0, "NVIDIA H200")};
    json_object_set_new(row_case(other[0], 0), "output_hash", json_string("0x0123456789abcdef"));
    gv_screen_verdict v;
    cr_expect_eq(judge(other, 1, g, &v), 0);
    cr_expect_eq(v.gpus[0].golden, GV_GOLDEN_NO_ENTRY);
    bool said = false;
    for (int i = 0; i < v.n_notes; i++)
        said = said || strstr(v.notes[i], "no golden entry for this GPU/driver/library");
    cr_expect(said);
    gv_screen_verdict_free(&v);
    /* a new driver is another key as well */
    json_object_set_new(json_object_get(docs[0], "device"), "driver_version", json_integer(13010));
    cr_expect_eq(judge(docs, 1, g, &v), 0);
    cr_expect_eq(v.gpus[0].golden, GV_GOLDEN_NO_ENTRY);
    gv_screen_verdict_free(&v);
    /* recording it keeps the first entry and adds the second */
    json_t *both = gv_screen_golden_record(g, docs, 1, err, sizeof err);
    cr_assert_not_null(both, "%s", err);
    cr_expect_eq(json_array_size(json_object_get(both, "entries")), 2);
    cr_expect_eq(gv_screen_golden_validate(both, "both", err, sizeof err), GV_OK, "%s", err);
    json_decref(both);
    json_decref(g);
    json_decref(docs[0]);
    json_decref(other[0]);
}

Test(screen_golden, nondeterministic_cases_are_left_to_the_models)
{
    json_t *docs[1] = {node_run(0, H100)};
    json_t *c = row_case(docs[0], 0);
    json_object_set_new(c, "deterministic", json_false());
    char err[512];
    json_t *g = gv_screen_golden_record(NULL, docs, 1, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    json_t *digests = json_object_get(json_array_get(json_object_get(g, "entries"), 0), "digests");
    char key[512];
    gv_run_case_key(c, key, sizeof key);
    cr_expect_null(json_object_get(digests, key), "a nondeterministic digest was recorded");
    json_object_set_new(c, "output_hash", json_string("0x0123456789abcdef"));
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 1, g, &v), 0);
    cr_expect_eq(v.n_failures, 0);
    gv_screen_verdict_free(&v);
    json_decref(g);
    json_decref(docs[0]);
}

Test(screen_golden, gpus_of_one_model_that_disagree_are_not_recorded)
{
    json_t *docs[2] = {node_run(0, H100), node_run(1, H100)};
    json_object_set_new(row_case(docs[1], 0), "output_hash", json_string("0x0123456789abcdef"));
    char err[512] = "";
    cr_expect_null(gv_screen_golden_record(NULL, docs, 2, err, sizeof err));
    cr_expect_not_null(strstr(err, "disagree"), "%s", err);
    free_docs(docs, 2);
}

/* Two GPUs, and the faulty one nearer the oracle by both errors: merge's vote names the healthy
   one, but it holds the golden digest, so only the faulty one fails (by golden). */
Test(screen_golden, the_golden_file_outweighs_the_fleet_vote_of_two_gpus)
{
    json_t *docs[2] = {node_run(0, H100), node_run(1, H100)};
    char err[512];
    json_t *g = gv_screen_golden_record(NULL, docs, 2, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    json_t *c = row_case(docs[1], row_of(GV_UNIT_FFT));
    json_object_set_new(c, "output_hash", json_string("0x0000000000000bad"));
    json_object_set_new(json_object_get(c, "metrics"), "normwise_rel", json_real(4e-8));
    json_object_set_new(json_object_get(c, "metrics"), "max_rel", json_real(0.9e-7));
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 2, g, &v), 1);
    cr_assert_eq(v.n_failures, 1, "GPU 0 holds the golden digest: only GPU 1 is named");
    cr_expect_eq(v.failures[0].gpu, 1);
    cr_expect_eq(v.failures[0].by, GV_SCREEN_BY_GOLDEN);
    cr_expect(v.gpus[0].ok && !v.gpus[1].ok);
    gv_screen_verdict_free(&v);
    json_decref(g);
    free_docs(docs, 2);
}

Test(screen_golden, the_golden_file_decides_between_two_gpus_that_merge_cannot)
{
    json_t *docs[2] = {node_run(0, H100), node_run(1, H100)};
    char err[512];
    json_t *g = gv_screen_golden_record(NULL, docs, 2, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    /* equally far from the oracle (the same metrics), another digest on GPU 1 */
    json_object_set_new(row_case(docs[1], row_of(GV_UNIT_FFT)), "output_hash",
                        json_string("0x0000000000000bad"));
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 2, g, &v), 1);
    cr_assert_eq(v.n_failures, 1, "GPU 0 holds the golden digest: only GPU 1 is named");
    cr_expect_eq(v.failures[0].gpu, 1);
    cr_expect_eq(v.failures[0].unit, GV_UNIT_FFT);
    cr_expect_eq(v.failures[0].by, GV_SCREEN_BY_GOLDEN | GV_SCREEN_BY_FLEET);
    cr_expect(v.gpus[0].ok && !v.gpus[1].ok);
    gv_screen_verdict_free(&v);
    json_decref(g);
    free_docs(docs, 2);
}

/* A file with text, read by the strict reader: the message it gave. */
static int read_text(const char *text, char *err, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/bad.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    json_t *g = NULL;
    err[0] = '\0';
    int rc = gv_screen_golden_read(path, &g, err, len);
    cr_expect_eq(rc == GV_OK, g != NULL);
    json_decref(g);
    return rc;
}

#define ENTRY_HEAD "{\"gpu\": \"X\", \"driver\": 1, \"runtime\": 2, \"cublas\": 3"

Test(screen_golden, the_reader_refuses_anything_but_the_format_with_the_reason)
{
    char err[512];
    cr_expect_eq(read_text("{\"schema\": \"gpuval-golden/1\", \"entries\": [" ENTRY_HEAD
                           ", \"digests\": {\"k\": \"0x0123456789abcdef\"}}]}",
                           err, sizeof err),
                 GV_OK, "%s", err);
    const struct {
        const char *text, *says;
    } bad[] = {
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": [", "not JSON"},
        {"[]", "not a JSON object"},
        {"{\"schema\": \"gpuval-run/1\", \"entries\": []}", "not a golden file"},
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": [], \"extra\": 1}", "unknown member"},
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": {}}", "not an array"},
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": [7]}", "entry 0 is not an object"},
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": [{\"gpu\": \"X\", \"driver\": 1, "
         "\"runtime\": 2, \"digests\": {}}]}",
         "\"cublas\""},
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": [" ENTRY_HEAD ", \"digests\": []}]}",
         "\"digests\" is not an object"},
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": [" ENTRY_HEAD
         ", \"digests\": {\"k\": \"0x12\"}}]}",
         "not 0x and 16 hex digits"},
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": [" ENTRY_HEAD
         ", \"digests\": {\"k\": 5}}]}",
         "not 0x and 16 hex digits"},
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": [" ENTRY_HEAD ", \"digests\": {}}, "
         "" ENTRY_HEAD ", \"digests\": {}}]}",
         "are both for"},
        {"{\"schema\": \"gpuval-golden/1\", \"entries\": [" ENTRY_HEAD
         ", \"digests\": {}, \"when\": 1}]}",
         "unknown member \"when\""},
        {"{\"schema\": \"gpuval-golden/1\", \"schema\": \"gpuval-golden/1\", \"entries\": []}",
         "not JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_eq(read_text(bad[i].text, err, sizeof err), GV_EINVAL, "accepted: %s",
                     bad[i].text);
        cr_expect_not_null(strstr(err, bad[i].says), "%s\n  said: %s", bad[i].text, err);
        cr_expect_not_null(strstr(err, "bad.json"), "the file is named: %s", err);
    }
    /* through the command: exit 2 and the reason, before any device is looked for */
    char args[512], out[4096];
    snprintf(args, sizeof args, "screen --golden %s/bad.json", dir);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect_not_null(strstr(out, "--golden "), "%s", out);
    cr_expect_not_null(strstr(out, "not JSON"), "%s", out);
    snprintf(args, sizeof args, "screen --golden %s/none.json", dir);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    /* --record onto a file that is not a golden file: refused, the file untouched */
    snprintf(args, sizeof args, "screen --record %s/bad.json", dir);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect_not_null(strstr(out, "--record "), "%s", out);
}

/* ---- outputs ------------------------------------------------------------------------------ */

/* The verdict of four GPUs, GPU 2 an outlier on the tensor cores and its model name holding a
   double quote (escaped in the Prometheus labels). */
static void faulty_node(json_t **docs, gv_screen_verdict *v)
{
    for (int i = 0; i < 4; i++)
        docs[i] = node_run(i, "H100 \"SXM\"");
    json_object_set_new(row_case(docs[2], row_of(GV_UNIT_TENSOR)), "output_hash",
                        json_string("0x00000000deadbeef"));
    cr_assert_eq(judge(docs, 4, NULL, v), 1);
    v->seconds = 12.5;
}

Test(screen_out, the_prometheus_textfile_has_one_gauge_per_gpu_and_unit)
{
    json_t *docs[4];
    gv_screen_verdict v;
    faulty_node(docs, &v);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    cr_assert_eq(gv_screen_write_prom(f, &v), 0);
    fclose(f);
    /* every line a comment (HELP or TYPE) or a sample: name, labels, a number */
    regex_t sample;
    cr_assert_eq(regcomp(&sample,
                         "^[a-z_]+(\\{([a-z_]+=\"([^\"\\\\]|\\\\.)*\",?)+\\})? -?[0-9][0-9.e+-]*$",
                         REG_EXTENDED | REG_NOSUB),
                 0);
    int samples = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "# HELP gpuval_screen_", 21) == 0 ||
            strncmp(line, "# TYPE gpuval_screen_", 21) == 0)
            continue;
        cr_expect_eq(regexec(&sample, line, 0, NULL, 0), 0, "not a sample: %s", line);
        samples++;
    }
    regfree(&sample);
    free(text);
    f = open_memstream(&text, &size);
    gv_screen_write_prom(f, &v);
    fclose(f);
    const char *labels = "{gpu=\"2\",uuid=\"GPU-00000002-aaaa-bbbb-cccc-000000000000\","
                         "model=\"H100 \\\"SXM\\\"\",tier=\"prolog/1\"";
    char want[512];
    snprintf(want, sizeof want, "gpuval_screen_ok%s} 0\n", labels);
    cr_expect_not_null(strstr(text, want), "%s\n%s", want, text);
    snprintf(want, sizeof want, "gpuval_screen_failures%s,unit=\"tensor-cores\"} 1\n", labels);
    cr_expect_not_null(strstr(text, want), "%s\n%s", want, text);
    snprintf(want, sizeof want, "gpuval_screen_failures%s,unit=\"fft\"} 0\n", labels);
    cr_expect_not_null(strstr(text, want), "%s\n%s", want, text);
    cr_expect_not_null(strstr(text, "gpuval_screen_ok{gpu=\"0\",uuid=\"GPU-00000000"), "%s", text);
    cr_expect_not_null(strstr(text, "gpuval_screen_seconds{gpu=\"3\""), "%s", text);
    cr_expect_not_null(strstr(text, "gpuval_screen_node_seconds{tier=\"prolog/1\"} 12.500\n"), "%s",
                       text);
    cr_expect_not_null(strstr(text, "gpuval_screen_exit_code{tier=\"prolog/1\"} 1\n"), "%s", text);
    /* 4 ok, 4 x units failures, 4 golden, 4 seconds, node seconds, exit code, timestamp */
    cr_expect_eq(samples, 4 + 4 * GV_SCREEN_NUNITS + 4 + 4 + 3);
    free(text);
    gv_screen_verdict_free(&v);
    free_docs(docs, 4);
}

Test(screen_out, the_node_condition_and_the_screen_document_say_what_the_drain_line_says)
{
    json_t *docs[4];
    gv_screen_verdict v;
    faulty_node(docs, &v);
    char line[1024];
    gv_screen_drain_line(&v, line, sizeof line);
    cr_expect_null(strchr(line, '\n'));
    json_t *cond = gv_screen_k8s_condition(&v);
    cr_expect_str_eq(json_string_value(json_object_get(cond, "type")), "GpuvalScreen");
    cr_expect_str_eq(json_string_value(json_object_get(cond, "status")), "True");
    cr_expect_str_eq(json_string_value(json_object_get(cond, "reason")), "GpuFailedScreen");
    cr_expect_str_eq(json_string_value(json_object_get(cond, "message")), line);
    const char *when = json_string_value(json_object_get(cond, "lastProbeTime"));
    cr_expect(when && strlen(when) == 20 && when[19] == 'Z', "%s", when ? when : "(none)");
    cr_expect_eq(json_object_size(cond), 6);
    json_decref(cond);

    const char *files[4] = {"n.dev0.json", "n.dev1.json", "n.dev2.json", "n.dev3.json"};
    json_t *doc = gv_screen_doc(&v, files);
    cr_expect(gv_schema_is(json_string_value(json_object_get(doc, "schema")), GV_DOC_SCREEN));
    cr_expect_str_eq(json_string_value(json_object_get(doc, "drain_line")), line);
    cr_expect_eq(json_integer_value(json_object_get(doc, "exit_code")), 1);
    json_t *gpus = json_object_get(doc, "gpus");
    cr_assert_eq(json_array_size(gpus), 4);
    json_t *g2 = json_array_get(gpus, 2);
    cr_expect(json_is_false(json_object_get(g2, "ok")));
    cr_expect_str_eq(json_string_value(json_object_get(g2, "run")), "n.dev2.json");
    json_t *f0 = json_array_get(json_object_get(g2, "failures"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(f0, "unit")), "tensor-cores");
    cr_expect_str_eq(json_string_value(json_object_get(f0, "judgements")), "fleet");
    cr_expect(json_is_true(json_object_get(json_array_get(gpus, 0), "ok")));
    json_decref(doc);

    /* healthy: False, and the reason says so */
    json_object_set_new(row_case(docs[2], row_of(GV_UNIT_TENSOR)), "output_hash",
                        json_string("0x0000000000001000"));
    gv_screen_verdict_free(&v);
    cr_assert_eq(judge(docs, 4, NULL, &v), 0);
    cond = gv_screen_k8s_condition(&v);
    cr_expect_str_eq(json_string_value(json_object_get(cond, "status")), "False");
    cr_expect_str_eq(json_string_value(json_object_get(cond, "reason")), "GpusPassedScreen");
    json_decref(cond);
    gv_screen_verdict_free(&v);
    free_docs(docs, 4);
}

/* ---- the run document with its screen block ---------------------------------------------- */

Test(screen_doc, a_run_with_the_screen_block_is_read_by_report_and_compare, .timeout = 120)
{
    /* a real run document (an H100's catalogue), given the block a screen worker adds */
    char src[512], path[256], out[16384], args[1024];
    snprintf(src, sizeof src, "%s/tests/fixtures/check-h100.json", getenv("GPUVAL_SRCDIR"));
    json_error_t je;
    json_t *doc = json_load_file(src, 0, &je);
    cr_assert_not_null(doc, "%s: %s", src, je.text);
    json_object_set_new(doc, "screen",
                        json_pack("{s:s, s:f, s:f, s:{s:s}, s:s, s:i}", "tier", "prolog/1",
                                  "budget_s", 45.0, "seconds", 12.5, "units",
                                  "vadd f32 native uniform11 1000", "memory", "drain_line",
                                  "gpuval screen: prolog/1 passed on 1 GPU in 12.5 s", "exit_code",
                                  0));
    snprintf(path, sizeof path, "%s/screen-run.json", dir);
    cr_assert_eq(json_dump_file(doc, path, JSON_INDENT(1)), 0);
    json_decref(doc);
    json_t *back = NULL;
    char err[1024];
    const char *const schemas[] = {gv_schema(GV_DOC_RUN), NULL};
    cr_expect_eq(gv_run_read(path, schemas, &back, err, sizeof err), GV_OK, "%s", err);
    json_decref(back);
    snprintf(args, sizeof args, "report %s --md %s/r.md", path, dir);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    snprintf(args, sizeof args, "compare %s %s", src, path);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
}

TestSuite(screen_doc, .init = make_dir, .fini = remove_dir);

/* ---- usage ---------------------------------------------------------------------------------- */

Test(screen_cli, usage_errors_are_one_line_and_a_pointer_to_the_help, .timeout = 60)
{
    const struct {
        const char *args, *says;
    } bad[] = {
        {"screen --tier lunch", "--tier 'lunch': expected prolog or drain"},
        {"screen extra", "no positional arguments"},
        {"screen --frobnicate", "unknown option"},
        {"screen --tier", "--tier"},
        {"screen --golden a.json --record b.json", "give one of them"},
        {"screen --device 0,0", "names device 0 twice"},
        {"screen --device x", "--device takes N"},
        {"screen --json /nonexistent-dir/x.json", "/nonexistent-dir/x.json"},
        {"screen --prom /nonexistent-dir/x.prom", "/nonexistent-dir/x.prom"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char out[4096], err[4096];
        int rc = gv_test_run_cli_split(bad[i].args, out, sizeof out, err, sizeof err);
        cr_expect_eq(rc, 2, "%s: exit %d\n%s", bad[i].args, rc, err);
        cr_expect_str_eq(out, "", "%s wrote to stdout: %s", bad[i].args, out);
        cr_expect_not_null(strstr(err, bad[i].says), "%s: %s", bad[i].args, err);
        int lines = 0;
        for (const char *p = err; *p; p++)
            lines += *p == '\n';
        cr_expect_leq(lines, 2, "%s: %s", bad[i].args, err);
    }
    char out[4096], err[4096];
    /* a planted fault that does not parse is a usage error too: nothing may run half-planted */
    setenv("GPUVAL_SCREEN_FAULT", "3:sometimes", 1);
    int rc = gv_test_run_cli_split("screen", out, sizeof out, err, sizeof err);
    unsetenv("GPUVAL_SCREEN_FAULT");
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_not_null(strstr(err, "unknown kind 'sometimes'"), "%s", err);
    rc = gv_test_run_cli_split("screen --help", out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 0);
    cr_expect_not_null(strstr(out, "usage: gpuval screen"), "%s", out);
    rc = gv_test_run_cli_split("screen --version", out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 0);
    cr_expect_not_null(strstr(out, "gpuval "), "%s", out);
}

Test(screen_cli, a_worker_gets_the_tier_and_nothing_the_parent_writes_or_reads)
{
    char *argv[] = {"screen",   "--tier", "drain",  "--golden", "g.json", "--prom=p.prom",
                    "--k8s",    "k.json", "--json", "n.json",   "-q",     "--drain-line",
                    "--device", "0,1",    NULL};
    char **w = gv_fleet_worker_argv(&gv_screen_options, "/bin/gpuval", 14, argv, 1, "n.dev1.json");
    cr_assert_not_null(w);
    const char *want[] = {"/bin/gpuval", "screen", "--tier", "drain",       "-q",
                          "--device",    "1",      "--json", "n.dev1.json", NULL};
    int i = 0;
    for (; want[i] && w[i]; i++)
        cr_expect_str_eq(w[i], want[i], "argument %d", i);
    cr_expect_null(w[i], "more arguments than expected: %s", w[i] ? w[i] : "");
    cr_expect_null(want[i], "fewer arguments than expected");
    gv_fleet_worker_argv_free(w);
}
