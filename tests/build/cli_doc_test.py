#!/usr/bin/env python3
"""tests/build/cli_doc_test.py SRCDIR [GPUVAL]: docs/cli.md says what the command does.

- its command table ("The commands:", one row per command, the command first in backticks)
  names every command of the dispatch table in src/cmd/main.c (`cmds[] = {{"list", ...}}`)
  and no other;
- `gpuval --help` (when the binary is given) lists the same commands, plus `help`;
- the API version it quotes (`api X.Y`, as `gpuval -V` prints it) is include/gpuval.h's
  GPUVAL_API_VERSION_MAJOR.MINOR, and so is the one `gpuval -V` prints;
- the README's count of the default catalogue ("now holds N cases: `gpuval check` ends with
  `N cases: ...`") is the count `gpuval check -q` ends with (when the binary is given: run with
  no visible CUDA device, so that every case is a SKIP and nothing runs on a GPU).

GPUVAL_CLI_DOC names another copy of cli.md and GPUVAL_README another copy of README.md (a
planted drift: a row removed, a version or a count changed) so that the test can be shown to
fail. Exit 0 when all hold, 1 with every difference named.
"""
import os
import re
import subprocess
import sys


def dispatch_commands(main_c):
    """The names of the dispatch table `cmds[]` in gv_cmd_main."""
    text = open(main_c, encoding="utf-8").read()
    m = re.search(r"\bcmds\[\]\s*=\s*\{(.*?)\};", text, re.S)
    if not m:
        sys.exit(f"{main_c}: no dispatch table 'cmds[] = {{...}};' (moved? update this test)")
    names = re.findall(r'\{\s*"([a-z][a-z0-9_-]*)"\s*,\s*\w+\s*\}', m.group(1))
    if not names:
        sys.exit(f"{main_c}: the dispatch table has no {{\"name\", fn}} entries")
    return names


def doc_commands(cli_md):
    """The first backticked word of each row of cli.md's command table."""
    lines = open(cli_md, encoding="utf-8").read().splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith("| command |"))
    except StopIteration:
        sys.exit(f"{cli_md}: no command table (a header row '| command | ...')")
    names = []
    for line in lines[start + 2:]:  # past the header and its |---| row
        if not line.startswith("|"):
            break
        m = re.match(r"\|\s*`([a-z][a-z0-9_-]*)", line)
        if not m:
            sys.exit(f"{cli_md}: a command row without a command in backticks: {line}")
        names.append(m.group(1))
    return names


def api_version(header):
    text = open(header, encoding="utf-8").read()
    major = re.search(r"#define\s+GPUVAL_API_VERSION_MAJOR\s+(\d+)", text)
    minor = re.search(r"#define\s+GPUVAL_API_VERSION_MINOR\s+(\d+)", text)
    if not major or not minor:
        sys.exit(f"{header}: no GPUVAL_API_VERSION_MAJOR/MINOR")
    return f"{major.group(1)}.{minor.group(1)}"


def help_commands(gpuval):
    out = subprocess.run([gpuval, "--help"], capture_output=True, text=True, timeout=60).stdout
    block = out.split("commands:\n", 1)[1].split("\n\n", 1)[0] if "commands:\n" in out else ""
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z0-9_-]*)", block, re.M)]


def readme_counts(readme):
    """The catalogue counts README.md states: 'now holds N cases' and 'ends with `N cases:'."""
    text = open(readme, encoding="utf-8").read()
    held = re.findall(r"default catalogue now holds (\d+) cases", text)
    ends = re.findall(r"`gpuval check` ends with\s+`(\d+) cases:", text)
    return held, ends


def check_count(gpuval):
    """The case count `gpuval check -q` ends with when no CUDA device is visible (every case is
    listed as a SKIP), or None when its last line is not a count."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([gpuval, "check", "-q"], capture_output=True, text=True, timeout=120,
                         env=env).stdout.strip().splitlines()
    m = re.match(r"(\d+) cases: ", out[-1]) if out else None
    return int(m.group(1)) if m else None


def main():
    src = sys.argv[1]
    gpuval = sys.argv[2] if len(sys.argv) > 2 else None
    cli_md = os.environ.get("GPUVAL_CLI_DOC") or os.path.join(src, "docs", "cli.md")
    faults = []
    table = dispatch_commands(os.path.join(src, "src", "cmd", "main.c"))
    doc = doc_commands(cli_md)
    for name in sorted(set(table) - set(doc)):
        faults.append(f"{cli_md}: command '{name}' is dispatched (src/cmd/main.c) but has no row")
    for name in sorted(set(doc) - set(table)):
        faults.append(f"{cli_md}: row '{name}' is not a command of src/cmd/main.c")
    for name in sorted({n for n in doc if doc.count(n) > 1}):
        faults.append(f"{cli_md}: command '{name}' has {doc.count(name)} rows")

    api = api_version(os.path.join(src, "include", "gpuval.h"))
    quoted = set(re.findall(r"`api (\d+\.\d+)`", open(cli_md, encoding="utf-8").read()))
    if not quoted:
        faults.append(f"{cli_md}: quotes no API version (`api X.Y`, as gpuval -V prints it)")
    for v in sorted(quoted - {api}):
        faults.append(f"{cli_md}: quotes `api {v}`; include/gpuval.h is {api}")

    if gpuval:
        listed = help_commands(gpuval)
        for name in sorted(set(table) - set(listed)):
            faults.append(f"gpuval --help: command '{name}' is dispatched but not listed")
        for name in sorted(set(listed) - set(table) - {"help"}):
            faults.append(f"gpuval --help: lists '{name}', which is not dispatched")
        version = subprocess.run([gpuval, "-V"], capture_output=True, text=True,
                                 timeout=60).stdout.splitlines()
        if len(version) < 2 or not version[1].startswith(f"api {api} "):
            faults.append(f"gpuval -V: second line {version[1:2]}, expected 'api {api} ...'")
        readme = os.environ.get("GPUVAL_README") or os.path.join(src, "README.md")
        held, ends = readme_counts(readme)
        count = check_count(gpuval)
        if count is None:
            faults.append("gpuval check -q: its last line is not 'N cases: ...'")
        if not held or not ends:
            faults.append(f"{readme}: states no count of the default catalogue ('now holds N "
                          f"cases: `gpuval check` ends with `N cases: ...`')")
        for n in sorted(set(held + ends) - {str(count)}):
            faults.append(f"{readme}: says the default catalogue holds {n} cases; "
                          f"gpuval check ends with {count}")

    for f in faults:
        print(f)
    if gpuval:
        print(f"the default catalogue: {count} cases (gpuval check -q)")
    print(f"{len(table)} commands dispatched, {len(doc)} rows in {cli_md}, API {api}: "
          f"{'ok' if not faults else f'{len(faults)} differences'}")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
