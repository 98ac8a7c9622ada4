platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
  bootstrap {
    argocd_chart         = "7.7.0"
    workflows_chart      = "0.45.x"  # want `bootstrap workflows_chart version "0.45.x" is a range`
    events_chart         = "v2.4.9"
    sealed_secrets_chart = "2.16.2-rc.1+build.7"
  }
}

stack "infrastructure" {
  app "cert-manager" {
    namespace = "cert-manager"
    source {
      chart    = "cert-manager"
      repo_url = "https://charts.jetstack.io"
      version  = "^1.16.0"  # want `chart "cert-manager" version "\^1.16.0" is a range, not a pinned version`
    }
  }

  app "metallb" {
    namespace = "metallb-system"
    source {
      chart    = "metallb"
      repo_url = "https://metallb.github.io/metallb"
      version  = "latest"  # want `chart "metallb" version "latest" follows the newest release`
    }
  }

  app "ingress-nginx" {
    namespace = "ingress-nginx"
    source {
      chart    = "ingress-nginx"
      repo_url = "https://kubernetes.github.io/ingress-nginx"
      version  = "4.11"  # want `version "4.11" is a partial version`
    }
  }

  app "external-dns" {
    namespace = "external-dns"
    source {
      chart    = "external-dns"
      repo_url = "https://kubernetes-sigs.github.io/external-dns"
      version  = ">= 1.15.0, < 2.0.0"  # want `is a range`
    }
  }

  app "wildcard" {
    namespace = "wildcard"
    source {
      chart    = "podinfo"
      repo_url = "https://stefanprodan.github.io/podinfo"
      version  = "*"  # want `version "\*" follows the newest release`
    }
  }

  # Pinned versions, with and without "v", pre-release and build metadata.
  app "sealed-secrets" {
    namespace = "kube-system"
    source {
      chart    = "sealed-secrets"
      repo_url = "https://bitnami-labs.github.io/sealed-secrets"
      version  = "2.16.2"
    }
  }

  app "rook" {
    namespace = "rook-ceph"
    source {
      chart    = "rook-ceph"
      repo_url = "https://charts.rook.io/release"
      version  = "v1.15.3"
    }
  }

  app "podinfo" {
    namespace = "podinfo"
    source {
      chart    = "podinfo"
      repo_url = "https://stefanprodan.github.io/podinfo"
      version  = "6.7.1-rc.1"
    }
  }

  # A Git path source has no chart version; its revision is another rule's.
  app "manifests" {
    namespace = "manifests"
    source {
      path = "apps/manifests"
    }
  }
}
