//go:build tools

// Package tools pins the Java language host (pulumi-java's cmd/pulumi-language-java), which the
// engine starts for `runtime: java` programs and for `pulumi package gen-sdk --language java`. It
// is built on the engine's pkg/v3 and sdk/v3 release (tools/pulumi) and is its own module so that
// the engine's cache key (the files of tools/pulumi) stays as it is.
package tools

import (
	_ "github.com/pulumi/pulumi-java/pkg/cmd/pulumi-language-java"
)
