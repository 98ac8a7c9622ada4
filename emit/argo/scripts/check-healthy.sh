# check-healthy: report one Application's health and change nothing: no
# refresh (it would write an annotation), no sync. Succeeds only when the
# Application is Healthy; the health and sync status are also written as
# output parameters for the executor's report.
: "${APP:?}"
printf Unknown >"$dir/health"
printf Unknown >"$dir/sync"
if ! argocd_call app get "$APP" -o json >"$dir/app.json"; then
  echo "$APP: cannot read the Application (it is missing, or the token may not read it)" >&2
  exit 1
fi
health=$(jq -r '.status.health.status // "Unknown"' "$dir/app.json")
sync=$(jq -r '.status.sync.status // "Unknown"' "$dir/app.json")
message=$(jq -r '.status.health.message // ""' "$dir/app.json")
printf %s "$health" >"$dir/health"
printf %s "$sync" >"$dir/sync"
echo "$APP: health $health, sync $sync${message:+ ($message)}"
[[ $health == Healthy ]]
