// The quickstart in C#, through the native provider plugin and the SDK generated in sdk/dotnet.
using System.Collections.Generic;
using Pulumi;
using Analytics = PulumiAnalytics.Analytics;

return await Deployment.RunAsync(() =>
{
    var config = new Config();

    var acme = new Analytics.Organization("acme", new() { Name = "Acme" });

    var warehouse = new Analytics.DataSource("warehouse", new()
    {
        OrgId = acme.Id,
        Type = Analytics.DataSourceType.Direct,
        Dialect = Analytics.DataSourceDialect.Postgres,
        DisplayName = "Warehouse",
        Host = config.Require("dbHost"),
        Port = 5432,
        DatabaseName = "analytics",
        Username = config.Require("dbUser"),
        Password = config.RequireSecret("dbPassword"),
    });

    return new Dictionary<string, object?>
    {
        ["orgId"] = acme.Id,
        ["lastSyncStatus"] = warehouse.LastSyncStatus,
    };
});
