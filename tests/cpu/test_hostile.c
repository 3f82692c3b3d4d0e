/* test_hostile.c: hostile invocations of gpuval — odd seeds, over-cap sizes, control
 * characters in arguments, huge byte counts — must give a clean message, the right exit, and
 * never echo raw control bytes or a wrapped number. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testkit.h"
#include "../gpu/require.h"
#include "cmd/cli.h"
#include "core/gv.h"
#include "bench/bench_plan.h"
#include "io/json_util.h"

typedef struct hrun {
    int status;
    char out[65536];
    char err[65536];
} hrun;

static hrun *run(const char *args)
{
    hrun *r = calloc(1, sizeof *r);
    cr_assert_not_null(r);
    r->status = gv_test_run_cli_split(args, r->out, sizeof r->out, r->err, sizeof r->err);
    return r;
}

static bool has_control(const char *s)
{
    for (; *s; s++)
        if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f) return true;
    return false;
}

/* ---- 1: seeds are decimal or 0x hex, no sign, no spaces, no octal ---- */

Test(hostile, seed_rejects_sign_space_and_reads_no_octal)
{
    const char *bad[] = {" -1", "-1", "+1", " 5", "5 ", "1e3", "0x", "12a", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t s = 42;
        cr_expect_neq(gv_cmd_parse_seed(bad[i], &s), 0, "seed '%s' must be refused", bad[i]);
        cr_expect_eq(s, 42, "seed '%s' must leave the seed alone", bad[i]);
    }
    uint64_t s = 0;
    cr_expect_eq(gv_cmd_parse_seed("010", &s), 0);
    cr_expect_eq(s, 10, "010 is decimal ten, not octal (got %llu)", (unsigned long long)s);
    cr_expect_eq(gv_cmd_parse_seed("0x1F", &s), 0);
    cr_expect_eq(s, 31);
    cr_expect_eq(gv_cmd_parse_seed("18446744073709551615", &s), 0);
    cr_expect_eq(s, UINT64_MAX);
    cr_expect_eq(gv_cmd_parse_seed("0xffffffffffffffff", &s), 0);
    cr_expect_eq(s, UINT64_MAX);
}

Test(hostile, seed_out_of_range_names_the_limit)
{
    hrun *r = run("check --op vadd --size 10 --seed 18446744073709551616");
    cr_expect_eq(r->status, 2, "exit %d: %s", r->status, r->err);
    cr_expect(strstr(r->err, "18446744073709551615") != NULL, "no limit in: %s", r->err);
    free(r);
    r = run("check --op vadd --size 10 --seed 0x10000000000000000");
    cr_expect_eq(r->status, 2, "exit %d: %s", r->status, r->err);
    cr_expect(strstr(r->err, "2^64-1") != NULL, "no limit in: %s", r->err);
    free(r);
    r = run("check --op vadd --size 10 --seed ' -1'");
    cr_expect_eq(r->status, 2, "' -1' must be a usage error: exit %d", r->status);
    free(r);
}

/* ---- 2: a seed >= 2^63 survives the JSON file ---- */

Test(hostile, big_seed_is_written_exactly_and_replays)
{
    json_t *small = gv_json_seed(7), *big = gv_json_seed(UINT64_MAX);
    cr_expect(json_is_integer(small) && json_integer_value(small) == 7);
    cr_assert(json_is_string(big), "a seed above 2^63-1 must be a string");
    cr_expect_str_eq(json_string_value(big), "18446744073709551615");
    json_decref(small);
    json_decref(big);

    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[512], args[1024];
    snprintf(path, sizeof path, "%s/gpuval-seed-%d.json", tmp, (int)getpid());
    snprintf(args, sizeof args,
             "check --op vadd --size 10 --dtype f64 --seed 9223372036854775808 --json '%s'", path);
    hrun *r = run(args);
    cr_assert(r->status == 0 || r->status == 77 || r->status == 1, "exit %d: %s", r->status,
              r->err);
    free(r);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    unlink(path);
    cr_assert_not_null(doc, "%s", e.text);
    json_t *seed = json_object_get(json_array_get(json_object_get(doc, "cases"), 0), "seed");
    cr_assert(json_is_string(seed), "seed 2^63 must be written as a string");
    uint64_t back = 0;
    cr_expect_eq(gv_cmd_parse_seed(json_string_value(seed), &back), 0);
    cr_expect_eq(back, 9223372036854775808ull);
    json_decref(doc);
}

/* ---- 3: over-cap sizes name the cap ---- */

