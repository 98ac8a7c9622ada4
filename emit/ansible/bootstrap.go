package ansible

// The five roles of RFC 6.2.1, in the order site.yml runs them.
func roles() []role {
	return []role{argocdRole(), workflowsRole(), eventsRole(), sealedSecretsRole(), handoffRole()}
}

func argocdRole() role {
	c := component{
		role: role{
			dir: "argocd", prefix: "argocd", title: "Argo CD",
			desc: "Install Argo CD with platc's health checks, automation account and RBAC (RFC 6.2.2 steps 1-3)",
		},
		chart:      "argo-cd",
		crds:       []string{"applications.argoproj.io", "appprojects.argoproj.io", "applicationsets.argoproj.io"},
		workloads:  []string{"Deployment", "StatefulSet"},
		valuesFile: true,
	}
	c.extraTests = []om{
		// The workflows' argocd CLI and the root app's recipe are built for
		// the declared version; a chart that ships another one is caught
		// here, before anything depends on it.
		task("Test | Require the Argo CD version the platform declares", "ansible.builtin.assert", om{
			{"that", []string{"argocd_release.status.app_version == argocd_expected_version"}},
			{"fail_msg", "Argo CD {{ argocd_release.status.app_version }} is installed but the platform declares {{ argocd_expected_version }}"},
			{"quiet", true},
		}, kv{"when", "argocd_expected_version | length > 0"}),
		// With the enabled recipe the generated Applications carry
		// automated.enabled: false. An Application CRD without that field
		// would silently drop it and leave automated sync on at creation
		// (INV-2), so its absence stops the bootstrap here.
		task("Test | Require spec.syncPolicy.automated.enabled in the Application CRD", "ansible.builtin.assert", om{
			{"that", []string{
				lines("(argocd_crds.results[0].resources[0].spec.versions | selectattr('name', 'equalto', 'v1alpha1') | first)",
					".schema.openAPIV3Schema.properties.spec.properties.syncPolicy.properties.automated",
					".properties.enabled is defined"),
			}},
			{"fail_msg", "the installed Application CRD has no spec.syncPolicy.automated.enabled (Argo CD before v3.1)"},
			{"quiet", true},
		}, kv{"when", "argocd_requires_automated_enabled"}),
	}
	c.extraValidate = []om{
		task("Validate | Wait for the API server to have a ready endpoint", "kubernetes.core.k8s_info", om{
			{"api_version", "discovery.k8s.io/v1"},
			{"kind", "EndpointSlice"},
			{"namespace", "{{ argocd_namespace }}"},
			{"label_selectors", []string{"kubernetes.io/service-name={{ argocd_server_service }}"}},
		},
			kv{"register", "argocd_endpoints"},
			kv{"retries", "{{ argocd_validate_retries }}"},
			kv{"delay", "{{ argocd_validate_delay }}"},
			kv{"until", lines("argocd_endpoints.resources | map(attribute='endpoints', default=[]) | flatten",
				"| selectattr('conditions.ready', 'defined') | selectattr('conditions.ready') | list | length > 0")},
		),
	}
	return c.build()
}

func workflowsRole() role {
	return component{
		role: role{
			dir: "argo-workflows", prefix: "argo_workflows", title: "Argo Workflows",
			desc: "Install the Argo Workflows controller and CRDs (RFC 6.2.2 step 4)",
			deps: []string{"argocd"},
		},
		chart:     "argo-workflows",
		crds:      []string{"workflows.argoproj.io", "workflowtemplates.argoproj.io", "clusterworkflowtemplates.argoproj.io"},
		workloads: []string{"Deployment"},
	}.build()
}

func eventsRole() role {
	return component{
		role: role{
			dir: "argo-events", prefix: "argo_events", title: "Argo Events",
			desc: "Install the Argo Events controller and CRDs (RFC 6.2.2 step 6)",
			deps: []string{"argo-workflows"},
		},
		chart:     "argo-events",
		crds:      []string{"eventbus.argoproj.io", "eventsources.argoproj.io", "sensors.argoproj.io"},
		workloads: []string{"Deployment"},
	}.build()
}

