#!/usr/bin/env bash
# Wall time and peak memory (maximum resident set size, from
# /usr/bin/time -v) of `platc build` on the synthetic platforms the
# benchmarks use, at each size: a first build into an empty directory,
# then a rebuild that finds everything up to date. Prints the median of
# RUNS runs (default 5). SIZES overrides the sizes ("43 1000 10000").
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-5}
sizes=${SIZES:-43 1000 10000}
if [[ ! -x /usr/bin/time ]]; then
  echo "build-rss: /usr/bin/time is missing (Debian: apt-get install time)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/platc" ./cmd/platc
go build -o "$tmp/synth" ./internal/cmd/synth

# median prints the middle value of its arguments (the lower middle for an
# even count).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# measure runs platc build with /usr/bin/time -v and prints "seconds kB".
measure() {
  /usr/bin/time -v -o "$tmp/time" "$tmp/platc" build -o "$1" "$2" >/dev/null
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
    /Maximum resident set size/ { rss = $2 }
    END { print s, rss }' "$tmp/time"
}

printf '%-6s  %-8s  %9s  %12s  %s\n' APPS BUILD WALL PEAK-RSS "RUNS (wall s / RSS MB)"
for n in $sizes; do
  "$tmp/synth" -apps "$n" -cross -events -o "$tmp/p$n.hcl"
  for kind in first rebuild; do
    walls=() rss=() all=()
    for r in $(seq "$runs"); do
      out="$tmp/out-$n-$r"
      [[ $kind == first ]] && rm -rf "$out"
      read -r w k < <(measure "$out" "$tmp/p$n.hcl")
      walls+=("$w") rss+=("$k") all+=("$w/$((k / 1024))")
    done
    printf '%-6s  %-8s  %8.2fs  %9d MB  %s\n' "$n" "$kind" "$(median "${walls[@]}")" "$(($(median "${rss[@]}") / 1024))" "${all[*]}"
  done
  rm -rf "$tmp"/out-"$n"-*
done
