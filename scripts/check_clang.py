#!/usr/bin/env python3
"""Checks that every library and CLI source compiles with clang (Debian's clang++ 14) and -Werror,
as the g++ build does: each command of build/compile_commands.json under src/ and tools/ is re-run
with clang++ -fsyntax-only (no objects, so it costs a fraction of a second build). Exits 1 on the
first file clang rejects, printing its errors."""
import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def clang_command(entry):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out = ["clang++", "-fsyntax-only"]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a.startswith("-Wno-restrict"):
            continue  # -Wno-restrict is a g++-only warning name
        out.append(a)
    return out


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    wanted = [e for e in entries
              if os.path.relpath(e["file"], root).split(os.sep)[0] in ("src", "tools")]
    def run(e):
        p = subprocess.run(clang_command(e), cwd=e["directory"], capture_output=True, text=True)
        return e["file"], p.returncode, p.stderr
    failed = 0
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for path, rc, err in pool.map(run, wanted):
            if rc != 0:
                failed += 1
                print(f"check_clang: {os.path.relpath(path, root)} fails with clang:\n{err}", file=sys.stderr)
    print(f"check_clang: {len(wanted) - failed} of {len(wanted)} sources compile with clang", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
