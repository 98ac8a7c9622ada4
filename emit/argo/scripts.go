package argo

import (
	"embed"
	"strings"
)

// The step scripts are constant text: the same bytes for every platform.
// Whatever comes from the platform description reaches them only through
// environment variables filled from input parameters, never by splicing
// into the script.
//
//go:embed scripts/*.sh
var scriptFS embed.FS

// script returns scripts/<name>.sh with the prelude inserted after its
// leading comment, which says what the step does.
func script(name string) string {
	prelude, err := scriptFS.ReadFile("scripts/prelude.sh")
	if err != nil {
		panic("emit/argo: missing embedded prelude: " + err.Error())
	}
	body, err := scriptFS.ReadFile("scripts/" + name + ".sh")
	if err != nil {
		panic("emit/argo: missing embedded script " + name + ": " + err.Error())
	}
	lines := strings.SplitAfter(string(body), "\n")
	n := 0
	for n < len(lines) && strings.HasPrefix(lines[n], "#") {
		n++
	}
	return strings.Join(lines[:n], "") + string(prelude) + "\n" + strings.Join(lines[n:], "")
}
