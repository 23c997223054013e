// `pulumi up` runs this file: Pulumi calls the exported function and its result becomes the stack outputs.
// The tests run the same program in-process (program.test.ts).
import { analyticsProgram } from "./program";

export = analyticsProgram;
