# Realistic credentials the first version of the rule missed (issue 13),
# and the look-alikes it must keep leaving alone.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
  argocd {
    token_secret {
      name = "platc-argocd-token"
      key  = "token"
    }
  }
}

environment "production" {
  domain        = "prod.example.com"
  smtp_password = "mailpass123"  # want `"smtp_password" holds a literal credential`
  db_password   = "DB_PASSWORD"
}

app "api" {
  namespace = "api"
  source {
    chart    = "api"
    repo_url = "https://charts.example.com"
    version  = "1.2.3"
    helm {
      values = {
        password     = "CORRECTHORSEBATTERYSTAPLE"  # want `"values.password" holds a literal credential`
        rootPassword = "ROOTPASSWORD"  # want `"values.rootPassword" holds a literal credential`
        secret       = "9f86d081884c7d659a2feaa0c55ad015"  # want `"values.secret" holds a literal credential`
        jwtSecret    = "f0e4c2f76c58916ec258f246851bea091d14d4247a2fc3e18694461b1816e13b"  # want `"values.jwtSecret" holds a literal credential`
        apikey       = "a8f5f167f44f4964e6c998dee827110c"  # want `"values.apikey" holds a literal credential`
        redis_url    = "redis://:s3cretpass@redis:6379/0"  # want `"values.redis_url" holds a literal password in a URL`
        connection   = "postgresql://app:Sup3rS3cret@db:5432/app"  # want `"values.connection" holds a literal password in a URL`
        passphrase   = "correct horse battery staple"  # want `"values.passphrase" holds a literal credential`
        db_pwd       = "Zx9!qL2#vT"  # want `"values.db_pwd" holds a literal credential`
        password1    = "Summer2024!"  # want `"values.password1" holds a literal credential`
        passwords = [
          "Welcome1!",  # want `"values.passwords" holds a literal credential`
          "Spring2024!",  # want `"values.passwords" holds a literal credential`
        ]
        encryptionKey  = "MDEyMzQ1Njc4OWFiY2RlZg=="  # want `"values.encryptionKey" holds a literal credential`
        clientSecret   = "8Q~abc.def_ghiJKLmnoPQRstuVWxyz12"  # want `"values.clientSecret" holds a literal credential`
        webhook_secret = "whsec_5f3c9ab2e8d14b7a"  # want `"values.webhook_secret" holds a literal credential`
        slack          = "xoxb-123456789012-abcdefghijkl"  # want `"values.slack" holds a literal Slack token`
        auth = {
          sslPass = "P@ssw0rd!"  # want `"values.auth.sslPass" holds a literal credential`
        }
        env = [
          { name = "DB_PASSWORD", value = "p4ssw0rd-prod" },  # want `"values.env.DB_PASSWORD" holds a literal credential`
          { name = "LOG_LEVEL", value = "debug-verbose" },
        ]
        extraEnv = {
          API_TOKEN = "tok_live_4f9a8b7c6d5e"  # want `"values.extraEnv.API_TOKEN" holds a literal credential`
          NODE_ENV  = "production"
        }

        # Placeholders, references and names of Secrets are how it should
        # be done, and text that only mentions a credential is not one.
        vaultPassword  = "<path:secret/data/api#password>"
        envPassword    = "${env.domain}-is-not-a-secret"
        shellPassword  = "$${DB_PASSWORD}"
        chartToken     = "{{ .Values.global.token }}"
        defaultPass    = "changeme"
        maskedPassword = "********"
        placeholderPwd = "<your-password>"
        passwordSecret = "db-credentials"
        existingSecret = "api-db"
        tokenFromEnv   = "GITHUB_TOKEN"
        passwordEnv    = "DB_PASSWORD"
        bypass         = "enabled-always"
        compass        = "north-east-west"
        checksum       = "9f86d081884c7d659a2feaa0c55ad015"
        passwordPolicy = "at least twelve characters"
        tokenTTL       = "24h-rotating"
      }
    }
  }
}
