# orphan-report: after every platform Application is deleted, list what
# is left in the platform's projects, apart from IGNORE (the app-of-apps
# found by suspend-parents) and KEEP (the Application that delivers these
# templates). Exits 1 if a platform Application
# is still there (something re-created it), 2 if other Applications
# remain (orphans, as the executor's exit code 2 means), 0 when clean.
# The list is written as an output parameter either way.
: "${APPLICATIONS:?}" "${PROJECTS:?}" "${IGNORE:?}" "${KEEP:?}"
printf '[]' >"$dir/orphans"
: >"$dir/left.tsv"
while IFS= read -r proj; do
  if ! names=$(argocd_call app list -p "$proj" -o name); then
    echo "cannot list the Applications of project $proj" >&2
    exit 1
  fi
  while IFS= read -r name; do
    [[ -n $name ]] && printf '%s\t%s\n' "$proj" "${name##*/}" >>"$dir/left.tsv"
  done <<<"$names"
done < <(jq -r '.[]' <<<"$PROJECTS")
jq -R -s -c --argjson mine "$APPLICATIONS" --argjson ignore "$IGNORE" --argjson keep "$KEEP" '
  split("\n") | map(select(. != "") | split("\t") | {project: .[0], application: .[1]})
  | map(select(.application as $a | $ignore + $keep | index($a) | not))
  | map(. + {platform: (.application as $a | $mine | index($a) != null)})' "$dir/left.tsv" >"$dir/orphans"
if jq -e 'map(select(.platform)) | length > 0' "$dir/orphans" >/dev/null; then
  echo "platform Applications still exist after teardown:" >&2
  jq -r '.[] | select(.platform) | "  \(.project)/\(.application)"' "$dir/orphans" >&2
  exit 1
fi
if jq -e 'length > 0' "$dir/orphans" >/dev/null; then
  echo "orphans: Applications left in the platform's projects that the platform does not declare:"
  jq -r '.[] | "  \(.project)/\(.application)"' "$dir/orphans"
  exit 2
fi
echo "no orphans: the platform's projects hold no Applications"
