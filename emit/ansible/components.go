package ansible

import (
	"fmt"
	"strings"
)

// A component is a chart the bootstrap installs: Argo CD, Argo Workflows,
// Argo Events or Sealed Secrets.
// lines joins the lines of a long Jinja expression. Jinja reads the line
// breaks as spaces, and the YAML literal block they turn into keeps every
// line within ansible-lint's 160 columns.
func lines(l ...string) string { return strings.Join(l, "\n") }

type component struct {
	role
	chart string // chart name in its repository
	crds  []string
	// workloads are the kinds whose readiness proves the component runs.
	workloads []string
	// valuesFile means the values come from a file of the generated tree
	// (<prefix>_values_file) rather than a variable (<prefix>_values).
	valuesFile bool
	// extraTests run after the standard tests (Argo CD's version checks).
	extraTests []om
	// extraValidate run after the workloads are ready.
	extraValidate []om
}

func componentDefaults(prefix string) om {
	return om{
		// Helm's own wait for the release's resources.
		{prefix + "_helm_timeout", "10m"},
		// The Validate phase: how long one readiness check waits, and how
		// many times it is tried.
		{prefix + "_validate_timeout", 300},
		{prefix + "_validate_retries", 3},
		{prefix + "_validate_delay", 10},
	}
}

