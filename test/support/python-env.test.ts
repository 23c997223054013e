import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { PINNED_PYTHON_SDK_VERSION, PYTHON_REQUIREMENTS, pythonEnvCacheKey } from "./python-env";

const interpreter = { executable: "/usr/bin/python3.11", version: "3.11.7" };
const requirements = fs.readFileSync(PYTHON_REQUIREMENTS, "utf8");

describe("the Python environment's cache key", () => {
  it("names the pinned Pulumi SDK, the interpreter's version and the platform", () => {
    expect(pythonEnvCacheKey(interpreter)).toMatch(
      new RegExp(`^python-env-pulumi${PINNED_PYTHON_SDK_VERSION.replace(/\./g, "\\.")}-py3\\.11\\.7-${process.platform}-${process.arch}-[0-9a-f]{12}$`),
    );
    expect(pythonEnvCacheKey(interpreter, requirements)).toBe(pythonEnvCacheKey(interpreter));
  });

  it("changes with any pin and with the interpreter", () => {
    const key = pythonEnvCacheKey(interpreter, requirements);
    expect(pythonEnvCacheKey(interpreter, requirements.replace(/^mypy==.*$/m, "mypy==1.0.0"))).not.toBe(key);
    expect(pythonEnvCacheKey(interpreter, requirements.replace(/^pulumi==.*$/m, "pulumi==3.200.0"))).toMatch(/^python-env-pulumi3\.200\.0-/);
    expect(pythonEnvCacheKey({ ...interpreter, executable: "/opt/python/bin/python3.11" }, requirements)).not.toBe(key);
  });

  it("pins every package it installs to one version", () => {
    const packages = requirements.split("\n").filter((line) => line.trim() && !line.startsWith("#"));
    for (const line of packages) expect(line).toMatch(/^[\w.-]+==[\w.]+$/);
    expect(packages.map((line) => line.split("==")[0])).toEqual(expect.arrayContaining(["pulumi", "build", "mypy", "setuptools", "parver", "semver"]));
  });
});
