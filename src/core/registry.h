/* registry.h: every op the build knows, gathered from the families listed in meson.build
 * (each src/ops/X.c defines gv_family_X, a NULL-terminated array of op pointers), and the
 * expansion of a catalogue into cases. */
#ifndef GV_REGISTRY_H
#define GV_REGISTRY_H

#include "core/op.h"

/* All registered ops, planted-bug variants included; NULL-terminated. */
const gv_op *const *gv_registry(void);
const gv_op *gv_op_find(const char *name);

/* What is wrong with an op's descriptor for the registry to list it, or NULL when nothing is:
 * a name, family, dims and shapes; the hooks every case calls (layout, make_inputs, oracle,
 * depth, flops, bytes); some dtype, mode and input distribution, the default one among them.
 * gv_registry checks every op it lists, and that no two share a name, and aborts naming the
 * op: such a descriptor is gpuval's bug (public ops are checked on registration, api.c), and
 * the first case to call the missing hook would crash far from it. */
const char *gv_op_flaw(const gv_op *op);

/* Ops added at run time (src/core/api.c, for gv_main and --plugin): a NULL-terminated list the
 * caller keeps alive; listed after the built-ins. GV_OK, or GV_ENOMEM past the registry's
 * capacity. */
int gv_registry_add(const gv_op *const *ops);
/* Hide (or show again) the built-in families in gv_registry() (and so in every selection);
 * gv_op_find still finds a hidden built-in by its exact name, for run files, presets and
 * bench targets that name one. */
void gv_registry_hide_builtins(bool hide);
/* A built-in op by op name ("gemm.cublas") or family name ("gemm": its first op that is not
 * a planted bug), hidden or not; NULL if none. */
const gv_op *gv_builtin_find(const char *name);
/* The name under which op's reference is cached: the first built-in op of its family with the
 * same inputs, oracle and gauges (gemm.tiled computes gemm.cublas's reference, einsum.colsum
 * matmul_colsum's); op's own name for the ops of gpuval.h and plugins, whose hooks are shared
 * wrappers that dispatch on each op's own descriptor. */
const char *gv_reference_name(const gv_op *op);

/* Whether an op name matches globs: one fnmatch pattern, or several separated by commas (op
 * names hold no comma); NULL matches every name. *exact (when not NULL) tells whether one of
 * them is the name itself (a planted variant named so is selected without --planted). */
bool gv_op_matches(const char *globs, const char *name, bool *exact);

/* Selection of cases from the registry; NULL/0 fields mean "the op's defaults". */
typedef struct gv_selection {
    const char *op_glob; /* fnmatch patterns over op names, comma-separated; NULL = all */
    unsigned dtypes;     /* 0 = the op's */
    unsigned modes;      /* 0 = the op's */
    int dist;            /* -1 = the op's default */
    const gv_shape *shapes;
    int n_shapes;     /* NULL = the op's `shapes` (or test_shapes) */
    bool test_shapes; /* use test_shapes instead of shapes */
    bool planted;     /* include planted-bug variants (always when the glob names one) */
    /* the large tier: only ops with large_shapes, at those shapes (unless shapes are given),
       native mode unless modes are given, no canaries or mode probes */
    bool large;
    uint64_t seed;
} gv_selection;

/* Expand a selection into cases (allocated; free with free()). Returns the count, or
 * GV_EINVAL with a message (unknown op, a shape of the wrong rank, a rejected shape). */
int gv_select(const gv_selection *sel, gv_case **cases, char *err, size_t errlen);

/* The mode probes of (op, t, m) (op->mode_probes, or test_mode_probes; gv_probe_applies):
 * at most max cases into out, on the given seed. Their count (0: the mode has no probe), or
 * GV_EINVAL for a malformed list (err says so). tradeoffs and bench run them beside a mode's
 * own case; check's catalogue selects them itself (gv_select). */
int gv_mode_probe_cases(const gv_op *op, gv_dtype t, gv_mode m, bool test_sizes, uint64_t seed,
                        gv_case *out, int max, char *err, size_t errlen);

/* --as NAME: the n cases, all of one op (a variant), run and are reported under the op NAME
 * of the same family, so that `gpuval compare` matches them with NAME's baseline. The variant
 * must share NAME's inputs, layout, oracle and gauges (the same reference, so the oracle cache
 * entries are interchangeable too); only its kernel and its planted markers differ. Returns
 * GV_OK, or GV_EINVAL with a message. The renamed op lives until the process exits. */
int gv_select_as(gv_case *cases, int n, const char *name, char *err, size_t errlen);

/* True when the op accepts the shape; otherwise why holds the reason. */
bool gv_shape_ok(const gv_op *op, const gv_shape *s, char *why, size_t len);
bool gv_mode_ok(const gv_op *op, gv_dtype t, gv_mode m);
/* Whether op's modes run without --mode although they are not in the catalogue: a variant
   planted in a mode that is not in effect (planted_in_probes), one only the probe measures
   (planted_for_probe), or a planted variant that has no catalogue mode at all (a bug of the
   16-bit modes' path: no selection would reach it otherwise). */
bool gv_op_runs_off_catalogue(const gv_op *op);

/* Case label "op dtype mode shape" for messages. */
char *gv_case_label(const gv_case *c, char *buf, size_t len);

#endif
