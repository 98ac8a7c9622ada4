// Package events emits generated/<env>/events/: the Argo Events objects
// that submit the deploy workflow when the platform repository receives a
// push (RFC 4.6), for platforms that have an events block.
//
// events.yaml holds an EventBus (JetStream, pinned version), an
// EventSource (a plain webhook or a GitHub webhook), and a Sensor that
// filters pushes to the platform's branch or tag and creates a Workflow
// from the deploy WorkflowTemplate with Argo Events' Kubernetes trigger.
// rbac.yaml holds the sensor's ServiceAccount and the one permission it
// needs: create workflows in the workflows namespace. The platc-events
// Application (package argocd) syncs the directory.
//
// It does not install Argo Events (the Ansible bootstrap does), expose the
// webhook outside the cluster (an Ingress or a load balancer is the
// platform's choice), or register the webhook with the Git host.
package events
