#!/usr/bin/env bash
# Packs the release programs: a wheel that puts them on pip's PATH
# (connect4_programs, pure data: its scripts are the programs) and a
# tarball with the README and the licence. Called by scripts/release:
#   pack-programs.sh VERSION REPOSITORY OUT BIN_DIR PROGRAM...
set -euo pipefail
version=$1 repository=$2 out=$3 bin=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The tarball: connect4-V-x86_64-linux-gnu/{bin/,README.md,LICENSE,CHANGELOG.md}.
name="connect4-$version-x86_64-linux-gnu"
mkdir -p "$work/$name/bin"
for program in "$@"; do
    install -m 755 "$bin/$program" "$work/$name/bin/"
done
install -m 644 README.md LICENSE CHANGELOG.md "$work/$name/"
tar -C "$work" --owner=0 --group=0 --numeric-owner --sort=name \
    --mtime="@${SOURCE_DATE_EPOCH:-0}" -czf "$out/$name.tar.gz" "$name"

# The wheel (the wheel format's data scripts, packed by `wheel pack`,
# which writes its RECORD).
tree="$work/connect4_programs-$version"
info="$tree/connect4_programs-$version.dist-info"
mkdir -p "$info" "$tree/connect4_programs-$version.data/scripts"
for program in "$@"; do
    install -m 755 "$bin/$program" "$tree/connect4_programs-$version.data/scripts/"
done
install -m 644 LICENSE "$info/"
cat >"$info/METADATA" <<META
Metadata-Version: 2.1
Name: connect4-programs
Version: $version
Summary: The connect4 engine and arena programs ($*), built for any x86_64 Linux with glibc 2.17 or newer
License: MIT
Project-URL: Repository, $repository
META
cat >"$info/WHEEL" <<META
Wheel-Version: 1.0
Generator: connect4 scripts/pack-programs.sh
Root-Is-Purelib: false
Tag: py3-none-manylinux_2_17_x86_64
Tag: py3-none-manylinux2014_x86_64
META
wheel pack "$tree" --dest-dir "$out" >/dev/null
