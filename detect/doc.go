// Package detect recognises, in plain manifests, the ways a platform
// orders its apps without a dependency graph: hook annotations, Jobs and
// hook Pods that wait for something another app provides, and sync waves
// on Argo CD Applications.
//
// Two callers share it: the --scan rules of platc lint (undeclared-hook,
// hook-manifest-mismatch, dependency-wait-job, application-sync-wave),
// which report what it finds, and platc import, which turns the same
// findings into dependencies. So a Wait says both where the wait is
// written (for a diagnostic) and what it waits for, as far as the command
// names it (for an edge).
//
// It is a top-level package, not part of lint, for the same reason as
// package manifest: the importer is its main reader, and it imports
// neither lint nor the importer.
//
// It reads manifest.Objects only. It does not know which app owns an
// object or which app provides what a wait names; that is the caller's
// business.
package detect
