#!/usr/bin/env bash
# How isrlab's cost grows: CPU time and peak memory of one headless run
# (`isrlab run`, release build) while one dimension moves away from a base cluster and the
# others stay put. Prints a Markdown table.
#
#   benches/scaling.sh [SIM_S]
#
# Base: 3 brokers, one topic of 6 partitions with RF 3, one acks=all producer at 1 000
# records/s, seed 1, SIM_S simulated seconds (default 60). The sweeps:
#   partitions 6, 60, 600, 5 000 (3 brokers);
#   brokers 3, 10, 50 (600 partitions, so that every broker hosts some);
#   producer rate 100, 1 000, 10 000, 100 000 records/s;
#   sim duration 1, 10, 60 minutes (at 1 000 records/s).
# CPU is user + system time from GNU time (`/usr/bin/time`), which on a loaded machine is
# close to what an idle core would take in wall time; peak memory is its maximum RSS.
set -euo pipefail

sim_s=${1:-60}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/isrlab
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Writes a scenario: brokers, partitions, rate, end (seconds).
scenario() {
    local brokers=$1 partitions=$2 rate=$3 end=$4 file=$dir/s.toml
    {
        echo "name = \"scaling\""
        echo "seed = 1"
        echo "end = \"${end}s\""
        echo "[cluster]"
        echo "brokers = [$(seq -s, 0 $((brokers - 1)))]"
        echo "[[topic]]"
        echo "name = \"test_repli\""
        echo "partitions = $partitions"
        echo "replication_factor = 3"
        echo "[[producer]]"
        echo "topic = \"test_repli\""
        echo "rate = $rate"
        echo "acks = \"all\""
    } >"$file"
    echo "$file"
}

# One row: the label, then the run's CPU seconds, × real time, and peak RSS in MB.
row() {
    local label=$1 brokers=$2 partitions=$3 rate=$4 end=$5 file out cpu rss
    file=$(scenario "$brokers" "$partitions" "$rate" "$end")
    out=$({ /usr/bin/time -f "%U %S %M" "$bin" run "$file" >/dev/null; } 2>&1 | tail -1)
    read -r user sys rss <<<"$out"
    awk -v l="$label" -v b="$brokers" -v p="$partitions" -v r="$rate" -v e="$end" \
        -v u="$user" -v s="$sys" -v m="$rss" 'BEGIN {
            cpu = u + s
            printf "| %s | %d | %d | %d | %d s | %.2f s | %.0f× | %d MB |\n", l, b, p, r, e, cpu, e / (cpu + 0.005), m / 1024
        }'
}

echo "| sweep | brokers | partitions | records/s | sim time | CPU | × real time | peak RSS |"
echo "|---|---|---|---|---|---|---|---|"
for p in 6 60 600 5000; do row partitions 3 "$p" 1000 "$sim_s"; done
for b in 3 10 50; do row brokers "$b" 600 1000 "$sim_s"; done
for r in 100 1000 10000 100000; do row rate 3 6 "$r" "$sim_s"; done
for m in 1 10 60; do row duration 3 6 1000 $((m * 60)); done
