# A platc platform, started by platc init. docs/language.md describes
# every block and attribute; examples/platform.hcl is a whole platform.
#
#   platc lint      check it: the compiler's checks, then the lint rules
#   platc plan      the deploy order, waves and critical path
#   platc build     generate Argo CD, Argo Workflows and Ansible files

platform "NAME" {
  # The repository the generated files are committed to, and the fixed
  # revision (a tag or commit) Argo CD deploys them from.
  git {
    repo_url = "https://git.example.com/NAME.git"
    revision = "v0.1.0"
  }
}

# One block per environment; env.domain and the like are read in values.
environment "production" {
  domain = "example.com"
}

# A stack groups apps; depends_on = [stack.base] waits for all of them.
stack "base" {
  app "cert-manager" {
    namespace = "cert-manager"
    # A built-in class: operators get longer sync and health timeouts.
    class = "operator"
    source {
      chart    = "cert-manager"
      repo_url = "https://charts.jetstack.io"
      # An exact version: lint refuses ranges and tags such as "latest".
      version = "v1.16.2"
      helm {
        values = { crds = { enabled = true } }
      }
    }
  }
}

app "ingress-nginx" {
  namespace  = "ingress-nginx"
  depends_on = [stack.base]
  # An app that creates custom resources lists their kinds, such as
  # custom_resources = ["cert-manager.io/Certificate"], so the deploy
  # waits for them to be healthy; platc kinds lists the kinds that need
  # no health block of your own.
  source {
    chart    = "ingress-nginx"
    repo_url = "https://kubernetes.github.io/ingress-nginx"
    version  = "4.11.3"
    helm {
      values = { controller = { ingressClassResource = { default = true } } }
    }
  }
}

# An app from a directory of the platform repository instead of a chart:
#
# app "web" {
#   namespace  = "web"
#   depends_on = [app.ingress-nginx]
#   source {
#     path = "apps/web"
#     helm { values = { host = "web.${env.domain}" } }
#   }
# }
