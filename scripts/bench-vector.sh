#!/usr/bin/env bash
# Random-agent steps per second of the batched environments, side by side
# in one run on one core (taskset -c 0): c4engine.vector's self-play and
# its game against the native random opponent, pgx's connect_four (JAX on
# CPU, the loop in jit) and PettingZoo's connect_four_v3, each ROUNDS
# times, interleaved. The Pythons: C4_PYTHON imports c4engine (a venv
# where `pip install ./python` ran), PGX_PYTHON has pgx and jax[cpu]
# (`pip install pgx "jax[cpu]"`), PZ_PYTHON has pettingzoo.
#
#   C4_PYTHON=.venv/bin/python PGX_PYTHON=/tmp/pgx/bin/python \
#       scripts/bench-vector.sh [BATCH] [STEPS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
batch=${1:-4096} steps=${2:-500} rounds=${3:-3}
c4=${C4_PYTHON:-python3} pgx=${PGX_PYTHON:-python3} pz=${PZ_PYTHON:-$c4}
echo "== $(date -u +%FT%TZ) $(git rev-parse --short HEAD) on core 0 of $(nproc): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for _ in $(seq "$rounds"); do
    taskset -c 0 "$c4" scripts/bench-vector.py c4engine-selfplay "$batch" "$steps"
    taskset -c 0 "$pgx" scripts/bench-vector.py pgx "$batch" "$steps"
    taskset -c 0 "$c4" scripts/bench-vector.py c4engine-vs-random "$batch" "$steps"
    taskset -c 0 "$pz" scripts/bench-vector.py pettingzoo 1 20000
done
