package compiler

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/compiler/valid"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/health"
	healthlib "github.com/platc/platc/health/builtin"
	"github.com/platc/platc/lang"
)

// kindName is the Kind of "group/Kind" (Zalando's postgresql shows kinds
// need not be capitalised); the group is a DNS subdomain.
var kindName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)

// argoCDNative maps each custom resource kind for which Argo CD ships a
// health check of its own (argo-cd's resource_customizations/ and its Go
// built-ins, docs/health.md) to the first v3 release that has it, as read from
// argo-cd's module sources v3.0.0 to v3.5.0. Such a kind satisfies INV-7
// without a platc rule, on a platform whose Argo CD has the check.
var argoCDNative = map[string]string{
	"acid.zalan.do/postgresql":                      "v3.0",
	"apiextensions.k8s.io/CustomResourceDefinition": "v3.0",
	"apiregistration.k8s.io/APIService":             "v3.0",
	"argoproj.io/ApplicationSet":                    "v3.0",
	"argoproj.io/CronWorkflow":                      "v3.0",
	"argoproj.io/Rollout":                           "v3.0",
	"argoproj.io/Workflow":                          "v3.0",
	"bitnami.com/SealedSecret":                      "v3.0",
	"ceph.rook.io/CephCluster":                      "v3.3",
	"ceph.rook.io/CephObjectStore":                  "v3.3",
	"cert-manager.io/Certificate":                   "v3.0",
	"cert-manager.io/ClusterIssuer":                 "v3.0",
	"cert-manager.io/Issuer":                        "v3.0",
	"external-secrets.io/ClusterExternalSecret":     "v3.0",
	"external-secrets.io/ClusterSecretStore":        "v3.0",
	"external-secrets.io/ExternalSecret":            "v3.0",
	"external-secrets.io/PushSecret":                "v3.0",
	"external-secrets.io/SecretStore":               "v3.0",
	"helm.toolkit.fluxcd.io/HelmRelease":            "v3.0",
	"k8s.keycloak.org/Keycloak":                     "v3.0",
	"kafka.strimzi.io/Kafka":                        "v3.0",
	"kafka.strimzi.io/KafkaBridge":                  "v3.0",
	"kafka.strimzi.io/KafkaConnect":                 "v3.0",
	"kafka.strimzi.io/KafkaConnector":               "v3.0",
	"kafka.strimzi.io/KafkaTopic":                   "v3.0",
	"kafka.strimzi.io/KafkaUser":                    "v3.0",
	"keda.sh/ScaledObject":                          "v3.0",
	"kyverno.io/Policy":                             "v3.1",
	"minio.min.io/Tenant":                           "v3.0",
	"monitoring.coreos.com/Prometheus":              "v3.0",
	"objectbucket.io/ObjectBucketClaim":             "v3.3",
	"pkg.crossplane.io/Provider":                    "v3.0",
	"postgresql.cnpg.io/Cluster":                    "v3.1",
	"rabbitmq.com/RabbitmqCluster":                  "v3.0",
}

// ArgoCDCovers reports whether Argo CD ships a health check for kind
// ("group/Kind") at version (platform.argocd.version, such as "v3.2.6").
// An empty or unreadable version means a current Argo CD: declare the
// version to have checks only newer releases ship counted as missing.
// since is the first release with the check, or "" when none has one. A
// kind argoCDNative does not date but Argo CD ArgoCDHealthVersion checks
// (argocd-health.txt) counts from that release: platc cannot tell
// whether an older one had it, so it does not assume so.
func ArgoCDCovers(kind, version string) (covers bool, since string) {
	since, ok := argoCDNative[kind]
	if !ok {
		if !pinnedArgoCDCovers(kind) {
			return false, ""
		}
		pin, _ := majorMinor(ArgoCDHealthVersion)
		since = fmt.Sprintf("v%d.%d", pin.major, pin.minor)
	}
	have, okHave := majorMinor(version)
	want, _ := majorMinor(since)
	return !okHave || !have.less(want), since
}

// release is an Argo CD major.minor.
type release struct{ major, minor int }

func (r release) less(o release) bool {
	return r.major < o.major || r.major == o.major && r.minor < o.minor
}

// majorMinor reads "v3.2.6", "3.2" and the like.
func majorMinor(v string) (release, bool) {
	var r release
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(v), "v"), ".", 3)
	if len(parts) < 2 {
		return r, false
	}
	var err1, err2 error
	r.major, err1 = strconv.Atoi(parts[0])
	r.minor, err2 = strconv.Atoi(parts[1])
	return r, err1 == nil && err2 == nil
}

