#!/usr/bin/env bash
# Runs every fuzz target for a set time each (not part of CI).
#
#   fuzz/run.sh [SECONDS] [TARGET...]     (default 60 seconds, all targets)
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Seeds the corpora
# from the fixtures (fuzz/seed.py) when a target has none, then runs each target in one
# process at the lowest CPU priority, so it can share a machine. Findings land in
# fuzz/artifacts/<target>/; reproduce one with `cargo +nightly fuzz run TARGET FILE`.
# Prints runs and executions per second per target; exits 1 if any target found something.
set -u
cd "$(dirname "$0")"
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
[ -d corpus ] || python3 seed.py

# Inputs longer than this are not generated (the converter target also keeps whole dumps).
max_len() { case $1 in pgdump2csv) echo 262144 ;; *) echo 8192 ;; esac; }
# cargo-fuzz options per target: gzpar also compares ISA-L's inflate, which cannot be built
# with AddressSanitizer (Cargo.toml), so it runs without a sanitizer (coverage only; its
# checks are the differential assertions).
opts() { case $1 in gzpar) echo "-s none --features isal" ;; *) echo "" ;; esac; }

nice -n 19 cargo +nightly fuzz build || exit 2
mkdir -p logs
status=0
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    # One process, one rayon thread: the machine is shared.
    # shellcheck disable=SC2046 # opts gives separate words
    RAYON_NUM_THREADS=1 nice -n 19 cargo +nightly fuzz run $(opts "$t") "$t" "corpus/$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
        -print_final_stats=1 >"logs/$t.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "logs/$t.log")
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "logs/$t.log")
    found=$(ls "artifacts/$t" | wc -l)
    printf '%-12s %4ss  runs %-9s  exec/s %-7s  exit %s  artifacts %s\n' \
        "$t" "$secs" "${runs:-?}" "${eps:-?}" "$rc" "$found"
    [ "$rc" -eq 0 ] || status=1
done
exit $status
