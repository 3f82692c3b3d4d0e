/* test_plugin.c: `gpuval --plugin FILE` with the tiny plugins of tests/plugins/ (paths in env
 * GPUVAL_PLUGIN_DIR): a valid one adds its ops to list and check; a missing file, a library
 * without the entry symbol, an entry of another major version, a family of a newer minor
 * version and an invalid descriptor each exit 2 with the file and the fault named. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuval.h"
#include "testkit.h"

typedef struct plug_run {
    int status;
    char out[1 << 18]; /* list --all -v of every op and plant: 67 KB and growing */
    char err[8192];
} plug_run;

/* `$GPUVAL CMD --plugin DIR/libNAME.so ARGS` */
static plug_run *run_with(const char *cmd, const char *plugin, const char *args)
{
    const char *dir = getenv("GPUVAL_PLUGIN_DIR");
    cr_assert_not_null(dir, "GPUVAL_PLUGIN_DIR must name the test plugins' folder");
    plug_run *r = calloc(1, sizeof *r);
    cr_assert_not_null(r);
    char line[2048];
    snprintf(line, sizeof line, "%s --plugin '%s/lib%s.so' %s", cmd, dir, plugin, args);
    r->status = gv_test_run_cli_split(line, r->out, sizeof r->out, r->err, sizeof r->err);
    return r;
}

Test(plugin, valid_plugin_adds_its_ops_to_list)
{
    plug_run *r = run_with("list", "tplugin_good", "--all");
    cr_assert_eq(r->status, 0, "exit %d: %s", r->status, r->err);
    cr_assert(strstr(r->out, "tplug.scale"), "%s", r->out);
    cr_assert(strstr(r->out, "tplug.gemm"), "%s", r->out);
    cr_assert(strstr(r->out, "gemm.cublas"), "the built-ins stay listed: %s", r->out);
    free(r);
}

Test(plugin, valid_plugin_ops_run_in_check)
{
    /* no launch hook: the case SKIPs; without any device check exits 77 */
    plug_run *r = run_with("check", "tplugin_good", "--op tplug.scale --size 100");
    cr_assert_eq(r->status, 77, "exit %d: %s%s", r->status, r->out, r->err);
    cr_assert(strstr(r->out, "tplug.scale"), "%s", r->out);
    cr_assert(strstr(r->out, "SKIP"), "%s", r->out);
    free(r);
}

Test(plugin, option_after_other_options_and_with_equals)
{
    char line[2048];
    plug_run *r = calloc(1, sizeof *r);
    snprintf(line, sizeof line, "list --all --plugin='%s/libtplugin_good.so'",
             getenv("GPUVAL_PLUGIN_DIR"));
    r->status = gv_test_run_cli_split(line, r->out, sizeof r->out, r->err, sizeof r->err);
    cr_assert_eq(r->status, 0, "exit %d: %s", r->status, r->err);
    cr_assert(strstr(r->out, "tplug.scale"), "%s", r->out);
    free(r);
}

Test(plugin, missing_file_exits_2_naming_it)
{
    plug_run *r = run_with("check", "does_not_exist", "");
    cr_assert_eq(r->status, 2, "exit %d", r->status);
    cr_assert(strstr(r->err, "libdoes_not_exist.so"), "%s", r->err);
    cr_assert(strstr(r->err, "No such file"), "%s", r->err);
    cr_assert_eq(r->out[0], '\0', "nothing on stdout: %s", r->out);
    free(r);
}

Test(plugin, missing_value_exits_2)
{
    char out[1024], err[1024];
    int st = gv_test_run_cli_split("check --plugin", out, sizeof out, err, sizeof err);
    cr_assert_eq(st, 2, "exit %d", st);
    cr_assert(strstr(err, "--plugin needs a FILE"), "%s", err);
}

Test(plugin, missing_symbol_exits_2_naming_it)
{
    plug_run *r = run_with("check", "tplugin_nosym", "");
    cr_assert_eq(r->status, 2, "exit %d", r->status);
    cr_assert(strstr(r->err, "libtplugin_nosym.so"), "%s", r->err);
    cr_assert(strstr(r->err, "no symbol gpuval_plugin_v1"), "%s", r->err);
    free(r);
}

