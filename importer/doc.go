// Package importer is platc import: it reads a repository that deploys a
// platform the way RFC-DEPLOY-0001 section 1.2 describes (an App-of-Apps
// of Argo CD Applications ordered by sync waves and PreSync wait Jobs)
// and writes the same platform in platc's language, with the
// dependencies that the repository implies and a report of everything
// the migration removes, infers or cannot carry over.
//
// What it reads: Applications and ApplicationSets (list and Git
// directory generators are expanded), app-of-apps directories,
// kustomizations (their resources are followed and their namespace
// applied; other transformers are not run), Helm charts, and plain
// manifests with hook Jobs. A local Helm chart, whether it renders
// Applications (the RFC's target-chart pattern) or an app's own
// workloads, is rendered with the Helm SDK, its default values and the
// values the Application passes, as Argo CD would render it. Nothing is
// read from the network: a chart from a Helm repository is imported as a
// source, but its contents are not known.
//
// What it infers, each with evidence (file:line) and a confidence:
//   - wait Jobs and hooks: a Job or hook Pod that waits on something
//     (kubectl wait on an object or CRD, a probe loop on a Service, a
//     wait-for container) becomes an edge to the app whose manifests
//     hold that object, found exactly or, failing that, by namespace;
//   - CRDs: an app that creates custom resources depends on the app
//     whose manifests define their CRD;
//   - sync waves: among the children of one app-of-apps, each depends on
//     the siblings of the nearest lower wave, marked "inferred from waves
//     — review", since waves are a total order, not dependencies.
//
// Stacks come from the hierarchy: an app-of-apps with Applications that
// are not themselves app-of-apps among its children becomes a stack of
// them. The result always compiles: a cycle in the evidence is broken by
// commenting out its weakest edge (a wave-inferred one first) and is
// reported with the evidence of every hop, and Import compiles and lints
// what it wrote before returning it.
//
// What an Application says besides its source is carried over in platc's
// own words (issue 22): several sources and their refs, Helm parameters
// and options, kustomize, directory and plugin options,
// ignoreDifferences, labels, annotations, info, the revision history,
// the resources finalizer, sync retry and managed namespace metadata.
// The compiler judges every such value (trial): an Application platc
// cannot express (a Jsonnet variable that is code rather than JSON data,
// a field the language lacks, a value its grammars refuse) is adopted
// rather than translated: its app has no source, and the Application is
// kept verbatim for the user to keep applying.
package importer
