# A stack's timeouts rank below the class, so they cannot cut it short;
# only the app's own timeouts block can.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

stack "data" {
  timeouts {
    sync   = "1m"
    health = "1m"
  }

  app "postgres" {
    namespace = "databases"
    class     = "database-cluster"
  }
}
