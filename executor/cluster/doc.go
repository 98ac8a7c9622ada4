// Package cluster is the executor's only way to the Kubernetes API: a
// typed client for core and authorization objects, a dynamic client for
// Argo's custom resources (Workflows, WorkflowTemplates, Applications),
// and a bound on every call so an unreachable API server fails within
// seconds instead of hanging.
//
// Argo CD Applications are read as unstructured objects on purpose: the
// executor needs four status fields, and importing Argo CD's Go module for
// them would pull in most of Argo CD. Workflows are decoded into Argo
// Workflows' own v1alpha1 types, the same types the emitter builds them
// with.
//
// It holds no state between calls and never caches: the cluster is the
// source of truth (RFC 7.3).
package cluster
