#!/usr/bin/env python3
"""hostile.py GPUVAL [TEST_GPU]: run the built gpuval the way a careless or hostile user would,
a few hundred times, and check every run.

Each invocation has an expected exit code (or a set of them) and, for a refusal, a piece of text
its message must contain (it names the fault). After every invocation:
  - no crash: not killed by a signal, no AddressSanitizer / UndefinedBehaviorSanitizer report;
  - the exit code is the expected one;
  - no damaged file: every victim file in the scratch directory (regular files, a read-only file,
    symlinks, a FIFO, a character device made with mknod when run as root, a user's own
    NAME.tmp) keeps its type, its permission bits and its checksum;
  - a usage error (exit 2) comes before any work: nothing on stdout (no "device:" line, no
    table), no new file in the scratch directory, and in under USAGE_SECONDS.
It prints one line per problem and a summary (invocations, crashes, wrong exits, damaged
files, bad messages, work before a usage error) and exits 1 on any problem.

Built without CUDA (or on a machine without a device), `check` finds no device and exits 77;
the expected codes say so ({0, 77} where a run would otherwise pass). GPUVAL_REQUIRE_GPU is
tried on TEST_GPU (the gpu suite) only where there is no device.
"""
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

USAGE_SECONDS = 10.0  # generous for a sanitizer build on a loaded machine; a parse takes ms
RUN_TIMEOUT = 120

GPUVAL = os.path.abspath(sys.argv[1])
TEST_GPU = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
SRCDIR = os.environ.get("GPUVAL_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(SRCDIR, "tests", "fixtures")
ROOT = os.geteuid() == 0
NODES = False  # a character device made with mknod in the scratch directory

stats = {"invocations": 0, "crashes": 0, "hangs": 0, "wrong exits": 0, "damaged files": 0,
         "bad messages": 0, "work before a usage error": 0, "injections": 0}
HANG_SECONDS = 20  # an invocation given a FIFO nobody serves: a refusal takes milliseconds
problems = []


def problem(kind, what):
    stats[kind] += 1
    problems.append(f"{kind}: {what}")
    print(f"FAIL {kind}: {what}", flush=True)


# ---- the scratch directory and its victims -------------------------------------------------

scratch = tempfile.mkdtemp(prefix="gpuval-hostile.")
os.chdir(scratch)
victims = {}  # path -> (kind, mode bits, sha256 or None)


def fingerprint(path):
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path), None)
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            return ("file", stat.S_IMODE(st.st_mode), hashlib.sha256(f.read()).hexdigest())
    if stat.S_ISFIFO(st.st_mode):
        return ("fifo", stat.S_IMODE(st.st_mode), None)
    if stat.S_ISCHR(st.st_mode):
        return ("chr", st.st_rdev, None)
    if stat.S_ISDIR(st.st_mode):
        return ("dir", stat.S_IMODE(st.st_mode), None)
    return ("other", st.st_mode, None)


def victim(path):
    victims[path] = fingerprint(path)


