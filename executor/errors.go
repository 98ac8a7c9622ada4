package executor

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
)

// isNoKind reports whether err means the resource type does not exist in
// the cluster (its CRD is not installed): a 404 on the collection.
func isNoKind(err error) bool {
	return apierrors.IsNotFound(err) || meta.IsNoMatchError(err)
}