Test(hostile, over_cap_dim_names_the_largest_size)
{
    const char *bad[] = {"5e18", "10x5e18", "2^63", "1e400"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gv_shape s[4];
        char err[512] = "";
        cr_expect_lt(gv_size_spec_parse(bad[i], s, 4, err, sizeof err), 0, "%s", bad[i]);
        cr_expect(strstr(err, "exceeds the largest size 4.6e18") != NULL, "'%s': %s", bad[i], err);
        cr_expect(strstr(err, "malformed") == NULL, "'%s' is not malformed: %s", bad[i], err);
    }
    gv_shape s[1];
    char err[512] = "";
    gv_size_spec_parse("5e18", s, 1, err, sizeof err);
    cr_expect_str_eq(err, "dim 5e18 in '5e18' exceeds the largest size 4.6e18");
}

/* ---- 4: control characters are escaped when quoted back ---- */

Test(hostile, printable_escapes_control_characters)
{
    char buf[64];
    cr_expect_str_eq(gv_printable("a\x1b[31mb\n", buf, sizeof buf), "a\\x1b[31mb\\x0a");
    cr_expect_str_eq(gv_printable("plain", buf, sizeof buf), "plain");
    char small[8];
    gv_printable("\x01\x02\x03\x04", small, sizeof small);
    cr_expect(strlen(small) < sizeof small);
}

/* Bytes of 0x80 and above: a well-formed UTF-8 character from U+00A0 up passes (a path or a
   name in another script is shown as it is); a C1 control (U+0080 to U+009F: 0x9b alone, or
   encoded, is a CSI to some terminals), a stray or cut byte, an overlong form or a surrogate
   is escaped byte by byte. */
Test(hostile, printable_escapes_bytes_that_are_not_printable_utf8)
{
    char buf[128];
    cr_expect_str_eq(gv_printable("caf\xc3\xa9", buf, sizeof buf), "caf\xc3\xa9");     /* café */
    cr_expect_str_eq(gv_printable("\xe2\x88\x9a2", buf, sizeof buf), "\xe2\x88\x9a2"); /* √2 */
    cr_expect_str_eq(gv_printable("\xf0\x9f\x98\x80", buf, sizeof buf), "\xf0\x9f\x98\x80");
    cr_expect_str_eq(gv_printable("a\x9b"
                                  "31mb",
                                  buf, sizeof buf),
                     "a\\x9b31mb");
    cr_expect_str_eq(gv_printable("\xc2\x9b"
                                  "1m",
                                  buf, sizeof buf),
                     "\\xc2\\x9b1m");
    cr_expect_str_eq(gv_printable("\xff\xfe", buf, sizeof buf), "\\xff\\xfe");
    cr_expect_str_eq(gv_printable("\xc3", buf, sizeof buf), "\\xc3");          /* cut */
    cr_expect_str_eq(gv_printable("\xc0\xaf", buf, sizeof buf), "\\xc0\\xaf"); /* overlong */
    cr_expect_str_eq(gv_printable("\xed\xa0\x80", buf, sizeof buf), "\\xed\\xa0\\x80"); /* D800 */
    cr_expect_str_eq(gv_printable("\xf4\x90\x80\x80", buf, sizeof buf),
                     "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
    cr_expect_str_eq(gv_printable("\x7f", buf, sizeof buf), "\\x7f");
}

Test(hostile, control_characters_in_arguments_are_not_echoed)
{
    const char *args[] = {
        "check --op vadd --size \"$(printf '1\\033[31m')\"",
        "check --op \"$(printf 'va\\033dd')\" --size 10",
        "check --op vadd --size 10 --seed \"$(printf '1\\033')\"",
        "check --op vadd --size 10 --dtype \"$(printf 'f\\03332')\"",
        "check --op vadd --size 10 --mode \"$(printf 'x\\007')\"",
        "check --op vadd --size 10 --dist \"$(printf 'x\\033')\"",
        "\"$(printf 'che\\033ck')\"",
        "check --op vadd --size 10 \"$(printf 'pos\\033')\"",
        "check --op vadd --size 10 \"$(printf -- '--bo\\033gus')\"",
        "bench --op vadd --size \"$(printf '1\\033')\"",
        "bench --crossover vadd --sweep \"$(printf 'n=1..\\033')\"",
    };
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        hrun *r = run(args[i]);
        cr_expect_eq(r->status, 2, "%s: exit %d (%s)", args[i], r->status, r->err);
        cr_expect(!has_control(r->err), "%s: raw control bytes in: %s", args[i], r->err);
        cr_expect(strstr(r->err, "\\x") != NULL, "%s: no escape in: %s", args[i], r->err);
        free(r);
    }
}

/* ---- 9: byte counts near 4.6e18 elements do not wrap ---- */

