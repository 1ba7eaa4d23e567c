#!/usr/bin/env bash
# Sets up a Debian 12 machine for toposcope, builds it, and optionally runs the demo or the tests.
#   scripts/setup.sh            install packages, configure, build
#   scripts/setup.sh demo       ... then run `toposcope demo`
#   scripts/setup.sh test       ... then run the whole test suite (unit, golden, ground truth, fuzz smoke)
# Idempotent and non-interactive: packages already installed are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
mode=${1:-build}

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  clang libclang-rt-14-dev clang-format clang-tidy
  libeigen3-dev libspectra-dev libfmt-dev libspdlog-dev nlohmann-json3-dev libpugixml-dev
  libcli11-dev libtbb-dev libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev libzstd-dev
  libpcap-dev libxxhash-dev libzmq3-dev cppzmq-dev tshark protobuf-compiler graphviz
  libcpp-httplib-dev curl prometheus apache2-utils
  chromium
  ibsim-utils opensm infiniband-diags
  slurmctld slurm-client munge
  libopenmpi-dev openmpi-bin
  python3-numpy python3-sklearn python3-scipy python3-pandas
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

build_dir=${TOPOSCOPE_BUILD_DIR:-build}
jobs=$(nproc)
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTOPOSCOPE_WERROR=ON
fi
cmake --build "$build_dir" -j "$jobs"

case "$mode" in
  build) ;;
  demo)
    "$build_dir/toposcope" demo --out "${TOPOSCOPE_DEMO_DIR:-/tmp/toposcope-demo}"
    ;;
  test)
    # The layer order and the CMake dependency lists (no include may go up; see docs/architecture.md).
    /usr/bin/python3 scripts/check_layers.py
    # Every dump field list names every member of its struct (nothing silently left out of a dump).
    /usr/bin/python3 scripts/check_dump_fields.py
    # No function over 150 lines.
    /usr/bin/python3 scripts/check_function_size.py
    # Every library and CLI source compiles with clang too: here those the fuzz build below does not
    # compile (it builds base, formats and model with clang and -Werror for the reader harnesses).
    /usr/bin/python3 scripts/check_clang.py "$build_dir" --skip base,formats,model
    (cd "$build_dir" && ctest --output-on-failure -j "$jobs")
    # Every fuzz target briefly, built with clang (ASan + UBSan, -Werror) in build-fuzz: with the
    # syntax check above, every library and CLI source goes through clang as well as g++.
    bash scripts/fuzz_smoke.sh
    ;;
  *) echo "usage: scripts/setup.sh [build|demo|test]" >&2; exit 2 ;;
esac
