//go:build tools

// Package tools pins the Pulumi YAML language host that runs beside the newest Pulumi CLI
// (tools/pulumi-newest). pulumi-yaml 1.19.1 (tools/pulumi-yaml) reads a program's config from
// RunRequest.configPropertyMap, which the engine stopped sending in 3.207.0; 1.19.2 and later
// rebuild it from RunRequest.config. It is built on the pkg/v3 and sdk/v3 that pulumi-yaml
// itself requires.
package tools

import (
	_ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
)
