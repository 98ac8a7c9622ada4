# sync-and-wait: converge one Application and wait until it is Synced and
# Healthy. Idempotent (INV-6): an Application already Synced and Healthy at
# the expected revision, whose last operation did not fail, is left alone,
# so its hooks do not run again.
: "${APP:?}" "${SYNC_TIMEOUT:?}" "${HEALTH_TIMEOUT:?}"
EXPECT_REVISION=${EXPECT_REVISION:-}
state=$dir/app.json

# get --refresh returns once the controller has compared the Application
# again, so what is read below is not stale.
refresh() { argocd_call app get "$APP" --refresh -o json >"$state"; }
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
  # Argo CD's own sync (ARGO-NOTES §8), so only wait.
  echo "$APP: automated sync is on; waiting for Argo CD to converge it"
else
  echo "$APP: $sync/$health at revision ${revision:-unknown} (last operation: ${phase:-none}); syncing"
  argocd app sync "$APP" --timeout "$SYNC_TIMEOUT"
fi
argocd app wait "$APP" --sync --health --timeout "$HEALTH_TIMEOUT"
echo "$APP: Synced and Healthy"
