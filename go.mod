module github.com/platc/platc

go 1.25.0

require (
	github.com/agext/levenshtein v1.2.3
	github.com/hashicorp/hcl/v2 v2.25.0
	github.com/urfave/cli/v2 v2.27.7
	github.com/zclconf/go-cty v1.19.0
	golang.org/x/term v0.37.0
	gonum.org/v1/gonum v0.17.0
	sigs.k8s.io/yaml v1.6.0
)

require (
	github.com/apparentlymart/go-textseg/v15 v15.0.0 // indirect
	github.com/apparentlymart/go-textseg/v17 v17.0.1 // indirect
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/mitchellh/go-wordwrap v1.0.1 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/mod v0.29.0 // indirect
	golang.org/x/sync v0.18.0 // indirect
	golang.org/x/sys v0.38.0 // indirect
	golang.org/x/text v0.31.0 // indirect
	golang.org/x/tools v0.38.0 // indirect
)
