package builtin

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/lang"
)

// files holds the library: one .hcl file per operator, and the sample
// objects its tests read under library/testdata/.
//
//go:embed library
var files embed.FS

// ApplicationKind is the one kind whose rule platc always emits (RFC 5.5).
const ApplicationKind = "argoproj.io/Application"

// parsed is the library as loaded on first use: the module, its rules
// by kind, or why it does not load.
type parsed struct {
	module *lang.Module
	byKind map[string]*lang.Health
}

var loaded = sync.OnceValues(load)

func load() (parsed, error) {
	paths, err := fs.Glob(files, "library/*.hcl")
	if err != nil {
		return parsed{}, err
	}
	slices.Sort(paths)
	var srcs []lang.SourceFile
	for _, p := range paths {
		b, err := files.ReadFile(p)
		if err != nil {
			return parsed{}, err
		}
		srcs = append(srcs, lang.SourceFile{Name: p, Bytes: b})
	}
	m, diags := lang.ParseHealthFiles(srcs)
	if diags.HasErrors() {
		return parsed{}, fmt.Errorf("platc's built-in health library does not parse (a platc bug): %s", diags.Error())
	}
	byKind := make(map[string]*lang.Health, len(m.Health))
	for _, h := range m.Health {
		if _, dup := byKind[h.Kind]; dup {
			return parsed{}, fmt.Errorf("platc's built-in health library has two rules for %s (a platc bug)", h.Kind)
		}
		byKind[h.Kind] = h
	}
	return parsed{module: m, byKind: byKind}, nil
}

// Library returns the parsed library: every built-in rule in Health, in
// file then declaration order, and the source files in Files. An error
// means platc was built with a broken library.
func Library() (*lang.Module, error) {
	l, err := loaded()
	return l.module, err
}

// Rule returns the built-in health block for kind ("group/Kind"), or nil.
func Rule(kind string) *lang.Health {
	l, _ := loaded()
	return l.byKind[kind]
}

// Files returns the library's parsed source files, for quoting the HCL
// in emitted scripts.
func Files() map[string]*hcl.File {
	l, _ := loaded()
	if l.module == nil {
		return nil
	}
	return l.module.Files
}

// ReadFile reads a file of the library, such as a test's sample object
// ("library/testdata/...").
func ReadFile(path string) ([]byte, error) { return files.ReadFile(path) }
