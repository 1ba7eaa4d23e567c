#!/usr/bin/env python3
"""Checks that every library and CLI source compiles with clang (Debian's clang++ 14) and -Werror,
as the g++ build does: each command of build/compile_commands.json under src/ and tools/ is re-run
with clang++ -fsyntax-only (no objects, so it costs a fraction of a second build). Exits 1 when a
file fails, printing clang's errors.
  check_clang.py [BUILD] [--skip MODULE,...]
--skip leaves out the sources of src/toposcope/<MODULE>/: CI passes the modules that the fuzz build
(scripts/fuzz_smoke.sh: clang, -Werror, every reader's harness links toposcope::model and what it
uses) compiles anyway, so no source goes unchecked and none is compiled by clang twice."""
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
    args = sys.argv[1:]
    skip = set()
    if "--skip" in args:
        i = args.index("--skip")
        skip = {m for m in args[i + 1].split(",") if m} if i + 1 < len(args) else set()
        del args[i:i + 2]
    build = args[0] if args else "build"
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    def module(rel):
        parts = rel.split(os.sep)
        return parts[2] if len(parts) > 3 and parts[:2] == ["src", "toposcope"] else ""
    rels = [(e, os.path.relpath(e["file"], root)) for e in entries]
    wanted = [e for e, rel in rels
              if rel.split(os.sep)[0] in ("src", "tools") and module(rel) not in skip]
    def run(e):
        p = subprocess.run(clang_command(e), cwd=e["directory"], capture_output=True, text=True)
        return e["file"], p.returncode, p.stderr
    failed = 0
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for path, rc, err in pool.map(run, wanted):
            if rc != 0:
                failed += 1
                print(f"check_clang: {os.path.relpath(path, root)} fails with clang:\n{err}", file=sys.stderr)
    left = f" (left to the fuzz build: {', '.join(sorted(skip))})" if skip else ""
    print(f"check_clang: {len(wanted) - failed} of {len(wanted)} sources compile with clang{left}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
