"""The quickstart in Python, through the native provider plugin and the SDK generated in sdk/python."""
import pulumi
import pulumi_analytics as analytics

config = pulumi.Config()
display_name = config.get("displayName") or "Warehouse"

acme = analytics.Organization("acme", name="Acme")

warehouse = analytics.DataSource(
    "warehouse",
    org_id=acme.id,
    type=analytics.DataSourceType.DIRECT,
    dialect=analytics.DataSourceDialect.POSTGRES,
    display_name=display_name,
    host=config.require("dbHost"),
    port=5432,
    database_name="analytics",
    username=config.require("dbUser"),
    password=config.require_secret("dbPassword"),
)

pulumi.export("orgId", acme.id)
pulumi.export("dataSourceId", warehouse.id)
pulumi.export("lastSyncStatus", warehouse.last_sync_status)
