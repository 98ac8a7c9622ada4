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
#
# A list of Applications longer than one environment variable may hold
# (128 KiB) comes in chunks. The find-parents step of each chunk
# (FIND_ONLY) lists every project of the platform and writes the parents
# its Applications name outside the chunk (candidates) and those of its
# Applications that manage a listed one (managing); this step then gets
# every chunk's lists (FOUND, MANAGING, arrays of arrays) and suspends the
# candidates no chunk manages: the parents outside the platform, as one
# step over the whole list finds them.
: "${APPLICATIONS:?}" "${PROJECTS:?}"
printf '[]' >"$dir/parents"
candidates='[]'
managing='[]'
while IFS= read -r proj; do
  if ! argocd_call app list -p "$proj" -o json >"$dir/apps.json"; then
    echo "cannot list the Applications of project $proj" >&2
    exit 1
  fi
  # An object, not an array, for the membership test: jq's index on an
  # array is a linear scan, too slow for thousands of names. An
  # Application without the annotation splits "" into no field at all:
  # null, which is no parent.
  jq -c --argjson mine "$APPLICATIONS" --argjson candidates "$candidates" --argjson managing "$managing" '
    ($mine | map({(.): true}) | add // {}) as $set
    | [.[]? | {name: .metadata.name,
        parent: ((.metadata.annotations["argocd.argoproj.io/tracking-id"] // "" | split(":")[0] // "") as $t
          | if $t != "" then $t else (.metadata.labels["app.kubernetes.io/instance"] // "") end)}
      | select(.parent != "")]
    | {candidates: ($candidates + [.[] | select($set[.name]) | .parent | select($set[.] | not)] | unique),
       managing: ($managing + [.[] | .parent | select($set[.])] | unique)}' "$dir/apps.json" >"$dir/found.json"
  candidates=$(jq -c .candidates "$dir/found.json")
  managing=$(jq -c .managing "$dir/found.json")
done < <(jq -r '.[]' <<<"$PROJECTS")
if [[ -n ${FIND_ONLY:-} ]]; then
  printf '%s' "$candidates" >"$dir/candidates"
  printf '%s' "$managing" >"$dir/managing"
  echo "$(jq length <<<"$candidates") possible parent(s) of this chunk's Applications"
  exit 0
fi
if [[ -n ${FOUND:-} ]]; then
  candidates=$(jq -c 'add // []' <<<"$FOUND")
  managing=$(jq -c 'add // []' <<<"${MANAGING:?}")
fi
parents=()
while IFS= read -r parent; do
  [[ -n $parent ]] && parents+=("$parent")
done < <(jq -r --argjson managing "$managing" '. - $managing | .[]' <<<"$candidates")
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
