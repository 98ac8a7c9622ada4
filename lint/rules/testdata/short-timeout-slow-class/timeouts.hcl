platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

# Overrides a slow built-in class below RFC 3.8.5.
class "database-cluster" {
  timeouts {
    sync   = "10m"  # want `class "database-cluster" cuts the sync timeout to 10m, below the RFC 3.8.5 default of 15m`
    health = "20m"
  }
}

app "ceph-cluster" {
  namespace = "rook-ceph"
  class     = "storage-cluster"
  timeouts {
    sync   = "30m"
    health = "10m"  # want `health timeout 10m is shorter than the 30m of class "storage-cluster"`
  }
}

app "vault" {
  namespace = "vault"
  class     = "vault"
  timeouts {
    sync = "5m"  # want `sync timeout 5m is shorter than the 15m of class "vault"`
  }
}

# Compared with the class as overridden: 12m sync is above the 10m.
app "postgres" {
  namespace = "databases"
  class     = "database-cluster"
  timeouts {
    sync   = "12m"
    health = "15m"  # want `health timeout 15m is shorter than the 20m of class "database-cluster"`
  }
}

# Longer than the class: fine.
app "slow-ceph" {
  namespace = "rook-ceph"
  class     = "storage-cluster"
  timeouts {
    health = "45m"
  }
}

# Not a slow class: an operator may be cut short.
app "operator" {
  namespace = "ops"
  class     = "operator"
  timeouts {
    sync = "2m"
  }
}
