set -euo pipefail
# Every value platc knows arrives in an environment variable; nothing from
# the platform description is ever part of this text.

# Scratch and output files (output parameters read them from /tmp); the
# tests point PLATC_STEP_DIR elsewhere. Not every step writes files.
# shellcheck disable=SC2034
dir=${PLATC_STEP_DIR:-/tmp}

# argocd_call runs an argocd command that has no --timeout of its own, so
# that no step can hang on a stuck API call.
argocd_call() { timeout --kill-after=10s 300 argocd "$@"; }

# present succeeds when Application $APP exists in project $PROJECT. It asks
# for the project's list because a get on a missing Application is
# reported as "permission denied", not "not found", by Argo CD's RBAC. A
# failed list stops the script: it must never read as "already gone".
present() {
  local names
  if ! names=$(argocd_call app list -p "$PROJECT" -o name); then
    echo "cannot list the Applications of project $PROJECT" >&2
    exit 1
  fi
  # Names come back as "namespace/name".
  awk 'BEGIN { want = ENVIRON["APP"] } { n = $0; sub(/^.*\//, "", n); if (n == want) found = 1 } END { exit found ? 0 : 1 }' <<<"$names"
}