Test(hostile, device_bytes_do_not_wrap)
{
    const gv_op *op = gv_op_find("vadd");
    cr_assert_not_null(op);
    gv_problem p;
    memset(&p, 0, sizeof p);
    p.c.op = op;
    p.c.dtype = GV_F64;
    p.c.shape = (gv_shape){.nd = 1, .d = {4000000000000000000LL}};
    cr_assert_eq(op->layout(&p.c, &p.l), GV_OK);
    int64_t b = gv_device_bytes(&p);
    cr_expect_gt(b, 0, "device bytes wrapped to %lld", (long long)b);
    cr_expect_eq(b, INT64_MAX);
    cr_expect_gt(gv_host_bytes(&p.l, GV_F64), 1e19);
}

Test(hostile, check_of_a_huge_vadd_exits_cleanly)
{
    hrun *r = run("check --op vadd --size 4e18");
    cr_expect(r->status == 77 || r->status == 0 || r->status == 1, "exit %d: %s", r->status,
              r->err);
    cr_expect(strstr(r->out, "needs -") == NULL && strstr(r->out, " -4") == NULL, "%s", r->out);
    free(r);
}

/* ---- 5: a --sweep value longer than its buffer is refused, not cut ---- */

Test(hostile, long_sweep_is_refused_not_truncated)
{
    /* cut at 127 bytes this reads "n=1.000..0..10.000..0", a valid range: LO 60 chars,
       HI 63 chars before the junk */
    char spec[300] = "n=1.";
    memset(spec + 4, '0', 58);
    strcpy(spec + 62, "..10.");
    memset(spec + 67, '0', 60);
    strcpy(spec + 127, "junk");
    gv_sweep sw = {.op = gv_op_find("vadd"), .factor = 2};
    cr_assert_not_null(sw.op);
    char why[512] = "";
    cr_expect_neq(gv_sweep_parse(&sw, spec, why, sizeof why), GV_OK, "a cut --sweep was accepted");
    cr_expect(strstr(why, "--sweep") != NULL, "%s", why);
    cr_expect_eq(gv_sweep_parse(&sw, "n=1..10", why, sizeof why), GV_OK, "%s", why);
}

/* ---- 6: GPUVAL_REQUIRE_GPU counts for any value but empty or "0" ---- */

Test(hostile, require_gpu_is_any_value_but_empty_or_zero)
{
    cr_expect(!gv_require_gpu(NULL));
    cr_expect(!gv_require_gpu(""));
    cr_expect(!gv_require_gpu("0"));
    cr_expect(gv_require_gpu("1"));
    cr_expect(gv_require_gpu("yes"));
    cr_expect(gv_require_gpu("true"));
    cr_expect(gv_require_gpu("2"));
}

/* ---- 8: an out-of-memory selection says so, in err, never leaves it unwritten ---- */

/* Bytes of address space this process maps now (/proc/self/statm), 0 when unknown. */
static size_t mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1) pages = 0;
        fclose(f);
    }
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

#if defined(__SANITIZE_ADDRESS__)
#define GV_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GV_ASAN 1
#endif
#endif

Test(hostile, select_out_of_memory_fills_err)
{
#ifdef GV_ASAN
    /* AddressSanitizer reserves terabytes of shadow: an address-space limit cannot be set a
       little above what the process maps; the ordinary build runs this test */
    cr_skip_test("RLIMIT_AS cannot bound an AddressSanitizer process");
#endif
    int ns = 1 << 20; /* a million shapes x 2 dtypes: ~150 MB of cases */
    gv_shape *shapes = malloc(sizeof *shapes * (size_t)ns);
    cr_assert_not_null(shapes);
    for (int i = 0; i < ns; i++)
        shapes[i] = (gv_shape){1, {10}};
    gv_selection sel = {.op_glob = "vadd", .dist = -1, .shapes = shapes, .n_shapes = ns};
    char err[512];
    memset(err, 'A', sizeof err); /* as an unwritten stack buffer may hold */
    err[sizeof err - 1] = '\0';
    struct rlimit old;
    cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
    size_t now = mapped_bytes();
    cr_assert_gt(now, 0);
    struct rlimit low = {now + ((size_t)32 << 20), old.rlim_max};
    cr_assert_eq(setrlimit(RLIMIT_AS, &low), 0);
    gv_case *cases = NULL;
    int n = gv_select(&sel, &cases, err, sizeof err);
    setrlimit(RLIMIT_AS, &old);
    free(shapes);
    free(n >= 0 ? cases : NULL);
    cr_assert_eq(n, GV_ENOMEM, "want GV_ENOMEM under a 32 MB headroom, got %d", n);
    cr_expect(strstr(err, "memory") != NULL, "err not written: '%.40s'", err);
}
