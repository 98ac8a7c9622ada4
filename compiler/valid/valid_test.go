package valid

import "testing"

func TestNames(t *testing.T) {
	for _, c := range []struct {
		s                          string
		label, subdomain, app, key bool
	}{
		{"web", true, true, true, true},
		{"rook-ceph", true, true, true, true},
		{"0day", true, true, false, true},
		{"a.b", false, true, false, true},
		{"-a", false, false, false, false},
		{"a-", false, false, false, false},
		{"Web", false, false, false, true},
		{"a_b", false, false, false, true},
		{"", false, false, false, false},
		{string(make([]byte, 64)), false, false, false, false},
		{"team.example.com/owner", false, false, false, true},
		{"a/b/c", false, false, false, false},
	} {
		if got := DNSLabel(c.s); got != c.label {
			t.Errorf("DNSLabel(%q) = %v", c.s, got)
		}
		if got := DNSSubdomain(c.s); got != c.subdomain {
			t.Errorf("DNSSubdomain(%q) = %v", c.s, got)
		}
		if got := AppName(c.s); got != c.app {
			t.Errorf("AppName(%q) = %v", c.s, got)
		}
		if got := QualifiedName(c.s); got != c.key {
			t.Errorf("QualifiedName(%q) = %v", c.s, got)
		}
	}
	long := "a"
	for len(long) < 63 {
		long += "a"
	}
	if !DNSLabel(long) || DNSLabel(long+"a") || !DNSSubdomain(long+"."+long) {
		t.Error("length limits: a label is at most 63 characters, a subdomain 253")
	}
	if LabelValue("") || !LabelValue("payments") || LabelValue("a b") {
		t.Error("LabelValue")
	}
}

func TestSemver(t *testing.T) {
	for s, want := range map[string]bool{
		"1.2.3": true, "v1.2.3": true, "1.2.3-rc.1": true, "1.2.3+build.5": true, "0.0.0": true,
		"1.2": false, "1": false, "^1.2": false, "latest": false, "1.2.x": false, "vv1.2.3": false,
		"01.2.3": false, "1.2.3-": false, "1.2.3-a..b": false, "1.2.3-01": false, " 1.2.3": false,
	} {
		if got := Semver(s); got != want {
			t.Errorf("Semver(%q) = %v, want %v", s, got, want)
		}
	}
}
