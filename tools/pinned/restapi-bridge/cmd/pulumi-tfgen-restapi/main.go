// Command pulumi-tfgen-restapi writes the bridged restapi's package schema
// (`pulumi-tfgen-restapi schema --out cmd/pulumi-resource-restapi`), which the plugin embeds.
package main

import (
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfgen"

	bridge "pulumi-analytics/tools/restapi-bridge"
)

func main() {
	tfgen.Main("restapi", bridge.Version, bridge.Provider())
}
