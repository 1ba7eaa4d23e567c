#!/usr/bin/env bash
# toposcope serve end to end, on a small simulated cluster: /metrics passes `promtool check
# metrics`, /api/result is the result.json the same run wrote, /api/hosts/<host> answers for a host
# and 404 for path tricks, other methods get 405; touching an input re-analyses; a real Prometheus
# scrapes the server and its query API returns the series, and answers every query of the Grafana
# dashboard (docs/grafana/toposcope.json); SIGTERM stops the server with exit 0.
# `analyze --otlp` writes the same metric names as OTLP/JSON. Exits 77 (skipped) when curl or
# promtool is missing; the Prometheus part alone is skipped without the prometheus binary.
set -euo pipefail
bin=$1
dashboard="$(cd "$(dirname "$0")/../.." && pwd)/docs/grafana/toposcope.json"
tmp=$(mktemp -d)
serve_pid=""
prom_pid=""
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2> /dev/null || true
  [ -n "$prom_pid" ] && kill "$prom_pid" 2> /dev/null || true
  wait 2> /dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/serve.log" ] && cat "$tmp/serve.log"; exit 1; }
for tool in curl promtool; do
  command -v "$tool" > /dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
# A free loopback port (for Prometheus, which does not report one it picked).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$bin" simulate --hosts 3 --seed 7 --out "$tmp/data" > /dev/null || fail "simulate"
"$bin" serve "$tmp/data" --out "$tmp/out" --listen 127.0.0.1:0 --poll-s 0.2 > "$tmp/serve.log" 2>&1 &
serve_pid=$!
port=""
for _ in $(seq 1 150); do
  port=$(grep -o 'serving http://127.0.0.1:[0-9]*' "$tmp/serve.log" | grep -o '[0-9]*$' || true)
  [ -n "$port" ] && break
  kill -0 "$serve_pid" 2> /dev/null || fail "serve exited before listening"
  sleep 0.1
done
[ -n "$port" ] || fail "serve did not start"
base="http://127.0.0.1:$port"
# Prometheus starts now (it takes seconds) and scrapes while the checks below run.
if command -v prometheus > /dev/null; then
  pport=$(free_port)
  cat > "$tmp/prometheus.yml" << YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: toposcope
    static_configs:
      - targets: ['127.0.0.1:$port']
YAML
  prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address="127.0.0.1:$pport" > "$tmp/prometheus.log" 2>&1 &
  prom_pid=$!
fi

# /metrics: the exposition format, lint clean, with the families the dashboard uses.
curl -sf -D "$tmp/headers" "$base/metrics" > "$tmp/metrics.txt" || fail "GET /metrics"
grep -qi '^content-type: text/plain; version=0.0.4' "$tmp/headers" || fail "content type"
promtool check metrics < "$tmp/metrics.txt" > "$tmp/promtool.txt" 2>&1 || { cat "$tmp/promtool.txt"; fail "promtool check metrics"; }
[ -s "$tmp/promtool.txt" ] && { cat "$tmp/promtool.txt"; fail "promtool lint"; }
for family in toposcope_host_gpus toposcope_host_islands toposcope_gpu_link_degraded toposcope_link_entropy_bit \
              toposcope_clock_offset_seconds toposcope_cable_latency_seconds toposcope_hypothesis_probability \
              toposcope_input_read_records toposcope_format_rejected_records toposcope_serve_analyses_total; do
  grep -q "^$family[{ ]" "$tmp/metrics.txt" || fail "no $family samples"
done
# Every metric the dashboard queries is served.
python3 - "$dashboard" "$tmp/metrics.txt" << 'PY' || fail "dashboard names a metric /metrics lacks"
import json, re, sys
served = {l.split()[2] for l in open(sys.argv[2]) if l.startswith("# TYPE ")}
used = {n for p in json.load(open(sys.argv[1]))["panels"] for t in p["targets"] for n in re.findall(r"toposcope_\w+", t["expr"])}
assert used <= served, used - served
PY

# /api/result is result.json byte for byte; a host's part; path tricks and bad methods.
curl -sf "$base/api/result" > "$tmp/result.json" || fail "GET /api/result"
cmp -s "$tmp/result.json" "$tmp/out/result.json" || fail "/api/result differs from out/result.json"
curl -sf "$base/api/hosts" > "$tmp/hosts.json" || fail "GET /api/hosts"
host=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hosts"][0])' "$tmp/hosts.json")
nhosts=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["hosts"]))' "$tmp/hosts.json")
[ "$nhosts" = 3 ] || fail "/api/hosts lists $nhosts hosts, not 3"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
# GET into $tmp/body (no `curl | grep -q`: under pipefail an early grep exit fails the pipe).
get() { curl -sf "$1" > "$tmp/body"; }
[ "$(code "$base/api/hosts/$host")" = 200 ] || fail "GET /api/hosts/$host"
get "$base/api/hosts/$host" && grep -q "\"host\": \"$host\"" "$tmp/body" || fail "host part names the host"
[ "$(code "$base/api/hosts/no-such-host")" = 404 ] || fail "unknown host not 404"
[ "$(code --path-as-is "$base/api/hosts/../../etc/passwd")" = 404 ] || fail "path traversal not 404"
[ "$(code --path-as-is "$base/../../etc/passwd")" = 404 ] || fail "root traversal not 404"
[ "$(code -X POST -d x "$base/metrics")" = 405 ] || fail "POST not 405"
[ "$(code -X DELETE "$base/api/result")" = 405 ] || fail "DELETE not 405"
[ "$(code "$base/api/hosts/$(head -c 10000 /dev/zero | tr '\0' a)")" = 414 ] || fail "long path not 414"
big=$(head -c 20000 /dev/zero | tr '\0' b)
c=$(code -H "X-Big: $big" "$base/metrics"); [ "${c:0:1}" = 4 ] || fail "huge header got $c"
get "$base/" && grep -q 'href="/metrics"' "$tmp/body" || fail "index page"

