// @ts-check
/**
 * ESLint, for what the type-check does not catch: typescript-eslint's type-aware rules on every
 * file a tsconfig of the repository covers, the promise rules above all (a promise left floating, an
 * async callback where a void one is expected, an await of what is not a promise, a promise returned
 * from a try without await), and ESLint's own recommended rules everywhere. Layout is Biome's
 * (biome.jsonc), so no rule here is about it. `npm run lint` runs it.
 */
"use strict";
const js = require("@eslint/js");
const { defineConfig, globalIgnores } = require("eslint/config");
const tseslint = require("typescript-eslint");

/** The reference server's failures, plain data made by wireError that its handlers throw and its adapter answers. */
const WIRE_ERROR = { from: /** @type {const} */ ("file"), name: "WireError", path: "src/reference-server/http/envelope.ts" };

module.exports = defineConfig(
  // What the repository builds or generates (sdk/ and examples/typescript/ are held to their generators' output).
  globalIgnores(["**/dist/", "sdk/", "examples/typescript/", "bench/tmp/", "build/", "target/", "test-results/", ".pulumi/"]),
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ["./tsconfig.spec.json", "./bench/tsconfig.json", "./tsconfig.console.json", "./examples/*/tsconfig.json"],
        tsconfigRootDir: __dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // A promise returned from inside a try without await settles after it, past its catch and finally.
      "@typescript-eslint/return-await": ["error", "in-try-catch"],
      // Promise.all of values some of which may be undefined is deliberate (a sync's whenDone, the provider's notices).
      "@typescript-eslint/await-thenable": ["error", { allowMixedPromiseArrays: true }],
      "@typescript-eslint/only-throw-error": ["error", { allow: [WIRE_ERROR] }],
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allow: [WIRE_ERROR] }],
      // A key taken out of an object by destructuring it with a rest (`{ key: _dropped, ...rest }`) is the point.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true, argsIgnorePattern: "^_" }],
      // A resource class takes its outputs' types from an empty interface of its name that extends them; Pulumi sets the outputs.
      "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "with-single-extends" }],
      "@typescript-eslint/no-unsafe-declaration-merging": "off",
      // `a && b()`, `c ? d() : e()` as statements are the house style; a bare `a === b;` is still caught.
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
      // tsc checks every name in the files it covers (checkJs for tools/); the fixtures run in the tests.
      "no-undef": "off",
      // Regexes over YAML's indentation read best with the spaces themselves.
      "no-regex-spaces": "off",
      // An async function without await is how the code implements a promise-returning interface: a throw becomes a rejection.
      "@typescript-eslint/require-await": "off",
      // Its findings are the `!` of indexed reads, redundant only because noUncheckedIndexedAccess is off.
      "@typescript-eslint/no-unnecessary-type-assertion": "off",
      // The require() calls are deliberate: lazy and optional loads, module paths worked out at run time, tools/ in CommonJS.
      "@typescript-eslint/no-require-imports": "off",
      // any comes from JSON.parse, require() and protobuf's getters, each checked or cast where it is read.
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  { files: ["**/*.js"], languageOptions: { sourceType: "commonjs" } },
  {
    // A test reads the JSON it is answered as any, and its assertions check the shape.
    files: ["**/*.test.ts", "test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Programs no tsconfig of the repository covers: the test and bench fixtures, the policy pack.
    files: ["test/fixtures/**/*.js", "bench/fixtures/**", "policy-pack/**"],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
