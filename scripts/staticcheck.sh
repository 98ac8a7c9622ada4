#!/usr/bin/env bash
# Runs staticcheck on the arguments (make lint: ./...). The version is
# pinned here; it is built once from the Go module proxy into a cache
# outside the repository ($PLATC_TOOLS, default ~/.cache/platc/tools),
# so neither the module's go.mod nor the tree carries it. The checks are
# configured in staticcheck.conf.
set -euo pipefail
cd "$(dirname "$0")/.."

version=v0.8.2 # supports go 1.26 (go.mod)
dir=${PLATC_TOOLS:-$HOME/.cache/platc/tools}/staticcheck-$version
if [[ ! -x $dir/staticcheck ]]; then
  echo "staticcheck: building $version into $dir" >&2
  GOBIN=$dir go install "honnef.co/go/tools/cmd/staticcheck@$version"
fi
exec "$dir/staticcheck" "$@"
