#!/usr/bin/env bash
# report.html end to end in headless Chromium: a simulated fat-tree analysed with --out (analyze
# writes report.html) and the scheduler's congestion scene (schedule writes result.json with its
# decisions; `toposcope report` makes the page from it) are opened in `chromium --headless`; the
# page drew without a script or console error, every section is there, and what it drew matches
# result.json: hosts in the fabric, leaf-spine cables, the picked host's GPU links and P2P cells,
# the first ring's hops, the RDMA traffic matrix's host pairs, the NVLink hosts and the first one's
# GPU-pair cells, the NIC ports and their findings, the QP pattern scopes, the findings, the
# symptoms, the input files, the entropy series and the scheduler's decisions. One full-page screenshot of the analysis report (kept under
# $TOPOSCOPE_REPORT_SHOTS when set). `report` refuses a file that is not a result (exit 3). Skips (77) without Chromium.
set -euo pipefail
bin=$1
chromium=""
for c in chromium chromium-browser google-chrome; do
  if command -v "$c" > /dev/null 2>&1; then chromium=$(command -v "$c"); break; fi
done
[ -n "$chromium" ] || { echo "SKIP: chromium is not installed (scripts/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Headless Chromium on one page: the DOM after the script ran, or a full-page screenshot.
browse() {
  timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$tmp/profile" "$@" 2> "$tmp/chromium.err"
}

"$bin" simulate --arch fat-tree --hosts 8 --seed 2 --faults 2 --no-vary --naming plain --out "$tmp/data" > /dev/null \
  || fail "simulate"
"$bin" analyze "$tmp/data" --out "$tmp/out" > /dev/null || fail "analyze"
[ -s "$tmp/out/report.html" ] || fail "analyze --out wrote no report.html"
"$bin" report "$tmp/out/result.json" -o "$tmp/again.html" > /dev/null || fail "report"
"$bin" report "$tmp/out/result.json" -o "$tmp/again2.html" > /dev/null || fail "report (again)"
cmp "$tmp/again.html" "$tmp/again2.html" || fail "report is not deterministic"

"$bin" schedule --simulate --archs fat-tree --seeds 1 --events congestion --out "$tmp/sched" > /dev/null \
  || fail "schedule --simulate"
sres="$tmp/sched/fat-tree-s1-congestion/schedule/result.json"
[ -s "$(dirname "$sres")/report.html" ] || fail "schedule wrote no report.html"
"$bin" report "$sres" -o "$tmp/sched.html" > /dev/null || fail "report of the schedule result"

for page in out/report.html sched.html; do
  name=$(basename "$page" .html)
  browse --dump-dom "file://$tmp/$page" > "$tmp/$name.dom" || { cat "$tmp/chromium.err"; fail "chromium --dump-dom $page"; }
done
# One full-page screenshot of the analysis report.
browse --window-size=1300,4000 --screenshot="$tmp/report.png" "file://$tmp/out/report.html" > /dev/null \
  || { cat "$tmp/chromium.err"; fail "chromium --screenshot"; }
[ "$(stat -c %s "$tmp/report.png")" -gt 20000 ] || fail "the screenshot is empty"
if [ -n "${TOPOSCOPE_REPORT_SHOTS:-}" ]; then mkdir -p "$TOPOSCOPE_REPORT_SHOTS" && cp "$tmp/report.png" "$TOPOSCOPE_REPORT_SHOTS/"; fi

/usr/bin/python3 - "$tmp/out/result.json" "$tmp/report.dom" "$sres" "$tmp/sched.dom" <<'PY'
import html.parser, json, sys

class Dom(html.parser.HTMLParser):
    """Elements with their attributes and the section they sit in; the text of pre#errors."""
    def __init__(self):
        super().__init__()
        self.items, self.section, self.in_errors, self.errors, self.body, self.text = [], None, False, "", {}, ""
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section": self.section = a.get("id")
        if tag == "body": self.body = a
        if tag == "pre" and a.get("id") == "errors": self.in_errors = True
        self.items.append((self.section, tag, a))
    def handle_endtag(self, tag):
        if tag == "pre": self.in_errors = False
    def handle_data(self, data):
        self.text += data
        if self.in_errors: self.errors += data

def load(dom_path):
    d = Dom()
    d.feed(open(dom_path, encoding="utf-8").read())
    assert d.errors.strip() == "", "script errors:\n" + d.errors
    assert d.body.get("data-rendered") == "1", "the script did not finish: %s" % d.body
    sections = [s for s, t, a in d.items if t == "section"]
    assert sections == ["summary", "fabric", "nodes", "rings", "traffic", "nics", "patterns", "clocks", "findings", "entropy",
                        "hypotheses", "inputs"], sections
    return d

def kind(d, k, section=None):
    return [a for s, t, a in d.items if a.get("data-kind") == k and (section is None or s == section)]

def check_common(r, d):
    hosts = {g["host"] for g in r.get("gpus", [])} | set(r.get("fabric", {}).get("hosts", []))
    drawn = kind(d, "host", "fabric")
    assert len(drawn) == len(hosts), (len(drawn), len(hosts))
    assert {a["data-host"] for a in drawn} == hosts
    fab = r.get("fabric", {})
    sw = {tuple(sorted((l["a"], l["b"]))) for l in fab.get("links", []) if "host" not in (l.get("tier") or "")}
    cables = kind(d, "cable", "fabric")
    groups = kind(d, "cable-group", "fabric")  # a leaf's uplinks as one line, on large fabrics
    assert len(cables) + sum(int(g["data-cables"]) for g in groups) == len(sw), (len(cables), len(groups), len(sw))
    marked = [c for c in cables if c.get("data-mark")]
    below = [f for f in fab.get("findings", []) if f["kind"] == "link_below_usual"]
    assert len(marked) >= len(below), (marked, below)
    # Inferred pods drawn as boxes: one per pod that holds most hosts of a drawn leaf.
    inf = fab.get("inferred", {})
    pod_of = {}
    for i, p in enumerate(inf.get("pods", [])):
        for h in p.get("hosts", []):
            pod_of[h] = i
    want = set()
    for l in (fab.get("leaves") or inf.get("leaves") or []):
        votes = {}
        for h in l.get("hosts", []):
            if h in pod_of:
                votes[pod_of[h]] = votes.get(pod_of[h], 0) + 1
        if votes:
            want.add(inf["pods"][min(votes, key=lambda p: (-votes[p], p))]["name"])
    assert sorted(a["data-pod"] for a in kind(d, "pod", "fabric")) == sorted(want), (kind(d, "pod", "fabric"), want)
    rings = r.get("rings", [])
    if rings:
        hops = kind(d, "ring-hop", "rings")
        hs = [h for i, h in enumerate(rings[0]["hosts"]) if i == 0 or h != rings[0]["hosts"][i - 1]]
        assert len(hops) == (len(hs) if rings[0]["complete"] else len(hs) - 1), (len(hops), len(hs))
    syms = r["hypotheses"]["symptoms"]
    assert len(kind(d, "symptom", "hypotheses")) == min(300, len(syms))
    # The first 100 files are drawn ("show every file" draws the rest of the 400 kept).
    assert len(kind(d, "input-file", "inputs")) == min(100, len(r["inputs"]))
    # The accounting line adds up result.json's inputs.
    ins = r["inputs"]
    line = "%d file(s): %d record(s) read, %d accepted, %d rejected; %d file(s) skipped" % (
        len(ins), sum(i["records"] for i in ins), sum(i["records"] - i["rejected"] for i in ins),
        sum(i["rejected"] for i in ins), sum(1 for i in ins if i["skipped"]))
    assert line in d.text, line
    findings = len(r.get("telemetry_findings", [])) + len(r.get("servo", {}).get("findings", []))
    assert len(kind(d, "finding", "findings")) == findings, (len(kind(d, "finding", "findings")), findings)
    links = {e["link"] for e in r.get("link_entropy", [])}
    assert len(kind(d, "entropy-series", "entropy")) == min(24, len(links))
    check_network(r, d)
    return hosts

def check_network(r, d):
    """The traffic matrices, NIC ports and QP patterns drawn match result.json."""
    flows = [f for f in r.get("flows", []) if f.get("src_host") and f.get("dst_host")]
    fhosts = {f["src_host"] for f in flows} | {f["dst_host"] for f in flows}
    cells = kind(d, "traffic-cell", "traffic")
    if len(fhosts) <= 64:  # host by host: one cell per host pair with traffic
        assert {(a["data-src"], a["data-dst"]) for a in cells} == {(f["src_host"], f["dst_host"]) for f in flows}
        assert len(cells) == len({(f["src_host"], f["dst_host"]) for f in flows}), len(cells)
    tm = r.get("traffic_matrix", {}).get("hosts", [])
    assert len(kind(d, "nvlink-host", "traffic")) == min(100, len(tm))
    est = sorted((h for h in tm if h["estimable"] and h.get("pairs")), key=lambda h: h["host"])
    shown = [a["data-matrix-host"] for s, t, a in d.items if "data-matrix-host" in a]
    if est:  # the first estimable host's GPU-pair matrix: a cell per pair
        assert shown == [est[0]["host"]], shown
        cells = kind(d, "nvlink-cell", "traffic")
        assert len(cells) == len(est[0]["pairs"]), (len(cells), len(est[0]["pairs"]))
        assert sum(1 for a in cells if a["data-supported"] == "1") == sum(1 for p in est[0]["pairs"] if p["supported"])
    ports = r.get("nic_ports", {})
    assert len(kind(d, "nic-port", "nics")) == min(100, len(ports.get("ports", [])))
    assert len(kind(d, "nic-finding", "nics")) == len(ports.get("findings", []))
    pats = r.get("patterns", [])
    drawn = kind(d, "qp-pattern", "patterns")
    assert len(drawn) == min(100, len(pats)), (len(drawn), len(pats))
    assert [a.get("data-host") for a in drawn if a.get("data-host")] == [p["scope"][5:] for p in pats if p["scope"].startswith("host:")][:len(drawn)]

r = json.load(open(sys.argv[1]))
d = load(sys.argv[2])
check_common(r, d)
shown = [a["data-host"] for s, t, a in d.items if t == "h3" and "data-host" in a]
assert len(shown) == 1, shown
host = shown[0]
links = [l for l in r["links"] if l["a"].startswith(host + "/") and l["b"].startswith(host + "/")]
assert len(kind(d, "gpu-link", "nodes")) == len(links), (host, len(links))
assert len(kind(d, "p2p-cell", "nodes")) == 2 * len(links)
deg = [a for a in kind(d, "gpu-link", "nodes") if a.get("data-degraded") == "1"]
assert len(deg) == sum(1 for l in links if l["degraded"])
# The picked host is the first with a degraded link when there is one.
assert any(l["degraded"] for l in r["links"]) == bool(deg)
gpus = sum(1 for g in r["gpus"] if g["host"] == host)
assert len(kind(d, "gpu", "nodes")) == gpus

s = json.load(open(sys.argv[3]))
sd = load(sys.argv[4])
check_common(s, sd)
decisions = s["schedule"]["decisions"]
assert decisions, "the congestion scene decided nothing"
shown = {a["data-link"] for a in kind(sd, "entropy-series", "entropy")}
want = [x for x in decisions if x["link"] in shown]
assert {x["link"] for x in decisions} <= shown, "a decision's link has no series"
assert len(kind(sd, "decision", "entropy")) == len(want), (len(kind(sd, "decision", "entropy")), len(want))
print("report_html: drawn in %s ms (open %s ms) and %s ms (open %s ms)" % (
    d.body.get("data-render-ms"), d.body.get("data-open-ms"), sd.body.get("data-render-ms"), sd.body.get("data-open-ms")))
PY

# Not a result: refused, nothing written.
echo '{"schema": "toposcope.score/1"}' > "$tmp/score.json"
set +e
"$bin" report "$tmp/score.json" -o "$tmp/bad.html" 2> "$tmp/err.txt"; rc=$?
set -e
[ "$rc" -eq 3 ] || fail "report of a non-result: exit $rc"
grep -q "not a toposcope result" "$tmp/err.txt" || fail "report of a non-result: $(cat "$tmp/err.txt")"
[ -e "$tmp/bad.html" ] && fail "report of a non-result wrote a file"
echo "report_html: ok"
