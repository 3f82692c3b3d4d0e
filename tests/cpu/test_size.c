/* test_size.c: the size SPEC grammar — accepted forms, and rejections with a message. */
#include <criterion/criterion.h>

#include "core/gv.h"

Test(size, accepts_plain_exponent_and_power_forms)
{
    gv_shape s[8];
    char err[256] = "";
    int n = gv_size_spec_parse("1000,1e5,1.15e7,2^28,64x48x32", s, 8, err, sizeof err);
    cr_assert_eq(n, 5, "%s", err);
    cr_expect_eq(s[0].d[0], 1000);
    cr_expect_eq(s[1].d[0], 100000);
    cr_expect_eq(s[2].d[0], 11500000);
    cr_expect_eq(s[3].d[0], 268435456);
    cr_expect_eq(s[4].nd, 3);
    cr_expect_eq(s[4].d[0], 64);
    cr_expect_eq(s[4].d[1], 48);
    cr_expect_eq(s[4].d[2], 32);
}

Test(size, rejects_malformed_sizes_with_a_message)
{
    const char *bad[] = {"",    "0",    "-5", "1.5",  "abc",   "10x",
                         "x10", "1e5y", "2^", "1,,2", "1e400", "1x2x3x4x5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gv_shape s[8];
        char err[256] = "";
        int n = gv_size_spec_parse(bad[i], s, 8, err, sizeof err);
        cr_expect_lt(n, 0, "'%s' must be rejected (got %d)", bad[i], n);
        cr_expect_neq(err[0], '\0', "'%s' gets a message", bad[i]);
    }
}

Test(size, formats_back_to_the_x_form)
{
    gv_shape s = {3, {10000, 5000, 7000}};
    char buf[64];
    cr_expect_str_eq(gv_shape_format(&s, buf, sizeof buf), "10000x5000x7000");
}
