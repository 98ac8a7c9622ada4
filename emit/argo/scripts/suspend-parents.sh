# suspend-parents: an app-of-apps with automated sync re-creates the
# Applications a teardown deletes (at once with self-heal, at the next
# commit without). Find the Applications that manage this platform's
# Applications (Argo CD's tracking annotation, or the instance label for
# label tracking) and switch those with automated sync to manual. The
# names found are written out so the orphan report can leave them out.
#
# platc's own root app lives in a project the automation account may not
# touch, and has no self-heal, so it is reported rather than changed. Only
# a parent the account can read and that would heal itself is a reason to
# stop.
: "${APPLICATIONS:?}" "${PROJECTS:?}"
printf '[]' >"$dir/parents"
parents=()
while IFS= read -r proj; do
  if ! argocd_call app list -p "$proj" -o json >"$dir/apps.json"; then
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
    | select(. != "" and (. as $p | $mine | index($p) | not))' "$dir/apps.json")
done < <(jq -r '.[]' <<<"$PROJECTS")
if ((${#parents[@]} == 0)); then
  echo "no Application manages this platform's Applications"
  exit 0
fi
mapfile -t parents < <(printf '%s\n' "${parents[@]}" | sort -u)
printf '%s\n' "${parents[@]}" | jq -R . | jq -s -c . >"$dir/parents"
for parent in "${parents[@]}"; do
  if ! argocd_call app get "$parent" -o json >"$dir/parent.json" 2>"$dir/parent.err"; then
    echo "warning: $parent manages platform Applications but this account cannot read it; if it syncs automatically it may re-create what this teardown deletes" >&2
    continue
  fi
  automated=$(jq -r 'if (.spec.syncPolicy.automated // null) == null or .spec.syncPolicy.automated.enabled == false then "no"
    elif .spec.syncPolicy.automated.selfHeal == true then "self-heal" else "yes" end' "$dir/parent.json")
  case $automated in
  no)
    echo "$parent manages platform Applications and syncs manually already"
    ;;
  self-heal)
    echo "$parent manages platform Applications and heals itself; switching it to manual sync"
    argocd_call app set "$parent" --sync-policy none
    ;;
  *)
    echo "$parent manages platform Applications; switching it to manual sync"
    if ! argocd_call app set "$parent" --sync-policy none; then
      echo "warning: cannot switch $parent to manual sync; a new commit would re-create deleted Applications until it is" >&2
    fi
    ;;
  esac
done
