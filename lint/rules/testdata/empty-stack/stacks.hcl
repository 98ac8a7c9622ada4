platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

stack "infrastructure" {  # want `stack "infrastructure" has no apps`
  description = "meant to hold metallb, which was declared outside it"
}

app "metallb" {}

stack "storage" {
  depends_on = [stack.infrastructure]

  app "ceph-operator" {}
}

stack "empty-too" {}  # want `stack "empty-too" has no apps`
