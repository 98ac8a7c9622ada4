#!/usr/bin/env bash
# Builds the binaries of platc's end-to-end environment (e2e/) from the Go
# module proxy, once, into a cache outside the repository, and prints the
# directory that holds them (one name per component, as e2e/ expects).
#
#   .ci/e2e/build.sh [kube|kwok|argo-workflows|argocd|helm|kubeseal|yq ...]
#
# (default: all). Each component is its own wrapper module under .ci/e2e/
# and is cached under a key made of its go.mod and go.sum, so a version
# bump rebuilds only that component. Cold, on a loaded 2-core machine:
# kube (apiserver, controller-manager, scheduler, kubectl) about 9
# minutes, kwok 2, workflow-controller 5, argocd 6, helm, kubeseal and
# yq about 2 each. Progress goes to stderr, the directory to stdout.
# Beside it, src/ links the module sources whose CRDs and fixtures the
# environment applies (Argo CD, Argo Workflows, Argo Events, kwok).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache="${PLATC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/platc}"
mkdir -p "$cache/e2e"

components=("$@")
[ ${#components[@]} -gt 0 ] || components=(kube kwok argo-workflows argocd helm kubeseal yq)

key() { cat "$here/$1/go.mod" "$here/$1/go.sum" | sha256sum | cut -c1-16; }

# version MODULE: the version of MODULE the wrapper selects, without "v".
version() { (cd "$here/$1" && go list -m -f '{{.Version}}' "$2" | sed 's/^v//'); }

# build COMPONENT OUT PKG LDFLAGS: go build into OUT.tmp, then rename, so an
# interrupted build never leaves a binary the cache check would trust.
build() {
	local dir=$1 out=$2 pkg=$3 ldflags=$4 start=$SECONDS
	echo "building $(basename "$out") from .ci/e2e/$dir" >&2
	(cd "$here/$dir" && go build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg")
	mv "$out.tmp" "$out"
	echo "built $(basename "$out") in $((SECONDS - start))s" >&2
}

bin="$cache/e2e/bin"
srcdir="$cache/e2e/src"
mkdir -p "$bin" "$srcdir"

# src COMPONENT MODULE NAME: link the module's source (in the module
# cache, downloaded by the build) as src/NAME.
src() { ln -sfn "$(cd "$here/$1" && go list -m -f '{{.Dir}}' "$2")" "$srcdir/$3"; }
for c in "${components[@]}"; do
	k=$(key "$c")
	d="$cache/e2e/$c-$k"
	mkdir -p "$d"
	case $c in
	kube)
		v=$(version kube k8s.io/kubernetes)
		# Stamp the version the way Kubernetes' own build does; a plain
		# go build reports v0.0.0-master.
		lf="-X k8s.io/component-base/version.gitVersion=v$v -X k8s.io/component-base/version.gitMajor=${v%%.*} -X k8s.io/component-base/version.gitMinor=$(echo "$v" | cut -d. -f2)"
		for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
			[ -x "$d/$cmd" ] || build kube "$d/$cmd" "k8s.io/kubernetes/cmd/$cmd" "$lf"
			ln -sf "$d/$cmd" "$bin/$cmd"
		done
		;;
	kwok)
		v=$(version kwok sigs.k8s.io/kwok)
		[ -x "$d/kwok" ] || build kwok "$d/kwok" sigs.k8s.io/kwok/cmd/kwok ""
		ln -sf "$d/kwok" "$bin/kwok"
		src kwok sigs.k8s.io/kwok kwok
		;;
	argo-workflows)
		v=$(version argo-workflows github.com/argoproj/argo-workflows/v3)
		p=github.com/argoproj/argo-workflows/v3
		[ -x "$d/workflow-controller" ] || build argo-workflows "$d/workflow-controller" "$p/cmd/workflow-controller" \
			"-X $p.version=v$v -X $p.gitTag=v$v -X $p.gitTreeState=clean"
		ln -sf "$d/workflow-controller" "$bin/workflow-controller"
		src argo-workflows "$p" argo-workflows
		;;
	argocd)
		v=$(version argocd github.com/argoproj/argo-cd/v3)
		p=github.com/argoproj/argo-cd/v3/common
		# GetVersion reports gitTag only with a commit and a clean tree;
		# the proxy's .info names the tag's commit.
		commit=$(cd "$here/argocd" && go mod download -json "github.com/argoproj/argo-cd/v3@v$v" | sed -n 's/.*"Hash": "\([0-9a-f]*\)".*/\1/p' | head -1)
		[ -x "$d/argocd" ] || build argocd "$d/argocd" github.com/argoproj/argo-cd/v3/cmd \
			"-X $p.version=$v -X $p.gitTag=v$v -X $p.gitCommit=${commit:-0000000000000000000000000000000000000000} -X $p.gitTreeState=clean"
		# The multi-call binary picks its role from the name it runs under.
		for role in argocd argocd-server argocd-repo-server argocd-application-controller; do
			ln -sf "$d/argocd" "$bin/$role"
		done
		src argocd github.com/argoproj/argo-cd/v3 argo-cd
		# Argo Events' CRDs, at the version platc's own go.mod names.
		# go list -m reports no directory for a module not yet downloaded.
		ln -sfn "$(cd "$here/../.." && go mod download github.com/argoproj/argo-events && go list -m -f "{{.Dir}}" github.com/argoproj/argo-events)" "$srcdir/argo-events"
		;;
	helm)
		v=$(version helm helm.sh/helm/v3)
		[ -x "$d/helm" ] || build helm "$d/helm" helm.sh/helm/v3/cmd/helm \
			"-X helm.sh/helm/v3/internal/version.version=v$v -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
		ln -sf "$d/helm" "$bin/helm"
		;;
	kubeseal)
		v=$(version kubeseal github.com/bitnami-labs/sealed-secrets)
		[ -x "$d/kubeseal" ] || build kubeseal "$d/kubeseal" github.com/bitnami-labs/sealed-secrets/cmd/kubeseal \
			"-X main.VERSION=$v"
		ln -sf "$d/kubeseal" "$bin/kubeseal"
		;;
	yq)
		[ -x "$d/yq" ] || build yq "$d/yq" github.com/mikefarah/yq/v4 ""
		ln -sf "$d/yq" "$bin/yq"
		;;
	*)
		echo "unknown component $c (kube, kwok, argo-workflows, argocd, helm, kubeseal, yq)" >&2
		exit 3
		;;
	esac
done
echo "$bin"