Test(plugin, other_major_version_exits_2_naming_both)
{
    plug_run *r = run_with("check", "tplugin_v2", "");
    cr_assert_eq(r->status, 2, "exit %d", r->status);
    cr_assert(strstr(r->err, "built against gpuval API 2 (exports gpuval_plugin_v2)"), "%s",
              r->err);
    cr_assert(strstr(r->err, "loads API 1"), "%s", r->err);
    free(r);
}

Test(plugin, newer_minor_version_exits_2)
{
    plug_run *r = run_with("list", "tplugin_newer", "");
    cr_assert_eq(r->status, 2, "exit %d", r->status);
    cr_assert(strstr(r->err, "libtplugin_newer.so"), "%s", r->err);
    char want[96]; /* tplugin_newer is built with GPUVAL_API_VERSION + 1 */
    snprintf(want, sizeof want, "family 'tnewer' was built against gpuval API %d.%d",
             GPUVAL_API_VERSION_MAJOR, GPUVAL_API_VERSION_MINOR + 1);
    cr_assert(strstr(r->err, want), "%s", r->err);
    cr_assert_eq(r->out[0], '\0', "nothing listed: %s", r->out);
    free(r);
}

Test(plugin, invalid_descriptor_exits_2_naming_op_and_field)
{
    plug_run *r = run_with("list", "tplugin_invalid", "");
    cr_assert_eq(r->status, 2, "exit %d", r->status);
    cr_assert(strstr(r->err, "tinvalid.op: layout is required"), "%s", r->err);
    free(r);
}

Test(plugin, loading_twice_is_a_duplicate)
{
    char line[2048], out[65536], err[4096];
    const char *dir = getenv("GPUVAL_PLUGIN_DIR");
    snprintf(line, sizeof line,
             "list --plugin '%s/libtplugin_good.so' --plugin '%s/libtplugin_good.so'", dir, dir);
    int st = gv_test_run_cli_split(line, out, sizeof out, err, sizeof err);
    cr_assert_eq(st, 2, "exit %d", st);
    cr_assert(strstr(err, "tplug.scale: an op of that name is already registered"), "%s", err);
}

/* A plugin file cut short (a copy interrupted, a full disk) is refused before the loader maps
   it: exit 2 naming the file, never the SIGBUS that touching a segment past the end raises. */
Test(plugin, truncated_file_exits_2_not_a_signal)
{
    const char *dir = getenv("GPUVAL_PLUGIN_DIR");
    cr_assert_not_null(dir);
    char src[1024];
    snprintf(src, sizeof src, "%s/libtplugin_good.so", dir);
    FILE *f = fopen(src, "rb");
    cr_assert_not_null(f, "%s", src);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert_gt(n, 8192u);
    const size_t cuts[] = {16, 64, 1000, 4096, n / 2, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/gv_cut_%d_%zu.so", (int)getpid(), cuts[i]);
        FILE *o = fopen(path, "wb");
        cr_assert_not_null(o);
        cr_assert_eq(fwrite(buf, 1, cuts[i], o), cuts[i]);
        fclose(o);
        char line[256], out[4096], err[4096];
        snprintf(line, sizeof line, "list --plugin %s", path);
        int st = gv_test_run_cli_split(line, out, sizeof out, err, sizeof err);
        cr_expect_eq(st, 2, "cut at %zu of %zu bytes: exit %d (%s)", cuts[i], n, st, err);
        cr_expect(strstr(err, path) != NULL, "cut at %zu: the file is named: %s", cuts[i], err);
        unlink(path);
    }
}

/* A plugin whose constructor (run by dlopen) or entry point faults: gpuval reports the file
   and the signal and exits 2, where it was killed by the signal inside dlopen or
   gv_cmd_plugin_load. */
