#!/bin/sh
# Builds the directory `make e2e-run CHARTS=<dir>` reads: the upstream
# charts the bootstrap installs, as <chart>-<version>.tgz, packaged by
# Helm from local Git checkouts of their repositories at the release tags.
# Nothing is downloaded: the charts' repositories cannot be reached from
# CI, so this is for a person with the checkouts at hand (clones, or bare
# mirrors; git archive reads either).
#
#   scripts/e2e-charts.sh OUT ARGO_HELM SEALED_SECRETS REDIS_HA
#
# ARGO_HELM is a checkout of github.com/argoproj/argo-helm, SEALED_SECRETS
# of github.com/bitnami-labs/sealed-secrets, REDIS_HA of
# github.com/DandyDeveloper/charts (the argo-cd chart's redis-ha
# dependency, off by default but required to be present by helm install).
# The versions are platc's pins (emit/ansible's defaults); override them
# with ARGO_CD=, ARGO_WORKFLOWS=, ARGO_EVENTS=, ARGOCD_APPS=, SEALED=.
set -eu
if [ $# -ne 4 ]; then
	echo "usage: $0 OUT ARGO_HELM SEALED_SECRETS REDIS_HA" >&2
	exit 3
fi
out=$1 argo_helm=$2 sealed_repo=$3 redis_repo=$4
helm=${HELM:-helm}
: "${ARGO_CD:=9.3.7}" "${ARGO_WORKFLOWS:=0.45.0}" "${ARGO_EVENTS:=2.4.9}" "${ARGOCD_APPS:=2.0.2}" "${SEALED:=2.16.2}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# extract REPO TAG PATH: the tree at PATH of TAG, under $work/TAG.
extract() {
	mkdir -p "$work/$2"
	git -C "$1" archive "$2" "$3" | tar -x -C "$work/$2"
	echo "$work/$2/$3"
}

# The argo-cd chart's Chart.lock names redis-ha; helm install refuses a
# chart whose dependency is missing from charts/, enabled or not, so it
# is packaged in, as in the published archive.
redis_version=$(git -C "$argo_helm" show "argo-cd-$ARGO_CD:charts/argo-cd/Chart.lock" | awk '/name: redis-ha/{f=1} f&&/version:/{print $2; exit}')
redis=$(extract "$redis_repo" "redis-ha-$redis_version" charts/redis-ha)
argocd=$(extract "$argo_helm" "argo-cd-$ARGO_CD" charts/argo-cd)
mkdir -p "$argocd/charts"
"$helm" package "$redis" -d "$argocd/charts" >/dev/null

for c in "argo-cd:$ARGO_CD" "argo-workflows:$ARGO_WORKFLOWS" "argo-events:$ARGO_EVENTS" "argocd-apps:$ARGOCD_APPS"; do
	name=${c%%:*} version=${c#*:}
	dir=$work/argo-cd-$ARGO_CD/charts/argo-cd
	[ "$name" = argo-cd ] || dir=$(extract "$argo_helm" "$name-$version" "charts/$name")
	"$helm" package "$dir" -d "$out"
done
"$helm" package "$(extract "$sealed_repo" "helm-v$SEALED" helm/sealed-secrets)" -d "$out"
ls "$out"