// checkKind reports a kind that is not written "group/Kind".
func checkKind(kind string, r hcl.Range) *hcl.Diagnostic {
	if group, name, ok := strings.Cut(kind, "/"); ok && valid.DNSSubdomain(group) && kindName.MatchString(name) {
		return nil
	}
	return diag.Error(r, "Invalid resource kind",
		fmt.Sprintf("%q is not a kind of the form \"GROUP/Kind\", such as \"ceph.rook.io/CephCluster\". Use the API group (without version) and the kind.", kind))
}

// healthState is what the compiler knows about health rules while it
// lowers one environment.
type healthState struct {
	scope    health.Scope
	user     map[string]*health.Rule // compiled user rules; absent when a rule has errors
	builtins map[string]*health.Rule // built-in rules compiled so far
	used     map[string]bool         // kinds already in Program.Health
}

// scope is what env.* and platform.* are in p's environment, recorded in
// the program for health rules and their tests.
func scope(p *ir.Program) ir.Scope {
	env := map[string]any{"name": p.Env.Name}
	for _, v := range p.Env.Vars {
		if n, err := health.Normalize(v.Value); err == nil && n != nil {
			env[v.Name] = n
		}
	}
	pl := p.Platform
	platform := map[string]any{
		"name": pl.Name,
		"argocd": map[string]any{
			"namespace": pl.ArgoCD.Namespace,
			"project":   pl.ArgoCD.Project,
			"server":    pl.ArgoCD.Server,
			"version":   pl.ArgoCD.Version,
		},
		"workflows": map[string]any{
			"namespace":       pl.Workflows.Namespace,
			"service_account": pl.Workflows.ServiceAccount,
		},
		"git": map[string]any{
			"repo_url": pl.Git.RepoURL,
			"revision": pl.Git.Revision,
			"path":     pl.Git.Path,
		},
	}
	return ir.Scope{Env: env, Platform: platform}
}

// healthRules indexes the platform's health blocks by kind and compiles
// each one for this environment, so expression errors are reported
// whether or not an app uses the kind.
func (c *compilation) healthRules() {
	c.health = make(map[string]*lang.Health, len(c.m.Health))
	c.prog.Scope = scope(c.prog)
	c.hs = &healthState{
		scope:    health.Scope(c.prog.Scope),
		user:     map[string]*health.Rule{},
		builtins: map[string]*health.Rule{},
		used:     map[string]bool{},
	}
	for _, h := range c.m.Health {
		if d := checkKind(h.Kind, h.KindRange); d != nil {
			c.diags = append(c.diags, d)
			continue
		}
		if first, ok := c.health[h.Kind]; ok {
			c.diags = append(c.diags, diag.Error(h.KindRange, "Duplicate health rule",
				fmt.Sprintf("A health rule for %q is already declared at %s. Keep one rule per kind.", h.Kind, diag.At(first.KindRange))))
			continue
		}
		c.health[h.Kind] = h
		names := map[string]hcl.Range{}
		for _, t := range h.Tests {
			if first, ok := names[t.Name]; ok {
				c.diags = append(c.diags, duplicateName("test", t.Name, t.NameRange, first))
				continue
			}
			names[t.Name] = t.NameRange
		}
		r, diags := health.Compile(h, c.hs.scope, health.Options{Origin: "the platform's health rule", Files: c.m.Files})
		c.diags = append(c.diags, diags...)
		if r != nil {
			c.hs.user[h.Kind] = r
		}
		tests, diags := health.Tests(h)
		c.diags = append(c.diags, diags...)
		for _, t := range tests {
			if !c.insidePlatform(filepath.FromSlash(t.Object)) {
				c.diags = append(c.diags, diag.Error(t.Block.Object.Expr.Range(), "Invalid path",
					fmt.Sprintf("%s leads outside the platform directory %s. A test object is relative to the file that declares the test and inside the platform directory, such as \"testdata/ready.yaml\".", t.Object, c.platformDir(h.DeclRange))))
			}
		}
	}
	c.checkHealthSettings()
}

// checkHealthSettings checks the environment attributes that tune
// built-in rules, such as ceph_health_warn.
func (c *compilation) checkHealthSettings() {
	var env *lang.Environment
	for _, e := range c.m.Environments {
		if e.Name == c.prog.Env.Name {
			env = e
			break
		}
	}
	if env == nil {
		return
	}
	for _, s := range healthlib.Settings {
		a, ok := env.Attrs[s.Name]
		if !ok {
			continue
		}
		v, _ := c.prog.Env.Lookup(s.Name)
		if str, ok := v.(string); ok && slices.Contains(s.Values, str) {
			continue
		}
		got := fmt.Sprintf("%v", v)
		if str, ok := v.(string); ok {
			got = fmt.Sprintf("%q", str)
		}
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Invalid health setting",
			fmt.Sprintf("%s tunes the built-in health rule for %s and must be one of %q; got %s. %s", s.Name, s.Kind, s.Values, got, s.Doc)))
	}
}

