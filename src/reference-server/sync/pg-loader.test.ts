import Module from "node:module";
import { describe, expect, it } from "vitest";
import { AnalyticsError } from "../../errors";
import { PG_MISSING_MESSAGE, PgNotInstalledError, loadPg, pgInstalled } from "./pg-loader";
import { syncSchema } from "./schema-sync";

/** What Node throws for a package that is not installed. */
function notFound(id: string): Error {
  return Object.assign(new Error(`Cannot find module '${id}'\nRequire stack:\n- /app/x.js`), { code: "MODULE_NOT_FOUND" });
}

describe("loadPg", () => {
  it("returns pg when it is installed (a development dependency here)", () => {
    expect(typeof loadPg().Client).toBe("function");
    expect(pgInstalled()).toBe(true);
  });

  it("throws an AnalyticsError naming `npm install pg` when pg is not installed", () => {
    let error: unknown;
    try {
      loadPg((id) => {
        throw notFound(id);
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PgNotInstalledError);
    expect(error).toBeInstanceOf(AnalyticsError);
    expect((error as PgNotInstalledError).code).toBe("ANALYTICS_MISSING_PEER");
    expect((error as Error).message).toBe(PG_MISSING_MESSAGE);
    expect(PG_MISSING_MESSAGE).toContain("run `npm install pg`");
    expect(
      pgInstalled((id) => {
        throw notFound(id);
      }),
    ).toBe(false);
  });

  it("lets any other failure through: a dependency of pg missing, or pg failing as it loads", () => {
    expect(() =>
      loadPg(() => {
        throw notFound("pg-protocol");
      }),
    ).toThrow("Cannot find module 'pg-protocol'");
    expect(() =>
      loadPg(() => {
        throw new SyntaxError("broken pg");
      }),
    ).toThrow(SyntaxError);
    expect(() =>
      pgInstalled(() => {
        throw notFound("pg-protocol");
      }),
    ).toThrow("pg-protocol");
  });
});

describe("syncSchema without pg", () => {
  it("answers the failure the data source shows: the fix, not a connection error", async () => {
    // Node's loader made to miss pg only, as in an app that never installed it.
    const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
    const original = loader._load;
    loader._load = function (this: unknown, request: string, ...rest: unknown[]) {
      if (request === "pg") throw notFound(request);
      return original.call(this, request, ...rest);
    };
    try {
      const target = { host: "127.0.0.1", port: 1, databaseName: "db", username: "u", password: "secret-pw", sslEnabled: false };
      expect(await syncSchema(target)).toEqual({ ok: false, message: PG_MISSING_MESSAGE });
    } finally {
      loader._load = original;
    }
    expect(pgInstalled()).toBe(true);
  });
});
