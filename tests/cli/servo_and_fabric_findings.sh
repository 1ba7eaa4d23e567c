#!/usr/bin/env bash
# Real logs and dumps through the CLI: a diverging phc2sys servo (openil issue 61), a saturated ptp4l
# servo (openil_linuxptp issue 9) and the ibnetdiscover(8) example whose adapters name no host and
# whose two links print 1x on one end and 4x on the other. Each is a finding in result.json, with its
# evidence, and a line of the terminal summary.
set -euo pipefail
bin=$1
fixtures=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" analyze "$fixtures/linuxptp/openil_issue61_phc2sys_swp3_sys_offset_diverging_PARTIAL.log" \
  "$root/testdata/real/linuxptp/openil_linuxptp_issue9_ptp4l_freq_pinned_-31000000_PARTIAL.log" \
  "$root/testdata/real/linuxptp/fmadio_public_issue274_ptp4l_summary_rms_max_freq_delay.log" \
  "$root/testdata/real/ibnetdiscover/ibnetdiscover_man8_example_infinihost_no_hostnames_1x_vs_4x.topo" \
  --out "$tmp/res" > "$tmp/an.log" 2>&1 || { cat "$tmp/an.log"; fail "analyze"; }
grep -q "^servo (3 ptp4l/phc2sys series, 2 findings)" "$tmp/an.log" || { cat "$tmp/an.log"; fail "servo summary line"; }
grep -q "  diverging: phc2sys swp3 (sys) on .*lines 1-19" "$tmp/an.log" || { cat "$tmp/an.log"; fail "diverging line"; }
grep -q "  saturated: ptp4l .*freq pinned at -31000000 ppb" "$tmp/an.log" || { cat "$tmp/an.log"; fail "saturated line"; }
grep -q "fabric: 2 switches (2 leaves, 0 spines), 4 adapters, 4 hosts" "$tmp/an.log" || { cat "$tmp/an.log"; fail "fabric line"; }
grep -q "link ends disagree: H-0008f10403960558\[1\] 1xSDR (line 52) vs S-005442ba00003080\[12\] 4xSDR (line 18)" \
  "$tmp/an.log" || { cat "$tmp/an.log"; fail "mismatch line"; }
/usr/bin/python3 - "$tmp/res/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["servo"]
kinds = sorted(f["kind"] for f in s["findings"])
assert kinds == ["diverging", "saturated"], kinds
d = next(f for f in s["findings"] if f["kind"] == "diverging")
assert (d["first_line"], d["last_line"], d["k"], d["n"], d["k_needed"]) == (1, 19, 19, 19, 8), d
assert d["offsets_ns"][0] == -5400 and d["offsets_ns"][-1] == -22872, d["offsets_ns"]
assert d["freq_first_ppb"] == -45706 and d["freq_last_ppb"] == -126336, d
assert d["host"], d
sat = next(f for f in s["findings"] if f["kind"] == "saturated")
assert sat["k"] == 7 and sat["freq_first_ppb"] == -31000000 and sat["chance"] is None, sat
summ = [x for x in s["series"] if x["summaries"]]
assert len(summ) == 1 and summ[0]["points"] == 12 and summ[0]["offset_max_ns"] == 222, summ
f = r["fabric"]
assert f["hosts_named_by_guid"] == 4 and len(f["leaves"]) == 2, f["leaves"]
assert all(c["named_by"] == "guid" for c in f["cas"]), f["cas"]
m = f["link_mismatches"]
assert len(m) == 2 and all(x["width_differs"] and not x["speed_differs"] for x in m), m
assert {(x["a"]["width"], x["b"]["width"]) for x in m} == {("1x", "4x")}, m
assert r["inputs"]["rejected"] == 0 if isinstance(r["inputs"], dict) and "rejected" in r["inputs"] else True
PY
