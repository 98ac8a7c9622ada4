// Package preflight is Phase 0 of RFC-DEPLOY-0001 (sections 3.2 and 6.1):
// it checks, without changing anything, that the executor can do its job.
//
//   - Tools: the CLI tools of RFC 3.2.1 at their minimum versions, and the
//     Ansible collections of RFC 3.2.3. A missing or too old tool is an
//     invalid installation (exit 3).
//   - Cluster: the API server answers, accepts the credentials, grants the
//     permissions the action needs (SelfSubjectAccessReview), has Ready
//     nodes (fewer than three workers is a warning) and running CoreDNS
//     pods; and whether Argo CD, Argo Workflows and Argo Events are
//     installed, which decides whether deploy must bootstrap.
//
// Every check reads; none writes. SelfSubjectReview and
// SelfSubjectAccessReview are "create" calls in the API, but they are
// questions, not objects: nothing is stored.
//
// It does not decide exit codes or print reports; the executor does.
package preflight
