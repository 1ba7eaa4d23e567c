#!/usr/bin/env bash
# barrier-sim end to end: the simulation (default) and a small real instance (--real 4) each print
# exactly the documented JSON: fewer bytes for the asynchronous 4-bit run, its loss within 1 % of the
# synchronous one, corrupted gradients caught (digest fallbacks > 0) with --corrupt-every; the
# simulation's losses and bytes equal the real run's; the table names the seed's figures only as a
# claim; bad options exit 2.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

small=(--steps 30 --features 4096 --corrupt-every 4)
"$bin" barrier-sim "${small[@]}" --json > "$tmp/sim.json" || fail "barrier-sim"
"$bin" barrier-sim "${small[@]}" --real 4 --json > "$tmp/real.json" || fail "barrier-sim --real 4"
/usr/bin/python3 - "$tmp/sim.json" "$tmp/real.json" <<'PY'
import json, sys
sim, real = (json.load(open(p)) for p in sys.argv[1:3])
for j in (sim, real):
    assert sorted(j) == ["async_4bit", "bytes_saved_fraction", "digest_fallbacks", "sync"], j
    for r in ("sync", "async_4bit"):
        assert sorted(j[r]) == ["bytes_per_iteration", "final_loss", "iteration_ms"], j[r]
        assert j[r]["iteration_ms"] > 0
    assert j["async_4bit"]["bytes_per_iteration"] < j["sync"]["bytes_per_iteration"]
    assert 0.5 < j["bytes_saved_fraction"] < 1
    assert abs(j["async_4bit"]["final_loss"] / j["sync"]["final_loss"] - 1) < 0.01
    assert j["digest_fallbacks"] > 0
for r in ("sync", "async_4bit"):
    assert sim[r]["final_loss"] == real[r]["final_loss"], (sim[r], real[r])
assert sim["sync"]["bytes_per_iteration"] == real["sync"]["bytes_per_iteration"]
# A corrupted last-step envelope's full tensor races with the end of the real run: at most one per
# worker and cross-region peer (4 x 2 frames of 21 + 33 + 4096 x 4 bytes) over the 30 steps.
assert 0 <= sim["async_4bit"]["bytes_per_iteration"] - real["async_4bit"]["bytes_per_iteration"] <= 8 * 16438 / 30
assert sim["digest_fallbacks"] == real["digest_fallbacks"]
PY
"$bin" barrier-sim --steps 10 --features 1024 > "$tmp/table.txt" || fail "table"
grep -q "asynchronous, 4-bit" "$tmp/table.txt" || fail "rows"
grep -q "^  Claim (the seed's table, not measured here): 482 -> 317 ms" "$tmp/table.txt" || fail "claim line"
set +e
"$bin" barrier-sim --real 1 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--real 1 must exit 2"
set -e
echo ok
