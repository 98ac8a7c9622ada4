package argo

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
)

// TestStepImage: without platform.workflows.image every step runs the
// image of the platc that generated it, its release tag from the
// Generator the caller passed; a development build names the dev tag and
// says so; the platform's image always wins.
func TestStepImage(t *testing.T) {
	m, diags := lang.Parse("../../examples/platform.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	imageLine := regexp.MustCompile(`(?m)^\s*image: (\S+)$`)
	for _, c := range []struct {
		name     string
		gen      ir.Generator
		override string
		want     string
		warns    bool
	}{
		{name: "release", gen: ir.Generator{Version: "v1.4.2"}, want: "ghcr.io/platc/platc:v1.4.2"},
		{name: "fork", gen: ir.Generator{Version: "v1.4.2", ImageRepository: "ghcr.io/acme/platc"}, want: "ghcr.io/acme/platc:v1.4.2"},
		{name: "git describe", gen: ir.Generator{Version: "v1.4.2-3-g9e35bf7"}, want: "ghcr.io/platc/platc:dev", warns: true},
		{name: "dirty", gen: ir.Generator{Version: "v1.4.2-dirty"}, want: "ghcr.io/platc/platc:dev", warns: true},
		{name: "dev", gen: ir.Generator{Version: "dev"}, want: "ghcr.io/platc/platc:dev", warns: true},
		{name: "no version", want: "ghcr.io/platc/platc:dev", warns: true},
		{name: "platform's image", gen: ir.Generator{Version: "dev"}, override: "registry.example.com/steps:1", want: "registry.example.com/steps:1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, ds := compiler.Compile(m, compiler.Options{Generator: c.gen})
			if ds.HasErrors() {
				t.Fatal(ds.Error())
			}
			if c.override != "" {
				p.Platform.Workflows.Image = c.override
			}
			img, warning := StepImage(p)
			if img != c.want {
				t.Errorf("StepImage = %s, want %s", img, c.want)
			}
			if got := warning != ""; got != c.warns {
				t.Errorf("warning %q, want one: %v", warning, c.warns)
			}
			if c.warns && !strings.Contains(warning, "platform.workflows.image") {
				t.Errorf("the warning does not say how to set an image: %s", warning)
			}
			var images []string
			for path, data := range emitFiles(t, p) {
				for _, m := range imageLine.FindAllSubmatch(data, -1) {
					if string(m[1]) != c.want {
						t.Errorf("%s names image %s, want %s", path, m[1], c.want)
					}
					images = append(images, string(m[1]))
				}
			}
			if len(images) == 0 {
				t.Fatal("no step names an image")
			}
		})
	}
}

// TestReleasePattern pins which versions are releases: the ones the
// release workflow publishes an image for.
func TestReleasePattern(t *testing.T) {
	var rel []string
	for _, v := range []string{"v0.1.0", "v1.22.333", "", "dev", "1.2.3", "v1.2", "v1.2.3-rc.1", "v1.2.3-4-gabcdef0", "v1.2.3-dirty", "v0.0.0-20260101120000-abcdef012345+dirty"} {
		if (ir.Generator{Version: v}).Release() {
			rel = append(rel, v)
		}
	}
	if want := []string{"v0.1.0", "v1.22.333"}; !slices.Equal(rel, want) {
		t.Errorf("releases %q, want %q", rel, want)
	}
}
