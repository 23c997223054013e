// Pulumi provider for the data-analytics service: organizations and data sources as code, with an embedded reference server to run against.
package analytics
