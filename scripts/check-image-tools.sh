#!/usr/bin/env bash
# check-image-tools.sh [LIST]: checks that every tool, Ansible collection
# and Python package of Ansible's interpreter in LIST (default:
# image-tools.txt beside this script) is present at its minimum version,
# prints one line for each, and exits 1 when any is missing, too old or
# unreadable. The release workflow runs it inside the published image; it
# needs only bash and, for collections and packages, ansible-galaxy,
# ansible-playbook and jq (all on the list).
set -euo pipefail

list=${1:-$(dirname "$0")/image-tools.txt}
failed=0

# version_ge A B succeeds when version A is at least B (major.minor[.patch]).
version_ge() {
  local IFS=. i
  local -a a b
  read -r -a a <<<"$1"
  read -r -a b <<<"$2"
  for i in 0 1 2; do
    if ((10#${a[i]:-0} != 10#${b[i]:-0})); then
      ((10#${a[i]:-0} > 10#${b[i]:-0}))
      return
    fi
  done
}

# first_version prints the first N.N or N.N.N in $1, or fails.
first_version() {
  [[ $1 =~ ([0-9]+\.[0-9]+(\.[0-9]+)?) ]] || return 1
  printf '%s\n' "${BASH_REMATCH[1]}"
}

report() { # status name detail
  printf '%-9s %-18s %s\n' "$1" "$2" "$3"
  [[ $1 == ok ]] || failed=1
}

check_tool() { # name minimum command...
  local name=$1 min=$2 out v
  shift 2
  if ! command -v "$name" >/dev/null; then
    report missing "$name" "not on PATH"
    return
  fi
  if [[ $min == - ]]; then
    report ok "$name" "$(command -v "$name") (any version)"
    return
  fi
  # A version command that fails still may have printed its version; the
  # comparison below decides.
  out=$("$@" 2>&1 </dev/null) || true
  if ! v=$(first_version "$out"); then
    report unreadable "$name" "$* printed no version: ${out:0:200}"
  elif version_ge "$v" "$min"; then
    report ok "$name" "$v (at least $min)"
  else
    report too-old "$name" "$v, older than the required $min"
  fi
}

# Installed collections as "name version" lines, from every collection
# path; anything printed before the JSON (a warning) is skipped.
collections=
collections_read=0
installed_collections() {
  local out
  out=$(ansible-galaxy collection list --format json 2>/dev/null </dev/null) || true
  [[ $out == *'{'* ]] || return 1
  jq -r 'to_entries[].value | to_entries[] | "\(.key) \(.value.version)"' <<<"{${out#*\{}"
}

check_collection() { # name minimum
  local name=$1 min=$2 best='' n v
  if ((collections_read == 0)); then
    collections_read=1
    collections=$(installed_collections) || collections='?'
  fi
  if [[ $collections == '?' ]]; then
    report unreadable "$name" "ansible-galaxy collection list --format json printed no JSON"
    return
  fi
  while read -r n v; do
    if [[ $n == "$name" ]] && { [[ -z $best ]] || version_ge "$v" "$best"; }; then
      best=$v
    fi
  done <<<"$collections"
  if [[ -z $best ]]; then
    report missing "$name" "Ansible collection not installed"
  elif version_ge "$best" "$min"; then
    report ok "$name" "$best (at least $min)"
  else
    report too-old "$name" "$best, older than the required $min"
  fi
}

# The interpreter ansible-playbook --version names (the bootstrap's
# modules run on it), and each listed package's version in it as JSON
# ({"name": "version" or null}), the probe Phase 0 runs.
python=
python_read=0
probe='import importlib.metadata as m, json, sys
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = m.version(name)
    except m.PackageNotFoundError:
        out[name] = None
print(json.dumps(out))'

check_python() { # name minimum
  local name=$1 min=$2 out v
  if ((python_read == 0)); then
    python_read=1
    local line re='^python version = .*\((/[^()]*)\)[[:space:]]*$'
    out=$(ansible-playbook --version 2>/dev/null </dev/null) || true
    while read -r line; do
      if [[ $line =~ $re ]]; then python=${BASH_REMATCH[1]}; fi
    done <<<"$out"
  fi
  if [[ -z $python ]]; then
    report unreadable "$name" "ansible-playbook --version named no Python interpreter"
    return
  fi
  out=$("$python" -c "$probe" "$name" 2>/dev/null </dev/null) || true
  if ! v=$(jq -er --arg n "$name" '.[$n] // ""' <<<"$out" 2>/dev/null); then
    report unreadable "$name" "$python could not list its packages"
  elif [[ -z $v ]]; then
    report missing "$name" "Python package not installed in $python"
  elif [[ $min == - ]]; then
    report ok "$name" "$v (any version)"
  elif ! v=$(first_version "$v"); then
    report unreadable "$name" "version $v is not N.N[.N]"
  elif version_ge "$v" "$min"; then
    report ok "$name" "$v (at least $min)"
  else
    report too-old "$name" "$v, older than the required $min"
  fi
}

entries=0
while read -r kind name min _used cmd; do
  case $kind in
  '' | '#'*) continue ;;
  tool)
    # shellcheck disable=SC2086 # the version command is words
    check_tool "$name" "$min" $cmd
    ;;
  collection) check_collection "$name" "$min" ;;
  python) check_python "$name" "$min" ;;
  *)
    report unreadable "$name" "unknown kind $kind in $list"
    ;;
  esac
  entries=$((entries + 1))
done <"$list"

if ((entries == 0)); then
  echo "$list lists nothing" >&2
  exit 1
fi
exit "$failed"
