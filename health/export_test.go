package health

// WithoutFolding makes Compile keep constant subtrees, so the tests can
// check that both backends compute constants the same way too.
func WithoutFolding(o Options) Options {
	o.noFold = true
	return o
}
