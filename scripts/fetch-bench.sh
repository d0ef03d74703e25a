#!/usr/bin/env bash
# Fetches the public solved sets the tests and benchmarks read
# (../shared/bench beside the repository on the project's machine: Pascal
# Pons' six sets of 1000 positions, blog.gamesolver.org) into folder $1,
# each checked against the digest of the copy the tests were written
# against. For CI hosts that do not have them (.github/workflows/ci.yml).
set -euo pipefail
dir=$1
mkdir -p "$dir"
while read -r digest name; do
    curl --fail --silent --show-error --location --retry 3 \
        --output "$dir/$name" "http://blog.gamesolver.org/data/$name"
    echo "$digest  $dir/$name" | sha256sum --check --quiet
done <<'SETS'
003b7f5cc2b9b2d07ee2663cf92dfe99a50d7f4f57c556b6f35048e1bfaedb68 Test_L1_R1
ba3df3282804270661239d0fc357761a5c7cc31bbd581f3c502222abffa31113 Test_L1_R2
7b6eb6c7c9e7342f8065188cac01a25df2413a5b77de062cf14a4a8b237b140a Test_L1_R3
52b9ee96ab6e92fd755ca4c545792c07c548a5a994fd32beec2775939d071b3c Test_L2_R1
a0bb9983650ad5b6c6080da47c31065f6efa11bfadf2e1149af1619d7d65b745 Test_L2_R2
fae47639d993cc91f074d0b642a5f2bb251d31b15cea9df496d672c01fb2efec Test_L3_R1
SETS
