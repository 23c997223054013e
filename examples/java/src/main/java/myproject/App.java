// The quickstart in Java: one organization and one Postgres data source, created through the native
// provider plugin pulumi-resource-analytics with the Java SDK generated in sdk/java.
package myproject;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import io.github.pulumi_analytics.analytics.DataSource;
import io.github.pulumi_analytics.analytics.DataSourceArgs;
import io.github.pulumi_analytics.analytics.Organization;
import io.github.pulumi_analytics.analytics.OrganizationArgs;
import io.github.pulumi_analytics.analytics.enums.DataSourceDialect;
import io.github.pulumi_analytics.analytics.enums.DataSourceType;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var config = ctx.config();
        var displayName = config.get("displayName").orElse("Warehouse");

        var acme = new Organization("acme", OrganizationArgs.builder()
            .name("Acme")
            .build());

        var warehouse = new DataSource("warehouse", DataSourceArgs.builder()
            .orgId(acme.id())
            .type(DataSourceType.Direct)
            .dialect(DataSourceDialect.Postgres)
            .displayName(displayName)
            .host(config.require("dbHost"))
            .port(5432)
            .databaseName("analytics")
            .username(config.require("dbUser"))
            .password(config.requireSecret("dbPassword"))
            .build());

        ctx.export("orgId", acme.id());
        ctx.export("dataSourceId", warehouse.id());
        ctx.export("lastSyncStatus", warehouse.lastSyncStatus());
    }
}
