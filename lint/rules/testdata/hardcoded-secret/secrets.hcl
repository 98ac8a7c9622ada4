platform "acme" {
  git {
    repo_url = "https://deploy:s3cr3t-pass@git.example.com/platform.git"  # want `"repo_url" holds a literal password in a URL`
    revision = "v1.0.0"
  }
}

environment "production" {
  domain      = "prod.example.com"
  db_password = "Tr0ub4dor&3"  # want `"db_password" holds a literal credential`
}

app "harbor" {
  namespace = "harbor"
  source {
    chart    = "harbor"
    repo_url = "https://helm.goharbor.io"
    version  = "1.15.1"
    helm {
      values = {
        harborAdminPassword = "Harbor12345"  # want `"values.harborAdminPassword" holds a literal credential`
        existingSecretAdminPassword = "harbor-admin"
        adminPasswordSecretName     = "Adm1n_Pa55"  # want `"values.adminPasswordSecretName" holds a literal credential`
        database = {
          external = {
            password       = "hunter2hunter2"  # want `"values.database.external.password" holds a literal credential`
            existingSecret = "harbor-database"
            sslmode        = "require"
          }
        }
        core = {
          secret       = "not-a-dns-name_ButAValue!"  # want `"values.core.secret" holds a literal credential`
          secretName   = "harbor-core-tls"
          tokenSecret  = "harbor-core-token"
          xsrfKey      = "short"
        }
        "registry" = {
          "credentials" = { "password" = "<path:secret/data/harbor#registry>" }
        }
        notary = {
          # want +1 `"values.notary.privateKey" holds a literal private key`
          privateKey = <<-EOT
            -----BEGIN RSA PRIVATE KEY-----
            MIIEpAIBAAKCAQEA7bq2
            -----END RSA PRIVATE KEY-----
          EOT
        }
      }
    }
  }
}

app "backstage" {
  namespace = "backstage"
  source {
    chart    = "backstage"
    repo_url = "https://backstage.github.io/charts"
    version  = "2.1.0"
    helm {
      values = {
        github = {
          token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"  # want `"values.github.token" holds a literal GitHub token`
          tokenFromEnv = "GITHUB_TOKEN"
        }
        aws = {
          accessKeyId = "AKIAIOSFODNN7EXAMPLE"  # want `"values.aws.accessKeyId" holds a literal AWS access key`
        }
        auth = {
          apiToken = "${env.domain}-token"
          password = "short"
        }
        description = "the password is stored in vault; set token via the UI"
      }
    }
  }
}
