/**
 * What users' editors show: every argument and output of the shipped resource classes, read
 * from the built `dist/index.d.ts` as a program importing the package sees it, has a doc comment.
 */
import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const entry = path.join(__dirname, "..", "dist", "index.d.ts");

function documentation(): Map<string, Map<string, string>> {
  const program = ts.createProgram([entry], { strict: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  const result = new Map<string, Map<string, string>>();
  for (const name of ["OrganizationArgs", "DataSourceArgs", "Organization", "DataSource"]) {
    const symbol = checker.getExportsOfModule(module).find((s) => s.name === name)!;
    const resolved = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const type = name.endsWith("Args") ? checker.getDeclaredTypeOfSymbol(resolved) : checker.getDeclaredTypeOfSymbol(resolved);
    const docs = new Map<string, string>();
    for (const property of checker.getPropertiesOfType(type)) {
      docs.set(property.name, ts.displayPartsToString(property.getDocumentationComment(checker)));
    }
    result.set(name, docs);
  }
  return result;
}

describe("hover docs in the shipped declarations", () => {
  const docs = documentation();

  it.each(["OrganizationArgs", "DataSourceArgs"])("document every property of %s", (name) => {
    const properties = docs.get(name)!;
    expect(properties.size).toBeGreaterThan(0);
    for (const [property, text] of properties) expect(text, `${name}.${property}`).not.toBe("");
  });

  it.each([
    ["Organization", ["name", "slug", "customAiContext", "onboardingStatus"]],
    ["DataSource", ["orgId", "type", "displayName", "password", "port", "lastSyncStatus", "lastHealthStatus", "updatedAt"]],
  ])("document every output of %s", (name, expected) => {
    const properties = docs.get(name)!;
    for (const output of expected) expect(properties.has(output), `${name}.${output}`).toBe(true);
    // The resource's own members (id, urn, …) come documented from the SDK; every one of ours must be too.
    for (const [property, text] of properties) expect(text, `${name}.${property}`).not.toBe("");
  });

  it("keeps the doc comment each field has in its kind's spec", () => {
    expect(docs.get("DataSourceArgs")!.get("orgId")).toBe("Id of the owning organization, typically `org.id`.");
    expect(docs.get("DataSource")!.get("lastSyncStatus")).toMatch(/^As reported when created .*schema sync state, PENDING at creation\.$/);
    expect(docs.get("DataSource")!.get("statusObservedAt")).toMatch(/create response/);
    expect(docs.get("OrganizationArgs")!.get("name")).toMatch(/^Organization name/);
  });
});