func sealedSecretsRole() role {
	return component{
		role: role{
			dir: "sealed-secrets", prefix: "sealed_secrets", title: "Sealed Secrets",
			desc: "Install the Sealed Secrets controller",
		},
		chart:     "sealed-secrets",
		crds:      []string{"sealedsecrets.bitnami.com"},
		workloads: []string{"Deployment"},
	}.build()
}

// handoffRole is gitops-handoff: the automation credential, the root
// Application (RFC 6.2.2 steps 7 and 8), then the deploy workflow (step
// 9), each a six-phase unit of its own.
func handoffRole() role {
	r := role{
		dir: "gitops-handoff", prefix: "gitops_handoff", title: "the GitOps handoff",
		desc: "Create the automation token and the root Application, then submit the deploy workflow (RFC 6.2.2 steps 7-9)",
		deps: []string{"argocd", "sealed-secrets"},
		defaults: om{
			{"gitops_handoff_helm_timeout", "5m"},
			// Syncing the root and the orchestration apps, and the
			// templates appearing, can take a few reconciliation rounds.
			{"gitops_handoff_sync_retries", 60},
			{"gitops_handoff_sync_delay", 10},
			{"gitops_handoff_submit_retries", 30},
			{"gitops_handoff_submit_delay", 10},
		},
	}
	r.units = []unit{handoffUnit(), triggerUnit()}
	return r
}

