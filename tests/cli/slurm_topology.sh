#!/usr/bin/env bash
# The Slurm topologies `analyze --out` writes, checked by Slurm itself: a real slurmctld (Debian's,
# with munge, on loopback) loads the topology.conf written for a simulated cluster's inferred leaves
# and `scontrol show topology` reports the same switches with the same nodes and children. The
# multi-node NVLink domains (nvidia-smi -q Fabric ClusterUUID/CliqueId added to two hosts) give
# topology-nvlink.conf and an `nvlink-block` topology in topology.yaml that read back.
# (Debian 12's Slurm 22.05 has no topology/block plugin: the block files are checked by our reader.)
# Exits 77 (skipped) when slurmctld, scontrol, munged or mungekey is missing.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
ctld_pid=""
cleanup() {
  [ -n "$ctld_pid" ] && kill "$ctld_pid" 2> /dev/null || true
  [ -f "$tmp/munged.pid" ] && kill "$(cat "$tmp/munged.pid")" 2> /dev/null || true
  wait 2> /dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/slurmctld.log" ] && tail -20 "$tmp/slurmctld.log"; exit 1; }
for tool in slurmctld scontrol munged mungekey; do
  command -v "$tool" > /dev/null || [ -x "/usr/sbin/$tool" ] || { echo "SKIP: $tool not installed"; exit 77; }
done
export PATH="$PATH:/usr/sbin"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# A cluster's fabric (probes only) and two hosts of one NVL domain.
"$bin" simulate --hosts 16 --seed 3 --no-telemetry --no-rdma --out "$tmp/data" > /dev/null || fail "simulate"
hosts=$(/usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1] + "/truth.json"))
print(" ".join(sorted(h["name"] if isinstance(h, dict) else h for h in t["hosts"])))' "$tmp/data") \
  || fail "no hosts in truth.json"
set -- $hosts
for h in "$1" "$2"; do
  mkdir -p "$tmp/data/$h"
  cat > "$tmp/data/$h/nvidia_smi_q.txt" <<EOF
==============NVSMI LOG==============
Attached GPUs                             : 1
GPU 00000008:01:00.0
    Product Name                          : NVIDIA GB200
    Fabric
        State                             : Completed
        Status                            : Success
        CliqueId                          : 32766
        ClusterUUID                       : 5c1a2b3d-0000-4000-8000-00000000000a
EOF
done
"$bin" analyze "$tmp/data" --out "$tmp/out" > /dev/null || fail "analyze"
[ -f "$tmp/out/topology.conf" ] || fail "no topology.conf"
grep -q "^BlockName=nvl-5c1a2b3d-32766 Nodes=" "$tmp/out/topology-nvlink.conf" || fail "no NVLink block: $(cat "$tmp/out/topology-nvlink.conf" 2>&1)"
grep -q "topology: nvlink-block" "$tmp/out/topology.yaml" || fail "no nvlink-block topology in topology.yaml"
"$bin" analyze "$tmp/out/topology.conf" "$tmp/out/topology-nvlink.conf" "$tmp/out/topology.yaml" --out "$tmp/back" \
  > /dev/null || fail "the Slurm files do not read back"

# slurmctld on loopback with that topology.conf.
mungekey --create --keyfile="$tmp/munge.key" > /dev/null 2>&1 || fail "mungekey"
munged -f --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" || fail "munged"
mkdir -p "$tmp/state" "$tmp/spool"
cp "$tmp/out/topology.conf" "$tmp/topology.conf"
{
  echo "ClusterName=toposcope"
  echo "SlurmctldHost=localhost(127.0.0.1)"
  echo "SlurmctldPort=$(free_port)"
  echo "SlurmdPort=$(free_port)"
  echo "SlurmUser=root"
  echo "AuthType=auth/munge"
  echo "AuthInfo=socket=$tmp/munge.sock"
  echo "CredType=cred/munge"
  echo "StateSaveLocation=$tmp/state"
  echo "SlurmdSpoolDir=$tmp/spool"
  echo "SlurmctldPidFile=$tmp/slurmctld.pid"
  echo "SlurmctldLogFile=$tmp/slurmctld.log"
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "SelectType=select/cons_tres"
  echo "TopologyPlugin=topology/tree"
  for h in $hosts; do echo "NodeName=$h NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN"; done
  echo "PartitionName=all Nodes=ALL Default=YES State=UP"
} > "$tmp/slurm.conf"
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -i -f "$tmp/slurm.conf" > "$tmp/slurmctld.out" 2>&1 &
ctld_pid=$!
for _ in $(seq 1 100); do
  scontrol show topology > "$tmp/shown.txt" 2> /dev/null && break
  kill -0 "$ctld_pid" 2> /dev/null || fail "slurmctld exited: $(tail -5 "$tmp/slurmctld.out")"
  sleep 0.2
done
[ -s "$tmp/shown.txt" ] || fail "scontrol show topology gave nothing"

# Every switch we wrote, as Slurm reports it: its nodes (expanded by scontrol) and child switches.
/usr/bin/python3 - "$tmp/topology.conf" "$tmp/shown.txt" <<'PY' || fail "Slurm's topology differs from ours"
import re, subprocess, sys

def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)

def expand(expr):
    if not expr:
        return []
    out = subprocess.run(["scontrol", "show", "hostnames", expr], capture_output=True, text=True, check=True)
    return out.stdout.split()

ours = {}
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if line.startswith("SwitchName="):
        f = fields(line)
        ours[f["SwitchName"]] = f
shown = {}
for line in open(sys.argv[2]):
    if line.startswith("SwitchName="):
        f = fields(line)
        shown[f["SwitchName"]] = f
assert set(ours) == set(shown), (sorted(ours), sorted(shown))
leaves = 0
for name, f in ours.items():
    s = shown[name]
    assert expand(f.get("Switches", "")) == expand(s.get("Switches", "")), (name, f, s)
    if "Nodes" in f:
        leaves += 1
        assert sorted(expand(f["Nodes"])) == sorted(expand(s["Nodes"])), (name, f, s)
assert leaves > 0, ours
print(f"slurm_topology: slurmctld loaded {len(ours)} switches ({leaves} leaves) as written")
PY
