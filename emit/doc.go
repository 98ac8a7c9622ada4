// Package emit is the contract between the compiler's IR and the files
// platc generates: a File is a path and its bytes, an Emitter turns an
// ir.Program into Files, and YAML renders Kubernetes objects the same way
// every time.
//
// Emitters live in sub-packages (emit/argo, emit/argocd, emit/events,
// emit/ansible) and depend only on compiler/ir and this package (and on
// helpers under emit/internal that several emitters share). An
// emitter never reports problems with the user's platform: by the time a
// Program exists the compiler has checked it, so an emitter error is a
// platc bug. Writing files to disk is not done here either; see the build
// command.
package emit
