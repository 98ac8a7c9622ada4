# syntax=docker/dockerfile:1.7
#
# The platc executor image (RFC-DEPLOY-0001 section 7.1): platc and every
# tool of RFC 3.2.1 and 3.2.3, so `platc deploy|validate|teardown` needs no
# network at run time beyond the Kubernetes API. The generated workflow
# steps run in this image too (platc step, bash, argocd, jq, coreutils timeout):
# scripts/image-tools.txt lists every tool, and the release workflow
# (.github/workflows/release.yml) checks the published image against it.
#
# Build for both architectures the RFC requires:
#   docker buildx build --platform linux/amd64,linux/arm64 -t REGISTRY/platc:VERSION .
#
# Every version is pinned below; downloads are checked against the
# checksums each project publishes next to its release.

ARG GO_VERSION=1.26.8
ARG DEBIAN=bookworm

# --- platc ---------------------------------------------------------------
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-${DEBIAN} AS platc
ARG TARGETOS=linux
ARG TARGETARCH
ARG VERSION=dev
# The repository the image is pushed to, which platc names as the default
# step image (emit/argo StepImage); empty means ghcr.io/platc/platc.
ARG IMAGE_REPOSITORY=
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.imageRepository=${IMAGE_REPOSITORY}" -o /out/platc ./cmd/platc

# --- CLI tools (RFC 3.2.1, plus the Argo CLIs the workflow steps use) ----
FROM debian:${DEBIAN}-slim AS tools
ARG TARGETARCH
ARG KUBECTL_VERSION=v1.34.1
ARG HELM_VERSION=v3.19.0
ARG KUBESEAL_VERSION=0.32.2
ARG YQ_VERSION=v4.47.2
ARG ARGOCD_VERSION=v3.2.6
ARG ARGO_VERSION=v3.7.18
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl && rm -rf /var/lib/apt/lists/*
WORKDIR /dl
SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
RUN curl -fsSLO "https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/linux/${TARGETARCH}/kubectl" \
 && curl -fsSL "https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/linux/${TARGETARCH}/kubectl.sha256" | sed 's/$/  kubectl/' | sha256sum -c - \
 && install -m 0755 kubectl /usr/local/bin/kubectl
RUN f="helm-${HELM_VERSION}-linux-${TARGETARCH}.tar.gz" \
 && curl -fsSLO "https://get.helm.sh/$f" && curl -fsSLO "https://get.helm.sh/$f.sha256sum" && sha256sum -c "$f.sha256sum" \
 && tar -xzf "$f" && install -m 0755 "linux-${TARGETARCH}/helm" /usr/local/bin/helm
RUN f="kubeseal-${KUBESEAL_VERSION}-linux-${TARGETARCH}.tar.gz" \
 && curl -fsSLO "https://github.com/bitnami-labs/sealed-secrets/releases/download/v${KUBESEAL_VERSION}/$f" \
 && curl -fsSL "https://github.com/bitnami-labs/sealed-secrets/releases/download/v${KUBESEAL_VERSION}/sealed-secrets_${KUBESEAL_VERSION}_checksums.txt" | grep " $f\$" | sha256sum -c - \
 && tar -xzf "$f" kubeseal && install -m 0755 kubeseal /usr/local/bin/kubeseal
RUN f="yq_linux_${TARGETARCH}" \
 && curl -fsSLO "https://github.com/mikefarah/yq/releases/download/${YQ_VERSION}/$f" \
 && curl -fsSL "https://github.com/mikefarah/yq/releases/download/${YQ_VERSION}/checksums-bsd" | grep "^SHA256 ($f) " | sed -E 's/^SHA256 \((.*)\) = (.*)$/\2  \1/' | sha256sum -c - \
 && install -m 0755 "$f" /usr/local/bin/yq
RUN f="argocd-linux-${TARGETARCH}" \
 && curl -fsSLO "https://github.com/argoproj/argo-cd/releases/download/${ARGOCD_VERSION}/$f" \
 && curl -fsSL "https://github.com/argoproj/argo-cd/releases/download/${ARGOCD_VERSION}/cli_checksums.txt" | grep " $f\$" | sha256sum -c - \
 && install -m 0755 "$f" /usr/local/bin/argocd
RUN f="argo-linux-${TARGETARCH}.gz" \
 && curl -fsSLO "https://github.com/argoproj/argo-workflows/releases/download/${ARGO_VERSION}/$f" \
 && curl -fsSL "https://github.com/argoproj/argo-workflows/releases/download/${ARGO_VERSION}/argo-workflows-cli-checksums.txt" | grep " $f\$" | sha256sum -c - \
 && gunzip "$f" && install -m 0755 "argo-linux-${TARGETARCH}" /usr/local/bin/argo

# --- Ansible (RFC 3.2.1-3.2.3) in a virtualenv ---------------------------
FROM debian:${DEBIAN}-slim AS ansible
ARG ANSIBLE_CORE_VERSION=2.17.14
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/ansible \
 && /opt/ansible/bin/pip install --no-cache-dir \
      "ansible-core==${ANSIBLE_CORE_VERSION}" "kubernetes==33.1.0" "openshift==0.13.2" "PyYAML==6.0.2" "jsonpatch==1.33"
COPY .ci/ansible-requirements.yml /tmp/requirements.yml
RUN /opt/ansible/bin/ansible-galaxy collection install -r /tmp/requirements.yml -p /opt/ansible/collections

# --- runtime --------------------------------------------------------------
FROM debian:${DEBIAN}-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      bash coreutils ca-certificates jq python3 git openssh-client \
 && rm -rf /var/lib/apt/lists/*
COPY --from=ansible /opt/ansible /opt/ansible
COPY --from=tools /usr/local/bin/ /usr/local/bin/
COPY --from=platc /out/platc /usr/local/bin/platc
# Non-root. Mount points of RFC 7.1: /platform (the platform checkout),
# /config/environment.yaml, /secrets/.
RUN useradd --uid 65532 --create-home --home-dir /home/platc --shell /usr/sbin/nologin platc \
 && mkdir -p /platform /config /secrets && chown platc /home/platc
ENV PATH=/opt/ansible/bin:/usr/local/bin:/usr/bin:/bin \
    ANSIBLE_COLLECTIONS_PATH=/opt/ansible/collections \
    ANSIBLE_LOCAL_TEMP=/tmp/ansible \
    HOME=/home/platc
USER 65532:65532
WORKDIR /home/platc
# The RFC's entry point is `executor <action>`: the action is the first
# argument, configuration comes from the environment and the mounts.
ENTRYPOINT ["/usr/local/bin/platc"]
CMD ["--help"]
