#!/usr/bin/env bash
# One bad file never costs the others' results: a truncated DCGM dmon capture (gzip cut short), a
# DCGM dmon cut before its header, a truncated NCCL Inspector file, with good files beside them.
# analyze --out exits 0 with result.json; each bad file is one input, reported once; the good
# files' results are those of a run without the bad ones; accepted + rejected = read holds, the
# diagnostics' rejected count is the inputs' sum, and the terminal summary shows the same numbers.
set -euo pipefail
bin=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
good="$tmp/good/host1"
mkdir -p "$good"
cp "$fixtures/nvidia_smi_topo/dgx_a100_8gpu_nv12_12nic_mlx5_rows.txt" "$good/topo.txt"
cp "$fixtures/dcgmi_dmon/dcgm318_h800_8gpu_nvltx_nvlrx.txt" "$good/dmon.txt"
cp "$fixtures/nccl_inspector/nccl_inspector_readme_v4.0_allreduce_8rank_record_pretty.json" "$good/inspector.json"
cp -r "$tmp/good" "$tmp/all"
bad="$tmp/all/host1"
# A dmon capture whose gzip stream ends early: its first rows are read, then the read fails.
{ cat "$fixtures/dcgmi_dmon/dcgm318_h800_8gpu_nvltx_nvlrx.txt"
  for i in $(seq 2000); do echo "GPU $((i % 8))     $((30000000000 + i))     $((30000000000 + 2 * i))"; done
} | gzip -c > "$tmp/full.gz"
head -c $(( $(stat -c %s "$tmp/full.gz") * 2 / 3 )) "$tmp/full.gz" > "$bad/cut-dmon.txt.gz"
# A dmon file cut before its header ends: no `#Entity` line survives.
printf '#Entit' > "$bad/headless-dmon.txt"
head -c 20 "$fixtures/dcgmi_dmon/dcgm318_h800_8gpu_nvltx_nvlrx.txt" > "$bad/cut-dmon-head.txt"
# An Inspector record file cut in the middle of its first record.
insp="$fixtures/nccl_inspector/nccl_inspector_readme_v4.0_allreduce_8rank_record_pretty.json"
head -c $(( $(stat -c %s "$insp") / 2 )) "$insp" > "$bad/cut-inspector.json"
for what in good all; do
  set +e
  "$bin" analyze "$tmp/$what" --out "$tmp/out-$what" --timeline > "$tmp/log-$what" 2> "$tmp/err-$what"
  code=$?
  set -e
  [ $code -eq 0 ] || { cat "$tmp/log-$what" "$tmp/err-$what"; fail "analyze $what exited $code"; }
  [ -s "$tmp/out-$what/result.json" ] || fail "no result.json for $what"
done
/usr/bin/python3 - "$tmp" <<'PY'
import json, re, sys
tmp = sys.argv[1]
good = json.load(open(tmp + "/out-good/result.json"))
allr = json.load(open(tmp + "/out-all/result.json"))
def by_name(r):
    return {i["path"].rsplit("/", 1)[1]: i for i in r["inputs"]}
g, a = by_name(good), by_name(allr)
assert len(a) == len(allr["inputs"]), "an input listed twice"
for r in (good, allr):
    assert sum(i["rejected"] for i in r["inputs"]) == r["diagnostics"]["rejected"], \
        (r["diagnostics"]["rejected"], [(i["path"], i["rejected"]) for i in r["inputs"]])
    for i in r["inputs"]:
        assert 0 <= i["rejected"] <= i["records"] or (i["records"] == 0 and i["rejected"] == 0), i
# The good files read alike with or without the bad ones beside them.
for name in ("topo.txt", "dmon.txt", "inspector.json"):
    for k in ("records", "rejected", "skipped", "host", "format"):
        assert g[name][k] == a[name][k], (name, k, g[name][k], a[name][k])
    assert not a[name]["skipped"], a[name]
