#!/usr/bin/env python3
"""tests/build/ctypes_layout_test.py SRCDIR API_LAYOUT: the Python package's ctypes mirrors of
include/gpuval.h's structs (python/src/gpuval/_lib.py) have the C layout.

API_LAYOUT is tests/build/api_layout.c built against gpuval.h: it prints each struct's size,
alignment and members (offset, size) as the C compiler lays them out, and the constants the
package copies. For every ctypes.Structure of _lib.py this holds:
- it mirrors a struct that api_layout prints (a new Structure needs its entry there);
- the same members, in the same order, by name (RENAMES: `in`, a Python keyword, is `inputs`); each at the C offset with the C size;
- the same size and alignment;
and api_layout prints every member gpuval.h declares (read from the header's text), and the
package's constants are the header's. A field swapped or missing in _lib.py, or a member added
to gpuval.h, fails with the struct and the member named.

_lib.py is loaded from its file (it needs nothing but ctypes), so numpy need not be installed;
GPUVAL_PY_LIB names another copy of it (a planted mistake) to show that the test can fail.
"""
import ctypes
import importlib.util
import json
import os
import re
import subprocess
import sys

# _lib.py's class -> the C struct it mirrors
MIRRORS = {"GvArray": "gv_array", "GvJudgeSpec": "gv_judge_spec", "GvJudgement": "gv_judgement",
           "GvCaseInputs": "gv_case_inputs", "GvCaseInputsNd": "gv_case_inputs_nd"}
# members the mirror names otherwise: `in` is a Python keyword (`spec.in` cannot be written),
# and gv_judge_spec's `out` is `outputs` beside it
RENAMES = {("gv_judge_spec", "in"): "inputs", ("gv_judge_spec", "out"): "outputs",
           ("gv_case_inputs", "in"): "inputs", ("gv_case_inputs_nd", "in"): "inputs"}


def py_name(struct, c_name):
    return RENAMES.get((struct, c_name), c_name)


