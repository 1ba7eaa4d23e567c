#!/usr/bin/env bash
# Times TShark and our capture reader on the same generated RoCEv2 capture and prints the ratio.
# Usage: bench/tshark_compare.sh [path/to/pcap_capture_bench] [packets]
# (default: build-rel/pcap_capture_bench, else build/pcap_capture_bench; 50000 packets). Both tools
# decode every packet's BTH: tshark prints destqp/psn/opcode fields, ours streams RocePackets.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${1:-}
if [ -z "$bench" ]; then
  for b in build-rel/pcap_capture_bench build/pcap_capture_bench; do [ -x "$b" ] && bench=$b && break; done
fi
[ -x "${bench:-}" ] || { echo "no pcap_capture_bench binary (build it in Release first)" >&2; exit 2; }
command -v tshark >/dev/null || { echo "tshark not installed" >&2; exit 2; }
packets=${2:-50000}
cap=$(mktemp /tmp/toposcope_tshark_cmp_XXXXXX.pcap)
trap 'rm -f "$cap"' EXIT
"$bench" --write-capture="$cap" --packets="$packets"
echo "capture: $packets packets, $(du -h "$cap" | cut -f1)"
now() { date +%s.%N; }
t0=$(now)
lines=$(tshark -r "$cap" -T fields -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.opcode 2>/dev/null | wc -l)
t1=$(now)
ours=$("$bench" --capture="$cap")
t2=$(now)
ts=$(echo "$t1 - $t0" | bc -l)
to=$(echo "$t2 - $t1" | bc -l)
echo "tshark: $lines lines in $(printf %.3f "$ts") s"
echo "ours:   $ours"
echo "ours (process wall): $(printf %.3f "$to") s"
echo "ratio tshark/ours: $(printf %.1f "$(echo "$ts / $to" | bc -l)")x"
