import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FALLBACK_SLUG, SLUG_MAX_LENGTH, slugify, uniqueSlug } from "./slug";

describe("slugify", () => {
  it.each([
    ["Acme Inc.", "acme-inc"],
    ["  Hello   World  ", "hello-world"],
    ["Crème Brûlée & Co", "creme-brulee-co"],
    ["ÅNGSTRÖM", "angstrom"],
    ["a--b__c", "a-b-c"],
    ["---", FALLBACK_SLUG],
    ["東京", FALLBACK_SLUG],
    ["🚀", FALLBACK_SLUG],
    ["__proto__", "proto"],
    ["x".repeat(100), "x".repeat(SLUG_MAX_LENGTH)],
  ])("%j -> %j", (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it("always yields a non-empty lowercase ASCII slug with single inner hyphens", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (name) => {
        const slug = slugify(name);
        expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
        expect(slug.length).toBeLessThanOrEqual(SLUG_MAX_LENGTH);
      }),
    );
  });
});

describe("uniqueSlug", () => {
  it("appends -2, -3, ... while the slug is taken", () => {
    const taken = new Set<string>();
    const next = (name: string): string => {
      const slug = uniqueSlug(name, (s) => taken.has(s));
      taken.add(slug);
      return slug;
    };
    expect(next("Acme")).toBe("acme");
    expect(next("ACME")).toBe("acme-2");
    expect(next("acme!")).toBe("acme-3");
    // A name that itself slugs to a suffixed form does not collide either.
    expect(next("Acme 2")).toBe("acme-2-2");
    expect(new Set(taken).size).toBe(4);
  });
});
