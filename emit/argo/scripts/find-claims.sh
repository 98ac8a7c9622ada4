# find-claims: the read-only first step of a teardown's snapshots, before
# anything is deleted. For every app in $APPS ([{application, project,
# volumes, timeout, class}]) whose volume policy (the run's override, or the
# app's own) is snapshot, it lists the claims in the Application's
# resource tree (including claims a StatefulSet created), so that every
# snapshot is taken, and ready, before the first deletion: the snapshot
# controller and the CSI driver may be apps the teardown removes.
: "${APPS:?}" "${VOLUMES_OVERRIDE:?}"
# Claims of apps with a VolumeSnapshotClass go to classed, the others to
# claims (the cluster's default class).
printf '[]' >"$dir/claims"
printf '[]' >"$dir/classed"
printf '' >"$dir/parts" # one JSON array per app
# Fields are split on the unit separator: a value may be empty.
while IFS=$'\x1f' read -r APP PROJECT volumes timeout class; do
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
    jq -s -c --arg app "$APP" --arg timeout "$timeout" --arg class "$class" \
      '[.[] | {name: .metadata.name, namespace: .metadata.namespace, application: $app, timeout: $timeout, class: $class}]' >"$dir/one"
  echo "$APP: $(jq length "$dir/one") claim(s) to snapshot"
  jq -c . "$dir/one" >>"$dir/parts"
done < <(jq -r '.[] | [.application, .project, .volumes, .timeout, (.class // "")] | join("\u001f")' <<<"$APPS")
jq -s -c 'add // []' "$dir/parts" >"$dir/found"
jq -c '[.[] | select(.class == "") | del(.class)]' "$dir/found" >"$dir/claims"
jq -c '[.[] | select(.class != "")]' "$dir/found" >"$dir/classed"
echo "$(jq length "$dir/found") claim(s) to snapshot before the first deletion"