# A changed input is re-analysed (the output folder is not watched: no loop).
touch "$(find "$tmp/data" -name '*.txt' | head -1)"
for _ in $(seq 1 300); do
  get "$base/metrics" && grep -q '^toposcope_serve_analyses_total 2$' "$tmp/body" && break
  sleep 0.1
done
get "$base/metrics" && grep -q '^toposcope_serve_analyses_total 2$' "$tmp/body" || fail "no re-analysis after a change"
sleep 0.6
get "$base/metrics" && grep -q '^toposcope_serve_analyses_total 2$' "$tmp/body" || fail "re-analysed without a change"

# The real Prometheus scraped it; the query API returns the series.
if [ -n "$prom_pid" ]; then
  found=""
  for _ in $(seq 1 150); do
    if curl -sf "http://127.0.0.1:$pport/api/v1/query?query=toposcope_host_gpus" > "$tmp/q.json" 2> /dev/null &&
       python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["data"]["result"]; sys.exit(0 if len(r)==3 else 1)' "$tmp/q.json"; then
      found=1
      break
    fi
    sleep 0.2
  done
  [ -n "$found" ] || { cat "$tmp/prometheus.log" | tail -5; cat "$tmp/q.json" 2> /dev/null; fail "Prometheus has no toposcope_host_gpus series for the 3 hosts"; }
  get "http://127.0.0.1:$pport/api/v1/query?query=up%7Bjob%3D%22toposcope%22%7D" && grep -q '"value":\[[0-9.]*,"1"\]' "$tmp/body" \
    || fail "Prometheus target not up"
  # Every dashboard query runs (the host variable at "all"); the per-host ones return series.
  python3 - "$dashboard" "http://127.0.0.1:$pport" << 'PY' || fail "a dashboard query failed"
import json, sys, urllib.parse, urllib.request
for p in json.load(open(sys.argv[1]))["panels"]:
    for t in p["targets"]:
        expr = t["expr"].replace("$host", ".*")
        r = json.load(urllib.request.urlopen(sys.argv[2] + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})))
        assert r["status"] == "success", (expr, r)
        if "toposcope_host_" in expr or "toposcope_clock_offset" in expr:
            assert r["data"]["result"], ("no series", expr)
PY
  kill "$prom_pid"; wait "$prom_pid" 2> /dev/null || true; prom_pid=""
else
  echo "note: prometheus not installed, scrape check skipped"
fi

# SIGTERM: a clean stop, exit 0.
kill -TERM "$serve_pid"
rc=0; wait "$serve_pid" || rc=$?
serve_pid=""
[ "$rc" = 0 ] || fail "serve exited $rc on SIGTERM"
grep -q '^stopped$' "$tmp/serve.log" || fail "no stop message"

# Bad usage: a listen address without a port is exit 2; nothing to read is exit 3.
rc=0; "$bin" serve "$tmp/data" --listen 127.0.0.1 > /dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "bad --listen exit $rc"
rc=0; "$bin" serve "$tmp/nothing-here" --listen 127.0.0.1:0 > /dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "missing input exit $rc"

# analyze --otlp: the same metric names as /metrics, as OTLP/JSON.
SOURCE_DATE_EPOCH=1700000000 "$bin" analyze "$tmp/data" --otlp "$tmp/metrics.otlp.json" > /dev/null || fail "analyze --otlp"
python3 - "$tmp/metrics.otlp.json" "$tmp/metrics.txt" << 'PY' || fail "OTLP file"
import json, sys
otlp = json.load(open(sys.argv[1]))
metrics = otlp["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]
names = {m["name"] for m in metrics}
prom = {l.split()[2] for l in open(sys.argv[2]) if l.startswith("# TYPE ") and not l.split()[2].startswith("toposcope_serve_")}
prom_with_samples = {n for n in prom if any(l.startswith(n + "{") or l.startswith(n + " ") for l in open(sys.argv[2]))}
assert names == prom_with_samples, (names ^ prom_with_samples)
point = metrics[0]["gauge"]["dataPoints"][0]
assert point["timeUnixNano"] == "1700000000000000000", point
PY
echo "serve: ok"