def header_members(header, struct):
    """The member names of `typedef struct NAME {...} NAME;` in declaration order."""
    text = open(header, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    m = re.search(r"typedef\s+struct\s+%s\s*\{(.*?)\}\s*%s\s*;" % (struct, struct), text, re.S)
    if not m:
        sys.exit(f"{header}: no typedef struct {struct}")
    names = []
    for decl in m.group(1).split(";"):
        decl = re.sub(r"\[[^\]]*\]", "", decl).strip()
        if not decl:
            continue
        parts = decl.split(",")
        for part in parts:
            ident = re.findall(r"[A-Za-z_]\w*", part.replace("*", " "))
            names.append(ident[-1])
    return names


def load_lib(path):
    spec = importlib.util.spec_from_file_location("gpuval_lib_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    src, layout_exe = sys.argv[1], sys.argv[2]
    header = os.path.join(src, "include", "gpuval.h")
    lib_py = os.environ.get("GPUVAL_PY_LIB") or os.path.join(src, "python", "src", "gpuval",
                                                             "_lib.py")
    c = json.loads(subprocess.run([layout_exe], capture_output=True, text=True, check=True,
                                  timeout=60).stdout)
    lib = load_lib(lib_py)
    faults = []

    for struct, info in c["structs"].items():
        printed = [f["name"] for f in info["fields"]]
        declared = header_members(header, struct)
        if printed != declared:
            faults.append(f"api_layout.c prints {struct} as {printed}; gpuval.h declares "
                          f"{declared}: update tests/build/api_layout.c")

    classes = {name: obj for name, obj in vars(lib).items()
               if isinstance(obj, type) and issubclass(obj, ctypes.Structure)
               and obj is not ctypes.Structure}
    for name in sorted(set(classes) - set(MIRRORS)):
        faults.append(f"{lib_py}: {name} is a ctypes.Structure this test does not know: add it "
                      "to MIRRORS and its struct to tests/build/api_layout.c")
    for name, struct in MIRRORS.items():
        if name not in classes:
            faults.append(f"{lib_py}: no class {name} (the mirror of {struct})")
            continue
        cls, info = classes[name], c["structs"][struct]
        py_names = [f[0] for f in cls._fields_]
        c_names = [py_name(struct, f["name"]) for f in info["fields"]]
        if py_names != c_names:
            faults.append(f"{name}: fields {py_names}; {struct} has {c_names}")
        for f in info["fields"]:
            if py_name(struct, f["name"]) not in py_names:
                continue
            desc = getattr(cls, py_name(struct, f["name"]))
            if desc.offset != f["offset"] or desc.size != f["size"]:
                faults.append(f"{name}.{py_name(struct, f['name'])}: offset {desc.offset}, "
                              f"size {desc.size}; {struct}.{f['name']}: offset {f['offset']}, "
                              f"size {f['size']}")
        if ctypes.sizeof(cls) != info["size"]:
            faults.append(f"{name}: sizeof {ctypes.sizeof(cls)}; {struct}: {info['size']}")
        if ctypes.alignment(cls) != info["align"]:
            faults.append(f"{name}: alignment {ctypes.alignment(cls)}; {struct}: {info['align']}")

    k = c["constants"]
    want = {"MAX_TENSORS": k["GV_API_MAX_TENSORS"], "MAX_DIMS": k["GV_API_MAX_DIMS"],
            "DTYPE_F32": k["GV_DTYPE_F32"], "DTYPE_F64": k["GV_DTYPE_F64"],
            "DTYPE_BF16": k["GV_DTYPE_BF16"], "DTYPE_F16": k["GV_DTYPE_F16"],
            "DTYPE_E4M3": k["GV_DTYPE_E4M3"], "DTYPE_E5M2": k["GV_DTYPE_E5M2"],
            "API_MAJOR": k["GPUVAL_API_VERSION_MAJOR"],
            "MAX_TENSOR_DIMS": k["GV_API_MAX_TENSOR_DIMS"]}
    for attr, value in want.items():
        if getattr(lib, attr, None) != value:
            faults.append(f"{lib_py}: {attr} = {getattr(lib, attr, None)}; gpuval.h: {value}")
    if getattr(lib, "API_MINOR_ND", 0) > k["GPUVAL_API_VERSION_MINOR"]:
        faults.append(f"{lib_py}: uses API minor {lib.API_MINOR_ND}'s functions; gpuval.h is "
                      f"{k['GPUVAL_API_VERSION_MAJOR']}.{k['GPUVAL_API_VERSION_MINOR']}")
    if getattr(lib, "API_MINOR_NEEDED", 0) > k["GPUVAL_API_VERSION_MINOR"]:
        faults.append(f"{lib_py}: needs API minor {lib.API_MINOR_NEEDED}; gpuval.h is "
                      f"{k['GPUVAL_API_VERSION_MAJOR']}.{k['GPUVAL_API_VERSION_MINOR']}")
    verdicts = {k[f"GV_VERDICT_{v}"]: v for v in ("PASS", "FAIL", "SKIP", "ERROR")}
    if tuple(verdicts[i] for i in sorted(verdicts)) != tuple(lib.VERDICTS):
        faults.append(f"{lib_py}: VERDICTS {lib.VERDICTS}; gpuval.h's GV_VERDICT_* {verdicts}")
    for cname in ("GV_API_OK", "GV_API_EINVAL", "GV_API_ENOMEM", "GV_API_EABI", "GV_API_EEXIST"):
        if lib._ERRNAMES.get(k[cname]) != cname:
            faults.append(f"{lib_py}: _ERRNAMES[{k[cname]}] is {lib._ERRNAMES.get(k[cname])}, "
                          f"not {cname}")

    for f in faults:
        print(f)
    print(f"{len(MIRRORS)} structs, {sum(len(c['structs'][s]['fields']) for s in MIRRORS.values())}"
          f" fields compared ({lib_py}): {'ok' if not faults else f'{len(faults)} differences'}")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
