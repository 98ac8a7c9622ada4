# orphan-report: after every platform Application is deleted, list what
# is left in the platform's projects, apart from IGNORE (the app-of-apps
# found by suspend-parents) and KEEP (the Application that delivers these
# templates). Exits 1 if a platform Application
# is still there (something re-created it), 2 if other Applications
# remain (orphans, as the executor's exit code 2 means), 0 when clean.
# The list is written as an output parameter either way.
#
# A list of Applications longer than one environment variable may hold
# (128 KiB) comes in chunks: the orphan-rows step of each chunk (ROWS_ONLY)
# lists what is left and writes it, each marked platform when it is one of
# the chunk's Applications; this step then gets every chunk's rows (ROWS,
# an array of arrays) and marks an Application platform when any chunk
# did, as one step over the whole list would.
: "${APPLICATIONS:?}" "${PROJECTS:?}"
printf '[]' >"$dir/orphans"
if [[ -n ${ROWS:-} ]]; then
  jq -c 'add // [] | group_by([.project, .application]) | map(.[0] + {platform: any(.[]; .platform)})' <<<"$ROWS" >"$dir/rows.json"
else
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
  jq -R -s -c --argjson mine "$APPLICATIONS" '
    ($mine | map({(.): true}) | add // {}) as $set
    | split("\n") | map(select(. != "") | split("\t") | {project: .[0], application: .[1]})
    | map(. + {platform: ($set[.application] == true)})' "$dir/left.tsv" >"$dir/rows.json"
fi
if [[ -n ${ROWS_ONLY:-} ]]; then
  cp "$dir/rows.json" "$dir/rows"
  echo "$(jq length "$dir/rows.json") Application(s) left in the platform's projects"
  exit 0
fi
: "${IGNORE:?}" "${KEEP:?}"
jq -c --argjson ignore "$IGNORE" --argjson keep "$KEEP" '
  map(select(.application as $a | $ignore + $keep | index($a) | not))' "$dir/rows.json" >"$dir/orphans"
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
