//go:build tools

// Package tools pins the Go and Python language hosts of the engine's release (tools/pulumi), which
// `pulumi package gen-sdk` needs to write the Go and Python SDKs and the engine needs to run
// `runtime: go` and `runtime: python` programs. It is its own module so that the engine's cache
// key (the files of tools/pulumi) stays as it is.
package tools

import (
	_ "github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3"
	_ "github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3"
)
