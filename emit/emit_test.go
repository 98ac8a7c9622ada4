package emit

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestYAMLDropsEmptyTypedFields(t *testing.T) {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"},
		Data:       map[string]string{"z": "1", "a": "2"},
	}
	got, err := YAML(cm, cm)
	if err != nil {
		t.Fatal(err)
	}
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: ns\ndata:\n  a: \"2\"\n  z: \"1\"\n"
	if want := Header + doc + "---\n" + doc; string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
