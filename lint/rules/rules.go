package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lint"
)

// All returns every rule platc has, in the order platc rules lists them:
// platform rules, then the --scan rules, then invalid-suppression.
func All() []*lint.Rule {
	return []*lint.Rule{
		UnpinnedChartVersion,
		FloatingTargetRevision,
		ShortTimeoutSlowClass,
		SlowResourceWithoutClass,
		RedundantDependency,
		AppOutsideStack,
		AdoptedApplication,
		EmptyStack,
		UnusedHealthRule,
		HealthRuleShadowsBuiltin,
		HardcodedSecret,
		UnpinnedStepImage,
		PrivilegedWorkflowAccount,
		CustomBootstrapRepository,
		OpenEventsTrigger,
		PruneOnStatefulApp,
		DeleteVolumesOnStatefulApp,
		SnapshotWithoutController,
		HookManifestMismatch,
		UndeclaredHook,
		DependencyWaitJob,
		ApplicationSyncWave,
		lint.InvalidSuppression,
	}
}

// Lookup returns the rule called name, or nil.
func Lookup(name string) *lint.Rule {
	for _, r := range All() {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Names returns every rule name, sorted.
func Names() []string {
	var names []string
	for _, r := range All() {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	return names
}

// Find returns the rule called name, or an error that says what to
// write instead.
func Find(name string) (*lint.Rule, error) {
	if r := Lookup(name); r != nil {
		return r, nil
	}
	if s := diag.Suggest(name, Names()); s != "" {
		return nil, fmt.Errorf("unknown rule %q. Did you mean %q? Run 'platc rules' for the list.", name, s)
	}
	return nil, fmt.Errorf("unknown rule %q. Run 'platc rules' for the list.", name)
}

// Select returns the rules to run: the default ones, plus enable, minus
// disable, in the order of All. Each list item may hold several names
// separated by commas. An unknown name is an error that says what to
// write instead.
func Select(enable, disable []string) ([]*lint.Rule, error) {
	split := func(list []string) ([]string, error) {
		var out []string
		for _, item := range list {
			for _, name := range strings.Split(item, ",") {
				name = strings.TrimSpace(name)
				if name == "" {
					continue
				}
				if _, err := Find(name); err != nil {
					return nil, err
				}
				out = append(out, name)
			}
		}
		return out, nil
	}
	on, err := split(enable)
	if err != nil {
		return nil, err
	}
	off, err := split(disable)
	if err != nil {
		return nil, err
	}
	var out []*lint.Rule
	for _, r := range All() {
		if (r.Default || slices.Contains(on, r.Name)) && !slices.Contains(off, r.Name) {
			out = append(out, r)
		}
	}
	return out, nil
}

// slowClasses are the built-in classes RFC 3.8.5 gives long timeouts,
// because what they deploy takes long to become healthy and holds data.
var slowClasses = []string{"database-cluster", "storage-cluster", "vault"}

// slowKinds maps custom resource kinds that hold data and take long to
// become healthy to the built-in class whose timeouts suit them.
var slowKinds = map[string]string{
	"acid.zalan.do/postgresql":                          "database-cluster",
	"ceph.rook.io/CephCluster":                          "storage-cluster",
	"ceph.rook.io/CephFilesystem":                       "storage-cluster",
	"ceph.rook.io/CephObjectStore":                      "storage-cluster",
	"kafka.strimzi.io/Kafka":                            "database-cluster",
	"mongodbcommunity.mongodb.com/MongoDBCommunity":     "database-cluster",
	"mysql.oracle.com/InnoDBCluster":                    "database-cluster",
	"postgresql.cnpg.io/Cluster":                        "database-cluster",
	"pxc.percona.com/PerconaXtraDBCluster":              "database-cluster",
	"redis.redis.opstreelabs.in/RedisCluster":           "database-cluster",
	"vault.banzaicloud.com/Vault":                       "vault",
	"rabbitmq.com/RabbitmqCluster":                      "database-cluster",
	"elasticsearch.k8s.elastic.co/Elasticsearch":        "database-cluster",
	"opensearch.opster.io/OpenSearchCluster":            "database-cluster",
	"clickhouse.altinity.com/ClickHouseInstallation":    "database-cluster",
	"cassandra.datastax.com/CassandraDatacenter":        "database-cluster",
	"minio.min.io/Tenant":                               "storage-cluster",
	"k8s.mariadb.com/MariaDB":                           "database-cluster",
	"postgres-operator.crunchydata.com/PostgresCluster": "database-cluster",
}

// stateful reports whether an app holds data: its class is one of the
// slow data classes, or it manages a kind from slowKinds. It returns what
// gave it away, for messages.
func stateful(a *ir.App) (string, bool) {
	if slices.Contains(slowClasses, a.Class) {
		return "class " + quote(a.Class), true
	}
	for _, cr := range a.CustomResources {
		if _, ok := slowKinds[cr.String()]; ok {
			return cr.String(), true
		}
	}
	return "", false
}

// builtinClass returns the RFC 3.8.5 timeouts of a built-in class, as
// the compiler recorded them before the platform's overrides.
func builtinClass(p *ir.Program, name string) (ir.Timeouts, bool) {
	if c := classOf(p, name); c != nil && c.BuiltIn {
		return c.Default, true
	}
	return ir.Timeouts{}, false
}

// classOf returns the resolved class of a program by name.
func classOf(p *ir.Program, name string) *ir.Class {
	for _, c := range p.Classes {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// exprRange is the range of an attribute's value, or of the fallback when
// the attribute is absent.
func exprRange(a *hcl.Attribute, fallback hcl.Range) hcl.Range {
	if a == nil {
		return fallback
	}
	return a.Expr.Range()
}

func quote(s string) string { return strconv.Quote(s) }