Test(plugin, faulting_constructor_or_entry_is_reported_not_fatal)
{
    const char *names[] = {"tplugin_ctorfault", "tplugin_entryfault"};
    for (int i = 0; i < 2; i++) {
        plug_run *r = run_with("list", names[i], "");
        cr_expect_eq(r->status, 2, "%s: exit %d (-1: killed): %s", names[i], r->status, r->err);
        char lib[96];
        snprintf(lib, sizeof lib, "lib%s.so", names[i]);
        cr_expect(strstr(r->err, lib), "%s: the file is named: %s", names[i], r->err);
        /* the signal named (11); under AddressSanitizer its handler turns the fault into an
           abort (signal 6) or an exit of its own, which is reported as such */
        cr_expect(strstr(r->err, "signal 11") ||
                      (getenv("ASAN_OPTIONS") && (strstr(r->err, "signal 6") ||
                                                  strstr(r->err, "ended the process"))),
                  "%s: the fault is named: %s", names[i], r->err);
        cr_expect_eq(r->out[0], '\0', "%s: nothing on stdout: %s", names[i], r->out);
        free(r);
    }
}

/* No plugin code runs before the command line is checked: an unknown option, an option
   without its value, or an unknown command is refused (exit 2) and the plugin's constructor,
   which leaves a marker, never runs. With a good command line it runs. */
Test(plugin, no_plugin_code_before_the_command_line_is_checked)
{
    const char *dir = getenv("GPUVAL_PLUGIN_DIR");
    cr_assert_not_null(dir);
    char marker[128], line[256];
    snprintf(marker, sizeof marker, "/tmp/gv_plugin_marker_%d", (int)getpid());
    const char *bad[] = {"check --nosuch", "check --op", "judge --bogus 1", "nosuchcommand",
                         "list --all -Z"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unlink(marker);
        char cmdline[3000];
        snprintf(cmdline, sizeof cmdline,
                 "env GPUVAL_TEST_MARKER='%s' GPUVAL_TEST_NO_FAULT=1 '%s' %s --plugin "
                 "'%s/libtplugin_ctorfault.so' >/dev/null 2>'%s.err' </dev/null",
                 marker, gv_test_gpuval_bin(), bad[i], dir, marker);
        int st = gv_test_exit_code(system(cmdline));
        cr_expect_eq(st, 2, "%s: exit %d", bad[i], st);
        cr_expect_neq(access(marker, F_OK), 0,
                      "%s: the plugin's constructor ran before the "
                      "command line was refused",
                      bad[i]);
    }
    /* a good command line: the plugin is loaded (here it gives no families: exit 2 after) */
    unlink(marker);
    char cmdline[3000];
    snprintf(cmdline, sizeof cmdline,
             "env GPUVAL_TEST_MARKER='%s' GPUVAL_TEST_NO_FAULT=1 '%s' list --plugin "
             "'%s/libtplugin_ctorfault.so' >/dev/null 2>&1 </dev/null",
             marker, gv_test_gpuval_bin(), dir);
    cr_expect_eq(gv_test_exit_code(system(cmdline)), 2);
    cr_expect_eq(access(marker, F_OK), 0, "the constructor ran once the command line was good");
    unlink(marker);
    snprintf(line, sizeof line, "%s.err", marker);
    unlink(line);
}

/* A plugin's texts reach the terminal escaped: `list` shows the ESC and BEL of an op's summary
   as \x1b and \x07, and sends no control byte. */
Test(plugin, plugin_text_in_list_is_escaped)
{
    plug_run *r = run_with("list", "tplugin_ctrl", "--all -v");
    cr_assert_eq(r->status, 0, "exit %d: %s", r->status, r->err);
    cr_expect(strstr(r->out, "tctrl.gemm"), "%s", r->out);
    cr_expect(strstr(r->out, "judged as gemm\\x1b[2J\\x1b]0;title\\x07"), "%s", r->out);
    for (const unsigned char *p = (const unsigned char *)r->out; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f) {
            cr_expect(false, "control byte 0x%02x in list's output", *p);
            break;
        }
    free(r);
}
