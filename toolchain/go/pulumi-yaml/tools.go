//go:build tools

// Package tools pins the Pulumi YAML language host that the project builds next to the engine
// (tools/pulumi), so YAML programs (`runtime: yaml`) run with the same toolchain. It is its own
// module because pulumi-yaml moves some shared dependencies past the engine's pinned set.
package tools

import (
	_ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
)
