#!/usr/bin/env bash
# schedule end to end: `schedule --simulate` on one fat-tree seed (a clean run decides nothing, the
# congested cable is found), `schedule` replayed on the congestion run's real-format files (decision
# directory with hostfiles, NCCL graph XML, nccl.env; result.json's schedule section), `--follow` on a
# small JSON-lines stream on stdin (one decision line, as it fires), and bad input: an empty stream,
# one window, NaN entropy, bad JSON (exit 3, named by <stdin>:LINE), bad options (exit 2).
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" schedule --simulate --archs fat-tree --seeds 1 --events none,congestion --out "$tmp/sim" --json > "$tmp/sim.json" \
  || fail "schedule --simulate"
/usr/bin/python3 - "$tmp/sim.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
sc = s["schedule"]
assert sc["clean_decisions"] == 0, sc
assert sc["recall"] == 1.0 and sc["precision"] == 1.0, sc
assert sc["allreduce_speedup"] > 1, sc
PY

# score reads the schedule section of result.json against the scene's truth.json.
"$bin" score --truth "$tmp/sim/fat-tree-s1-congestion/data/truth.json" \
  --result "$tmp/sim/fat-tree-s1-congestion/schedule/result.json" > "$tmp/score.json" || fail "score"
/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["schedule"]; assert s["recall"] == 1.0 and s["precision"] == 1.0, s' \
  "$tmp/score.json" || fail "score schedule section"

data="$tmp/sim/fat-tree-s1-congestion/data"
"$bin" schedule "$data/captures" "$data/inventory.csv" "$data/fabric.ibnet" --hosts "$data/hostfile" \
  --window-ms 500 --out "$tmp/out" > "$tmp/summary.txt" || fail "schedule replay"
grep -q "move_off capture:" "$tmp/summary.txt" || { cat "$tmp/summary.txt"; fail "no move_off in the summary"; }
for f in hostfile torchrun_hosts slurm_hostfile nccl_graph.xml nccl.env; do
  [ -s "$tmp/out/decision-0/$f" ] || fail "no decision-0/$f"
done
grep -q '^<graphs version="1">' "$tmp/out/decision-0/nccl_graph.xml" || fail "graph xml"
grep -q '^export NCCL_IB_QPS_PER_CONNECTION=' "$tmp/out/decision-0/nccl.env" || fail "nccl.env"
grep -q '^0x[0-9a-f]\{16\} [0-9]* 2$' "$tmp/out/decision-0/opensm_hop_weights.txt" || fail "opensm hop weights"
/usr/bin/python3 - "$tmp/out/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["schedule"]["decisions"]
assert d and d[0]["action"] == "move_off", d
assert d[0]["evidence"]["rule"] == "hot_hold" and len(d[0]["evidence"]["bits"]) >= 6, d[0]
assert r["schedule"]["shown_estimator"] == "seed_header"
PY

# --follow: 4 quiet windows, then 8 hot ones on h1~h2: one decision line when the 3 s hold completes.
printf 'h0\nh1\nh2\nh3\nh4\n' > "$tmp/hosts"
stream() { for k in $(seq 0 11); do b=1.0; [ "$k" -ge 4 ] && b=3.0; echo "{\"link\":\"h1~h2\",\"t_s\":$k,\"window_s\":1,\"bits\":$b}"; done; }
stream | "$bin" schedule --follow --hosts "$tmp/hosts" > "$tmp/follow.jsonl" || fail "follow"
[ "$(wc -l < "$tmp/follow.jsonl")" = 1 ] || { cat "$tmp/follow.jsonl"; fail "one decision line"; }
/usr/bin/python3 - "$tmp/follow.jsonl" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["action"] == "move_off" and d["link"] == "h1~h2" and d["t_ns"] == 7_000_000_000, d
o = d["actions"]["order"]
assert all({o[i], o[(i + 1) % len(o)]} != {"h1", "h2"} for i in range(len(o))), o
PY

expect_fail() {  # code, pattern, stdin text
  set +e
  printf '%s' "$3" | "$bin" schedule --follow > /dev/null 2> "$tmp/err"
  rc=$?
  set -e
  [ "$rc" = "$1" ] || { cat "$tmp/err"; fail "exit $rc, wanted $1 for: $3"; }
  grep -q -- "$2" "$tmp/err" || { cat "$tmp/err"; fail "message '$2'"; }
}
expect_fail 3 "empty" ""
expect_fail 3 "single window" '{"link":"a~b","t_s":0,"window_s":1,"bits":1}
'
expect_fail 3 "<stdin>:2: \"bits\" is not a number" '{"link":"a~b","t_s":0,"window_s":1,"bits":1}
{"link":"a~b","t_s":1,"window_s":1,"bits":NaN}
'
expect_fail 3 "<stdin>:1: not a JSON object" 'nope
'
set +e
"$bin" schedule --follow --hot-bits 1 --cool-bits 1.5 < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ "$rc" = 2 ] || { cat "$tmp/err"; fail "bad options exit $rc"; }
set +e
"$bin" schedule "$tmp/hosts" --out "$tmp/none" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ "$rc" = 3 ] || { cat "$tmp/err"; fail "no captures exit $rc"; }
echo "schedule: ok"
