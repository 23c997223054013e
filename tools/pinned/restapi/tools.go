//go:build tools

// Package tools pins terraform-provider-restapi (Mastercard's generic REST provider), which the
// bench's scenario T (bench/lib/tofu.ts) runs under OpenTofu. It is a bench tool, built into the
// project cache beside the engine on first use; it is never part of the package.
package tools

import (
	_ "github.com/Mastercard/terraform-provider-restapi"
)
