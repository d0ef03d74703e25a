# shellcheck shell=bash
# Shared by the solver's benchmarks (bench-vs-references.sh, bench-threads.sh),
# sourced: the public sets they run, each as NAME:LINES (the first LINES
# positions of ../shared/bench/NAME), and the median of numbers on stdin.
# shellcheck disable=SC2034 # read by the scripts that source this one
BENCH_SETS=(Test_L3_R1:1000 Test_L2_R1:1000 Test_L2_R2:1000 Test_L1_R1:1000 Test_L1_R2:100 Test_L1_R3:3)

median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
