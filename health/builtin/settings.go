package builtin

// Setting is an environment attribute that tunes a built-in rule. Rules
// read it as env.<Name>; the compiler checks its value.
type Setting struct {
	Name    string
	Values  []string
	Default string
	// Kind is the rule that reads the setting.
	Kind string
	Doc  string
}

// Settings lists every setting of the library.
var Settings = []Setting{
	{
		Name:    "ceph_health_warn",
		Values:  []string{"progressing", "healthy", "degraded"},
		Default: "progressing",
		Kind:    "ceph.rook.io/CephCluster",
		Doc: "What Ceph's HEALTH_WARN means for a CephCluster: \"progressing\" (the default) waits for HEALTH_OK, " +
			"\"healthy\" accepts warnings (small and lab clusters that sit in HEALTH_WARN for good), " +
			"\"degraded\" treats them as failures, as Argo CD's own check does.",
	},
}
