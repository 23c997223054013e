//go:build tools

// Package tools pins the newest Pulumi CLI the Go module proxy serves, which the tests run as a
// second engine beside the pinned one (tools/pulumi). Its language hosts are built by modules of
// their own: no release of the Node.js, Go or Python host modules matching it is served.
package tools

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
)
