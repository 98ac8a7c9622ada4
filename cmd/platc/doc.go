// Command platc compiles a platform description in HCL into the
// artifacts of RFC-DEPLOY-0001 and checks it before anything reaches a
// cluster.
//
// main is a thin wrapper over run(args, stdout, stderr) int so that the
// real binary, testscript tests and in-process tests share one path. This
// package owns flags, output formats and the exit-code policy (DESIGN §5);
// the work itself lives in lang, compiler, plan and report.
package main
