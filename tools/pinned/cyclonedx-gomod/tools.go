//go:build tools

// Package tools pins cyclonedx-gomod, CycloneDX's SBOM generator for Go modules (Apache-2.0), which
// the release (tools/lib/release-sboms.js) runs over the Go SDK's module. It is a release tool, built
// into the project cache beside the engine on first use; it is never part of a package.
package tools

import (
	_ "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod"
)
