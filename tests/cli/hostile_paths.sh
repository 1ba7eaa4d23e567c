#!/usr/bin/env bash
# Unusual input paths: a pipe (bash process substitution), a FIFO with and without a writer, a
# directory holding symlinks and a FIFO, a gzip with NUL padding, a gzip-compressed capture and a
# decompression bomb. Each is read in full or listed with a reason; nothing hangs or crashes.
set -euo pipefail
bin=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
testdata="$(cd "$(dirname "$0")/../../testdata" && pwd)"
topo="$fixtures/nvidia_smi_topo/a800_8gpu_nv8_4nic_driver525.txt"
nccl=$(ls "$fixtures"/nccl_debug_log/*.log | head -1)

# field PATH-TO-RESULT INPUT-INDEX FIELD: one field of one input of result.json.
field() {
  /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["inputs"][int(sys.argv[2])][sys.argv[3]])' "$@"
}

# 1. Process substitution: the same records as the file itself (the head is not lost).
for f in "$topo" "$nccl"; do
  "$bin" analyze "$f" --out "$tmp/plain" > /dev/null 2>&1 || fail "analyze $f"
  "$bin" analyze <(cat "$f") --out "$tmp/pipe" > /dev/null 2> "$tmp/err" || { cat "$tmp/err"; fail "analyze <(cat $f)"; }
  for k in format records rejected skipped; do
    [ "$(field "$tmp/pipe/result.json" 0 $k)" = "$(field "$tmp/plain/result.json" 0 $k)" ] ||
      fail "pipe of $f: $k $(field "$tmp/pipe/result.json" 0 $k) != $(field "$tmp/plain/result.json" 0 $k)"
  done
done
# ... and compressed through the pipe.
"$bin" analyze <(gzip -c "$topo") --out "$tmp/pipe" > /dev/null 2>&1 || fail "analyze <(gzip -c)"
"$bin" analyze "$topo" --out "$tmp/plain" > /dev/null 2>&1 || fail "analyze $topo"
[ "$(field "$tmp/pipe/result.json" 0 format)" = "nvidia-smi-topo" ] || fail "gzip through a pipe: format"
[ "$(field "$tmp/pipe/result.json" 0 records)" = "$(field "$tmp/plain/result.json" 0 records)" ] ||
  fail "gzip through a pipe: records"

# 2. A FIFO with a writer is read; one without a writer is a skipped input after a bounded wait.
mkfifo "$tmp/topo.fifo"
cat "$topo" > "$tmp/topo.fifo" &
"$bin" analyze "$tmp/topo.fifo" --out "$tmp/fifo" > /dev/null 2>&1 || fail "analyze FIFO with a writer"
wait
[ "$(field "$tmp/fifo/result.json" 0 skipped)" = "False" ] || fail "FIFO with a writer skipped"
mkfifo "$tmp/lonely.fifo"
set +e
timeout 30 "$bin" analyze "$tmp/lonely.fifo" > "$tmp/log" 2>&1
code=$?
set -e
[ $code -eq 3 ] || { cat "$tmp/log"; fail "FIFO without a writer: exit $code, want 3"; }
grep -q "no writer" "$tmp/log" || { cat "$tmp/log"; fail "FIFO without a writer: no reason given"; }

# 3. A directory walk lists what it does not read.
d="$tmp/dir/host1"
mkdir -p "$d"
cp "$topo" "$d/topo.txt"
ln -s "$d/topo.txt" "$d/linked.txt"
ln -s "$d/missing.txt" "$d/dangling.txt"
mkfifo "$d/stuck.fifo"
# 4. gzip followed by NUL padding (gzip -d accepts it).
{ gzip -c "$topo"; head -c 4096 /dev/zero; } > "$d/padded.txt.gz"
gzip -t "$d/padded.txt.gz" 2> /dev/null || fail "gzip -t refuses the padded file"
# 5. A gzip-compressed capture, read like the plain one.
gzip -c "$testdata/pcap/mixed_v4_vlan.pcap" > "$d/mixed.pcap.gz"
cp "$testdata/pcap/mixed_v4_vlan.pcap" "$d/plain.pcap"
timeout 120 "$bin" analyze "$tmp/dir" --out "$tmp/walk" > /dev/null 2> "$tmp/err" || { cat "$tmp/err"; fail "analyze dir"; }
/usr/bin/python3 - "$tmp/walk/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
by = {i["path"].rsplit("/", 1)[1]: i for i in r["inputs"]}
assert set(by) == {"topo.txt", "linked.txt", "dangling.txt", "stuck.fifo", "padded.txt.gz", "mixed.pcap.gz",
                   "plain.pcap"}, sorted(by)
for name in ["topo.txt", "linked.txt", "padded.txt.gz", "mixed.pcap.gz", "plain.pcap"]:
    assert not by[name]["skipped"], by[name]
assert by["linked.txt"]["records"] == by["topo.txt"]["records"] == by["padded.txt.gz"]["records"], by
assert by["mixed.pcap.gz"]["records"] == by["plain.pcap"]["records"] > 0, (by["mixed.pcap.gz"], by["plain.pcap"])
assert by["mixed.pcap.gz"]["rejected"] == by["plain.pcap"]["rejected"], (by["mixed.pcap.gz"], by["plain.pcap"])
assert by["dangling.txt"]["skipped"] and "dangling symlink" in by["dangling.txt"]["skip_reason"], by["dangling.txt"]
assert by["stuck.fifo"]["skipped"] and "FIFO" in by["stuck.fifo"]["skip_reason"], by["stuck.fifo"]
PY

# 6. A decompression bomb read whole: a clear reason and exit 3 (no input read), never 4.
/usr/bin/python3 - "$topo" "$tmp/bomb/host1/topo.txt.gz" <<'PY'
import gzip, os, sys, zlib
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
member = gzip.compress(b" " * (64 << 20), compresslevel=9)
with open(sys.argv[2], "wb") as f:
    f.write(gzip.compress(open(sys.argv[1], "rb").read()))
    for _ in range(8):
        f.write(member)
PY
set +e
"$bin" analyze "$tmp/bomb" --out "$tmp/bomb-out" > "$tmp/log" 2>&1
code=$?
set -e
[ $code -eq 3 ] || { tail -5 "$tmp/log"; fail "bomb: exit $code, want 3"; }
echo "hostile_paths: ok"
