package english

import "testing"

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{0, "app", "apps"}, {1, "app", "app"}, {2, "app", "apps"},
		{1, "dependency", "dependency"}, {2, "dependency", "dependencies"},
		{2, "day", "days"}, {2, "y", "ys"}, {3, "Application", "Applications"},
	} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if got := Count(3, "wave"); got != "3 waves" {
		t.Errorf("Count(3, wave) = %q", got)
	}
}

func TestList(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"},
	} {
		if got := List(c.in); got != c.want {
			t.Errorf("List(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAgree(t *testing.T) {
	for n, want := range map[int]string{0: "them", 1: "it", 2: "them"} {
		if got := Agree(n, "it", "them"); got != want {
			t.Errorf("Agree(%d) = %q, want %q", n, got, want)
		}
	}
}
