#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of the pipeline decoder + planner
# and the expression compiler + evaluator. Usage: scripts/fuzz-pipelines.sh [SECONDS]
# (default 60 per target). Seeds: Fuzz/corpus/{pipelines,expressions} (committed, read-only
# here); new corpus entries go to out/fuzz-pipelines/<target>/corpus, crashes to
# out/fuzz-pipelines/<target>/ (crash-*, leak-*, timeout-*, oom-*), logs next to them.
# TARGETS="Target:corpus …" picks others (`make fuzz-archives`: the property-list and
# mapping-model targets); TIMEOUT (default 10) is the seconds one input may take.
set -uo pipefail
SECONDS_PER_TARGET="${1:-60}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/out/fuzz-pipelines"
SWIFT="${SWIFT:-swift}"

cd "$ROOT/Fuzz"
echo "== building fuzzers (debug, -sanitize=fuzzer,address)"
"$SWIFT" build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library || exit 2
BIN="$("$SWIFT" build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --show-bin-path)"

# Leaks: Swift's global caches and metadata show up as leaks at exit; not what this looks for.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
export ETL_REPO_ROOT="$ROOT"
status=0
summary=()
for pair in ${TARGETS:-PipelineFuzzer:pipelines ExpressionFuzzer:expressions}; do
    target="${pair%%:*}"; corpus="${pair##*:}"
    dir="$OUT/$target"
    mkdir -p "$dir/corpus"
    log="$dir/fuzz.log"
    echo "== $target: ${SECONDS_PER_TARGET}s on Fuzz/corpus/$corpus (log: ${log#$ROOT/})"
    # Findings of earlier runs stay beside the log; only this run's count (a stamp file marks its start).
    stamp="$dir/.started"
    touch "$stamp"
    # -rss_limit_mb: ASan + Swift debug builds are big; -timeout: one input must not take 10 s.
    "$BIN/$target" "$dir/corpus" "$ROOT/Fuzz/corpus/$corpus" \
        -max_total_time="$SECONDS_PER_TARGET" -timeout="${TIMEOUT:-10}" -rss_limit_mb=4096 -max_len=16384 \
        -artifact_prefix="$dir/" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)"
    cov="$(grep -oE 'cov: [0-9]+' "$log" | tail -1)"
    artifacts="$(find "$dir" -maxdepth 1 -newer "$stamp" -type f -printf '%f\n' | grep -E '^(crash|leak|timeout|oom|slow-unit)-' || true)"
    if [ $rc -ne 0 ] || [ -n "$artifacts" ]; then
        status=1
        summary+=("$target: FOUND PROBLEMS (exit $rc) after ${runs:-?} inputs, ${cov:-cov ?}; artifacts: ${artifacts:-none}")
        grep -m1 -E 'ERROR: (libFuzzer|AddressSanitizer)|Fatal error|SUMMARY' "$log" | sed 's/^/    /'
    else
        summary+=("$target: ok, ${runs:-?} inputs in ${SECONDS_PER_TARGET}s, ${cov:-cov ?}, corpus $(ls "$dir/corpus" | wc -l) files")
    fi
done
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
