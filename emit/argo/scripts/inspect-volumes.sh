# inspect-volumes: the read-only first step of delete-and-wait. It settles
# the volume policy (the run's override, or the app's own) and, for
# "snapshot", lists every claim in the Application's resource tree
# (including claims a StatefulSet created), for the snapshot step.
: "${APP:?}" "${PROJECT:?}" "${VOLUMES:?}" "${VOLUMES_OVERRIDE:?}"
policy=$VOLUMES
if [[ $VOLUMES_OVERRIDE != per-app ]]; then
  policy=$VOLUMES_OVERRIDE
fi
case $policy in
retain | delete | snapshot) ;;
*)
  echo "unknown volume policy \"$policy\": use retain, delete or snapshot" >&2
  exit 1
  ;;
esac
printf %s "$policy" >"$dir/policy"
printf '[]' >"$dir/claims"
if ! present; then
  echo "$APP: already gone"
  exit 0
fi
if [[ $policy == snapshot ]]; then
  argocd_call app get-resource "$APP" --kind PersistentVolumeClaim -o json >"$dir/claims.raw"
  # One JSON object per claim, separated by "---" lines; nothing at all
  # (and exit 0) when the app has no claim. sed, unlike grep -v, does not
  # fail on an empty input.
  sed '/^---$/d' "$dir/claims.raw" |
    jq -s -c '[.[] | {name: .metadata.name, namespace: .metadata.namespace}]' >"$dir/claims"
fi
echo "$APP: volume policy $policy, $(jq length "$dir/claims") claim(s) to snapshot"