assert g["inspector.json"]["records"] > 0, g["inspector.json"]
assert good["gpus"] == allr["gpus"] and good["links"] == allr["links"], "the topology changed"
# The dmon capture cut short is read, its records used, its error one rejected record.
cut = a["cut-dmon.txt.gz"]
assert not cut["skipped"] and cut["records"] > 10 and cut["rejected"] >= 1, cut
# A file refused as a whole is skipped with its reason and no records; a header alone is read, empty.
assert a["headless-dmon.txt"]["skipped"] and a["headless-dmon.txt"]["skip_reason"], a["headless-dmon.txt"]
assert not a["cut-dmon-head.txt"]["skipped"] and a["cut-dmon-head.txt"]["records"] == 0, a["cut-dmon-head.txt"]
# The cut Inspector file: its one record cut short is rejected; with no record left it is skipped.
ci = a["cut-inspector.json"]
assert ci["skipped"] and ci["skip_reason"] and ci["records"] == 1 and ci["rejected"] == 1, ci
# Each bad file's error is reported once.
kept = allr["diagnostics"]["kept"]
for name in ("cut-dmon.txt.gz", "cut-inspector.json"):
    n = sum(1 for d in kept if name + ":" in d and "rejected" in d)
    assert n == a[name]["rejected"], (name, n, a[name]["rejected"], kept)
# The timeline carries the good files' events and the cut capture's read part.
src = {s["path"].rsplit("/", 1)[1]: s for s in allr["timeline"]["sources"]}
assert "headless-dmon.txt" not in src and "cut-inspector.json" not in src, src.keys()
assert src["cut-dmon.txt.gz"]["records"] + 1 == cut["records"], (src["cut-dmon.txt.gz"], cut)
assert src["inspector.json"]["events"] > 0 and src["cut-dmon.txt.gz"]["records"] > 0, src
# The terminal summary shows the numbers of result.json.
log = open(tmp + "/log-all").read()
m = re.search(r"inputs: (\d+) files read, (\d+) skipped; (\d+) records, (\d+) rejected", log)
assert m, log
ins = allr["inputs"]
assert int(m.group(1)) == sum(1 for i in ins if not i["skipped"]), (m.group(0), ins)
assert int(m.group(2)) == sum(1 for i in ins if i["skipped"]), m.group(0)
assert int(m.group(3)) == sum(i["records"] for i in ins), m.group(0)
assert int(m.group(4)) == allr["diagnostics"]["rejected"], (m.group(0), allr["diagnostics"]["rejected"])
PY
# The identity over every real fixture and all of testdata/ in one run, with and without --out.
testdata="$(cd "$(dirname "$0")/../../testdata" && pwd)"
"$bin" analyze "$fixtures" "$testdata" --out "$tmp/out-fixtures" --timeline > "$tmp/log-fixtures" 2>&1 ||
  { tail -20 "$tmp/log-fixtures"; fail "analyze over the fixtures failed"; }
"$bin" analyze "$fixtures" "$testdata" > "$tmp/log-fixtures-plain" 2>&1 ||
  { tail -20 "$tmp/log-fixtures-plain"; fail "analyze over the fixtures without --out failed"; }
/usr/bin/python3 - "$tmp" <<'PY'
import json, re, sys
tmp = sys.argv[1]
r = json.load(open(tmp + "/out-fixtures/result.json"))
ins = r["inputs"]
assert sum(i["rejected"] for i in ins) == r["diagnostics"]["rejected"], \
    (r["diagnostics"]["rejected"], sum(i["rejected"] for i in ins))
for i in ins:
    assert 0 <= i["rejected"] <= i["records"], i
traces = [i for i in ins if i["format"] == "chrome-trace" and not i["skipped"]]
assert traces and all(i["records"] > 0 for i in traces), traces
events = {s["path"]: s for s in r["timeline"]["sources"]}
for i in traces:
    assert events[i["path"]]["records"] == i["records"], (i, events[i["path"]])
# Without --out the same numbers: the terminal line of both runs.
line = lambda f: re.search(r"inputs: .*", open(f).read()).group(0)
a, b = line(tmp + "/log-fixtures"), line(tmp + "/log-fixtures-plain")
assert a == b, (a, b)
assert a.endswith("%d records, %d rejected" % (sum(i["records"] for i in ins), r["diagnostics"]["rejected"])), a
PY
echo "bad_files: ok"
