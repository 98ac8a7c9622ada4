// Package hostile holds the hostile-input corpus test (hostile_test.go):
// every payload of testdata/hostile/payloads.txt in every field of
// testdata/hostile/platform.hcl, and the crash, overflow, concurrency and
// symlink cases of issue 13, and (import_test.go) the repositories of
// issue 21 that tried to make platc import read outside themselves, from
// devices or from FIFOs, built from testdata/hostile/import. Each case must be refused with a diagnostic
// at the field, or come out of every emitter only as inert data, as
// checked by the real consumers: strict YAML parsing, Argo Workflows'
// validation and template code, Argo CD's Lua VM setup, Ansible's !unsafe,
// and RBAC CSV parsing.
//
// It is test support only; nothing imports it.
package hostile
