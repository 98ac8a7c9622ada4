package compiler

import (
	"fmt"
	"strings"
	"testing"
)

// Every refusal of the Application vocabulary is a diagnostic at the
// value that causes it, with a summary and a detail that says how to fix
// it, and all of them are reported in one run.
func TestApplicationVocabularyErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		// want are "line:col summary" of the expected diagnostics
		// (lines counted in src, after the header), and a phrase of
		// the detail of the first.
		want   []string
		detail string
	}{
		{"unknown ref", `
app "a" {
  namespace = "a"
  source {
    chart    = "a"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
    helm {
      value_files = ["values.yaml", "$value/a.yaml"]
    }
  }
  source {
    ref             = "values"
    repo_url        = "https://git.example.com/values.git"
    target_revision = "v1.0.0"
  }
}`, []string{"9:37 Unknown source ref"}, `The app's refs are values. Use one of them, or add ref = "value"`},
		{"ref without sources", `
app "a" {
  namespace = "a"
  source {
    path = "apps/a"
    helm {
      value_files = ["$values/a.yaml"]
    }
  }
}`, []string{"7:22 Unknown source ref"}, `Add a source block for the repository that holds the file, with ref = "values"`},
		{"only refs", `
app "a" {
  namespace = "a"
  source {
    ref = "values"
  }
}`, []string{"4:3 No source to deploy"}, "Add path or chart to one of them"},
		{"duplicate ref and escaping path", `
app "a" {
  namespace = "a"
  source {
    path = "apps/a"
    ref  = "v"
    helm {
      value_files = ["$v/../x.yaml"]
    }
  }
  source {
    ref = "v"
  }
}`, []string{"8:22 Invalid values file", "12:11 Duplicate source ref"}, "leaves the repository"},
		{"sync wave annotation", `
app "a" {
  namespace = "a"
  annotations = { "argocd.argoproj.io/sync-wave" = "2" }
  source {
    path = "apps/a"
  }
}`, []string{"4:19 Forbidden annotation"}, "RFC 5.4"},
		{"platc label and template", `
app "a" {
  namespace = "a"
  labels    = { "platc.io/app" = "b" }
  info      = { Owner = "{{ .x }}" }
  source {
    path = "apps/a"
  }
}`, []string{"4:17 Forbidden label", "5:25 Invalid value"}, "Choose another key"},
		{"settings without a source", `
app "a" {
  namespace = "a"
  finalizer = "foreground"
  ignore_differences {
    kind          = "Deployment"
    json_pointers = ["/spec/replicas"]
  }
}`, []string{"4:3 Application setting without a source", "5:3 Application setting without a source"}, "Add a source"},
		{"ignore_differences", `
app "a" {
  namespace = "a"
  source {
    path = "apps/a"
  }
  ignore_differences {
    group         = "apps"
    json_pointers = ["spec/replicas"]
  }
  ignore_differences {
    kind = "Deployment"
  }
}`, []string{"7:3 Missing required argument", "9:21 Invalid JSON pointer", "11:3 Empty ignore_differences"}, `"kind" is required`},
		{"conflicting options", `
app "a" {
  namespace = "a"
  source {
    chart    = "a"
    repo_url = "oci://registry.example.com/charts"
    version  = "1.0.0"
    kustomize {
      name_prefix = "x-"
    }
  }
}`, []string{"8:5 Options on a chart source"}, "Use a helm block"},
		{"managed namespace with CreateNamespace=false", `
app "a" {
  namespace = "a"
  source {
    path = "apps/a"
  }
  sync {
    options = ["CreateNamespace=false"]
    managed_namespace_metadata {
      labels = { team = "a" }
    }
  }
}`, []string{"9:5 Managed namespace metadata without CreateNamespace"}, "Remove that option"},
		{"kustomize component outside the repository", `
app "a" {
  namespace = "a"
  source {
    path = "apps/a"
    kustomize {
      components = ["../../../c"]
      patch {}
    }
  }
}`, []string{"7:21 Invalid path", "8:7 Patch needs patch or path"}, "leads outside the repository"},
		{"chart values file outside the chart", `
app "a" {
  namespace = "a"
  source {
    chart    = "a"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
    helm {
      value_files = ["ci/values.yaml", "../values.yaml", "/ci/values.yaml", "/../x.yaml"]
      file_parameter {
        name = "x"
        path = "../x.pem"
      }
    }
  }
}`, []string{"9:40 Invalid values file", "9:77 Invalid values file", "12:16 Invalid path"}, "leaves the chart"},
		{"jsonnet variables", `
app "a" {
  namespace = "a"
  source {
    path = "apps/a"
    directory {
      jsonnet {
        ext_vars = ["x"]
        tlas = {
          "bad-name" = 1
          nested     = { msg = "{{ .x }}" }
          huge       = 1e400
          fine       = { n = 1, s = "text" }
        }
      }
    }
  }
}`, []string{"8:20 Incorrect attribute value type", "10:11 Invalid variable name", "11:24 Invalid Jsonnet variable", "12:24 Number out of range"}, "must be an object of variable names to values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diags := compileErrors(t, tc.src)
			offset := strings.Count(header, "\n")
			var got []string
			for _, d := range diags {
				got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line-offset, d.Subject.Start.Column, d.Summary))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("diagnostics:\n%s\nwant:\n%s\n(%s)", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), diags.Error())
			}
			if len(diags) > 0 && !strings.Contains(diags[0].Detail, tc.detail) {
				t.Errorf("detail %q does not say %q", diags[0].Detail, tc.detail)
			}
		})
	}
}

// Several sources keep their order, and the first is the app's Source.
func TestSources(t *testing.T) {
	p := compile(t, `
app "a" {
  namespace = "a"
  source {
    chart    = "a"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
    helm {
      value_files = ["$values/a.yaml"]
      parameter {
        name  = "list[0]"
        value = "x"
      }
    }
  }
  source {
    ref             = "values"
    repo_url        = "https://git.example.com/values.git"
    target_revision = "v1.0.0"
  }
}`)
	a := p.Apps[0]
	if len(a.Sources) != 2 || a.Source != a.Sources[0] || a.Sources[1].Ref != "values" || a.Sources[1].TargetRevision != "v1.0.0" {
		t.Fatalf("sources: %+v", a.Sources)
	}
	if h := a.Source.Helm; h == nil || h.ValueFiles[0] != "$values/a.yaml" || h.Parameters[0].Name != "list[0]" {
		t.Errorf("helm: %+v", a.Source.Helm)
	}
}
