/* screen_health.c: the health and perf blocks of a screen run (screen_health.h). */
#include "fleet/screen_health.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *key, *unit;
} perf_table[] = {
#define GV_SCREEN_PERF_ROW(id, key, unit, what) {key, unit},
    GV_SCREEN_PERF(GV_SCREEN_PERF_ROW)
#undef GV_SCREEN_PERF_ROW
};

const char *gv_screen_perf_key(int i)
{
    return i >= 0 && i < GV_SCREEN_NPERF ? perf_table[i].key : "";
}

const char *gv_screen_perf_unit(int i)
{
    return i >= 0 && i < GV_SCREEN_NPERF ? perf_table[i].unit : "";
}

static json_t *snapshot_json(const gv_health *h)
{
    if (!h->ok) return json_pack("{s:b, s:s}", "ok", 0, "why", h->why);
    json_t *o = json_pack("{s:b, s:i, s:i, s:i, s:i, s:I}", "ok", 1, "sm_clock_mhz",
                          (json_int_t)h->sm_clock_mhz, "sm_clock_max_mhz",
                          (json_int_t)h->sm_clock_max_mhz, "temp_c", (json_int_t)h->temp_c,
                          "power_mw", (json_int_t)h->power_mw, "throttle",
                          (json_int_t)h->throttle);
    if (h->have_ecc)
        json_object_set_new(o, "ecc",
                            json_pack("{s:I, s:I, s:I, s:I}", "volatile_corrected",
                                      (json_int_t)h->ecc_vol_corrected, "volatile_uncorrected",
                                      (json_int_t)h->ecc_vol_uncorrected, "aggregate_corrected",
                                      (json_int_t)h->ecc_agg_corrected, "aggregate_uncorrected",
                                      (json_int_t)h->ecc_agg_uncorrected));
    if (h->have_remap)
        json_object_set_new(o, "remapped_rows",
                            json_pack("{s:i, s:i, s:b, s:b}", "corrected",
                                      (json_int_t)h->remap_corrected, "uncorrected",
                                      (json_int_t)h->remap_uncorrected, "pending",
                                      h->remap_pending != 0, "failure", h->remap_failure != 0));
    if (h->have_retired)
        json_object_set_new(o, "retired_pages_pending", json_boolean(h->retired_pending != 0));
    return o;
}

json_t *gv_screen_health_json(const gv_health *before, const gv_health *after,
                              const unsigned long long *xid, int n_xid, const char *watch_why)
{
    json_t *codes = json_array();
    for (int i = 0; i < n_xid && i < GV_XID_MAX; i++)
        json_array_append_new(codes, json_integer((json_int_t)xid[i]));
    json_t *o = json_pack("{s:o, s:o, s:o, s:i}", "before", snapshot_json(before), "after",
                          snapshot_json(after), "xid", codes, "xid_events", (json_int_t)n_xid);
    if (watch_why && *watch_why) json_object_set_new(o, "xid_watch", json_string(watch_why));
    return o;
}

/* A non-negative integer member, 0 where absent or not one. */
static unsigned long long uint_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) >= 0
               ? (unsigned long long)json_integer_value(v)
               : 0;
}

static void snapshot_read(const json_t *o, gv_health *h)
{
    memset(h, 0, sizeof *h);
    if (!json_is_object(o)) {
        snprintf(h->why, sizeof h->why, "no health snapshot in the run");
        return;
    }
    if (!json_is_true(json_object_get(o, "ok"))) {
        const char *why = json_string_value(json_object_get(o, "why"));
        snprintf(h->why, sizeof h->why, "%s", why ? why : "not read");
        return;
    }
    h->ok = true;
    h->sm_clock_mhz = (unsigned)uint_of(o, "sm_clock_mhz");
    h->sm_clock_max_mhz = (unsigned)uint_of(o, "sm_clock_max_mhz");
    h->temp_c = (unsigned)uint_of(o, "temp_c");
    h->power_mw = (unsigned)uint_of(o, "power_mw");
    h->throttle = uint_of(o, "throttle");
    const json_t *ecc = json_object_get(o, "ecc");
    if (json_is_object(ecc)) {
        h->have_ecc = true;
        h->ecc_vol_corrected = uint_of(ecc, "volatile_corrected");
        h->ecc_vol_uncorrected = uint_of(ecc, "volatile_uncorrected");
        h->ecc_agg_corrected = uint_of(ecc, "aggregate_corrected");
        h->ecc_agg_uncorrected = uint_of(ecc, "aggregate_uncorrected");
    }
    const json_t *rr = json_object_get(o, "remapped_rows");
    if (json_is_object(rr)) {
        h->have_remap = true;
        h->remap_corrected = (unsigned)uint_of(rr, "corrected");
        h->remap_uncorrected = (unsigned)uint_of(rr, "uncorrected");
        h->remap_pending = json_is_true(json_object_get(rr, "pending"));
        h->remap_failure = json_is_true(json_object_get(rr, "failure"));
    }
    const json_t *rp = json_object_get(o, "retired_pages_pending");
    if (json_is_boolean(rp)) {
        h->have_retired = true;
        h->retired_pending = json_is_true(rp);
    }
}

int gv_screen_health_read(const json_t *block, gv_health *before, gv_health *after,
                          unsigned long long xid[GV_XID_MAX])
{
    snapshot_read(json_object_get(block, "before"), before);
    snapshot_read(json_object_get(block, "after"), after);
    size_t i;
    const json_t *c;
    int n = 0;
    json_array_foreach(json_object_get(block, "xid"), i, c)
    {
        if (n < GV_XID_MAX && json_is_integer(c)) xid[n++] = (unsigned long long)json_integer_value(c);
    }
    int events = (int)uint_of(block, "xid_events");
    return events > n ? events : n;
}

json_t *gv_screen_perf_json(const double values[GV_SCREEN_NPERF],
                            const char *const why[GV_SCREEN_NPERF])
{
    json_t *o = json_object();
    for (int i = 0; i < GV_SCREEN_NPERF; i++) {
        if (values[i] > 0 && isfinite(values[i])) {
            json_object_set_new(o, perf_table[i].key, json_real(values[i]));
        } else {
            char k[64];
            snprintf(k, sizeof k, "why_%s", perf_table[i].key);
            json_object_set_new(o, k, json_string(why && why[i] && *why[i] ? why[i] : "not measured"));
        }
    }
    return o;
}

void gv_screen_perf_read(const json_t *block, double values[GV_SCREEN_NPERF])
{
    for (int i = 0; i < GV_SCREEN_NPERF; i++) {
        const json_t *v = json_object_get(block, perf_table[i].key);
        double x = json_is_number(v) ? json_number_value(v) : 0;
        values[i] = x > 0 && isfinite(x) ? x : 0;
    }
}

bool gv_screen_perf_slow(double value, double reference)
{
    return value > 0 && reference > 0 && value * GV_SCREEN_PERF_MARGIN < reference;
}
