// Package ansible emits generated/<env>/ansible/, the bootstrap of RFC
// 6.2: ansible.cfg, requirements.yml, site.yml, inventories/<env>/ with
// hosts.yml and group_vars/all.yml, and a playbook and a role for each of
// argocd, argo-workflows, argo-events, sealed-secrets and gitops-handoff,
// laid out as RFC 6.2.1 requires.
//
// Every role follows RFC 6.2.1's standards: Helm is the only install
// method (kubernetes.core.helm with a pinned chart version, atomic and
// wait); each unit of work runs its tasks in the six phases Pre-check,
// Apply, Test, Validate, Rollback, Result, with names prefixed by the
// phase; a block runs the first four, a failure runs the rollback (which
// restores the previous release, or removes a new one) and the result
// always records <role>_status (success, failed or rolled_back) before the
// play is stopped; the RFC's dependency chain is declared in meta/main.yml
// and checked again through the status facts. Nothing runs helm or kubectl
// from a shell, sleeps, or ignores an error. gitops-handoff issues the
// automation account's Argo CD token into a Secret without writing it to a
// file, creates the root Application through the argocd-apps chart, waits
// for the deploy WorkflowTemplate and submits the deploy workflow.
//
// The roles, playbooks, site.yml, requirements.yml and the inventory are
// the same for every platform and live as files under files/, embedded
// and written as they are (files/README.md says why each task is as it
// is). Generated from the platform are only ansible.cfg and
// group_vars/all.yml, which holds every value and the list of
// components; Argo CD's chart values are read from ../argocd/values.yaml
// so they exist once. This package does not run Ansible; the executor and
// the README say how to.
package ansible
