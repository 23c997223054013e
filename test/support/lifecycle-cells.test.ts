/** The words of the comparison table's Pulumi columns, rendered from what a lifecycle recorded. */
import { describe, expect, it } from "vitest";
import { countText, lifecycleCells, requestsText, tableColumn, type LifecycleObservation, type StepObservation } from "./lifecycle-cells";

const quiet: StepObservation = { code: 0, requests: {}, creates: 0, said: { add: 0, change: 0, destroy: 0, replace: 0 }, warnings: 0, error: "" };

/** A bridged program of N=4 whose refresh drops every object (404) and whose destroy deletes nothing. */
const OBSERVED: LifecycleObservation = {
  n: 4,
  freshPreview: { ...quiet, said: { add: 7, change: 0, destroy: 0, replace: 0 } },
  up: {
    ...quiet,
    creates: 5,
    requests: { "POST /api/public/organizations": { "201": 1 }, "POST /api/public/organizations/{orgId}/data-sources": { "201": 4 } },
    said: { add: 7, change: 0, destroy: 0, replace: 0 },
  },
  preview: quiet,
  secondUp: quiet,
  rename: {
    ...quiet,
    creates: 1,
    requests: { "POST /api/public/organizations/{orgId}/data-sources": { "201": 1 }, "DELETE /api/public/organizations/org_1/data-sources/ds_9": { "404": 1 } },
    said: { add: 1, change: 0, destroy: 1, replace: 0 },
  },
  refresh: {
    ...quiet,
    requests: { "GET /api/public/organizations/org_1": { "404": 10 } },
    said: { add: 0, change: 0, destroy: 5, replace: 0 },
    stateObjects: 0,
  },
  upAfterRefresh: { ...quiet, creates: 5, said: { add: 5, change: 0, destroy: 0, replace: 0 } },
  importing: { ...quiet, code: 255, error: "Preview failed: resource '<id>' does not exist", said: undefined, stateObjects: 0 },
  destroy: { ...quiet, said: { add: 0, change: 0, destroy: 7, replace: 0 }, stateObjects: 0, serverRemoved: 0 },
  secrets: { passwordInState: 0, passwordInOutput: 0, passwordInLogs: 3, apiKeyInState: 0, apiKeyInOutput: 0, apiKeyInLogs: 0 },
};

describe("lifecycle cells", () => {
  it("says counts against N so that a cell holds for any N", () => {
    expect([1, 4, 5, 10, 2, 0, 6, 7, 8].map((c) => countText(c, 4))).toEqual(["one", "N", "1 + N", "2 × (1 + N)", "2", "0", "N + 2", "N + 3", "8"]);
  });

  it("lists requests by route (ids as {id}, /api/public dropped) with their status", () => {
    expect(requestsText({}, 4)).toBe("no request");
    expect(requestsText({ "GET (unmatched)": { "404": 20 } }, 4)).toBe("4 × (1 + N) `GET <unserved path>` (404)");
    expect(
      requestsText({ "GET /api/public/organizations/org_1/data-sources/ds_2": { "404": 8 }, "DELETE /api/public/organizations/org_1": { "404": 1 } }, 4),
    ).toBe("one `DELETE /organizations/{id}` (404), 8 `GET /organizations/{id}/data-sources/{id}` (404)");
  });

  it("renders each row from the observation", () => {
    const cells = lifecycleCells(OBSERVED);
    expect(cells.firstUp).toBe(
      "preview of the new stack: no request; up: one `POST /organizations` (201), N `POST /organizations/{orgId}/data-sources` (201); 1 + N created in the service; said `+(N + 3) ~0 -0`; no warning",
    );
    expect(cells.secondUp).toBe("no request; said `+0 ~0 -0`; no warning");
    expect(cells.refresh).toBe(
      "refresh: 2 × (1 + N) `GET /organizations/{id}` (404); said `+0 ~0 -(1 + N)`; no warning; 0 of the 1 + N objects left in state; then up: no request; 1 + N created in the service; said `+(1 + N) ~0 -0`; no warning",
    );
    expect(cells.importing).toBe("exit 255; no request; no warning; error: Preview failed: resource '<id>' does not exist; 0 imported");
    expect(cells.destroy).toBe("no request; said `+0 ~0 -(N + 3)`; no warning; 0 objects left in state, none removed from the service");
    expect(cells.password).toBe("state file: not in plain text; CLI output: never; `-v=9` logs: 3×");
  });

  it("reads a column of a Markdown table by its header, each row by its first cell", () => {
    const page = "# T\n\n| | A | B |\n|---|---|---|\n| one | a1 | b1 |\n| two \\| three | a2 | b2 |\n\nAfter.\n| x | y |\n";
    expect([...tableColumn(page, "B")]).toEqual([
      ["one", "b1"],
      ["two \\| three", "b2"],
    ]);
    expect(() => tableColumn(page, "C")).toThrow(/no table with a column "C"/);
  });
});
