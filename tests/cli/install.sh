#!/usr/bin/env bash
# Installing like a real tool: `cmake --install` into a fresh prefix gives the binary, static
# libraries and headers, the CMake package (an example program outside the tree finds and links it),
# toposcope.pc (the same program built with pkg-config flags), the man page and completions (the bash
# completion offers subcommands and options read from --help); `cpack -G DEB` builds a .deb whose
# dependencies dpkg accepts on this machine and whose extracted toposcope runs the demo.
set -euo pipefail
bin=$1
fixtures=$2
build=$(cd "$(dirname "$bin")" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
for f in bin/toposcope lib/libtoposcope_base.a lib/libtoposcope_app.a include/toposcope/formats/node/nvsmi_topo.h \
         lib/cmake/toposcope/toposcopeConfig.cmake lib/cmake/toposcope/toposcopeTargets.cmake lib/pkgconfig/toposcope.pc \
         share/man/man1/toposcope.1 share/bash-completion/completions/toposcope share/zsh/vendor-completions/_toposcope; do
  [ -e "$tmp/prefix/$f" ] || fail "cmake --install did not install $f"
done
"$tmp/prefix/bin/toposcope" --version > /dev/null || fail "the installed binary does not run"
man -l "$tmp/prefix/share/man/man1/toposcope.1" > /dev/null 2>&1 || [ ! -x /usr/bin/man ] || fail "the man page does not render"

# An example program outside the tree: find_package(toposcope), then pkg-config.
topo="$fixtures/nvidia_smi_topo/dgx1_v100_topo_mp_pcie_only.txt"
cmake -S "$src/examples/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/consumer.log" 2>&1 ||
  { cat "$tmp/consumer.log"; fail "find_package(toposcope) failed"; }
cmake --build "$tmp/consumer" > "$tmp/consumer_build.log" 2>&1 || { cat "$tmp/consumer_build.log"; fail "the consumer does not build"; }
"$tmp/consumer/topo_cells" "$topo" > "$tmp/cells.txt"
grep -q "rows read 12, accepted 12, rejected 0" "$tmp/cells.txt" || fail "the consumer read the topology wrongly"
flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs toposcope) || fail "pkg-config toposcope"
# shellcheck disable=SC2086
g++ -O0 "$src/examples/consumer/main.cc" -o "$tmp/topo_pc" $flags || fail "the consumer does not build with pkg-config flags"
"$tmp/topo_pc" "$topo" > "$tmp/cells_pc.txt"
grep -q "accepted 12" "$tmp/cells_pc.txt" || fail "the pkg-config build read the topology wrongly"

# Bash completion: subcommands and a subcommand's options from --help.
out=$(PATH="$tmp/prefix/bin:$PATH" bash -c '
  source "$1"
  COMP_WORDS=(toposcope ana); COMP_CWORD=1; _toposcope; echo "${COMPREPLY[*]}"
  COMP_WORDS=(toposcope analyze --ti); COMP_CWORD=2; _toposcope; echo "${COMPREPLY[*]}"' _ "$tmp/prefix/share/bash-completion/completions/toposcope")
echo "$out" | head -1 | grep -qw analyze || fail "bash completion does not offer analyze: $out"
echo "$out" | tail -1 | grep -qw -- --timeline || fail "bash completion does not offer --timeline: $out"

# The .deb.
(cd "$tmp" && cpack --config "$build/CPackConfig.cmake" -B "$tmp/deb" > "$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; fail "cpack"; }
deb=$(ls "$tmp"/deb/toposcope_*_amd64.deb)
info=$(dpkg-deb -I "$deb")
grep -q "^ Depends: .*libtbb" <<< "$info" || fail "the .deb does not name its library dependencies"
dpkg --dry-run -i "$deb" > "$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg would not install the .deb"; }
dpkg-deb -x "$deb" "$tmp/root"
[ -x "$tmp/root/usr/bin/toposcope" ] || fail "the .deb holds no /usr/bin/toposcope"
[ -e "$tmp/root/usr/share/man/man1/toposcope.1" ] || fail "the .deb holds no man page"
"$tmp/root/usr/bin/toposcope" demo --out "$tmp/demo" > "$tmp/demo.log" 2>&1 || { tail -20 "$tmp/demo.log"; fail "the packaged toposcope demo failed"; }
grep -q "demo finished" "$tmp/demo.log" || fail "the packaged demo did not finish"
echo "install: ok ($(du -h "$deb" | cut -f1) .deb)"
