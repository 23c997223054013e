// Package bridge is Mastercard's terraform-provider-restapi bridged into Pulumi with Pulumi's
// Terraform bridge (tfbridge), the static way a bridged provider in the Pulumi Registry is built:
// the provider's SDKv2 schema behind shimv2, its tokens computed into the one module `index` the
// way the Registry's dynamic bridge names them (restapi_object becomes restapi:index/object:Object).
// It is a bench and test tool of this repository (bench/lib/restapi-bridge.ts), never shipped.
package bridge

import (
	"github.com/Mastercard/terraform-provider-restapi/restapi"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge/tokens"
	shimv2 "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfshim/sdk-v2"
)

// Version is the terraform-provider-restapi release the module pins, which the bridged package carries.
const Version = "1.20.0"

// Provider is the bridge's ProviderInfo over restapi's SDKv2 provider.
func Provider() tfbridge.ProviderInfo {
	prov := tfbridge.ProviderInfo{
		P:              shimv2.NewProvider(restapi.Provider()),
		Name:           "restapi",
		Version:        Version,
		Description:    "A Pulumi provider bridged from Mastercard's terraform-provider-restapi.",
		GitHubOrg:      "Mastercard",
		Publisher:      "Mastercard",
		Repository:     "https://github.com/Mastercard/terraform-provider-restapi",
		ResourcePrefix: "restapi",
	}
	makeStandard := tokens.MakeStandard("restapi")
	if err := prov.ComputeTokens(tokens.SingleModule("restapi_", "index", makeStandard)); err != nil {
		panic(err)
	}
	prov.SetAutonaming(255, "-")
	return prov
}
