package compiler

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// kindPattern is "group/Kind": a DNS subdomain group and a kind name
// (Zalando's postgresql shows kinds need not be capitalised).
var kindPattern = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z][A-Za-z0-9]*$`)

// argoCDNative lists custom resource kinds for which Argo CD v3.5.1 ships a
// health check of its own (resource_customizations/ and Go built-ins; see
// ARGO-NOTES §3). They satisfy INV-7 without a platc rule. Sorted.
var argoCDNative = []string{
	"acid.zalan.do/postgresql",
	"apiextensions.k8s.io/CustomResourceDefinition",
	"apiregistration.k8s.io/APIService",
	"argoproj.io/ApplicationSet",
	"argoproj.io/CronWorkflow",
	"argoproj.io/Rollout",
	"argoproj.io/Workflow",
	"bitnami.com/SealedSecret",
	"ceph.rook.io/CephCluster",
	"ceph.rook.io/CephObjectStore",
	"cert-manager.io/Certificate",
	"cert-manager.io/ClusterIssuer",
	"cert-manager.io/Issuer",
	"external-secrets.io/ClusterExternalSecret",
	"external-secrets.io/ClusterSecretStore",
	"external-secrets.io/ExternalSecret",
	"external-secrets.io/PushSecret",
	"external-secrets.io/SecretStore",
	"helm.toolkit.fluxcd.io/HelmRelease",
	"k8s.keycloak.org/Keycloak",
	"kafka.strimzi.io/Kafka",
	"kafka.strimzi.io/KafkaBridge",
	"kafka.strimzi.io/KafkaConnect",
	"kafka.strimzi.io/KafkaConnector",
	"kafka.strimzi.io/KafkaTopic",
	"kafka.strimzi.io/KafkaUser",
	"keda.sh/ScaledObject",
	"kyverno.io/Policy",
	"minio.min.io/Tenant",
	"monitoring.coreos.com/Prometheus",
	"objectbucket.io/ObjectBucketClaim",
	"pkg.crossplane.io/Provider",
	"postgresql.cnpg.io/Cluster",
	"rabbitmq.com/RabbitmqCluster",
}

// ArgoCDCovers reports whether Argo CD itself ships a health check for kind
// ("group/Kind").
func ArgoCDCovers(kind string) bool {
	_, ok := slices.BinarySearch(argoCDNative, kind)
	return ok
}

// checkKind reports a kind that is not written "group/Kind".
func checkKind(kind string, r hcl.Range) *hcl.Diagnostic {
	if kindPattern.MatchString(kind) {
		return nil
	}
	return diag.Error(r, "Invalid resource kind",
		fmt.Sprintf("%q is not a kind of the form \"GROUP/Kind\", such as \"ceph.rook.io/CephCluster\". Use the API group (without version) and the kind.", kind))
}

// healthRules indexes the platform's health blocks by kind.
func (c *compilation) healthRules() {
	c.health = make(map[string]*lang.Health, len(c.m.Health))
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
	}
}

// coverHealth checks INV-7 for one custom resource and records the rule
// in force for its kind.
func (c *compilation) coverHealth(cr ir.CustomResource, used map[string]bool) {
	key := cr.String()
	if h, ok := c.health[key]; ok {
		if !used[key] {
			used[key] = true
			c.prog.Health = append(c.prog.Health, &ir.HealthRule{Group: cr.Group, Kind: cr.Kind, Origin: ir.HealthUser, DeclRange: h.DeclRange})
		}
		return
	}
	if ArgoCDCovers(key) {
		if !used[key] {
			used[key] = true
			c.prog.Health = append(c.prog.Health, &ir.HealthRule{Group: cr.Group, Kind: cr.Kind, Origin: ir.HealthArgoCD})
		}
		return
	}
	c.diags = append(c.diags, diag.Error(cr.Range, "Custom resource without a health rule",
		fmt.Sprintf("Nothing decides when a resource of kind %s is healthy: neither this platform nor Argo CD has a health check for it, and Argo CD skips kinds without one, so the app would count as Healthy before its %s is ready (INV-7). Add a health %q block with healthy and degraded expressions.", key, cr.Kind, key)))
}

func sortHealth(rules []*ir.HealthRule) {
	slices.SortFunc(rules, func(a, b *ir.HealthRule) int { return strings.Compare(a.Key(), b.Key()) })
}
