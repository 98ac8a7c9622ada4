// Command synth writes a synthetic platform (internal/synth) to a file,
// for measuring platc on platforms of a given size:
//
//	go run ./internal/cmd/synth -apps 10000 -cross -events -o /tmp/p10k.hcl
package main
