// Package safefile reads files whose names come from input platc does not
// control: the platform's .hcl files, the files an HCL attribute names
// (health test objects, hook manifests), manifests found by lint --scan,
// and the executor's KUBECONFIG_PATH and environment file.
//
// Every read is bounded and only regular files are read: a device such as
// /dev/zero, a FIFO or a socket is refused without blocking (the file is
// opened non-blocking and checked with fstat on the open descriptor, so
// what is checked is what is read), and a file larger than the caller's
// limit is refused after reading at most one byte more than the limit.
// ReadInside also keeps a relative path inside a root directory, both as
// written and after symbolic links are resolved, so a committed symlink
// cannot make platc read, and print parts of, a file outside it. A Tree
// does the same for every file of a stranger's tree (platc import), with
// a bound on all it reads too.
//
// It does not decide the limits (each caller knows what its files hold)
// and it does not write files (package emit/write does).
package safefile
