// Package config turns the executor's inputs into one checked Config:
// the environment variables of RFC-DEPLOY-0001 section 7.1 (or the flags
// that mirror them), the kubeconfig, the mounted /config/environment.yaml
// of section 7.4, and the platform source itself, compiled for the chosen
// environment with the environment file's values in force.
//
// Every problem is collected, so one run tells the operator everything
// that is wrong with the invocation; the command turns them into exit
// code 3. Load touches no network and no cluster: whether the kubeconfig's
// server answers is Phase 0's business (package preflight).
//
// Credentials are read here and nowhere else. Problems never quote them,
// and Config.Secrets lists the values the logger must redact.
package config