def make_victims():
    with open("victim.txt", "w") as f:
        f.write("the user's precious data\n")
    victim("victim.txt")
    with open("readonly.json", "w") as f:
        f.write('{"keep": "me"}\n')
    os.chmod("readonly.json", 0o444)
    victim("readonly.json")
    with open("keep.json.tmp", "w") as f:  # a user's own file named like an old temporary
        f.write("mine\n")
    victim("keep.json.tmp")
    with open(".tmp", "w") as f:  # `--json ''` once removed ./.tmp
        f.write("dot tmp\n")
    victim(".tmp")
    os.symlink("victim.txt", "err.json.tmp")  # the old fixed-name temporary, as a trap
    victim("err.json.tmp")
    os.symlink("victim.txt", "out.txt.tmp")
    victim("out.txt.tmp")
    os.mkfifo("fifo")
    victim("fifo")
    os.mkdir("adir")
    victim("adir")
    os.mkdir("rodir", 0o555)
    victim("rodir")
    os.symlink("loop2", "loop1")
    os.symlink("loop1", "loop2")
    victim("loop1")
    victim("loop2")
    os.symlink("/dev/full", "full-link")
    victim("full-link")
    global NODES
    if ROOT:
        try:  # a private /dev/null (a container may refuse mknod)
            os.mknod("null-node", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            NODES = True
        except OSError as e:
            print(f"hostile: no device node ({e}); those invocations are left out")
    if NODES:
        victim("null-node")
        os.symlink("null-node", "null-link")
        victim("null-link")
    for name, src in (("check.json", "check-h100.json"), ("bench.json", "bench-synthetic.json"),
                      ("trade.json", "tradeoffs-synthetic.json")):
        shutil.copy(os.path.join(FIXTURES, src), name)
        victim(name)
    bad = {
        "empty.json": "",
        "trunc.json": open("check.json").read()[:1000],
        "schema.json": '{"schema": "gpuval-nosuch/9", "cases": []}',
        "noschema.json": '{"cases": []}',
        "array.json": "[1, 2, 3]",
        "string.json": '"gpuval-run/1"',
        "nan.json": '{"schema": "gpuval-run/1", "cases": [{"max_rel": NaN}]}',
        "huge.json": '{"schema": "gpuval-run/1", "cases": [{"op": "vadd", "seed": 1e999}]}',
        "hugeint.json": '{"schema": "gpuval-run/1", "cases": [{"op": "vadd", '
                        '"seed": 123456789012345678901234567890}]}',
        "deep.json": "[" * 100000 + "]" * 100000,
        "deepobj.json": '{"a":' * 5000 + "1" + "}" * 5000,
        "binary.json": "\x00\x01\x02\xff\xfe garbage",
        "bom.json": "\ufeff" + '{"schema": "gpuval-run/1"}',
        "wrongtypes.json": '{"schema": "gpuval-run/1", "cases": "not a list", "device": 7}',
        "casesnull.json": '{"schema": "gpuval-run/1", "cases": [null, 1, "x", {}]}',
        "benchbad.json": '{"schema": "gpuval-bench/1", "cases": [{"timing": {"n": "x"}}]}',
        "tradebad.json": '{"schema": "gpuval-tradeoffs/1", "groups": [{"rows": 5}]}',
        "ctrl.json": '{"schema": "gpuval-\\u0001run/1"}',
    }
    for name, text in bad.items():
        with open(name, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        victim(name)
    # an interesting variant of a real run: every case's numbers NaN
    d = json.load(open("check.json"))
    for c in d.get("cases", [])[:5]:
        for k, v in list(c.items()):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                c[k] = float("nan")
    with open("checknan.json", "w") as f:
        f.write(json.dumps(d))  # Python writes NaN, which is not JSON
    victim("checknan.json")


def check_victims(label):
    for path, fp in list(victims.items()):
        try:
            now = fingerprint(path)
        except FileNotFoundError:
            now = None
        if now != fp:
            problem("damaged files", f"{label}: {path} was {fp}, now {now}")
            # restore it so one fault is counted once
            restore(path, fp)


def restore(path, fp):
    try:
        if os.path.lexists(path) and not os.path.isdir(path):
            os.chmod(path, 0o644) if not os.path.islink(path) else None
            os.remove(path)
    except OSError:
        pass
    victims.pop(path, None)


def new_files(before):
    return sorted(set(os.listdir(".")) - before)


# ---- running one invocation ----------------------------------------------------------------

def fifo_reader(path, stop):
    """Keep a reader on the FIFO so that a writer never blocks."""
    while not stop.is_set():
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            while not stop.is_set():
                try:
                    if os.read(fd, 65536) == b"":
                        time.sleep(0.01)
                except BlockingIOError:
                    time.sleep(0.01)
        finally:
            os.close(fd)


SANITIZER_MARKS = (b"ERROR: AddressSanitizer", b"ERROR: LeakSanitizer", b"runtime error:",
                   b"UndefinedBehaviorSanitizer")


def run(args, expect, msg=None, env=None, stdout=None, label=None, keep=(), exe=None,
        no_work=None, timeout=None):
    """Run gpuval ARGS; expect: an exit code or a set of them; msg: text stderr must contain."""
    exe = exe or GPUVAL
    expect = {expect} if isinstance(expect, int) else set(expect)
    label = label or " ".join(repr(a) if (not a or any(c in a for c in " \t\n")) else a
                              for a in args)
    e = dict(os.environ)
    e.update(env or {})
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
    before = set(os.listdir("."))
    stats["invocations"] += 1
    t0 = time.monotonic()
    try:
        p = subprocess.run([exe] + list(args), env=e, stdin=subprocess.DEVNULL,
                           stdout=stdout if stdout is not None else subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout or RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        if timeout:
            problem("hangs", f"{label}: no exit in {timeout} s (waiting on a FIFO?)")
        else:
            problem("crashes", f"{label}: no exit in {RUN_TIMEOUT} s")
        return None
    dt = time.monotonic() - t0
    out = p.stdout if isinstance(p.stdout, bytes) else b""
    err = p.stderr
    if p.returncode < 0:
        problem("crashes", f"{label}: killed by signal {-p.returncode}")
    elif any(m in err for m in SANITIZER_MARKS):
        problem("crashes", f"{label}: sanitizer report: {err.decode(errors='replace')[-400:]}")
    elif p.returncode not in expect:
        problem("wrong exits", f"{label}: exit {p.returncode}, expected {sorted(expect)}; "
                f"stderr: {err.decode(errors='replace')[-300:]!r}")
    if msg is not None and p.returncode >= 0:
        for m in [msg] if isinstance(msg, str) else msg:
            if m.encode() not in err:
                problem("bad messages", f"{label}: stderr lacks {m!r}: "
                        f"{err.decode(errors='replace')[-300:]!r}")
    if p.returncode == 2 and b"gpuval" not in err and exe == GPUVAL:
        problem("bad messages", f"{label}: exit 2 without a message")
    if p.returncode == 2 and any(b < 0x20 and b not in (0x0a,) or b == 0x7f for b in err):
        problem("bad messages", f"{label}: raw control bytes in the message: {err[-200:]!r}")
    if (no_work if no_work is not None else p.returncode == 2):
        if out.strip():
            problem("work before a usage error", f"{label}: stdout before exit 2: {out[:200]!r}")
        made = [f for f in new_files(before) if f not in keep]
        if made:
            problem("work before a usage error", f"{label}: created {made} before exit 2")
        if dt > USAGE_SECONDS:
            problem("work before a usage error", f"{label}: exit 2 after {dt:.1f} s")
    check_victims(label)
    for f in new_files(before):
        if f not in keep and not f.startswith("keep-"):
            try:
                os.remove(f)
            except OSError:
                pass
    return p


# ---- the invocations -----------------------------------------------------------------------

def device_present():
    p = subprocess.run([GPUVAL, "info"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode == 0


OK = {0, 77}  # a valid run: passes, or nothing could run for want of a device
SMALL = ["--op", "vadd", "--size", "1000"]


def seeds():
    bad = [" -1", "-1", "+1", " 5", "5 ", "\t1", "1\n", "1e3", "0x", "0xg", "0x-1", "12a", "",
           "18446744073709551616", "99999999999999999999999999", "0x10000000000000000",
           "\u0663", "\uff11", "1\u00a0", "nan", "inf", "0b101", "1_000", "1,2", "--", "-0",
           "0x1p3", "1.0", "\x01", "\x1b[31m7", "9" * 1000]
    good = ["0", "010", "0x1F", "0XfF", "18446744073709551615", "0xffffffffffffffff",
            "9223372036854775808", "42"]
    for s in bad:
        run(["check", *SMALL, "--seed", s], 2, "--seed")
        run(["bench", "--op", "vadd", "--seed", s], 2, "--seed")
        run(["tradeoffs", "--op", "gemm.cublas", "--seed", s], 2, "--seed")
    for s in good:
        run(["check", *SMALL, "--seed", s, "--json", "keep-s.json"], OK, keep=("keep-s.json",))
        if os.path.exists("keep-s.json"):
            doc = json.load(open("keep-s.json"))
            want = int(s, 0) if not s.startswith("0") or s.lower().startswith("0x") else int(s)
            got = {str(c.get("seed")) for c in doc.get("cases", [])}
            if got and got != {str(want)}:
                problem("wrong exits", f"--seed {s}: the run file holds seeds {got}, not {want}")
            os.remove("keep-s.json")


def sizes():
    bad = ["0", "-1", "1e19", "2^63", "2^4096", "9^99999", "1.5", "x", "1,,2", ",", "nan", "inf",
           "1e-3", "0x10", " 1", "1 ", "\uff11\uff10", "1x2x3x4x5", "9" * 400, "1e400", "",
           "1x", "x1", "2^", "^2", "2^-1", "1^5", "1000\x01", "4.6e18x4.6e18x0",
           ",".join(["1"] * 300), "1e5.5", "+5", "-0"]
    for s in bad:
        run(["check", "--op", "vadd", "--size", s], 2, "size")
    for s in ["1e19", "2^63", "9" * 40]:
        run(["check", "--op", "vadd", "--size", s], 2, "4.6e18")  # the cap is named
    # over a layout's limits: refused or skipped quickly, never a wrapped count
    for op, s in [("vadd", "4.6e18"), ("vadd", "4e18"), ("gemm.cublas", "4e6x4e6x4e6"),
                  ("lsmr.ridge", "1e9x1e9"), ("lsmr.ridge", "4e18x4e18"),
                  ("solve.gesv", "1e9x6"), ("fft.c2c.fwd", "2^60x8")]:
        p = run(["check", "--op", op, "--size", s], {1, 2, 3, 77}, no_work=False)
        if p is not None and b"-" in p.stdout and b"needs -" in p.stdout:
            problem("bad messages", f"{op} {s}: a negative byte count")


def sweeps():
    bad = ["n=0..10", "n=10..1", "n=1..", "=..", "n=..5", "q=1..10", "n=1..1e30", "n=-1..5",
           "n=1...5", "n", "n=5", "x" * 200, "n=1.." + "9" * 200, "n=\x01..5", "n=1..5\n",
           "n=nan..inf", "n=2^70..2^71"]
    for s in bad:
        run(["bench", "--crossover", "vadd", "--sweep", s], 2)
    # the value that the old 127-byte cut turned into a valid range
    run(["bench", "--crossover", "vadd", "--sweep", "n=1..1000" + "0" * 130], 2, "--sweep")
    # a sweep without a crossover was once ignored in silence
    run(["bench", "--op", "vadd", "--sweep", "n=1..100"], 2, "--crossover")
    run(["bench", "--op", "vadd", "--sweep-base", "1000"], 2, "--crossover")
    run(["bench", "--crossover", "vadd", "--sweep", "n=1..100"], OK, no_work=False)
    nums = {"--sweep-factor": ["0", "-2", "1", "nan", "inf", "1e400", "x", ""],
            "--refine": ["-1", "x", "99999999999", "1.5", ""],
            "--target-spread": ["-0.1", "nan", "x", "inf", ""],
            "--cap": ["-1", "0", "x", "1e999", ""],
            "--min-samples": ["-1", "0", "99999999999", "x", ""],
            "--cpu-budget": ["-1", "nan", "inf", "x", ""]}
    for opt, vals in nums.items():
        for v in vals:
            run(["bench", "--op", "vadd", opt, v], 2, opt)


def names():
    run(["nosuch"], 2, "unknown command")
    run(["CHECK"], 2, "unknown command")
    run([""], 2, "unknown command")
    run(["\x01\x1b[2J"], 2, "unknown command")
    run(["help", "nosuch"], 2, "no command")
    for cmd in ["list", "check", "bench", "tradeoffs", "report", "compare"]:
        run([cmd, "--nosuch"], 2, "--nosuch")
        run([cmd, "-Z"], 2, "-Z")
        run([cmd, "--\x07bell"], 2, "\\x07")
        run(["help", cmd], 0, no_work=False)
        run([cmd, "--help"], 0, no_work=False)
    run(["list", "extra"], 2, "extra")
    run(["info", "extra"], 2, "extra")
    for cmd in ["check", "bench", "tradeoffs"]:
        run([cmd, "--op", "nosuch"], 2, "nosuch")
        run([cmd, "--op", "\x01"], 2, "\\x01")
        if cmd != "tradeoffs":  # tradeoffs runs every dtype and mode of an op
            run([cmd, "--op", "vadd", "--dtype", "f8"], 2, "f8")
            run([cmd, "--op", "vadd", "--dtype", ""], 2, "dtype")
            run([cmd, "--op", "vadd", "--mode", "bogus"], 2, "bogus")
        else:
            run([cmd, "--op", "vadd", "--dtype", "f32"], 2, "--dtype")
        run([cmd, "--op", "vadd", "--dist", "bogus"], 2, "bogus")
        run([cmd, "--op"], 2)
        run([cmd, "stray-argument"], 2)
    run(["check", "--op", "vadd", "--dtype", "f32,,f64"], 2, "empty item")  # a typo, not f32,f64
    run(["check", "--op", "vadd", "--dtype", ",,"], 2, "dtype")
    run(["check", "--op", "vadd", "--mode", "tf32"], 2)  # vadd has no tf32
    run(["bench", "--preset", "nosuch"], 2, "nosuch")
    run(["bench", "--crossover", "nosuch"], 2)
    run(["check", "--op", "vadd", "--seed"], 2)
    run(["check", "--op=vadd", "--size=1000"], OK)
    run(["list"], 0, no_work=False)
    run(["list", "--all", "-v"], 0, no_work=False)
    run(["list", "--modes"], 0, no_work=False)
    run(["--version"], 0, no_work=False)
    run([], 2)


def outputs():
    # (command prefix, output options)
    cmds = [(["check", *SMALL], ["--json"]),
            (["check", *SMALL, "--force"], ["--save"]),
            (["bench", "--op", "vadd", "--size", "1000"], ["--json", "--csv", "--md"]),
            (["tradeoffs", "--op", "gemm.cublas", "--size", "64x64x64"], ["--json", "--md"]),
            (["report", "check.json"], ["--html", "--md"]),
            (["compare", "check.json", "check.json"], ["--md", "--junit"])]
    # a device-less run of bench or tradeoffs exits 77 after its probes
    for prefix, opts in cmds:
        valid = OK if prefix[0] in ("check", "bench", "tradeoffs") else {0}
        for opt in opts:
            run(prefix + [opt, ""], 2, opt)
            run(prefix + [opt, "adir"], 2, "adir")
            run(prefix + [opt, "."], 2)
            run(prefix + [opt, "nosuchdir/x.json"], 2, "nosuchdir")
            run(prefix + [opt, "readonly.json"], 2, "readonly.json")
            run(prefix + [opt, "loop1"], 2, "loop1")
            run(prefix + [opt, "victim.txt/x"], 2)
            if not ROOT:
                run(prefix + [opt, "rodir/x"], 2, "rodir")
            run(prefix + [opt, "x" * 300], {2} if len("x" * 300) > 255 else valid)
            # long but legal: the temporary's name must still fit (it once failed, exit 3)
            run(prefix + [opt, "l" * 255], valid, keep=("l" * 255,))
            if os.path.exists("l" * 255):
                os.remove("l" * 255)
            # a place nobody may write, even root (procfs): exit 2, errno's text in the message
            run(prefix + [opt, "/proc/gpuval-hostile.out"], 2, "/proc/gpuval-hostile.out")
            # the traps of the old fixed-name temporary: symlinked NAME.tmp, a user's own
            run(prefix + [opt, "err.json"], valid, keep=("err.json",))
            run(prefix + [opt, "keep.json"], valid)
            run(prefix + [opt, "out.txt"], valid)
            run(prefix + [opt, "-"], valid, no_work=False)
            # a symlink to a victim: the link may be replaced, the victim never written
            os.symlink("victim.txt", "keep-link")
            run(prefix + [opt, "keep-link"], valid, keep=("keep-link",))
            os.remove("keep-link")
            # a dangling symlink: like a missing file, the link itself is replaced
            os.symlink("nowhere/at/all", "keep-dangling")
            run(prefix + [opt, "keep-dangling"], valid, keep=("keep-dangling",))
            os.remove("keep-dangling")
            # a FIFO nobody reads: refused at once (it once blocked for ever), still a FIFO; and
            # with a reader, refused all the same: outputs are regular files
            run(prefix + [opt, "fifo"], 2, "FIFO", timeout=HANG_SECONDS)
            stop = threading.Event()
            t = threading.Thread(target=fifo_reader, args=("fifo", stop), daemon=True)
            t.start()
            run(prefix + [opt, "fifo"], 2, "FIFO", timeout=HANG_SECONDS)
            stop.set()
            t.join()
            if NODES:
                run(prefix + [opt, "null-node"], 2, "character device")
                run(prefix + [opt, "null-link"], 2, "character device")
            # a device is refused before any work, named
            p = run(prefix + [opt, "full-link"], 2, "character device")
            if p is not None and p.returncode == 3 and b"full-link" not in p.stderr:
                problem("bad messages", f"{prefix[0]} {opt} full-link: the path is not named")
        if len(opts) > 1:
            run(prefix + [opts[0], "two.out", opts[1], "two.out"], 2, "two.out")
            run(prefix + [opts[0], "-", opts[1], "-"], valid, no_work=False)
            os.symlink("victim.txt", "keep-alias")
            run(prefix + [opts[0], "victim.txt", opts[1], "keep-alias"], 2, keep=("keep-alias",))
            os.remove("keep-alias")
    # a baseline is never replaced without --force; two options naming one file
    for target in ("victim.txt", "keep.json.tmp", "null-node" if NODES else "fifo", "err.json.tmp"):
        run(["check", *SMALL, "--save", target], 2, "--force")
    run(["check", *SMALL, "--json", "same.out", "--save", "same.out"], 2, "same.out")
    run(["check", *SMALL, "--json", "-", "--save", "-"], OK, no_work=False)  # "-" may repeat
    run(["check", *SMALL, "--baseline", "nosuch.json"], 2, "nosuch.json")
    run(["check", *SMALL, "--baseline", "trunc.json"], 2, "trunc.json")
    run(["check", *SMALL, "--baseline", "bench.json"], 2)
    run(["check", *SMALL, "--baseline", "adir"], 2, "adir")
    # usage errors found after the baseline (a whole H100 run) and the inputs are loaded: exit 2,
    # and in a sanitizer build no leak (LeakSanitizer's report counts as a crash)
    os.makedirs("keep-dump/vadd-f32-native-uniform11-1000-s0")
    npys = ",".join(os.path.join(SRCDIR, "fixtures", f"vadd_f32_{t}.npy") for t in "ab")
    for args, msg in ((["--op", "nomatch*"], "nomatch*"),
                      (["--op", "vadd", "--mode", "tf32"], "no case matches"),
                      ([*SMALL, "--as", "nosuch"], "nosuch"),
                      ([*SMALL, "--as", "gemm.cublas"], "--as gemm.cublas"),
                      ([*SMALL, "--dump-failures", "keep-dump"], "--force"),
                      (["--op", "vadd", "--inputs", npys, "--as", "gemm.cublas"], "--as"),
                      (["--op", "vadd", "--inputs", npys, "--mode", "tf32"], "no case matches")):
        run(["check", "--baseline", "check.json", *args], 2, msg)
    shutil.rmtree("keep-dump")
    # stdout lost
    with open("/dev/full", "w") as full:
        for args in (["list"], ["list", "--modes"], ["--help"], ["help", "check"],
                     ["compare", "check.json", "check.json"], ["report", "check.json", "--md", "-"]):
            p = run(args, 3, "standard output", stdout=full, no_work=False)
    run(["check", *SMALL, "--json", "/dev/full"], 2, "/dev/full")


def run_files():
    bad = ["empty.json", "trunc.json", "schema.json", "noschema.json", "array.json",
           "string.json", "nan.json", "huge.json", "deep.json", "deepobj.json", "binary.json",
           "bom.json", "ctrl.json", "checknan.json", "nosuch.json", "adir", "fifo-none", "fifo"]
    for f in bad:
        p = run(["report", f, "--md", "keep-r.md"], 2, f, keep=("keep-r.md",),
                timeout=HANG_SECONDS)
        if p is not None and b"line -1" in p.stderr:
            problem("bad messages", f"report {f}: a line -1 for a file never parsed")
        run(["compare", f, "check.json"], 2, f, timeout=HANG_SECONDS)
        run(["compare", "check.json", f], 2, f, timeout=HANG_SECONDS)
    # readable but odd: refused with exit 2, or rendered; never a crash
    for f in ["hugeint.json", "wrongtypes.json", "casesnull.json", "benchbad.json",
              "tradebad.json"]:
        run(["report", f, "--md", "keep-r.md"], {0, 2}, keep=("keep-r.md",), no_work=False)
        run(["compare", f, f], {0, 2, 4, 5}, no_work=False)
    run(["compare", "check.json", "bench.json"], 2)  # different schemas
    run(["compare", "bench.json", "bench.json"], {0, 5}, no_work=False)
    run(["compare", "trade.json", "trade.json"], 2, "gpuval-tradeoffs/1")
    run(["compare", "check.json"], 2)
    run(["compare", "check.json", "check.json", "check.json"], 2)
    run(["compare", "--bits", "-1", "check.json", "check.json"], 2, "--bits")
    run(["compare", "--bits", "nan", "check.json", "check.json"], 2, "--bits")
    run(["compare", "--bits", "1e400", "check.json", "check.json"], 2, "--bits")
    run(["compare", "--ratio", "0.5", "check.json", "check.json"], 2, "--ratio")
    run(["compare", "--ratio", "x", "check.json", "check.json"], 2, "--ratio")
    run(["report", "check.json"], 2, "--html")
    run(["report", "check.json", "trade.json", "--md", "x.md"], 2)
    for f in ["check.json", "bench.json", "trade.json"]:
        run(["report", f, "--md", "-", "--html", "keep-r.html"], {0}, no_work=False,
            keep=("keep-r.html",))
        run(["compare", f, f, "--md", "-"], {0, 5} if f != "trade.json" else {2},
            no_work=False)


# ---- the classes of issue 27: FIFOs, outputs that collide, injection, provenance -------------

def fifo_inputs():
    """Every input path given a FIFO nobody writes: refused at once, exit 2, the file named."""
    os.makedirs("keep-case", exist_ok=True)
    os.mkfifo("keep-case/case.json")
    npys = os.path.join(SRCDIR, "fixtures", "vadd_f32_a.npy")
    for args in (["report", "fifo", "--html", "keep-r.html"],
                 ["compare", "fifo", "check.json"],
                 ["compare", "check.json", "fifo"],
                 ["merge", "fifo", "check.json"],
                 ["merge", "check.json", "fifo"],
                 ["check", *SMALL, "--baseline", "fifo"],
                 ["check", "--op", "vadd", "--inputs", f"{npys},fifo"],
                 ["check", "--op", "vadd", "--inputs", f"fifo,{npys}"],
                 ["replay", "keep-case"]):
        run(args, 2, "fifo" if "replay" not in args else "case.json", timeout=HANG_SECONDS,
            keep=("keep-r.html", "keep-case"))
    shutil.rmtree("keep-case")


def colliding_outputs():
    """Two spellings of one file, and an output that is the command's input: exit 2, nothing
    written."""
    for args, msg in ((["check", *SMALL, "--json", "s.json", "--save", "./s.json"], "same file"),
                      (["check", *SMALL, "--json", "s.json", "--save", "adir/../s.json"],
                       "same file"),
                      (["report", "check.json", "--md", "o.md", "--html", "./o.md"], "same file"),
                      (["compare", "check.json", "check.json", "--md", "o.md", "--junit",
                        "./o.md"], "same file"),
                      (["bench", "--op", "vadd", "--json", "b.out", "--csv", "./b.out"],
                       "same file"),
                      (["tradeoffs", "--op", "gemm.cublas", "--json", "t.out", "--md", "./t.out"],
                       "same file"),
                      (["report", "check.json", "--html", "check.json"], "input"),
                      (["report", "check.json", "--md", "./check.json"], "input"),
                      (["compare", "check.json", "bench.json", "--md", "bench.json"], "input"),
                      (["merge", "check.json", "--json", "./check.json"], "input"),
                      (["check", *SMALL, "--baseline", "check.json", "--json", "check.json"],
                       "input")):
        run(args, 2, msg)


# hostile strings for a run file's fields; what any of them would leave in an output if it got
# through unescaped
INJECT = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "x\n# INJ heading",
          "a|b|c\n| INJ | row |", "`INJcode`", "[INJlink](https://example.invalid/)",
          "\x1b[2J\x1b]0;t\x07", "\u009b31m", "trail\\", "<gvx>" * 50]
RAW = [b"<script", b"<img", b"<gvx", b"\n# INJ", b"\n| INJ", b"\n`INJ"]
RAW_MD = [b"INJlink](", b"`INJcode"]  # a link or a code span: Markdown's only


def next_inject(k):
    """The next of INJECT, numbered: every case keeps a key of its own (the strict reader
    refuses a run file that holds one case twice)."""
    k[0] += 1
    return INJECT[k[0] % len(INJECT)] + str(k[0])


def poisoned(doc, k=[0]):
    """doc with every string but the schema and the verdicts replaced, in turn, by INJECT."""
    if isinstance(doc, dict):
        return {key: (v if key in ("schema", "verdict") else next_inject(k)
                      if isinstance(v, str) else poisoned(v, k)) for key, v in doc.items()}
    if isinstance(doc, list):
        return [next_inject(k) if isinstance(v, str) else poisoned(v, k) for v in doc]
    return doc


def injected(label, data, markdown=False):
    for raw in RAW + (RAW_MD if markdown else []):
        if raw in data and not (raw == b"`INJcode" and b"\\`INJcode" in data):
            problem("injections", f"{label}: a raw {raw!r} in the output")
    if markdown:  # every table row has its header's cells
        cells = None
        for line in data.split(b"\n"):
            if not line.startswith(b"|"):
                cells = None
                continue
            n = len(line.replace(b"\\\\", b"").replace(b"\\|", b"").split(b"|")) - 1
            cells = n if cells is None else cells
            if n != cells:
                problem("injections", f"{label}: a table row of {n} pipes, not {cells}: "
                        f"{line[:120]!r}")
                break


def injection():
    for src, name in (("check.json", "inj-check.json"), ("bench.json", "inj-bench.json"),
                      ("trade.json", "inj-trade.json")):
        with open(name, "w") as f:
            json.dump(poisoned(json.load(open(src))), f)
        for opt, md in (("--html", False), ("--md", True)):
            p = run(["report", name, opt, "keep-inj.out"], 0, keep=("keep-inj.out",),
                    no_work=False)
            if p is not None and os.path.exists("keep-inj.out"):
                data = open("keep-inj.out", "rb").read()
                # a fenced code block shows its text as it is: tags there are only text
                injected(f"report {name} {opt}", strip_fenced(data) if md else data, md)
                controls(f"report {name} {opt}", data)
                os.remove("keep-inj.out")
        os.remove(name)
    # compare's outputs and its terminal table, every case's op and mode hostile on both sides
    d = json.load(open("check.json"))
    for i, c in enumerate(d["cases"]):
        c["op"] = INJECT[i % len(INJECT)]
        c["mode"] = INJECT[(i + 3) % len(INJECT)]
    with open("inj-a.json", "w") as f:
        json.dump(d, f)
    for c in d["cases"]:
        c["verdict"] = "FAIL"
    with open("inj-b.json", "w") as f:
        json.dump(d, f)
    p = run(["compare", "inj-a.json", "inj-b.json", "--md", "keep-c.md", "--junit",
             "keep-c.xml"], {1, 2, 4, 5}, keep=("keep-c.md", "keep-c.xml"), no_work=False)
    if p is not None and p.returncode != 2:
        controls("compare's table", p.stdout + p.stderr)
        for f, md in (("keep-c.md", True), ("keep-c.xml", False)):
            if os.path.exists(f):
                injected(f"compare {f}", open(f, "rb").read(), md)
                os.remove(f)
    for f in ("inj-a.json", "inj-b.json", "keep-c.md", "keep-c.xml"):
        if os.path.exists(f):
            os.remove(f)


def strip_fenced(data):
    out, fenced = [], False
    for line in data.split(b"\n"):
        fence = line.startswith(b"```")
        out.append(line if not fenced or fence else b"")
        fenced = fenced != fence
    return b"\n".join(out)


def controls(label, data):
    """A control byte (the newline and tab aside), DEL or a C1 control the data brought."""
    bad = sorted({b for b in data if (b < 0x20 and b not in (0x0a, 0x09)) or b == 0x7f})
    if bad or b"\xc2\x9b" in data:
        problem("injections", f"{label}: raw control bytes {bad} in the output")


def provenance():
    """A recorded variable, and the --json path, holding bytes that are not UTF-8: the env,
    host and argv blocks are all there, the bytes escaped."""
    name = "keep-prov-\udcfe.json"  # the byte 0xfe in the file name (surrogateescape)
    p = run(["check", *SMALL, "--json", name], OK, no_work=False, keep=(name,),
            env={"NVIDIA_TF32_OVERRIDE": "1\udcff", "CUBLAS_WORKSPACE_CONFIG": ":4096:8\x01"})
    path = os.fsencode(name)
    if p is not None and os.path.exists(path):
        doc = json.load(open(path, "rb"))
        env, argv = doc.get("env") or {}, doc.get("argv")
        if not doc.get("host") or not isinstance(argv, str) or "\\xfe" not in argv:
            problem("damaged files", f"provenance: host or argv lost or raw: {argv!r}")
        if env.get("NVIDIA_TF32_OVERRIDE") != "1\\xff":
            problem("damaged files", f"provenance: env lost: {env!r}")
        os.remove(path)
    elif p is not None:
        problem("damaged files", "provenance: no run file written")


def concurrent():
    """Writers racing for one path: every file seen is whole, no temporary is left behind."""
    for prefix, opt in ((["check", *SMALL], "--json"), (["report", "check.json"], "--md"),
                        (["compare", "check.json", "check.json"], "--junit")):
        procs = []
        for _ in range(8):
            stats["invocations"] += 1
            procs.append(subprocess.Popen([GPUVAL] + prefix + [opt, "race.out"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        rcs = [(p.wait(timeout=RUN_TIMEOUT), p.stderr.read()) for p in procs]
        for rc, err in rcs:
            if rc < 0:
                problem("crashes", f"concurrent {prefix[0]} {opt}: signal {-rc}")
            elif rc not in OK:
                problem("wrong exits", f"concurrent {prefix[0]} {opt}: exit {rc}: {err[-200:]!r}")
        if os.path.exists("race.out"):
            text = open("race.out", "rb").read()
            if opt == "--json":
                try:
                    json.loads(text)
                except ValueError:
                    problem("damaged files", f"concurrent {prefix[0]}: race.out is not whole JSON")
            elif opt == "--junit" and not text.rstrip().endswith(b">"):
                problem("damaged files", f"concurrent {prefix[0]}: race.out is cut short")
            os.remove("race.out")
        left = [f for f in os.listdir(".") if f.startswith(".race.out")]
        if left:
            problem("damaged files", f"concurrent {prefix[0]}: temporaries left: {left}")
            for f in left:
                os.remove(f)
        check_victims(f"concurrent {prefix[0]}")


# ---- the classes of issue 44: judge, inputs, --case, probe --expect, merge, plugins ---------

def judge_inputs():
    """judge --json over its own inputs, inputs --out onto a file or over a case, judge --case on
    a FIFO: exit 2, nothing damaged, nothing half-written. The case is square (8x8x8), so the
    input A.npy has the output's shape: a judge given it as --outputs would run, and write its
    --json over an input, were the collision not refused first (a non-square case refused
    it anyway, for the output's size, and hid a missing collision check)."""
    p = run(["inputs", "--op", "gemm.cublas", "--size", "8x8x8", "--seed", "1", "--out",
             "keep-case"], 0, keep=("keep-case",), no_work=False)
    if p is None or p.returncode != 0:
        return
    for f in ("A.npy", "B.npy", "case.json"):
        victim(os.path.join("keep-case", f))
    a, b, case = (os.path.join("keep-case", f) for f in ("A.npy", "B.npy", "case.json"))
    for out in (a, "./keep-case/B.npy", case, "keep-case/../keep-case/case.json"):
        run(["judge", "--case", case, "--outputs", a, "--json", out], 2, "is the input",
            keep=("keep-case",))
        if not out.endswith("case.json"):  # the --op form reads no case.json
            run(["judge", "--op", "gemm", "--inputs", f"{a},{b}", "--outputs", a, "--json", out],
                2, "is the input", keep=("keep-case",))
    # --out naming a file, a FIFO, a directory holding a subdirectory, the working directory
    for target, msg in (("victim.txt", "not a directory"), ("fifo", "not a directory"),
                        ("adir/../victim.txt", "not a directory"), (".", "working directory"),
                        ("nosuchdir/case", "nosuchdir")):
        for force in ([], ["--force"]):
            run(["inputs", "--op", "gemm.cublas", "--out", target] + force, 2, msg,
                keep=("keep-case",), timeout=HANG_SECONDS)
    os.makedirs("keep-nested/sub")
    run(["inputs", "--op", "gemm.cublas", "--out", "keep-nested", "--force"], 2, "sub",
        keep=("keep-case", "keep-nested"))
    shutil.rmtree("keep-nested")
    # a case.json made read-only: the whole replacement refused, the old case whole
    os.chmod(case, 0o444)
    victim(case)
    run(["inputs", "--op", "gemm.cublas", "--size", "8x8x8", "--seed", "2", "--out",
         "keep-case", "--force"], 2, "case.json", keep=("keep-case",))
    run(["inputs", "--op", "gemm.cublas", "--size", "8x8x8", "--seed", "2", "--out",
         "keep-case"], 2, "--force", keep=("keep-case",))
    left = [f for f in os.listdir(".") if f.startswith(".keep-case.")]
    if left:
        problem("damaged files", f"inputs --force: temporaries left: {left}")
    # judge --case on a FIFO, a directory, a device: refused at once
    os.mkfifo("keep-fifo.json")
    for c in ("keep-fifo.json", "adir") + (("null-node",) if NODES else ()):
        run(["judge", "--case", c, "--outputs", a], 2, c, timeout=HANG_SECONDS,
            keep=("keep-case", "keep-fifo.json"))
    os.remove("keep-fifo.json")
    for f in ("A.npy", "B.npy", "case.json"):
        victims.pop(os.path.join("keep-case", f), None)
    os.chmod(case, 0o644)
    shutil.rmtree("keep-case")


def expectations():
    """probe --expect of malformed files: exit 2 naming file and line, with or without a
    device (the file is read first)."""
    bad = {"junk.expect": ("version 1\narch sm_90\n* f32 tf32 block >=8junk\n", ":3:"),
           "range.expect": ("version 1\narch sm_90\n* f32 * acc_bits 16..8\n", ":3:"),
           "alt.expect": ("version 1\narch sm_90\n* f32 * acc_bits 8||16\n", ":3:"),
           "arch.expect": ("version 1\narch sm_90" + "x" * 100 + "\n* * * * ?\n", ":2:"),
           "arch2.expect": ("version 1\narch sm_90\narch sm_80\n", ":3:"),
           "norule.expect": ("version 1\narch sm_90\n* f32 tf32 block\n", ":3:"),
           "ver.expect": ("version 1x\narch sm_90\n", ":1:"),
           "ctrl.expect": ("version 1\narch sm_90\n* f32 tf32 \x1b[2Jblock 8\n", ":3:")}
    for name, (text, line) in bad.items():
        with open(name, "w") as f:
            f.write(text)
        victim(name)
        run(["probe", "--op", "gemm.cublas", "--expect", name], 2, [name + line],
            timeout=HANG_SECONDS)
    run(["probe", "--expect", "fifo"], 2, "fifo", timeout=HANG_SECONDS)
    run(["probe", "--expect", "adir"], 2, "adir")


def long_strings():
    """compare, report and merge of a run file with 5 MB strings: linear, a few seconds."""
    d = json.load(open("check.json"))
    d["argv"] = "x" * (5 << 20)
    d["cases"][0]["op"] = "<|`#&[" * (1 << 20)
    with open("long.json", "w") as f:
        json.dump(d, f)
    victim("long.json")
    for args in (["compare", "long.json", "long.json"],
                 ["report", "long.json", "--md", "keep-l.md", "--html", "keep-l.html"],
                 ["merge", "long.json", "--md", "keep-l.md"]):
        t0 = time.monotonic()
        run(args, {0, 5}, no_work=False, keep=("keep-l.md", "keep-l.html"), timeout=HANG_SECONDS)
        if time.monotonic() - t0 > 10:
            problem("hangs", f"{args[0]} of 5 MB strings: {time.monotonic() - t0:.0f} s")
    # a long op that begins like a real one: the report groups cases by op, and compared each
    # case's op with each op's in full (22 s of CPU under the sanitizers' strict string checks)
    d["cases"][0]["op"] = "vadd" + "x" * (5 << 20)
    with open("longv.json", "w") as f:
        json.dump(d, f)
    victim("longv.json")
    t0 = time.monotonic()
    run(["report", "longv.json", "--md", "keep-l.md", "--html", "keep-l.html"], {0, 5},
        no_work=False, keep=("keep-l.md", "keep-l.html"), timeout=HANG_SECONDS)
    if time.monotonic() - t0 > 10:
        problem("hangs", f"report of a 5 MB op beginning vadd: {time.monotonic() - t0:.0f} s")
    for f in ("keep-l.md", "keep-l.html"):
        if os.path.exists(f):
            os.remove(f)


def merge_injection():
    """merge's table and --md of run files whose names carry Markdown and terminal controls."""
    d = json.load(open("check.json"))
    for i, c in enumerate(d["cases"]):
        c["op"] = INJECT[i % len(INJECT)] + str(i)
    d["device"]["name"] = "GPU\x1b[31m\n# INJ device [INJlink](x)"
    with open("inj-m1.json", "w") as f:
        json.dump(d, f)
    d["device"]["uuid"] = "GPU-2\x1b]0;t\x07"
    with open("inj-m2.json", "w") as f:
        json.dump(d, f)
    p = run(["merge", "inj-m1.json", "inj-m2.json", "--md", "keep-m.md"], {0, 1, 6},
            keep=("keep-m.md",), no_work=False)
    if p is not None:
        controls("merge's table", p.stdout + p.stderr)
    if os.path.exists("keep-m.md"):
        data = open("keep-m.md", "rb").read()
        injected("merge --md", data, True)
        controls("merge --md", data)
        os.remove("keep-m.md")
    for f in ("inj-m1.json", "inj-m2.json"):
        os.remove(f)


def plugins():
    """A plugin whose constructor or entry point faults: reported (file, signal), exit 2; an
    unknown option with a plugin: exit 2 before the plugin loads."""
    pdir = os.environ.get("GPUVAL_PLUGIN_DIR")
    if not pdir or not os.path.exists(os.path.join(pdir, "libtplugin_ctorfault.so")):
        print("hostile: no test plugins (GPUVAL_PLUGIN_DIR); those invocations are left out")
        return
    # the signal is named (11); under AddressSanitizer its handler turns the fault into an
    # abort or an exit of its own, which the message names instead
    fault = "not loaded" if os.environ.get("ASAN_OPTIONS") else "signal 11"
    for name in ("ctorfault", "entryfault"):
        lib = os.path.join(pdir, f"libtplugin_{name}.so")
        run(["list", "--plugin", lib], 2, [fault, lib])
        run(["check", "--op", "vadd", "--plugin", lib], 2, [fault, lib])
    lib = os.path.join(pdir, "libtplugin_ctorfault.so")
    for args in (["check", "--nosuch"], ["judge", "--op"], ["nosuch"], ["kernel-eval", "--op"]):
        run(args + ["--plugin", lib], 2, env={"GPUVAL_TEST_MARKER": "keep-marker",
                                             "GPUVAL_TEST_NO_FAULT": "1"})
        if os.path.exists("keep-marker"):
            problem("work before a usage error", f"{args}: the plugin's constructor ran")
            os.remove("keep-marker")


def every_document():
    """report of every kind of document gpuval writes (io/schemas.h), each with every string
    poisoned: exit 0, nothing injected into the HTML or the Markdown, no control byte; kinds
    with odd bodies, non-objects and a wide, long document: refused (2) or rendered (0), never
    a crash, in seconds. -w (check, judge, replay) and its misuse."""
    docs = {}
    p = run(["compare", "check.json", "check.json", "--json", "keep-d-compare.json"], {0, 5},
            keep=("keep-d-compare.json",), no_work=False)
    if p is not None and os.path.exists("keep-d-compare.json"):
        docs["compare"] = json.load(open("keep-d-compare.json"))
        os.remove("keep-d-compare.json")
    p = run(["merge", "check.json", "check.json", "--json", "keep-d-fleet.json"], {0, 1, 6},
            keep=("keep-d-fleet.json",), no_work=False)
    if p is not None and os.path.exists("keep-d-fleet.json"):
        docs["fleet"] = json.load(open("keep-d-fleet.json"))
        os.remove("keep-d-fleet.json")
    p = run(["list", "--json", "keep-d-ops.json"], 0, keep=("keep-d-ops.json",), no_work=False)
    if p is not None and os.path.exists("keep-d-ops.json"):
        docs["ops"] = json.load(open("keep-d-ops.json"))
        os.remove("keep-d-ops.json")
    p = run(["inputs", "--op", "vadd", "--size", "16", "--out", "keep-d-case"], 0,
            keep=("keep-d-case",), no_work=False)
    if p is not None and os.path.exists("keep-d-case/case.json"):
        docs["inputs"] = json.load(open("keep-d-case/case.json"))
    shutil.rmtree("keep-d-case", ignore_errors=True)
    # the kinds this machine cannot write without devices, in the shape their writers give
    docs["screen"] = {"schema": "gpuval-screen/1", "tier": "t1", "exit_code": 6,
                      "gpus": [{"index": 0, "uuid": "GPU-0", "verdict": "FAIL",
                                "failures": [{"label": "gemm f32", "why": "differs"}]},
                               {"index": 1, "uuid": "GPU-1", "verdict": "PASS", "failures": []}],
                      "notes": ["a note"]}
    docs["golden"] = {"schema": "gpuval-golden/1", "entries": [{"key": "vadd f32", "digest": "ab"}]}
    docs["fleet-probe"] = {"schema": "gpuval-fleet-probe/1", "devices": [{"label": "d0"}],
                           "features": [{"row": "gemm", "feature": "acc", "values": ["a", "b"],
                                         "agree": False, "fail": True}], "outliers": ["d1"]}
    docs["fleet-perf"] = {"schema": "gpuval-fleet-perf/1", "cases": [{"op": "vadd",
                                                                      "verdict": "ERROR"}]}
    for kind, doc in docs.items():
        name = f"inj-doc-{kind}.json"
        with open(name, "w") as f:
            json.dump(poisoned(doc), f)
        for opt, md in (("--html", False), ("--md", True)):
            p = run(["report", name, opt, "keep-doc.out"], 0, keep=("keep-doc.out",),
                    no_work=False, timeout=HANG_SECONDS)
            if p is not None and os.path.exists("keep-doc.out"):
                data = open("keep-doc.out", "rb").read()
                injected(f"report {kind} {opt}", data, md)
                controls(f"report {kind} {opt}", data)
                if b"Failures" not in data:
                    problem("bad messages", f"report {kind} {opt}: no Failures section")
                os.remove("keep-doc.out")
        os.remove(name)
    # odd bodies of known kinds render; what is not a gpuval document is refused
    odd = {"odd-screen.json": ({"schema": "gpuval-screen/1", "gpus": 5}, 0, None),
           "odd-golden.json": ({"schema": "gpuval-golden/1"}, 0, None),
           "odd-mixed.json": ({"schema": "gpuval-ops/1", "ops": [1, "x", None, {"a": [[[]]]}]},
                              0, None),
           "odd-array.json": ([{"schema": "gpuval-ops/1"}], 2, "not a JSON object"),
           "odd-nested.json": ("[" * 5000 + "]" * 5000, 2, "odd-nested.json"),
           "odd-unknown.json": ({"schema": "gpuval-fleet/9"}, 2, "unknown schema")}
    for name, (doc, code, msg) in odd.items():
        with open(name, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        victim(name)
        run(["report", name, "--md", "keep-odd.md"], code, msg, keep=("keep-odd.md",),
            no_work=code == 2, timeout=HANG_SECONDS)
        if os.path.exists("keep-odd.md"):
            os.remove("keep-odd.md")
        victims.pop(name, None)
        os.remove(name)
    # wide and long: 200 members a row, 20000 rows, a 5 MB reason: linear, seconds
    rows = [{f"m{k}": k for k in range(200)} for _ in range(200)]
    rows += [{"op": "vadd", "verdict": "FAIL", "reason": "r" * (5 << 20)}]
    rows += [{"op": f"o{i}", "outcome": "REGRESSED"} for i in range(20000)]
    with open("big-doc.json", "w") as f:
        json.dump({"schema": "gpuval-compare/1", "cases": rows}, f)
    for opt in ("--md", "--html"):
        t0 = time.monotonic()
        run(["report", "big-doc.json", opt, "keep-big.out"], 0, keep=("keep-big.out",),
            no_work=False, timeout=HANG_SECONDS)
        if time.monotonic() - t0 > 10:
            problem("hangs", f"report {opt} of a wide, long document: "
                    f"{time.monotonic() - t0:.0f} s")
        if os.path.exists("keep-big.out"):
            os.remove("keep-big.out")
    os.remove("big-doc.json")
    # -w: taken by check, judge and replay; refused with a value, and by commands without it
    run(["check", "-w", "--op", "vadd", "--size", "8"], {0, 77}, no_work=False)
    run(["check", "--wide", "-q", "--op", "vadd", "--size", "8"], {0, 77}, no_work=False)
    for args, msg in ((["check", "--wide=3"], "--wide"), (["judge", "-w"], "judge"),
                      (["replay", "-w"], "replay"), (["replay", "-w", "adir"], "adir"),
                      (["report", "-w", "check.json", "--md", "-"], "-w"),
                      (["bench", "-w"], "-w"), (["compare", "-w", "check.json", "check.json"],
                                                "-w")):
        run(args, 2, msg)


def kernel_eval():
    """kernel-eval: a FIFO or a directory as the candidate's file or as --json, refused before
    python3 starts (the gate would block opening them); missing values and stray arguments."""
    os.mkfifo("keep-fifo.py")
    for args in (["--candidate", "keep-fifo.py:f"], ["--candidate", "adir/k.py:f"],
                 ["--candidate", "m:f", "--json", "keep-fifo.py"],
                 ["--candidate", "m:f", "--json", "adir"]):
        run(["kernel-eval", "--op", "softmax.rows"] + args, 2, timeout=HANG_SECONDS,
            keep=("keep-fifo.py",))
    os.remove("keep-fifo.py")
    for args in (["--op"], ["--op", "softmax.rows", "--candidate"], ["--candidate", "m:f"],
                 ["--op", "softmax.rows", "--candidate", "m:f", "stray"]):
        run(["kernel-eval"] + args, 2)


def require_gpu():
    if TEST_GPU is None or device_present():
        return
    for val, expect in ((None, 77), ("", 77), ("0", 77), ("1", 1), ("yes", 1), ("true", 1),
                        ("2", 1), (" ", 1), ("00", 1), ("no", 1)):
        run(["--jobs=1"], expect, env={"GPUVAL_REQUIRE_GPU": val}, exe=TEST_GPU, no_work=False,
            label=f"test_gpu GPUVAL_REQUIRE_GPU={val!r}")


def main():
    make_victims()
    t0 = time.monotonic()
    parts = (seeds, sizes, sweeps, names, outputs, run_files, fifo_inputs, colliding_outputs,
             injection, provenance, concurrent, judge_inputs, expectations, long_strings,
             merge_injection, plugins, every_document, kernel_eval, require_gpu)
    only = os.environ.get("HOSTILE_PARTS")  # e.g. "judge_inputs,plugins": a part at a time
    for part in parts:
        if not only or part.__name__ in only.split(","):
            part()
    if not os.path.exists("/dev/null") or not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        problem("damaged files", "/dev/null is no longer a character device")
    print(f"hostile: {stats['invocations']} invocations in {time.monotonic() - t0:.0f} s: "
          + ", ".join(f"{v} {k}" for k, v in stats.items() if k != "invocations"))
    os.chdir("/")
    for p in ("rodir",):
        os.chmod(os.path.join(scratch, p), 0o755)
    shutil.rmtree(scratch, ignore_errors=True)
    bad = sum(v for k, v in stats.items() if k != "invocations")
    return 1 if bad or (stats["invocations"] < 300 and not only) else 0


if __name__ == "__main__":
    sys.exit(main())