func handoffUnit() unit {
	release := om{
		{"release_name", "{{ gitops_handoff_release_name }}"},
		{"release_namespace", "{{ argocd_namespace }}"},
	}
	secret := om{
		{"kind", "Secret"},
		{"namespace", "{{ gitops_handoff_token_secret.namespace }}"},
		{"name", "{{ gitops_handoff_token_secret.name }}"},
	}
	missing := "gitops_handoff_token.resources | length == 0"
	precheck := []om{
		task("Pre-check | Require a pinned chart version", "ansible.builtin.assert", om{
			{"that", []string{
				"gitops_handoff_chart_version | length > 0",
				"gitops_handoff_chart_version != 'latest'",
			}},
			{"fail_msg", "RFC 6.2.1 forbids unversioned charts; set gitops_handoff_chart_version"},
			{"quiet", true},
		}),
		task("Pre-check | Read the Argo CD and Argo Workflows CRDs the handoff uses", "kubernetes.core.k8s_info", om{
			{"api_version", "apiextensions.k8s.io/v1"},
			{"kind", "CustomResourceDefinition"},
			{"name", "{{ gitops_handoff_crd }}"},
		},
			kv{"loop", []string{"applications.argoproj.io", "appprojects.argoproj.io", "workflows.argoproj.io", "workflowtemplates.argoproj.io"}},
			kv{"loop_control", om{{"loop_var", "gitops_handoff_crd"}}},
			kv{"register", "gitops_handoff_crds"}),
		task("Pre-check | Require those CRDs", "ansible.builtin.assert", om{
			{"that", []string{"gitops_handoff_crds.results | rejectattr('resources') | list | length == 0"}},
			{"fail_msg", "missing CRDs: {{ gitops_handoff_crds.results | rejectattr('resources') | map(attribute='gitops_handoff_crd') | join(', ') }}"},
			{"quiet", true},
		}),
		task("Pre-check | Look up the existing root release", "kubernetes.core.helm_info", release,
			kv{"register", "gitops_handoff_previous"}),
		// The Secret's data would otherwise be printed with the result.
		task("Pre-check | Look up the automation token Secret", "kubernetes.core.k8s_info", secret,
			kv{"register", "gitops_handoff_token"}, kv{"no_log", true}),
		task("Pre-check | Find a running Argo CD API server", "kubernetes.core.k8s_info", om{
			{"kind", "Pod"},
			{"namespace", "{{ argocd_namespace }}"},
			{"label_selectors", []string{"app.kubernetes.io/name={{ argocd_server_service }}"}},
			{"field_selectors", []string{"status.phase=Running"}},
		}, kv{"register", "gitops_handoff_server"}, kv{"when", missing}),
		task("Pre-check | Require a running Argo CD API server to issue the token", "ansible.builtin.assert", om{
			{"that", []string{"gitops_handoff_server.resources | length > 0"}},
			{"fail_msg", "no running {{ argocd_server_service }} pod in {{ argocd_namespace }}"},
			{"quiet", true},
		}, kv{"when", missing}),
	}
	apply := []om{
		// RFC 6.2.2 step 7. The token is issued on the bootstrap host by
		// the argocd CLI in core mode, with the bootstrap's cluster-admin
		// kubeconfig (a private copy whose context is in Argo CD's
		// namespace, which core mode reads): core mode finds Argo CD's
		// pods and port-forwards to them, which the argocd-server
		// ServiceAccount may not do, so it cannot run inside that pod.
		// No admin password is needed. The token goes straight from the
		// command's output into the Secret: it is never written to a file
		// and never logged. Values reach the script as environment
		// variables, never as script text. Helm is not used for this
		// Secret because the token would end up in a values file and in
		// the release's stored values.
		task("Apply | Issue an API token for the automation account", "ansible.builtin.shell", om{
			{"cmd", TokenScript},
			{"executable", "/bin/bash"},
		}, kv{"environment", om{
			{"ARGOCD_NAMESPACE", "{{ argocd_namespace }}"},
			{"ARGOCD_ACCOUNT", "{{ gitops_handoff_argocd_account }}"},
		}}, kv{"register", "gitops_handoff_issued"}, kv{"no_log", true}, kv{"when", missing},
			kv{"changed_when", true},
			kv{"failed_when", "gitops_handoff_issued.rc != 0 or gitops_handoff_issued.stdout | trim | length == 0"}),
		task("Apply | Store the token in its Secret", "kubernetes.core.k8s", om{
			{"state", "present"},
			{"definition", om{
				{"apiVersion", "v1"},
				{"kind", "Secret"},
				{"type", "Opaque"},
				{"metadata", om{
					{"name", "{{ gitops_handoff_token_secret.name }}"},
					{"namespace", "{{ gitops_handoff_token_secret.namespace }}"},
					{"labels", om{{"app.kubernetes.io/managed-by", "platc"}}},
				}},
				{"stringData", "{{ {gitops_handoff_token_secret.key: gitops_handoff_issued.stdout | trim} }}"},
			}},
		}, kv{"no_log", true}, kv{"when", missing}),
		// RFC 6.2.2 step 8, through Helm: the argocd-apps chart creates
		// the AppProjects and the root Application from
		// gitops_handoff_values.
		task("Apply | Install the argocd-apps chart with the projects and the root Application", "kubernetes.core.helm", release.with(
			kv{"chart_ref", "{{ gitops_handoff_chart_ref }}"},
			kv{"chart_version", "{{ gitops_handoff_chart_version }}"},
			kv{"chart_repo_url", "{{ gitops_handoff_chart_repo_url | default(omit, true) }}"},
			kv{"atomic", true},
			kv{"wait", true},
			kv{"timeout", "{{ gitops_handoff_helm_timeout }}"},
			kv{"history_max", 10},
			kv{"values", "{{ gitops_handoff_values }}"},
		), kv{"register", "gitops_handoff_helm"}),
	}
	test := []om{
		task("Test | Read the root release back", "kubernetes.core.helm_info", release, kv{"register", "gitops_handoff_release"}),
		task("Test | Require the root release to be deployed at the pinned version", "ansible.builtin.assert", om{
			{"that", []string{
				"gitops_handoff_release.status is defined",
				"gitops_handoff_release.status.status | lower == 'deployed'",
				"gitops_handoff_release.status.chart == gitops_handoff_chart ~ '-' ~ gitops_handoff_chart_version",
			}},
			{"fail_msg", "release {{ gitops_handoff_release_name }} is not deployed with chart {{ gitops_handoff_chart }}-{{ gitops_handoff_chart_version }}"},
			{"quiet", true},
		}),
		task("Test | Read the AppProjects", "kubernetes.core.k8s_info", om{
			{"api_version", "argoproj.io/v1alpha1"},
			{"kind", "AppProject"},
			{"namespace", "{{ argocd_namespace }}"},
			{"name", "{{ gitops_handoff_project }}"},
		},
			kv{"loop", "{{ gitops_handoff_values.projects | list }}"},
			kv{"loop_control", om{{"loop_var", "gitops_handoff_project"}}},
			kv{"register", "gitops_handoff_projects"}),
		task("Test | Read the root Application", "kubernetes.core.k8s_info", om{
			{"api_version", "argoproj.io/v1alpha1"},
			{"kind", "Application"},
			{"namespace", "{{ argocd_namespace }}"},
			{"name", "{{ gitops_handoff_root_app }}"},
		}, kv{"register", "gitops_handoff_root"}),
		task("Test | Read the automation token Secret back", "kubernetes.core.k8s_info", secret,
			kv{"register", "gitops_handoff_token_check"}, kv{"no_log", true}),
		task("Test | Require the projects, the root Application and the token", "ansible.builtin.assert", om{
			{"that", []string{
				"gitops_handoff_projects.results | rejectattr('resources') | list | length == 0",
				"gitops_handoff_root.resources | length == 1",
				"gitops_handoff_token_check.resources | length == 1",
				"gitops_handoff_token_check.resources[0].data[gitops_handoff_token_secret.key] | default('') | length > 0",
			}},
			{"fail_msg", "the handoff objects are incomplete"},
			{"quiet", true},
		}, kv{"no_log", true}),
	}
	validate := []om{
		task("Validate | Wait for the root Application to sync", "kubernetes.core.k8s_info", om{
			{"api_version", "argoproj.io/v1alpha1"},
			{"kind", "Application"},
			{"namespace", "{{ argocd_namespace }}"},
			{"name", "{{ gitops_handoff_root_app }}"},
		},
			kv{"register", "gitops_handoff_root_state"},
			kv{"retries", "{{ gitops_handoff_sync_retries }}"},
			kv{"delay", "{{ gitops_handoff_sync_delay }}"},
			// Synced is all the root can be: it is never Healthy before the
			// deploy workflow has run, because its children are not.
			kv{"until", lines("gitops_handoff_root_state.resources",
				"| selectattr('status.sync.status', 'defined') | selectattr('status.sync.status', 'equalto', 'Synced')",
				"| list | length == 1")},
		),
		task("Validate | Wait for the orchestration Applications to be synced and healthy", "kubernetes.core.k8s_info", om{
			{"api_version", "argoproj.io/v1alpha1"},
			{"kind", "Application"},
			{"namespace", "{{ argocd_namespace }}"},
			{"name", "{{ gitops_handoff_app }}"},
		},
			kv{"loop", "{{ gitops_handoff_orchestration_apps }}"},
			kv{"loop_control", om{{"loop_var", "gitops_handoff_app"}}},
			kv{"register", "gitops_handoff_app_state"},
			kv{"retries", "{{ gitops_handoff_sync_retries }}"},
			kv{"delay", "{{ gitops_handoff_sync_delay }}"},
			kv{"until", lines("gitops_handoff_app_state.resources",
				"| selectattr('status.sync.status', 'defined') | selectattr('status.sync.status', 'equalto', 'Synced')",
				"| selectattr('status.health.status', 'defined') | selectattr('status.health.status', 'equalto', 'Healthy')",
				"| list | length == 1")},
		),
		task("Validate | Wait for the WorkflowTemplates", "kubernetes.core.k8s_info", om{
			{"api_version", "argoproj.io/v1alpha1"},
			{"kind", "WorkflowTemplate"},
			{"namespace", "{{ gitops_handoff_workflows_namespace }}"},
			{"name", "{{ gitops_handoff_template }}"},
		},
			kv{"loop", "{{ gitops_handoff_workflow_templates }}"},
			kv{"loop_control", om{{"loop_var", "gitops_handoff_template"}}},
			kv{"register", "gitops_handoff_templates"},
			kv{"retries", "{{ gitops_handoff_sync_retries }}"},
			kv{"delay", "{{ gitops_handoff_sync_delay }}"},
			kv{"until", "gitops_handoff_templates.resources | length == 1"},
		),
		task("Validate | Wait for the ClusterWorkflowTemplates", "kubernetes.core.k8s_info", om{
			{"api_version", "argoproj.io/v1alpha1"},
			{"kind", "ClusterWorkflowTemplate"},
			{"name", "{{ gitops_handoff_cluster_template }}"},
		},
			kv{"loop", "{{ gitops_handoff_cluster_workflow_templates }}"},
			kv{"loop_control", om{{"loop_var", "gitops_handoff_cluster_template"}}},
			kv{"register", "gitops_handoff_cluster_templates"},
			kv{"retries", "{{ gitops_handoff_sync_retries }}"},
			kv{"delay", "{{ gitops_handoff_sync_delay }}"},
			kv{"until", "gitops_handoff_cluster_templates.resources | length == 1"},
		),
	}
	changed := "gitops_handoff_helm is defined and gitops_handoff_helm is changed"
	rollback := []om{
		// The token Secret stays: it is valid whatever happened to the
		// root, and keeping it keeps a re-run from issuing another token.
		task("Rollback | Restore the previous root release", "kubernetes.core.helm", release.with(
			kv{"chart_ref", "{{ gitops_handoff_chart_ref }}"},
			kv{"chart_version", "{{ gitops_handoff_previous.status.chart | regex_replace('^' ~ gitops_handoff_chart ~ '-', '') }}"},
			kv{"chart_repo_url", "{{ gitops_handoff_chart_repo_url | default(omit, true) }}"},
			kv{"values", "{{ gitops_handoff_previous.status.release_values | default(gitops_handoff_previous.status['values'], true) | default({}, true) }}"},
			kv{"atomic", true},
			kv{"wait", true},
			kv{"timeout", "{{ gitops_handoff_helm_timeout }}"},
		), kv{"when", changed + " and gitops_handoff_previous.status is defined"}),
		// Without finalizers on the Applications, removing the root leaves
		// the child Applications in place; nothing is deployed by them
		// since they have no automated sync.
		task("Rollback | Remove the root release this run installed", "kubernetes.core.helm", release.with(
			kv{"release_state", "absent"},
			kv{"wait", true},
		), kv{"when", changed + " and gitops_handoff_previous.status is not defined"}),
		task("Rollback | Mark the handoff as rolled back", "ansible.builtin.set_fact", om{
			{"gitops_handoff_rolled_back", true},
		}, kv{"when", changed}),
	}
	return unit{
		what:     "Hand the platform over to Argo CD, then test and validate the handoff",
		precheck: precheck,
		apply:    apply,
		test:     test,
		validate: validate,
		rollback: rollback,
		result: om{
			{"gitops_handoff_root_revision", "{{ gitops_handoff_release.status.revision | default('') }}"},
		},
	}
}

