#!/usr/bin/env bash
# Solves the empty board of every size with width + height <= 13 from
# scratch and checks each against the outcome and the last move that John
# Tromp and Christophe Steininger published (tests/engine/board_sizes.rs holds
# the table): the small sizes, which the tests run too, then the larger
# ones the tests leave out, each with its score, nodes and time. A
# release build; one thread; no opening book.
#
#   scripts/bench-board-sizes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== $(date -u +%FT%TZ) on $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
cargo test --release --locked --test engine -- board_sizes:: --include-ignored --nocapture --test-threads 1
