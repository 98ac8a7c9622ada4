platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "metallb" {}  # want `app "metallb" belongs to no stack`

stack "storage" {
  app "ceph-operator" {
    depends_on = [app.metallb]
  }
}