// build fills in the role's single six-phase unit.
func (c component) build() role {
	r := c.role
	v := r.v
	r.defaults = componentDefaults(r.prefix)
	release := om{
		{"release_name", "{{ " + v("release_name") + " }}"},
		{"release_namespace", "{{ " + v("namespace") + " }}"},
	}
	precheck := []om{
		task("Pre-check | Require a pinned chart version", "ansible.builtin.assert", om{
			{"that", []string{
				v("chart_version") + " | length > 0",
				v("chart_version") + " != 'latest'",
			}},
			{"fail_msg", "RFC 6.2.1 forbids unversioned charts; set " + v("chart_version")},
			{"quiet", true},
		}),
		task("Pre-check | Reach the Kubernetes API", "kubernetes.core.k8s_cluster_info", om{{"invalidate_cache", false}},
			kv{"register", v("cluster")}),
		task("Pre-check | List the cluster nodes", "kubernetes.core.k8s_info", om{{"kind", "Node"}},
			kv{"register", v("nodes")}),
		task("Pre-check | Require a Ready node", "ansible.builtin.assert", om{
			{"that", []string{
				lines(v("nodes")+".resources | map(attribute='status.conditions') | flatten",
					"| selectattr('type', 'equalto', 'Ready') | selectattr('status', 'equalto', 'True')",
					"| list | length > 0"),
			}},
			{"fail_msg", "no node of the cluster is Ready"},
			{"quiet", true},
		}),
		task("Pre-check | Look up the existing release", "kubernetes.core.helm_info", release,
			kv{"register", v("previous")}),
	}
	if c.valuesFile {
		precheck = append(precheck,
			task("Pre-check | Find the values file", "ansible.builtin.stat", om{{"path", "{{ " + v("values_file") + " }}"}},
				kv{"register", v("values_stat")}),
			task("Pre-check | Require the values file", "ansible.builtin.assert", om{
				{"that", []string{v("values_stat") + ".stat.exists"}},
				{"fail_msg", "{{ " + v("values_file") + " }} is missing; run platc build"},
				{"quiet", true},
			}))
	}

	helm := release.with(
		kv{"chart_ref", "{{ " + v("chart_ref") + " }}"},
		kv{"chart_version", "{{ " + v("chart_version") + " }}"},
	)
	helm = append(helm, kv{"chart_repo_url", "{{ " + v("chart_repo_url") + " | default(omit, true) }}"})
	helm = append(helm,
		kv{"create_namespace", true},
		// Atomic: a failed install or upgrade is rolled back by Helm
		// itself before the task fails.
		kv{"atomic", true},
		kv{"wait", true},
		// timeout, not wait_timeout: kubernetes.core deprecates the latter.
		kv{"timeout", "{{ " + v("helm_timeout") + " }}"},
		kv{"history_max", 10},
	)
	if c.valuesFile {
		helm = append(helm, kv{"values_files", []string{"{{ " + v("values_file") + " }}"}})
	} else {
		helm = append(helm, kv{"values", "{{ " + v("values") + " }}"})
	}
	apply := []om{task("Apply | Install the "+c.chart+" chart", "kubernetes.core.helm", helm, kv{"register", v("helm")})}

	test := []om{
		task("Test | Read the release back", "kubernetes.core.helm_info", release, kv{"register", v("release")}),
		task("Test | Require the release to be deployed at the pinned version", "ansible.builtin.assert", om{
			{"that", []string{
				v("release") + ".status is defined",
				v("release") + ".status.status | lower == 'deployed'",
				v("release") + ".status.chart == " + v("chart") + " ~ '-' ~ " + v("chart_version"),
			}},
			{"fail_msg", "release {{ " + v("release_name") + " }} is not deployed with chart {{ " + v("chart") + " }}-{{ " + v("chart_version") + " }}"},
			{"quiet", true},
		}),
		task("Test | Read the CRDs the chart installs", "kubernetes.core.k8s_info", om{
			{"api_version", "apiextensions.k8s.io/v1"},
			{"kind", "CustomResourceDefinition"},
			{"name", "{{ " + v("crd") + " }}"},
		},
			kv{"loop", c.crds},
			kv{"loop_control", om{{"loop_var", v("crd")}}},
			kv{"register", v("crds")}),
		task("Test | Require every CRD", "ansible.builtin.assert", om{
			{"that", []string{v("crds") + ".results | rejectattr('resources') | list | length == 0"}},
			{"fail_msg", "missing CRDs: {{ " + v("crds") + ".results | rejectattr('resources') | map(attribute='" + v("crd") + "') | join(', ') }}"},
			{"quiet", true},
		}),
	}
	test = append(test, c.extraTests...)

	var validate []om
	for _, kind := range c.workloads {
		validate = append(validate, task(fmt.Sprintf("Validate | Wait for every %s of the release to be ready", kind), "kubernetes.core.k8s_info", om{
			{"kind", kind},
			{"api_version", "apps/v1"},
			{"namespace", "{{ " + v("namespace") + " }}"},
			{"label_selectors", []string{"app.kubernetes.io/instance={{ " + v("release_name") + " }}"}},
			{"wait", true},
			{"wait_timeout", "{{ " + v("validate_timeout") + " }}"},
		},
			kv{"register", v("ready")},
			kv{"retries", "{{ " + v("validate_retries") + " }}"},
			kv{"delay", "{{ " + v("validate_delay") + " }}"},
			kv{"until", v("ready") + " is succeeded and " + v("ready") + ".resources | length > 0"},
		))
	}
	validate = append(validate, c.extraValidate...)

	changed := v("helm") + " is defined and " + v("helm") + " is changed"
	restore := release.with(
		kv{"chart_ref", "{{ " + v("chart_ref") + " }}"},
		kv{"chart_version", "{{ " + v("previous") + ".status.chart | regex_replace('^' ~ " + v("chart") + " ~ '-', '') }}"},
		kv{"chart_repo_url", "{{ " + v("chart_repo_url") + " | default(omit, true) }}"},
		// kubernetes.core 6 renames status.values to status.release_values.
		kv{"values", "{{ " + v("previous") + ".status.release_values | default(" + v("previous") + ".status['values'], true) | default({}, true) }}"},
		kv{"atomic", true},
		kv{"wait", true},
		kv{"timeout", "{{ " + v("helm_timeout") + " }}"},
	)
	rollback := []om{
		// kubernetes.core.helm has no rollback state and RFC 6.2.1
		// forbids running helm from a shell, so the previous revision is
		// restored by installing its chart version with its values again.
		task("Rollback | Restore the previous release", "kubernetes.core.helm", restore,
			kv{"when", changed + " and " + v("previous") + ".status is defined"}),
		task("Rollback | Remove the release this run installed", "kubernetes.core.helm", release.with(
			kv{"release_state", "absent"},
			kv{"wait", true},
		), kv{"when", changed + " and " + v("previous") + ".status is not defined"}),
	}
	if len(c.workloads) > 0 {
		rollback = append(rollback, task("Rollback | Re-validate the restored release", "kubernetes.core.k8s_info", om{
			{"kind", c.workloads[0]},
			{"api_version", "apps/v1"},
			{"namespace", "{{ " + v("namespace") + " }}"},
			{"label_selectors", []string{"app.kubernetes.io/instance={{ " + v("release_name") + " }}"}},
			{"wait", true},
			{"wait_timeout", "{{ " + v("validate_timeout") + " }}"},
		}, kv{"when", changed + " and " + v("previous") + ".status is defined"}))
	}
	rollback = append(rollback, task("Rollback | Mark the release as rolled back", "ansible.builtin.set_fact", om{
		{v("rolled_back"), true},
	}, kv{"when", changed}))

	r.units = []unit{{
		what:     "Install " + r.title + ", then test and validate it",
		precheck: precheck,
		apply:    apply,
		test:     test,
		validate: validate,
		rollback: rollback,
		result: om{
			{v("chart_deployed"), "{{ " + v("release") + ".status.chart | default('') }}"},
			{v("app_version"), "{{ " + v("release") + ".status.app_version | default('') }}"},
			{v("revision"), "{{ " + v("release") + ".status.revision | default('') }}"},
		},
	}}
	return r
}
