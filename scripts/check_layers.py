#!/usr/bin/env python3
"""Checks that the code goes one way down the layer order and that CMake says so too.

  base -> formats -> model -> stats -> analysis -> act -> report -> serve;  sim, experiments, app, tools on top

1. Every `#include "toposcope/<module>/..."` in src/, tools/ goes to the same module or one below it
   (sim may use base, formats, model and stats, never the analyzer; serve/, the HTTP server, the
   layers up to report; experiments may use all but app and serve; app, what each command does,
   everything; dist/ may use app; tools everything). Inside formats/ and analysis/ the domain sub-folders have an order of their own.
2. analysis/ opens no file and calls no reader: records reach it through model/ sources.
3. Each toposcope_module(...) in CMakeLists.txt declares exactly the modules and third-party
   libraries its sources include, and so does the CLI target.
4. Tests mirror the source tree: tests/<module>/<domain>/ exists as src/toposcope/<module>/<domain>/.

Prints one line per violation (file:line: reason) and exits 1 when there is any.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src", "toposcope")

# The modules each module may include (itself always allowed).
ORDER = ["base", "formats", "model", "stats", "analysis", "act", "report"]
ALLOWED = {m: set(ORDER[:i]) for i, m in enumerate(ORDER)}
ALLOWED["sim"] = {"base", "formats", "model", "stats"}
ALLOWED["probe"] = {"base", "formats"}
ALLOWED["experiments"] = set(ORDER) | {"sim"}
ALLOWED["serve"] = set(ORDER)
ALLOWED["app"] = set(ORDER) | {"sim", "probe", "experiments", "serve"}
ALLOWED["dist"] = set(ORDER) | {"app"}
ALLOWED["tools"] = set(ORDER) | {"sim", "probe", "experiments", "app", "serve", "dist"}

# Domain sub-folders inside a module, lowest first; the module's own top-level files come last
# (format detection over formats/, the pass pipeline over analysis/).
SUB_ORDER = {
    "formats": ["clock", "trace", "node", "dcgm", "nccl", "rdma", "fabric", ""],
    "analysis": ["node", "time", "traffic", "fabric", "pipeline", ""],
}

# What analysis/ must not do: open files or call readers (model/ streams every input).
FORBIDDEN_IN_ANALYSIS = [
    (re.compile(r'#include "toposcope/base/file_io\.h"'), "includes base/file_io.h (analysis never opens a file)"),
    (re.compile(r"\b(OpenInput|ReadFileText|ReadHead|WriteFileText)\s*\("), "opens a file (use a model/ source)"),
    (re.compile(r"\bstd::(i|o)?fstream\b|\bfopen\s*\("), "opens a file (use a model/ source)"),
    (re.compile(r"\bformats::Read[A-Z]\w*\s*\("), "calls a reader (use a model/ source)"),
]

# Third-party headers -> the CMake target that provides them.
THIRD_PARTY = [
    (re.compile(r"^nlohmann/"), "nlohmann_json::nlohmann_json"),
    (re.compile(r"^pugixml\.hpp$"), "pugixml::pugixml"),
    (re.compile(r"^pcap[/.]"), "PkgConfig::PCAP"),
    (re.compile(r"^Eigen/"), "Eigen3::Eigen"),
    (re.compile(r"^Spectra/"), "Spectra::Spectra"),
    (re.compile(r"^(tbb|oneapi)/"), "TBB::tbb"),
    (re.compile(r"^zlib\.h$"), "ZLIB::ZLIB"),
    (re.compile(r"^zstd\.h$"), "PkgConfig::ZSTD"),
    (re.compile(r"^fmt/"), "fmt::fmt"),
    (re.compile(r"^spdlog/"), "spdlog::spdlog"),
    (re.compile(r"^CLI/"), "CLI11::CLI11"),
    (re.compile(r"^httplib\.h$"), "PkgConfig::HTTPLIB"),
    (re.compile(r"^mpi\.h$"), "MPI::MPI_CXX"),
    (re.compile(r"^xxhash\.h$"), "PkgConfig::XXHASH"),
    (re.compile(r"^zmq\.(h|hpp)$"), "PkgConfig::ZMQ"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def rel(path):
    return os.path.relpath(path, ROOT)


def sources(top):
    for d, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".h", ".cc")):
                yield os.path.join(d, f)


def module_of(path):
    """(module, domain) of a file under src/toposcope or tools/."""
    r = rel(path).split(os.sep)
    if r[0] == "tools":
        return "tools", ""
    # src/toposcope/<module>/[<domain>/]file
    module = r[2]
    domain = r[3] if len(r) > 4 else ""
    return module, domain


def parse_cmake():
    text = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    text = re.sub(r"#[^\n]*", "", text)
    decl = {}
    for m in re.finditer(r"toposcope_module\(\s*(\w+)((?:\s+DEPS)?[^)]*)\)", text):
        deps = m.group(2).split()
        decl[m.group(1)] = set(d for d in deps if d != "DEPS")
    # The CLI's libraries: every target_link_libraries(toposcope PRIVATE ...) (some are conditional,
    # such as dist/ when MPI is found).
    for tool in re.finditer(r"target_link_libraries\(\s*toposcope\s+PRIVATE([^)]*)\)", text):
        decl.setdefault("tools", set()).update(tool.group(1).split())
    return decl


def main():
    problems = []
    used = {}
    files_of = {}
    for top in (SRC, os.path.join(ROOT, "tools")):
        for path in sources(top):
            module, domain = module_of(path)
            files_of.setdefault(module, []).append(path)
            deps = used.setdefault(module, set())
            text = open(path, encoding="utf-8", errors="replace").read()
            for no, line in enumerate(text.splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                kind, target = m.groups()
                if kind == '"' and target.startswith("toposcope/"):
                    parts = target.split("/")
                    tmod = parts[1]
                    tdom = parts[2] if len(parts) > 3 else ""
                    if tmod != module:
                        deps.add("toposcope::" + tmod)
                        if tmod not in ALLOWED.get(module, set()):
                            problems.append(f"{rel(path)}:{no}: {module} includes {target}: "
                                            f"{tmod} is not below {module} in the layer order")
                    elif module in SUB_ORDER and tdom != domain:
                        order = SUB_ORDER[module]
                        if domain not in order or tdom not in order:
                            problems.append(f"{rel(path)}:{no}: unknown domain folder in {module}/ "
                                            f"({domain or '.'} -> {tdom or '.'}); add it to SUB_ORDER")
                        elif order.index(tdom) > order.index(domain):
                            problems.append(f"{rel(path)}:{no}: {module}/{domain or '.'} includes {target}: "
                                            f"{module}/{tdom or '.'} is above it")
                elif kind == "<":
                    for pat, lib in THIRD_PARTY:
                        if pat.search(target):
                            deps.add(lib)
            if module == "analysis":
                for no, line in enumerate(text.splitlines(), 1):
                    code = line.split("//", 1)[0] if not line.lstrip().startswith("#") else line
                    for pat, why in FORBIDDEN_IN_ANALYSIS:
                        if pat.search(code):
                            problems.append(f"{rel(path)}:{no}: analysis {why}")

    declared = parse_cmake()
    for module in sorted(set(used) | set(declared)):
        if module not in declared:
            problems.append(f"CMakeLists.txt: module {module} has sources but no toposcope_module() line")
            continue
        has_sources = any(p.endswith(".cc") for p in files_of.get(module, []))
        want = used.get(module, set()) if has_sources or module == "tools" else set()
        got = declared[module]
        for d in sorted(want - got):
            problems.append(f"CMakeLists.txt: {module} uses {d} but does not declare it")
        for d in sorted(got - want):
            problems.append(f"CMakeLists.txt: {module} declares {d} but its code never includes it")

    tests = os.path.join(ROOT, "tests")
    for d, dirs, files in os.walk(tests):
        r = os.path.relpath(d, tests)
        if r == "." or r.split(os.sep)[0] in ("cli", "support"):
            continue
        if any(f.endswith("_test.cc") for f in files) and not os.path.isdir(os.path.join(SRC, r)):
            problems.append(f"tests/{r}/: no src/toposcope/{r}/ to mirror")

    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_layers: ok ({sum(len(v) for v in files_of.values())} files, {len(declared)} targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
