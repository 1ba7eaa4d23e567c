#!/usr/bin/env bash
# simulate streams its dataset: the bytes stay those of the whole-cluster renderer it replaced
# (golden digests of two small datasets, taken with the renderer that built every file in memory
# first), telemetry runs above the old 512-host limit, --compress zst writes NAME.zst files that
# analyze reads and score scores as the plain dataset, and a terminal shows the progress line.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
digest() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64); }

# 1. Byte identity (telemetry, RDMA and fabric on; varied and fixed configurations).
"$bin" simulate --hosts 6 --seed 3 --out "$tmp/g1" > /dev/null
[ "$(digest "$tmp/g1")" = 68f19d374f32dab33850f8040ec3c24036dbca31948608163a8c974824ad5ceb ] \
  || fail "6-host fat-tree dataset changed: $(digest "$tmp/g1")"
"$bin" simulate --hosts 8 --arch hhre --seed 4 --no-vary --out "$tmp/g2" > /dev/null
[ "$(digest "$tmp/g2")" = b1820edef93c64287e7c686e3c1bca2a63edde4f4db77c3bc8bd54583da028f5 ] \
  || fail "8-host hhre dataset changed: $(digest "$tmp/g2")"
rm -rf "$tmp/g2"

# 2. Telemetry above the old 512-host limit (compact volume: auto above 512 hosts).
"$bin" simulate --hosts 520 --seed 5 --no-rdma --node-types pcie-only --faults 2 --out "$tmp/big" > "$tmp/big.txt"
grep -q "simulated 520 hosts" "$tmp/big.txt" || fail "no 520-host summary: $(head -3 "$tmp/big.txt")"
/usr/bin/python3 - "$tmp/big" <<'PY' || fail "520-host truth.json or telemetry files wrong"
import json, os, sys
d = sys.argv[1]
t = json.load(open(os.path.join(d, "truth.json")))
assert len(t["hosts"]) == 520, len(t["hosts"])
last = t["hosts"][-1]
assert last["telemetry_files"], last
for f in last["telemetry_files"] + last["files"]:
    assert os.path.getsize(os.path.join(d, f)) > 0, f
assert t["telemetry"]["telemetry_s"] == 12, t["telemetry"]["telemetry_s"]
traced = [h["name"] for h in t["hosts"] if any("/trace/" in f for f in h["telemetry_files"])]
assert 17 <= len(traced) <= 20, len(traced)  # every 32nd host plus the telemetry faults' hosts
assert len(t["clock_checks"]) == 520 * 200
PY
rm -rf "$tmp/big"

# 3. --compress zst: every file NAME.zst (a .gz trace as it is); analyze and score as plain.
"$bin" simulate --hosts 4 --seed 2 --no-rdma --out "$tmp/plain" > /dev/null
"$bin" simulate --hosts 4 --seed 2 --no-rdma --compress zst --out "$tmp/zst" > "$tmp/zst.txt"
grep -q "ground truth: $tmp/zst/truth.json.zst" "$tmp/zst.txt" || fail "truth is not truth.json.zst: $(cat "$tmp/zst.txt")"
n_plain=$(find "$tmp/plain" -type f | wc -l)
n_zst=$(find "$tmp/zst" -type f \( -name '*.zst' -o -name '*.gz' \) | wc -l)
[ "$n_plain" = "$n_zst" ] || fail "$n_plain plain files, $n_zst compressed"
while IFS= read -r f; do
  rel=${f#"$tmp/plain/"}
  if [[ $rel == *.gz ]]; then cmp -s "$f" "$tmp/zst/$rel" || fail "$rel differs"; continue; fi
  zstd -dc "$tmp/zst/$rel.zst" | cmp -s - "$f" || fail "$rel.zst does not decompress to $rel"
done < <(find "$tmp/plain" -type f)
"$bin" analyze "$tmp/plain" --out "$tmp/o_plain" > /dev/null
"$bin" analyze "$tmp/zst" --out "$tmp/o_zst" > /dev/null
"$bin" score --truth "$tmp/plain/truth.json" --result "$tmp/o_plain/result.json" > "$tmp/s_plain.json"
"$bin" score --truth "$tmp/zst/truth.json.zst" --result "$tmp/o_zst/result.json" > "$tmp/s_zst.json"
cmp "$tmp/s_plain.json" "$tmp/s_zst.json" || fail "the compressed dataset scores differently: $(diff "$tmp/s_plain.json" "$tmp/s_zst.json" | head)"

# 4. The progress line on a terminal (faked with `script`), none when piped.
if command -v script > /dev/null; then
  script -qec "$bin simulate --hosts 3 --seed 1 --no-rdma --out $tmp/p > $tmp/p.txt" "$tmp/tty.log" > /dev/null
  grep -q "simulate 3/3 hosts" "$tmp/tty.log" || fail "no progress line: $(tr '\r' '\n' < "$tmp/tty.log" | head -3)"
  if grep -q $'\r' "$tmp/p.txt"; then fail "the progress line went to stdout"; fi
fi
echo "simulate_stream: ok"
