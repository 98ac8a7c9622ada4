# suspend-parents: an app-of-apps with automated sync would re-create the
# Applications a teardown deletes. Find the Applications that manage this
# platform's Applications (Argo CD's tracking annotation, or the instance
# label for label tracking) and switch those with automated sync to
# manual. The names found are written out so the orphan report can leave
# them out.
: "${APPLICATIONS:?}" "${PROJECTS:?}"
printf '[]' >/tmp/parents
parents=()
while IFS= read -r proj; do
  if ! argocd_call app list -p "$proj" -o json >/tmp/apps.json; then
    echo "cannot list the Applications of project $proj" >&2
    exit 1
  fi
  while IFS= read -r parent; do
    [[ -n $parent ]] && parents+=("$parent")
  done < <(jq -r --argjson mine "$APPLICATIONS" '
    .[]? | select(.metadata.name as $n | $mine | index($n))
    | (.metadata.annotations["argocd.argoproj.io/tracking-id"] // "" | split(":")[0])
      as $tracked
    | if $tracked != "" then $tracked else (.metadata.labels["app.kubernetes.io/instance"] // "") end
    | select(. != "" and (. as $p | $mine | index($p) | not))' /tmp/apps.json)
done < <(jq -r '.[]' <<<"$PROJECTS")
if ((${#parents[@]} == 0)); then
  echo "no Application manages this platform's Applications"
  exit 0
fi
mapfile -t parents < <(printf '%s\n' "${parents[@]}" | sort -u)
printf '%s\n' "${parents[@]}" | jq -R . | jq -s -c . >/tmp/parents
for parent in "${parents[@]}"; do
  argocd_call app get "$parent" -o json >/tmp/parent.json
  if jq -e '(.spec.syncPolicy.automated // null) == null or .spec.syncPolicy.automated.enabled == false' /tmp/parent.json >/dev/null; then
    echo "$parent manages platform Applications and has manual sync already"
  else
    echo "$parent manages platform Applications; switching it to manual sync so it does not re-create them"
    argocd_call app set "$parent" --sync-policy none
  fi
done
