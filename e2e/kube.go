package e2e

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	workflowGVR                = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "workflows"}
	workflowTemplateGVR        = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "workflowtemplates"}
	clusterWorkflowTemplateGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "clusterworkflowtemplates"}
	crdGVR                     = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// appsDeployment is a Deployment the environment itself runs (through
// kwok), such as the simulated CoreDNS.
type appsDeployment struct {
	name, ns string
	labels   map[string]string
	replicas int32
	port     int32 // a container port, or 0
}

func (e *Env) createDeployment(ctx context.Context, d *appsDeployment) error {
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: d.ns, Labels: d.labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &d.replicas,
			Selector: &metav1.LabelSelector{MatchLabels: d.labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: d.labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: d.name, Image: "registry.invalid/platc-e2e/" + d.name + ":simulated",
					Ports: containerPorts(d.port),
				}}},
			},
		},
	}
	_, err := e.Kube.AppsV1().Deployments(d.ns).Create(ctx, dep, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func containerPorts(p int32) []corev1.ContainerPort {
	if p == 0 {
		return nil
	}
	return []corev1.ContainerPort{{ContainerPort: p, Protocol: corev1.ProtocolTCP}}
}
