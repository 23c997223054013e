import { describe, expect, it } from "vitest";
import { REDACTED, redact } from "./redact";

describe("redact", () => {
  it("removes every form of each secret, URL passwords and password settings", () => {
    const password = "p@ss word/1";
    const text = `a ${password} b ${encodeURIComponent(password)} postgresql://u:whatever@h/db password='x y' c`;
    expect(redact(text, [password])).toBe("a [redacted] b [redacted] postgresql://u:[redacted]@h/db password=[redacted] c");
  });

  it("skips a credential that is not a string, such as an empty list, instead of splitting every character", () => {
    expect(redact("port: must be an integer", [[], { c: "x" }, 7, "S3CRET-phrase"])).toBe("port: must be an integer");
  });

  it("removes several secrets at once and leaves other text alone", () => {
    expect(redact("key analytics_key_ABC and S3CRET-phrase", ["analytics_key_ABC", undefined, "", "S3CRET-phrase"])).toBe(`key ${REDACTED} and ${REDACTED}`);
    expect(redact("nothing secret", [undefined])).toBe("nothing secret");
  });

  it("removes each credential of a data source from a sync message", () => {
    expect(redact("a S3CRET b S3CRET postgres://u:zzz@h/db", ["S3CRET"])).toBe("a [redacted] b [redacted] postgres://u:[redacted]@h/db");
    expect(redact("phrase=S3CRET-phrase", ["S3CRET-phrase"])).toBe("phrase=[redacted]");
  });
});
