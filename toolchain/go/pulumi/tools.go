//go:build tools

// Package tools pins the Pulumi engine and Node.js language host that the
// project builds when no suitable `pulumi` CLI is installed.
package tools

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
	_ "github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3"
)
