package hostile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/lang"
)

// TestAmplification: nothing bounded environments × apps × value size
// (76 KB of HCL wrote 494 MB in 103,600 files; 83 KB took build --check
// to 4.2 GB), and over about 40,000 apps lint passed but build failed
// with an internal error (issue 21). Each is now a located diagnostic
// from the compiler, so lint and build refuse it before anything is
// emitted or written.
func TestAmplification(t *testing.T) {
	envs := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "environment \"e%03d\" {\n  s = format(\"%%10000s\", \"x\")\n}\n", i)
		}
		return b.String()
	}
	apps := func(n int, values string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "app \"a%05d\" {\n  namespace = \"n\"\n  source {\n    chart    = \"c\"\n    repo_url = \"https://charts.example.com\"\n    version  = \"1.0.0\"\n%s  }\n}\n", i, values)
		}
		return b.String()
	}
	platform := `platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}
`
	fifty := "[" + strings.TrimSuffix(strings.Repeat("env.s, ", 50), ", ") + "]"
	for _, c := range []struct {
		name, src, want string
		line            int
	}{
		// The audit's shape: 100 environments × 1,036 apps.
		{"environments × apps", platform + envs(100) + apps(1036, ""), "Platform output too large", 304},
		// 30 environments × 50 apps × 500 KB of values.
		{"environments × values", platform + envs(30) + apps(50, "    helm {\n      values = { v = "+fifty+" }\n    }\n"), "Platform output too large", 0},
		{"20,001 apps", platform + apps(compiler.MaxApps+1, ""), "Too many apps", 8*compiler.MaxApps + 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.src) > 16<<20 {
				t.Fatalf("the platform is %d bytes", len(c.src))
			}
			m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(c.src)}})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			_, diags = compiler.CompileAll(m, compiler.Options{})
			refusedWith(t, diags, c.want)
			for _, d := range diags {
				if d.Summary == c.want {
					if c.line != 0 && d.Subject.Start.Line != c.line {
						t.Errorf("at line %d, want %d", d.Subject.Start.Line, c.line)
					}
					if !strings.Contains(d.Detail, "split the platform") && !strings.Contains(d.Detail, "Split the platform") {
						t.Errorf("no fix in %q", d.Detail)
					}
					t.Logf("%s: %s", d.Subject, d.Detail)
				}
			}
		})
	}
}
