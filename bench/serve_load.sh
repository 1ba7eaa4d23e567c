#!/usr/bin/env bash
# Load test of `toposcope serve`: serves a simulated cluster of HOSTS hosts (default 32), then
# hammers /metrics for SECONDS (default 10) with CONNECTIONS keep-alive connections (default 16)
# through wrk (else ab, Debian apache2-utils), and prints requests/s, errors (non-2xx and failed
# connections) and the server's resident memory before, after a warm-up round and after each of
# three rounds of SECONDS (flat memory: no growth from round to round). Bounded: 3 x SECONDS + 2 s.
#   bench/serve_load.sh [path/to/toposcope] [SECONDS] [CONNECTIONS] [HOSTS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/toposcope}
secs=${2:-10}
conns=${3:-16}
hosts=${4:-32}
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; wait 2> /dev/null; rm -rf "$tmp"' EXIT
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

"$bin" simulate --hosts "$hosts" --seed 1 --out "$tmp/data" > /dev/null
"$bin" serve "$tmp/data" --listen 127.0.0.1:0 --poll-s 0 --threads 16 > "$tmp/serve.log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 600); do
  port=$(grep -o 'serving http://127.0.0.1:[0-9]*' "$tmp/serve.log" | grep -o '[0-9]*$' || true)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$tmp/serve.log"; echo "serve did not start" >&2; exit 1; }
url="http://127.0.0.1:$port/metrics"
bytes=$(curl -sf "$url" | wc -c)
rss0=$(rss_kib "$pid")
run_load() {  # $1 seconds; prints "REQS_PER_S ERRORS REQUESTS"
  if command -v wrk > /dev/null; then
    wrk -t 2 -c "$conns" -d "${1}s" "$url" > "$tmp/wrk.txt"
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$tmp/wrk.txt")
    reqs=$(awk '/requests in/ {print $1}' "$tmp/wrk.txt")
    non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $5}' "$tmp/wrk.txt")
    sockerr=$(awk '/Socket errors:/ {gsub(",", ""); print $4 + $6 + $8 + $10}' "$tmp/wrk.txt")
    echo "$rps $(( ${non2xx:-0} + ${sockerr:-0} )) $reqs"
  else
    ab -k -q -t "$1" -n 10000000 -c "$conns" "$url" > "$tmp/ab.txt" 2>&1 || true
    rps=$(awk '/^Requests per second:/ {print $4}' "$tmp/ab.txt")
    reqs=$(awk '/^Complete requests:/ {print $3}' "$tmp/ab.txt")
    failed=$(awk '/^Failed requests:/ {print $3}' "$tmp/ab.txt")
    non2xx=$(awk '/^Non-2xx responses:/ {print $3}' "$tmp/ab.txt")
    echo "$rps $(( ${failed:-0} + ${non2xx:-0} )) $reqs"
  fi
}
read -r _ warm_err _ <<< "$(run_load 2)"
rss1=$(rss_kib "$pid")
tool=$(command -v wrk > /dev/null && echo wrk || echo ab)
echo "serve_load: $tool, $conns connections, 3 rounds of ${secs}s on /metrics ($bytes bytes, $hosts hosts)"
echo "  server RSS: ${rss0} KiB at start, ${rss1} KiB after a 2 s warm-up"
errors=$warm_err
for round in 1 2 3; do
  read -r rps err reqs <<< "$(run_load "$secs")"
  errors=$((errors + err))
  echo "  round $round: $reqs requests, $rps requests/s, $err errors, server RSS $(rss_kib "$pid") KiB"
done
warm_err=0
kill -TERM "$pid"; wait "$pid"; pid=""
[ $((errors + warm_err)) -eq 0 ] || { echo "serve_load: errors" >&2; exit 1; }
