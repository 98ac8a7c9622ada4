# Edges from a stack's depends_on count like any other edge. A stack's
# element is reported only when it is redundant for every app of the
# stack; an app's own element that repeats its stack's is reported on
# the app.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

stack "infrastructure" {
  app "metallb" {}
  app "cert-manager" {}
}

stack "storage" {
  depends_on = [stack.infrastructure]

  app "ceph-operator" {
    # Already given by the stack's depends_on.
    depends_on = [app.metallb]  # want `dependency on app.metallb is already given by stack.infrastructure in the depends_on of stack "storage"`
  }

  # Reaches infrastructure through ceph-operator as well, but the stack's
  # element is needed for ceph-operator, so it stays.
  app "ceph-cluster" {
    depends_on = [app.ceph-operator]
  }
}

# Every app of "backup" already reaches metallb through ceph-cluster, so
# the stack's own app.metallb is redundant.
stack "backup" {
  depends_on = [app.ceph-cluster, app.metallb]  # want `dependency on app.metallb is already implied for every app of stack "backup"`

  app "velero" {}
  app "snapshot-controller" {}
}

# A whole-stack reference that adds nothing.
app "harbor" {
  depends_on = [app.ceph-cluster, stack.infrastructure]  # want `dependency on stack.infrastructure is already implied by app.ceph-cluster`
}

# stack.storage says more than app.ceph-cluster, so the app reference is
# the one reported.
app "loki" {
  depends_on = [app.ceph-cluster, stack.storage]  # want `dependency on app.ceph-cluster is already given by stack.storage`
}
