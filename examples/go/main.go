// The quickstart in Go: one organization and one Postgres data source, created through the native
// provider plugin pulumi-resource-analytics with the Go SDK generated in sdk/go.
package main

import (
	"github.com/pulumi-analytics/pulumi-analytics/sdk/go/analytics"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		displayName := cfg.Get("displayName")
		if displayName == "" {
			displayName = "Warehouse"
		}

		acme, err := analytics.NewOrganization(ctx, "acme", &analytics.OrganizationArgs{
			Name: pulumi.String("Acme"),
		})
		if err != nil {
			return err
		}

		warehouse, err := analytics.NewDataSource(ctx, "warehouse", &analytics.DataSourceArgs{
			OrgId:        acme.ID().ToStringOutput(),
			Type:         analytics.DataSourceTypeDirect,
			Dialect:      analytics.DataSourceDialectPostgres,
			DisplayName:  pulumi.String(displayName),
			Host:         pulumi.String(cfg.Require("dbHost")),
			Port:         pulumi.Int(5432),
			DatabaseName: pulumi.String("analytics"),
			Username:     pulumi.String(cfg.Require("dbUser")),
			Password:     cfg.RequireSecret("dbPassword"),
		})
		if err != nil {
			return err
		}

		ctx.Export("orgId", acme.ID())
		ctx.Export("dataSourceId", warehouse.ID())
		ctx.Export("lastSyncStatus", warehouse.LastSyncStatus)
		return nil
	})
}
