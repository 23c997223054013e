// Command pulumi-resource-restapi is the Pulumi provider plugin of the bridged restapi, with the
// package schema pulumi-tfgen-restapi wrote beside this file embedded, as a bridged provider ships it.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"

	bridge "pulumi-analytics/tools/restapi-bridge"
)

//go:embed schema.json
var pulumiSchema []byte

func main() {
	tfbridge.Main("restapi", bridge.Version, bridge.Provider(), pulumiSchema)
}
