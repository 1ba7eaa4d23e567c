#!/usr/bin/env bash
# simulate --serve-exporter and analyze --prometheus end to end: a small simulated cluster's DCGM
# samples are served as dcgm-exporter would (/metrics, many samples a scrape), a real Prometheus
# (Debian package) scrapes them every second into a temporary TSDB, and `analyze --prometheus URL
# --range` reads them back through query_range: the hosts, their GPUs and DCGM series are there,
# the input entry counts the values with none rejected, and the DCGM findings are those of the
# same DCGM files analysed directly (kind, host, where). Bad URLs and a server that is not there
# fail with a clear message, never a crash. Exits 77 (skipped) without curl or prometheus.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
exp_pid=""
prom_pid=""
cleanup() {
  [ -n "$exp_pid" ] && kill "$exp_pid" 2> /dev/null || true
  [ -n "$prom_pid" ] && kill "$prom_pid" 2> /dev/null || true
  wait 2> /dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in exporter.log prometheus.log analyze.txt; do [ -f "$tmp/$f" ] && tail -20 "$tmp/$f"; done; exit 1; }
for tool in curl prometheus; do
  command -v "$tool" > /dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# Usage errors and an unreachable server: exit 2 / 3 with the reason, at once.
rc=0; "$bin" analyze --prometheus ftp://x --range 1,2 > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "not an http:// or https:// URL" "$tmp/err" || fail "bad URL: rc $rc $(cat "$tmp/err")"
rc=0; "$bin" analyze --prometheus http://127.0.0.1:1 --range 5,4 > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "START must be before END" "$tmp/err" || fail "bad range: rc $rc"
rc=0; "$bin" analyze --prometheus http://127.0.0.1:1 > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "needs --range" "$tmp/err" || fail "no range: rc $rc"
dead=$(free_port)
rc=0; "$bin" analyze --prometheus "http://127.0.0.1:$dead" --range 2026-12-05T11:00:00Z,1796470000 > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" = 3 ] && grep -q "127.0.0.1:$dead.*cannot connect" "$tmp/err" || fail "no server: rc $rc $(cat "$tmp/err")"

# Prometheus first (it takes seconds to start; scrapes before the exporter listens fail harmlessly:
# they take nothing from it), scraping every second with a second to finish.
port=$(free_port)
pport=$(free_port)
cat > "$tmp/prometheus.yml" << YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: dcgm
    static_configs:
      - targets: ['127.0.0.1:$port']
YAML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
  --web.listen-address="127.0.0.1:$pport" > "$tmp/prometheus.log" 2>&1 &
prom_pid=$!

# The exporter: 3 hosts, 60 sampling periods (6 s of samples, 4.8 MB) per scrape: the 60 s run in
# 10 scrapes (a scrape that times out would lose its samples).
"$bin" simulate --hosts 3 --seed 7 --out "$tmp/data" --serve-exporter --listen "127.0.0.1:$port" \
  --samples-per-scrape 60 > "$tmp/exporter.log" 2>&1 &
exp_pid=$!
for _ in $(seq 1 300); do
  grep -q "^serving http://127.0.0.1:$port/metrics" "$tmp/exporter.log" && break
  kill -0 "$exp_pid" 2> /dev/null || fail "the exporter exited before listening"
  sleep 0.1
done
grep -q "^serving" "$tmp/exporter.log" || fail "the exporter did not start"
listening=$(date +%s)
curl -sf "http://127.0.0.1:$port/status" > "$tmp/status.json" || fail "GET /status"
[ "$(json_field "$tmp/status.json" hosts)" = 3 ] || fail "/status hosts"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics")" = 405 ] || fail "POST not 405"

# Until the whole run was served once (10 scrapes), at most 40 s.
for _ in $(seq 1 200); do
  curl -sf "http://127.0.0.1:$port/status" > "$tmp/status.json" || fail "GET /status"
  [ "$(json_field "$tmp/status.json" passes_completed)" -ge 1 ] && break
  kill -0 "$prom_pid" 2> /dev/null || fail "prometheus exited"
  sleep 0.2
done
[ "$(json_field "$tmp/status.json" passes_completed)" -ge 1 ] || fail "the run was not scraped through"
# Every scrape since the exporter listens was taken (a failed one would lose its samples).
since=$(( $(date +%s) - listening - 1 ))
[ "$since" -ge 1 ] || since=1
curl -sf -G "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=min_over_time(up[${since}s])" > "$tmp/up.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["data"]["result"]; assert r and r[0]["value"][1] == "1", r' "$tmp/up.json" ||
  fail "a scrape failed (up was 0)"
start=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_start_unix_ms"] / 1000)' "$tmp/status.json")
end=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_end_unix_ms"] / 1000)' "$tmp/status.json")

"$bin" analyze --prometheus "http://127.0.0.1:$pport" --range "$start,$end" --step 0.1 --out "$tmp/out" \
  --format csv -q > "$tmp/prom_findings.csv" 2> "$tmp/analyze.txt" || fail "analyze --prometheus"
python3 - "$tmp/out/result.json" "$tmp/data" << 'PY' || fail "result.json"
import json, os, sys
r = json.load(open(sys.argv[1]))
inputs = r["inputs"]
assert len(inputs) == 1 and inputs[0]["format"] == "prometheus-query", inputs
assert inputs[0]["records"] > 200000 and inputs[0]["rejected"] == 0, inputs[0]
hosts = sorted(d for d in os.listdir(sys.argv[2]) if os.path.isfile(os.path.join(sys.argv[2], d, "dcgm-dmon.txt")))
assert sorted({g["host"] for g in r["gpus"]}) == hosts, (r["gpus"][:2], hosts)
assert len(r["gpus"]) == 8 * len(hosts) == 24, len(r["gpus"])
fields = {f["field"]: f for f in r["dcgm"]["fields"]}
for name in ("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_NVLINK_TX_BYTES"):
    assert fields[name]["series"] == 8 * len(hosts), (name, fields.get(name))
PY
# The same DCGM files analysed directly give the same DCGM findings.
mkdir "$tmp/dcgm_only"
for d in "$tmp"/data/*/; do
  [ -f "$d/dcgm-dmon.txt" ] || [ -f "$d/dcgm-exporter.prom" ] || [ -f "$d/dcgm-samples.csv" ] || continue
  mkdir "$tmp/dcgm_only/$(basename "$d")"
  cp "$d"/dcgm-* "$tmp/dcgm_only/$(basename "$d")/"
done
"$bin" analyze "$tmp/dcgm_only" --format csv -q | cut -d, -f1,3,4 > "$tmp/files.csv"
cut -d, -f1,3,4 "$tmp/prom_findings.csv" > "$tmp/prom.csv"
[ "$(wc -l < "$tmp/files.csv")" -ge 2 ] || fail "no DCGM finding in the files"
diff "$tmp/files.csv" "$tmp/prom.csv" || fail "DCGM findings differ between the files and Prometheus"
# SIGTERM stops the exporter with exit 0 and "stopped" (Prometheus, its client, gone first).
kill "$prom_pid"; wait "$prom_pid" 2> /dev/null || true
prom_pid=""
kill "$exp_pid"; wait "$exp_pid" 2> /dev/null || fail "the exporter did not stop cleanly on SIGTERM"
exp_pid=""
grep -q "^stopped" "$tmp/exporter.log" || fail "no 'stopped' line"
echo "ok: $(sed 1d "$tmp/prom.csv" | tr '\n' ' ')"
