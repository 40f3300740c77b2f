#!/usr/bin/env bash
# CPU of the live dashboard (targets: 50 brokers × 5 000 partitions at ≤ 5 % of a core at 1×,
# ≤ 1 % paused, and 100× reached). Runs the release binary in a detached 200×50 tmux session,
# lets it start, then reads its utime + stime from /proc/PID/stat over a window, for each of:
# running at 1×, paused (space), and running at 100× (where the header's "(actual N×)" says
# when sim time cannot keep up). Linux and tmux only.
#
#   benches/dashboard-cpu.sh [WINDOW_S] [-- ISRLAB FLAGS…]
#
# Default flags: --seed 1 --brokers 50 --topic test_repli:5000:3. Default window: 20 s.
set -euo pipefail

window=${1:-20}
shift || true
[[ ${1:-} == -- ]] && shift
flags=("$@")
[[ ${#flags[@]} -eq 0 ]] && flags=(--seed 1 --brokers 50 --topic test_repli:5000:3)
startup=${ISRLAB_CPU_STARTUP_S:-15}

cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/isrlab
tck=$(getconf CLK_TCK)
session=isrlab-cpu-$$

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# CPU share of a core (%) of PID over $window seconds.
measure() {
    local pid=$1 before after
    before=$(ticks "$pid")
    sleep "$window"
    after=$(ticks "$pid")
    awk -v d=$((after - before)) -v t="$tck" -v w="$window" 'BEGIN { printf "%.1f", 100 * d / t / w }'
}

header() { tmux capture-pane -p -t "$session" | head -1 | sed 's/  */ /g'; }

# Starts the dashboard at SPEED and prints its pid.
start() {
    tmux new-session -d -s "$session" -x 200 -y 50 -P -F '#{pane_pid}' \
        "exec $bin --speed $1 ${flags[*]}"
}

stop() { tmux kill-session -t "$session" 2>/dev/null || true; }
trap stop EXIT

echo "isrlab ${flags[*]}, 200x50, window ${window} s, start-up ${startup} s"
pid=$(start 1)
sleep "$startup"
echo "1x: $(measure "$pid") % of a core | $(header)"
tmux send-keys -t "$session" Space
sleep 2
echo "paused: $(measure "$pid") % of a core | $(header)"
stop
sleep 1
pid=$(start 100)
sleep "$startup"
echo "100x: $(measure "$pid") % of a core | $(header)"
