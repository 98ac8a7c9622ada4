package compiler

// A Field is a place in the language whose values the compiler types by
// a grammar (grammar.go). platc import fills these places from foreign
// input and asks the compiler, which owns the grammars, whether a value
// fits, so that what it writes always compiles.
type Field int

const (
	FieldNamespace       Field = iota // an app's namespace
	FieldProject                      // an app's or argocd's project
	FieldChartName                    // source.chart
	FieldRepoPath                     // source.path, git.path
	FieldHelmRepo                     // source.repo_url of a chart
	FieldGitRepo                      // source.repo_url of a path, git.repo_url
	FieldChartVersion                 // source.version
	FieldGitRevision                  // source.target_revision, git.revision
	FieldValueFile                    // source.helm.value_files[*]
	FieldReleaseName                  // source.helm.release_name
	FieldSyncOption                   // sync.options[*]
	FieldName                         // the label of a platform, stack or app block
	FieldArgoCDNamespace              // argocd.namespace
)

var fieldGrammars = [...]*grammar{
	FieldNamespace:    gNamespace,
	FieldProject:      gProject,
	FieldChartName:    gChartName,
	FieldRepoPath:     gRepoPath,
	FieldHelmRepo:     gHelmRepo,
	FieldGitRepo:      gGitRepo,
	FieldChartVersion: gChartVersion,
	FieldGitRevision:  gGitRef,
	FieldValueFile:    gValueFile,
	FieldReleaseName:  gReleaseName,
	FieldSyncOption:   gSyncOption,
	// FieldName has no grammar (Check).
	FieldArgoCDNamespace: gArgoCDNamespace,
}

// Check returns "" when s is a value the compiler accepts in f, else why
// not, as the compiler's diagnostic says it ("is not an absolute URL").
func Check(f Field, s string) string {
	if f == FieldName {
		return NameProblem(s)
	}
	return fieldGrammars[f].validate(s)
}
