package lang

import "testing"

func TestMisnamed(t *testing.T) {
	for ext, want := range map[string]bool{
		"hlc": true, "hc": true, "hcll": true, "HCL": true, "Hcl": true, "tf": true, "tfvars": true, "jcl": true,
		"md": false, "txt": false, "yaml": false, "yml": false, "json": false, "bak": false, "": false,
	} {
		if got := misnamed(ext) != ""; got != want {
			t.Errorf("misnamed(%q) = %v, want %v", ext, got, want)
		}
	}
}
