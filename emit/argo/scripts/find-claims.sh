# find-claims: the read-only first step of a teardown's snapshots, before
# anything is deleted. For every app in $APPS ([{application, project,
# volumes, timeout}]) whose volume policy (the run's override, or the
# app's own) is snapshot, it lists the claims in the Application's
# resource tree (including claims a StatefulSet created), so that every
# snapshot is taken, and ready, before the first deletion: the snapshot
# controller and the CSI driver may be apps the teardown removes.
: "${APPS:?}" "${VOLUMES_OVERRIDE:?}"
printf '[]' >"$dir/claims"
printf '[]' >"$dir/found"
# Fields are split on the unit separator: a value may be empty.
while IFS=$'\x1f' read -r APP PROJECT volumes timeout; do
  policy=$volumes
  if [[ $VOLUMES_OVERRIDE != per-app ]]; then
    policy=$VOLUMES_OVERRIDE
  fi
  case $policy in
  retain | delete) continue ;;
  snapshot) ;;
  *)
    echo "unknown volume policy \"$policy\" for $APP: use retain, delete or snapshot" >&2
    exit 1
    ;;
  esac
  export APP PROJECT
  if ! present; then
    echo "$APP: already gone"
    continue
  fi
  argocd_call app get-resource "$APP" --kind PersistentVolumeClaim -o json >"$dir/claims.raw"
  # One JSON object per claim, separated by "---" lines; nothing at all
  # (and exit 0) when the app has no claim. sed, unlike grep -v, does not
  # fail on an empty input.
  sed '/^---$/d' "$dir/claims.raw" |
    jq -s -c --arg app "$APP" --arg timeout "$timeout" \
      '[.[] | {name: .metadata.name, namespace: .metadata.namespace, application: $app, timeout: $timeout}]' >"$dir/one"
  echo "$APP: $(jq length "$dir/one") claim(s) to snapshot"
  jq -s -c 'add' "$dir/found" "$dir/one" >"$dir/found.new"
  mv "$dir/found.new" "$dir/found"
done < <(jq -r '.[] | [.application, .project, .volumes, .timeout] | join("\u001f")' <<<"$APPS")
cp "$dir/found" "$dir/claims"
echo "$(jq length "$dir/claims") claim(s) to snapshot before the first deletion"
