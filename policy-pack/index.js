"use strict";
// The ready pack: every pulumi-analytics policy at its default enforcement level.
// Run it with `pulumi preview --policy-pack node_modules/pulumi-analytics/policy-pack`.
require("../dist/policy").createPolicyPack();