// triggerUnit is RFC 6.2.2 step 9: submit the deploy workflow, once its
// template exists and unless a deploy is already under way.
func triggerUnit() unit {
	workflows := om{
		{"api_version", "argoproj.io/v1alpha1"},
		{"kind", "Workflow"},
		{"namespace", "{{ gitops_handoff_workflows_namespace }}"},
	}
	submitted := "gitops_handoff_submitted is defined and gitops_handoff_submitted is changed"
	name := lines("{{ gitops_handoff_submitted.result.metadata.name",
		"if (gitops_handoff_submitted is defined and gitops_handoff_submitted is changed)",
		"else gitops_handoff_running.resources[0].metadata.name }}")
	precheck := []om{
		task("Pre-check | Require the deploy WorkflowTemplate", "kubernetes.core.k8s_info", om{
			{"api_version", "argoproj.io/v1alpha1"},
			{"kind", "WorkflowTemplate"},
			{"namespace", "{{ gitops_handoff_workflows_namespace }}"},
			{"name", "{{ gitops_handoff_submit_template }}"},
		},
			kv{"register", "gitops_handoff_deploy_template"},
			kv{"failed_when", "gitops_handoff_deploy_template.resources | length != 1"}),
		// Re-running the bootstrap must not start a second deploy next to
		// one that is still running (submitted by an earlier run or by the
		// push sensor, which label their workflows the same way).
		task("Pre-check | Look for a deploy workflow that has not finished", "kubernetes.core.k8s_info", workflows.with(
			kv{"label_selectors", []string{
				"platc.io/workflow={{ gitops_handoff_submit_template }}",
				"workflows.argoproj.io/completed!=true",
			}},
		), kv{"register", "gitops_handoff_running"}),
	}
	apply := []om{
		task("Apply | Submit the deploy workflow", "kubernetes.core.k8s", om{
			{"state", "present"},
			{"generate_name", "{{ gitops_handoff_submit_template }}-"},
			{"definition", om{
				{"apiVersion", "argoproj.io/v1alpha1"},
				{"kind", "Workflow"},
				{"metadata", om{
					{"namespace", "{{ gitops_handoff_workflows_namespace }}"},
					{"labels", om{
						{"app.kubernetes.io/managed-by", "platc"},
						{"platc.io/workflow", "{{ gitops_handoff_submit_template }}"},
						{"platc.io/trigger", "bootstrap"},
					}},
				}},
				{"spec", om{{"workflowTemplateRef", om{{"name", "{{ gitops_handoff_submit_template }}"}}}}},
			}},
		}, kv{"register", "gitops_handoff_submitted"}, kv{"when", "gitops_handoff_running.resources | length == 0"}),
		task("Apply | Name the deploy workflow to follow", "ansible.builtin.set_fact", om{
			{"gitops_handoff_workflow", name},
		}),
	}
	test := []om{
		task("Test | Read the deploy workflow back", "kubernetes.core.k8s_info", workflows.with(
			kv{"name", "{{ gitops_handoff_workflow }}"},
		), kv{"register", "gitops_handoff_workflow_state"},
			kv{"failed_when", "gitops_handoff_workflow_state.resources | length != 1"}),
	}
	validate := []om{
		task("Validate | Wait for the controller to start the deploy workflow", "kubernetes.core.k8s_info", workflows.with(
			kv{"name", "{{ gitops_handoff_workflow }}"},
		),
			kv{"register", "gitops_handoff_workflow_state"},
			kv{"retries", "{{ gitops_handoff_submit_retries }}"},
			kv{"delay", "{{ gitops_handoff_submit_delay }}"},
			kv{"until", lines("gitops_handoff_workflow_state.resources",
				"| selectattr('status.phase', 'defined') | selectattr('status.phase', 'in', ['Running', 'Succeeded', 'Failed', 'Error'])",
				"| list | length == 1")},
		),
		task("Validate | Require the deploy workflow to be running or done", "ansible.builtin.assert", om{
			{"that", []string{"gitops_handoff_workflow_state.resources[0].status.phase in ['Running', 'Succeeded']"}},
			{"fail_msg", "{{ gitops_handoff_workflow_state.resources[0].status.message | default('the workflow did not start') }}"},
			{"quiet", true},
		}),
	}
	// A workflow this run submitted that the controller never started is
	// removed, so the cluster is back to having no deploy in flight. One
	// that started and failed is kept: its nodes and logs are what
	// explains the failure.
	neverStarted := submitted + " and " + lines(
		"(gitops_handoff_workflow_state.resources | default([]))",
		"| selectattr('status.phase', 'defined') | selectattr('status.phase', 'in', ['Running', 'Succeeded', 'Failed', 'Error'])",
		"| list | length == 0")
	rollback := []om{
		task("Rollback | Remove the deploy workflow this run submitted if it never started", "kubernetes.core.k8s", workflows.with(
			kv{"name", "{{ gitops_handoff_workflow }}"},
			kv{"state", "absent"},
			kv{"wait", true},
		), kv{"when", neverStarted}),
		task("Rollback | Mark the submission as rolled back", "ansible.builtin.set_fact", om{
			{"gitops_handoff_rolled_back", true},
		}, kv{"when", neverStarted}),
	}
	return unit{
		what:     "Submit the deploy workflow, then test and validate that it runs",
		precheck: precheck,
		apply:    apply,
		test:     test,
		validate: validate,
		rollback: rollback,
		result: om{
			{"gitops_handoff_workflow", "{{ gitops_handoff_workflow | default('') }}"},
		},
	}
}

// TokenScript issues the automation account's token on the bootstrap
// host (see the task that runs it), reading ARGOCD_NAMESPACE,
// ARGOCD_ACCOUNT and KUBECONFIG. The e2e environment runs this very
// script against the real Argo CD.
const TokenScript = `set -euo pipefail
kubeconfig=$(mktemp)
trap 'rm -f "$kubeconfig"' EXIT
kubectl config view --raw --minify --flatten >"$kubeconfig"
KUBECONFIG=$kubeconfig kubectl config set-context --current --namespace "$ARGOCD_NAMESPACE" >/dev/null
KUBECONFIG=$kubeconfig argocd account generate-token --core --account "$ARGOCD_ACCOUNT"
`
