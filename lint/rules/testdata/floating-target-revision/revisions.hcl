platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "main"  # want `platform git revision "main" is a branch, which moves with every push`
  }
}

app "head" {
  namespace = "head"
  source {
    path            = "apps/head"
    target_revision = "HEAD"  # want `target revision "HEAD" follows the last push`
  }
}

app "heads-ref" {
  namespace = "heads-ref"
  source {
    path            = "apps/heads-ref"
    target_revision = "refs/heads/release"  # want `target revision "refs/heads/release" is a branch`
  }
}

app "feature" {
  namespace = "feature"
  source {
    path            = "apps/feature"
    target_revision = "feature/new-ingress"  # want `target revision "feature/new-ingress" looks like a branch`
  }
}

app "release-branch" {
  namespace = "release-branch"
  source {
    path            = "apps/release-branch"
    target_revision = "release-1.4"  # want `looks like a branch`
  }
}

# Pinned: tags with a full version, tag refs and commit SHAs.
app "tag" {
  namespace = "tag"
  source {
    path            = "apps/tag"
    target_revision = "v1.4.0"
  }
}

app "prefixed-tag" {
  namespace = "prefixed-tag"
  source {
    path            = "apps/prefixed-tag"
    target_revision = "platform-v2.0.1"
  }
}

app "tag-ref" {
  namespace = "tag-ref"
  source {
    path            = "apps/tag-ref"
    target_revision = "refs/tags/stable"
  }
}

app "short-sha" {
  namespace = "short-sha"
  source {
    path            = "apps/short-sha"
    target_revision = "3f2a9c1"
  }
}

app "full-sha" {
  namespace = "full-sha"
  source {
    path            = "apps/full-sha"
    target_revision = "3f2a9c1e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a39"
  }
}

# Inherits the platform revision: reported once, on the platform block.
app "inherits" {
  namespace = "inherits"
  source {
    path = "apps/inherits"
  }
}

# A chart is pinned by its version, not by a revision.
app "chart" {
  namespace = "chart"
  source {
    chart    = "podinfo"
    repo_url = "https://stefanprodan.github.io/podinfo"
    version  = "6.7.1"
  }
}
