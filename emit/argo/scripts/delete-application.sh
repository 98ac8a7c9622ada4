# delete-application: delete one Application with cascade, foreground
# propagation, and wait until it is gone, bounded by $TIMEOUT seconds.
# Already gone is success (INV-6). Before deleting, the volume policy is
# applied to what the Application manages, through the API server:
#   retain:          claims and namespaces get the annotation
#                    argocd.argoproj.io/sync-options: Delete=false, so the
#                    cascade keeps them; StatefulSets get
#                    persistentVolumeClaimRetentionPolicy.whenDeleted: Retain.
#   delete/snapshot: StatefulSets get whenDeleted: Delete, so Kubernetes
#                    removes the claims it created; the cascade removes the
#                    claims Argo CD manages.
: "${APP:?}" "${PROJECT:?}" "${POLICY:?}" "${TIMEOUT:?}"
if ! present; then
  echo "$APP: already gone"
  exit 0
fi
# gone waits until the Application no longer exists, at most $TIMEOUT
# seconds. It polls rather than use the CLI's --wait, which watches for
# the Deleted event and waits forever when the Application is gone
# before its watch starts (argocd v3.2.6, seen in the e2e teardown).
gone() {
  local deadline=$((SECONDS + TIMEOUT))
  while present; do
    if ((SECONDS >= deadline)); then
      echo "$APP: still present after ${TIMEOUT}s" >&2
      return 1
    fi
    sleep 5
  done
}
argocd_call app get "$APP" -o json >"$dir/app.json"
if jq -e '.metadata.deletionTimestamp // empty' "$dir/app.json" >/dev/null; then
  # A previous attempt started the deletion; adding the finalizer again
  # would fail, so wait for it instead.
  echo "$APP: deletion already in progress; waiting (at most ${TIMEOUT}s)"
  gone
  exit 0
fi
if jq -e '(.spec.syncPolicy.automated // null) != null and .spec.syncPolicy.automated.enabled != false' "$dir/app.json" >/dev/null; then
  # Self-heal would undo the patches below before the delete lands.
  echo "$APP: switching automated sync off before deleting"
  argocd_call app set "$APP" --sync-policy none
fi

patch() { # kind group namespace name body
  local args=(app patch-resource "$APP" --kind "$1" --group "$2" --resource-name "$4"
    --patch "$5" --patch-type application/merge-patch+json)
  [[ -n $3 ]] && args+=(--namespace "$3")
  argocd_call "${args[@]}"
}
# live succeeds when the resource exists in the cluster. .status.resources
# also lists what Argo CD has not created (a partly deployed app), and
# patching that fails with "no matching resource found". get-resource
# prints nothing, and succeeds, when nothing matches.
live() { # kind namespace name
  argocd_call app get-resource "$APP" --kind "$1" --resource-name "$3" -o json >"$dir/live.json"
  sed '/^---$/d' "$dir/live.json" | jq -s -e --arg ns "$2" 'any(.[]; (.metadata.namespace // "") == $ns)' >/dev/null
}
keep='{"metadata":{"annotations":{"argocd.argoproj.io/sync-options":"Delete=false"}}}'
case $POLICY in
retain) claims=Retain ;;
*) claims=Delete ;;
esac
sts=$(jq -n -c --arg w "$claims" '{spec: {persistentVolumeClaimRetentionPolicy: {whenDeleted: $w}}}')
# Fields are split on the unit separator, not a tab: bash merges runs of
# whitespace separators, so an empty group (core kinds) would vanish.
kept=()
while IFS=$'\x1f' read -r kind group namespace name; do
  case "$group/$kind" in
  /PersistentVolumeClaim | /Namespace)
    if [[ $POLICY == retain ]] && live "$kind" "$namespace" "$name"; then
      echo "$APP: keeping $kind $namespace/$name"
      patch "$kind" "" "$namespace" "$name" "$keep"
      kept+=("$kind"$'\x1f'"$namespace"$'\x1f'"$name")
    fi
    ;;
  apps/StatefulSet)
    if live "$kind" "$namespace" "$name"; then
      echo "$APP: StatefulSet $namespace/$name: claims on delete: $claims"
      patch "$kind" apps "$namespace" "$name" "$sts"
    fi
    ;;
  esac
done < <(jq -r '.status.resources[]? | [.kind, (.group // ""), (.namespace // ""), .name] | join("\u001f")' "$dir/app.json")

# The cascade is decided from the application controller's cache of the
# cluster, not from the API server: deleting before that cache has the
# Delete=false annotation would delete what retain keeps. Wait until
# Argo CD's view of every kept resource carries it.
kept_seen() { # kind namespace name
  argocd_call app get-resource "$APP" --kind "$1" --resource-name "$3" -o json >"$dir/live.json"
  sed '/^---$/d' "$dir/live.json" | jq -s -e --arg ns "$2" \
    'any(.[]; (.metadata.namespace // "") == $ns and ((.metadata.annotations["argocd.argoproj.io/sync-options"] // "") | contains("Delete=false")))' >/dev/null
}
for k in "${kept[@]}"; do
  IFS=$'\x1f' read -r kind namespace name <<<"$k"
  waited=0
  until kept_seen "$kind" "$namespace" "$name"; do
    if ((waited >= 60)); then
      echo "$APP: Argo CD does not yet see $kind $namespace/$name as kept; not deleting" >&2
      exit 1
    fi
    sleep 2
    waited=$((waited + 2))
  done
done

echo "$APP: deleting with cascade (at most ${TIMEOUT}s)"
argocd_call app delete "$APP" --cascade --propagation-policy foreground --yes
gone
echo "$APP: deleted"
