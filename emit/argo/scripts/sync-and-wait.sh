# sync-and-wait: converge one Application and wait until it is Synced and
# Healthy. Idempotent (INV-6): an Application already Synced and Healthy at
# the expected revision, whose last operation did not fail, is left alone,
# so its hooks do not run again.
#
# Exit codes (RFC 5.3): 0 converged; 10 a failure a retry cannot fix: the
# app is Degraded or Unknown, or is still not Synced and Healthy when its
# health timeout ends (waiting again would watch the same state); any
# other code is a failure a retry can fix, such as a failed sync
# operation or a failed API call. The template retries every exit code but
# 10 (retryStrategy.expression).
: "${APP:?}" "${SYNC_TIMEOUT:?}" "${HEALTH_TIMEOUT:?}"
EXPECT_REVISION=${EXPECT_REVISION:-}
# Seconds between two reads of the Application while waiting; only the
# script tests change it.
POLL_SECONDS=${POLL_SECONDS:-5}
final=10
state=$dir/app.json

# get --refresh returns once the controller has compared the Application
# again, so what is read below is not stale. A plain get only reads.
refresh() { argocd_call app get "$APP" --refresh -o json >"$state"; }
get() { argocd_call app get "$APP" -o json >"$state"; }
field() { jq -r "$1 // \"\"" "$state"; }

refresh
phase=$(field .status.operationState.phase)
if [[ $phase == Running || $phase == Terminating ]]; then
  # A sync now would fail with "another operation is already in progress".
  echo "$APP: an operation is in progress; waiting for it (at most ${SYNC_TIMEOUT}s)"
  argocd app wait "$APP" --operation --timeout "$SYNC_TIMEOUT"
  refresh
  phase=$(field .status.operationState.phase)
fi
sync=$(field .status.sync.status)
health=$(field .status.health.status)
revision=$(field .status.sync.revision)
if [[ $sync == Synced && $health == Healthy && $phase != Failed && $phase != Error ]] &&
  [[ -z $EXPECT_REVISION || $revision == "$EXPECT_REVISION" ]]; then
  echo "$APP: already Synced and Healthy at revision ${revision:-unknown}; nothing to do"
  exit 0
fi
automated=$(jq -r 'if (.spec.syncPolicy.automated // null) == null or .spec.syncPolicy.automated.enabled == false then "no" else "yes" end' "$state")
if [[ $automated == yes ]]; then
  # Deploy switched automated sync on earlier; syncing from here would race
  # Argo CD's own automated sync, so only wait.
  echo "$APP: automated sync is on; waiting for Argo CD to converge it"
else
  echo "$APP: $sync/$health at revision ${revision:-unknown} (last operation: ${phase:-none}); syncing"
  # Fails, and so is retried, when the operation fails.
  argocd app sync "$APP" --timeout "$SYNC_TIMEOUT"
  # The health written before the sync may still be there: compare again
  # before judging it.
  refresh
fi

# Wait for Synced and Healthy by reading the Application. The CLI's own
# wait ends early only on a change to Degraded and so, on a retry that
# finds the app Degraded already, waited out its whole timeout.
deadline=$((SECONDS + HEALTH_TIMEOUT))
while :; do
  sync=$(field .status.sync.status)
  health=$(field .status.health.status)
  if [[ $sync == Synced && $health == Healthy ]]; then
    echo "$APP: Synced and Healthy"
    exit 0
  fi
  if [[ $health == Degraded || $health == Unknown ]]; then
    message=$(field .status.health.message)
    echo "$APP: health is $health${message:+ ($message)}; not retried: a retry would find the same state. See argocd app get $APP for the resources at fault." >&2
    exit "$final"
  fi
  if ((SECONDS >= deadline)); then
    phase=$(field .status.operationState.phase)
    echo "$APP: still ${sync:-unknown}/${health:-unknown} after ${HEALTH_TIMEOUT}s (last operation: ${phase:-none}); not retried. Raise its health timeout if it needs longer." >&2
    exit "$final"
  fi
  sleep "$POLL_SECONDS"
  get
done
