// Package luavm runs an Argo CD health script the way Argo CD v3 runs it
// (util/lua in argo-cd): gopher-lua v1.1.2, the standard libraries only
// when useOpenLibs is set, always package, base, table and a safe os, the
// resource as the global obj, a one-second limit, and the returned table
// read through gopher-json into {status, message}.
//
// platc uses it to prove that the Lua it emits behaves as intended: the
// tests run every emitted script on sample objects, and `platc test` runs
// a rule's script next to platc's own evaluation. It is not a general Lua
// sandbox and it does not run action scripts.
package luavm
