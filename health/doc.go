// Package health is platc's health language: it checks the expressions of
// a health "GROUP/Kind" block, compiles them to the Lua script Argo CD
// runs for that kind (resource.customizations.health.<group>_<Kind>), and
// evaluates the same expressions in Go over a YAML or JSON object, which
// is what `platc test` and the tests use. The two backends walk one
// checked tree and must agree on every object; the differential and fuzz
// tests hold them to it.
//
// # Outcome
//
// degraded → Degraded, else (with observed_generation, the default) a
// status.observedGeneration below metadata.generation → Progressing with
// GenerationMessage, else healthy → Healthy, else suspended → Suspended,
// else Progressing. The message is the message expression as text, on
// every outcome but the generation one. healthy is required; degraded,
// suspended and message are optional.
//
// # Values
//
// An object is what Argo CD hands Lua: null, bools, numbers (64-bit
// floats), strings, lists and objects. A null list element is dropped and
// an object key with a null value is absent, as in Argo CD (see
// Normalize). Expressions may also read env.* and platform.*, which are
// constants of the environment being compiled.
//
// # Semantics
//
//   - Navigation is null-safe: obj.a.b, obj.a["b-c"] and obj.list[0] are
//     null when anything on the way is missing or of the wrong kind. List
//     indexes start at 0, as in HCL; the Lua adds 1.
//   - Comparisons: == holds between scalars (strings, numbers, bools) of
//     the same type and value; != holds between scalars that are not ==,
//     so "1" != 1. <, <=, >, >= compare numbers with numbers and strings
//     with strings (byte by byte); nothing is ever converted. Every
//     comparison with null, a list or an object is false, != included:
//     write !(a == b) for "not equal or missing". The one exception is the
//     literal null: x == null and x != null test presence.
//   - Booleans: &&, ||, ! and the condition of c ? a : b count only true
//     as true; null and every non-bool value count as false. Both sides of
//     && and || and both branches of ?: are evaluated (nothing has side
//     effects).
//   - Templates ("a ${x} b", heredocs, %{if}) always give a string. Numbers
//     are written as Lua writes them (FormatNumber), bools as true/false,
//     and null, lists and objects as nothing.
//   - List literals drop null elements, like lists in the object.
//   - Functions: condition(o, type) is the first element of
//     o.status.conditions that is an object whose type equals the string
//     type, or null; contains(list, v) is true when an element == v;
//     length(x) counts list elements, object keys or string bytes, and is
//     0 for anything else; lower(s) and upper(s) are null unless s is a
//     string; startswith(s, p) is false unless both are strings;
//     coalesce(a, ...) is the first argument that is neither null nor "".
//   - No arithmetic, for, splat, object literals, or other functions:
//     each is a diagnostic at its range. Indexes must be constants.
//
// The Lua needs only the libraries Argo CD always opens, except lower,
// upper and startswith, which need the string library: a rule that calls
// them has Rule.UseOpenLibs set, and platc emits the useOpenLibs key for
// its kind. Every generated helper is total, so no object can make a
// script fail.
//
// This package does not decide which rule is in force for a kind (that is
// the compiler, with the built-in library in health/builtin) and does not
// write argocd-cm (emit/argocd).
package health