// coverHealth checks INV-7 for one custom resource and records the rule
// in force for its kind: the platform's own rule, else platc's built-in
// rule, else Argo CD's native check.
func (c *compilation) coverHealth(cr ir.CustomResource, _ map[string]bool) {
	key := cr.String()
	if c.addHealth(cr.Group, cr.Kind) {
		return
	}
	msg := fmt.Sprintf("Nothing decides when a resource of kind %s is healthy: neither this platform, platc's built-in library nor Argo CD has a health check for it, and Argo CD skips kinds without one, so the app would count as Healthy before its %s is ready (INV-7). Add a health %q block with healthy and degraded expressions (see docs/health.md).", key, cr.Kind, key)
	if _, since := ArgoCDCovers(key, ""); since != "" {
		msg = fmt.Sprintf("Nothing decides when a resource of kind %s is healthy: neither this platform nor platc's built-in library has a health check for it, and platc knows of Argo CD's own check only from %s on (this platform declares Argo CD %s, which skips kinds without one), so the app would count as Healthy before its %s is ready (INV-7). Add a health %q block with healthy and degraded expressions (see docs/health.md), or declare an Argo CD release that has the check.", key, since, c.prog.Platform.ArgoCD.Version, cr.Kind, key)
	}
	c.diags = append(c.diags, diag.Error(cr.Range, "Custom resource without a health rule", msg))
}

// addHealth puts the rule in force for group/kind into Program.Health
// (once) and reports whether there is one.
func (c *compilation) addHealth(group, kind string) bool {
	key := group + "/" + kind
	if _, ok := c.health[key]; ok {
		// A user rule with errors covers its kind too; its errors are
		// reported already.
		if r := c.hs.user[key]; r != nil && !c.hs.used[key] {
			c.hs.used[key] = true
			c.prog.Health = append(c.prog.Health, &ir.HealthRule{Group: group, Kind: kind, Origin: ir.HealthUser, Replaces: replaced(key, c.prog.Platform.ArgoCD.Version),
				Lua: r.Lua, UseOpenLibs: r.UseOpenLibs, DeclRange: r.Block.DeclRange})
		}
		return true
	}
	if b := healthlib.Rule(key); b != nil {
		if !c.hs.used[key] {
			r := c.builtinRule(b)
			if r == nil {
				return true
			}
			c.hs.used[key] = true
			c.prog.Health = append(c.prog.Health, &ir.HealthRule{Group: group, Kind: kind, Origin: ir.HealthBuiltIn,
				Lua: r.Lua, UseOpenLibs: r.UseOpenLibs, DeclRange: b.DeclRange})
		}
		return true
	}
	if ok, _ := ArgoCDCovers(key, c.prog.Platform.ArgoCD.Version); ok {
		if !c.hs.used[key] {
			c.hs.used[key] = true
			c.prog.Health = append(c.prog.Health, &ir.HealthRule{Group: group, Kind: kind, Origin: ir.HealthArgoCD})
		}
		return true
	}
	return false
}

// replaced is the check a user rule for key takes the place of: platc's
// built-in rule, else Argo CD's own check in the release the platform
// declares, or any release when it declares none. Lint warns about
// either (health-rule-shadows-builtin).
func replaced(key, argoCDVersion string) ir.HealthOrigin {
	if healthlib.Rule(key) != nil {
		return ir.HealthBuiltIn
	}
	if ok, _ := ArgoCDCovers(key, argoCDVersion); ok {
		return ir.HealthArgoCD
	}
	return ""
}

// builtinRule compiles a built-in rule for this environment. A failure
// is a platc bug (the library's own tests compile every rule), reported
// at the platform block since nothing in the user's files is wrong.
func (c *compilation) builtinRule(h *lang.Health) *health.Rule {
	if r, ok := c.hs.builtins[h.Kind]; ok {
		return r
	}
	r, diags := health.Compile(h, c.hs.scope, health.Options{Origin: "platc's built-in library", Files: healthlib.Files()})
	if diags.HasErrors() {
		subject := hcl.Range{}
		if c.m.Platform != nil {
			subject = c.m.Platform.DeclRange
		}
		c.diags = append(c.diags, diag.Error(subject, "Built-in health rule does not compile",
			fmt.Sprintf("platc's built-in health rule for %s does not compile in environment %q: %s. This is a platc bug; as a workaround, declare your own health %q block.", h.Kind, c.prog.Env.Name, diags.Error(), h.Kind)))
	}
	c.hs.builtins[h.Kind] = r
	return r
}

// finishHealth adds the rules platc always emits (the nested Application
// health of RFC 5.5) and sorts Program.Health by kind.
func (c *compilation) finishHealth(_ map[string]bool) {
	group, kind, _ := strings.Cut(healthlib.ApplicationKind, "/")
	c.addHealth(group, kind)
	slices.SortFunc(c.prog.Health, func(a, b *ir.HealthRule) int { return strings.Compare(a.Key(), b.Key()) })
}
